"""TF1's ``SparseApply<X>`` ops: an optimizer's update of only the rows of a variable
(and of its slots) that an ``IndexedSlices`` gradient names, so TF-written training graphs
with embeddings import and train.

Each is TF's dense ``Apply<X>`` (``ops/training.py``) with its gradient's rows and an
``indices`` vector (int32 or int64) right after the gradient, in TF's input order:
``SparseApplyMomentum(var, accum, lr, grad, indices, momentum)``,
``SparseApplyFtrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power)``,
``SparseApplyAdagradDA(var, gradient_accumulator, gradient_squared_accumulator, grad,
indices, lr, l1, l2, global_step)`` (``global_step`` int64)...  Row
``indices[k]`` of the variable and of every slot takes the dense formula with row ``k``
of ``grad``; the other rows do not change (where the dense step would still move them:
momentum's decay, FTRL's recomputed value).  Repeated indices apply one after another,
in order, as TF's kernels do (TF's optimizers sum them first; a raw op may not).  The
attrs are the dense op's (``use_locking``, ``use_nesterov``, ``update_slots``,
``multiply_linear_by_lr``, the last refused when true); the output, when fetched, is the
variable's new value.  An index outside ``[0, rows)`` is ``InvalidArgumentError`` naming
the node when it runs.  TF's ``ResourceSparseApply<X>`` graphs import onto these
(``tf_resource_import.py``).  No gradient flows through them.
"""

from __future__ import annotations

from ..dtypes import int32, int64
from ..graph import Tensor, convert_to_tensor
from .registry import InferError, OpDef, not_differentiable, register_op
from .state import variable_ref
from .training import STEP_INPUTS, TRAINING_OPS, attr_defaults, check_step, refuse_linear_by_lr

__all__ = ["SPARSE_TRAINING_OPS", "sparse_inputs", "sparse_apply"]

# SparseApply<X> -> the dense op whose formula it applies to the rows (TF has no sparse
# GradientDescent, a ScatterSub, nor Adam, whose TF1 sparse step is scatters)
SPARSE_TRAINING_OPS = {f"Sparse{op}": op for op in TRAINING_OPS
                       if op not in ("ApplyGradientDescent", "ApplyAdam")}


def sparse_inputs(op_type: str) -> tuple:
    """(input names in TF's order, how many leading inputs are variable references,
    the position of ``grad``) of ``SparseApply<X>`` ``op_type``."""
    names, num_refs = TRAINING_OPS[SPARSE_TRAINING_OPS[op_type]]
    names = tuple("grad" if n == "delta" else n for n in names)
    at = names.index("grad")
    return names[:at + 1] + ("indices",) + names[at + 1:], num_refs, at


def _infer(op_type):
    names, num_refs, grad_at = sparse_inputs(op_type)

    def infer(inputs, attrs, node):
        refuse_linear_by_lr(attrs, node, op_type)
        var, indices = inputs[0], inputs[grad_at + 1]
        if not var.dtype.is_floating:
            raise TypeError(f"Op '{node}' ({op_type}) updates floating-point variables, not "
                            f"{var.dtype.name} '{var.name}'.")
        if indices.dtype not in (int32, int64):
            raise TypeError(f"Op '{node}' ({op_type}): indices '{indices.name}' must be int32 "
                            f"or int64, not {indices.dtype.name}.")
        if var.shape.ndims == 0:
            raise InferError(f"Op '{node}' ({op_type}): var '{var.name}' must be at least 1 "
                             f"dimensional.")
        if not indices.shape.is_compatible_with([None]):
            raise InferError(f"Op '{node}' ({op_type}): indices '{indices.name}' must be "
                             f"one-dimensional, got shape {indices.shape}.")
        grad_shape = None              # [len(indices), *var.shape[1:]] where known
        if var.shape.ndims is not None:
            rows = indices.shape[0] if indices.shape.ndims == 1 else None
            grad_shape = [rows, *var.shape.as_list()[1:]]
        for k, (name, t) in enumerate(zip(names, inputs)):
            if name in ("var", "indices"):
                continue
            if name in STEP_INPUTS:            # AdagradDA's global_step: an int64 scalar
                check_step(t, name, node, op_type)
                continue
            if t.dtype != var.dtype:
                raise TypeError(f"Op '{node}' ({op_type}): input {name} '{t.name}' is "
                                f"{t.dtype.name}, but variable '{var.name}' is "
                                f"{var.dtype.name}.")
            if k < num_refs:
                shape, what = var.shape, f"variable '{var.name}' {var.shape}"
            elif name == "grad":
                shape, what = grad_shape, "indices' length by a row of the variable"
            else:
                shape, what = (), "a scalar"
            if shape is not None and not t.shape.is_compatible_with(shape):
                raise InferError(f"Op '{node}' ({op_type}): {name} '{t.name}' has shape "
                                 f"{t.shape}, not {what}.")
        return var.dtype, var.shape
    return infer


for _op_type, _dense in SPARSE_TRAINING_OPS.items():
    _names, _num_refs, _grad_at = sparse_inputs(_op_type)
    register_op(OpDef(_op_type, _infer(_op_type), len(_names),
                      ref_inputs=tuple(range(_num_refs)), stateful=True,
                      attr_defaults=attr_defaults(_dense), host_inputs=(_grad_at + 1,)))
not_differentiable(*SPARSE_TRAINING_OPS)


def sparse_apply(op_type: str, *inputs, name=None, **attrs) -> Tensor:
    """A ``SparseApply<X>`` node: ``inputs`` in TF's order (the variable and its slots,
    ``ds.Variable``s, first), ``attrs`` TF's (``use_nesterov=True``...); the variable's
    new value."""
    if op_type not in SPARSE_TRAINING_OPS:
        raise ValueError(f"{op_type!r} is not one of {sorted(SPARSE_TRAINING_OPS)}.")
    names, num_refs, grad_at = sparse_inputs(op_type)
    if len(inputs) != len(names):
        raise TypeError(f"{op_type} takes {len(names)} inputs ({', '.join(names)}), not "
                        f"{len(inputs)}.")
    refs = [variable_ref(r, op_type) for r in inputs[:num_refs]]
    graph, dtype = refs[0].graph, refs[0].dtype
    hints = {"indices": int32, **dict.fromkeys(STEP_INPUTS, int64)}
    values = [convert_to_tensor(v, dtype_hint=hints.get(n, dtype), graph=graph)
              for n, v in zip(names[num_refs:], inputs[num_refs:])]
    return graph.create_op(op_type, refs + values, attrs, name=name or op_type).outputs[0]
