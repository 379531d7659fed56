"""``_RunTimeAttr(x, value)``: an op whose attr is an input computed at run time.

TF passes a reduction's axes and a Transpose's perm as inputs; devsession's Sum, Mean,
Max, Min, Prod, All, Any, EuclideanNorm and Transpose take them as attrs, which the
GraphDef importer (``tf_graph.py``) folds in when the graph knows the value.  TF's
gradients compute them at run time (a broadcasting op's gradient sums over
``BroadcastGradientArgs``'s axes when a batch dimension is None; a Transpose's gradient
transposes by ``InvertPermutation(perm)``), and such a node imports as this op: attr
``op`` names the wrapped op, ``attr`` the attr its second input gives, and the wrapped
op's other attrs (``keepdims``) come along.  ``value`` is read on the host; the kernel
builds the wrapped op's kernel for each value it sees (``kernels/reference/
run_time_attrs.py``), so values, errors and devices are the wrapped op's.

Static shapes are TF's for an unknown attr: a reduction with ``keepdims`` keeps the
rank, without it loses one axis per axis given (when the number of axes and the rank
are known; else the shape is unknown); a Transpose keeps the rank.  Gradients are TF's,
computed at run time too: a Transpose's by the inverse permutation (``_TransposeGrad``),
Sum's, Mean's, Max's and Min's by broadcasting over the input's shape with the reduced
axes kept as 1s (``reduced_shape``); the other reductions' are ``LookupError``, as for an
op without one.

``ds.transpose`` builds it for a perm only a run knows (a placeholder, a perm computed
from ``tf.rank(x)``, ``matrix_transpose`` or ``transpose`` of an input of unknown rank),
the ``ds.reduce_*`` builders for an axis only a run knows, Tile's gradient for an input
of unknown rank.
"""

from __future__ import annotations

from .. import dtypes
from ..tensor_shape import TensorShape
from .reduce import COMPLEX_REDUCTIONS
from .registry import InferError, OpDef, register_gradient, register_op
from .run_time_attr_name import RUN_TIME_ATTR

__all__ = ["RUN_TIME_ATTR", "RUN_TIME_ATTR_OPS"]

# wrapped op -> the attr its second input gives
RUN_TIME_ATTR_OPS = {**{op: "axis" for op in ("Sum", "Mean", "Max", "Min", "Prod", "All",
                                              "Any", "EuclideanNorm")},
                     "Transpose": "perm"}


def _infer(inputs, attrs, node):
    x, value = inputs
    op = attrs["op"]
    if RUN_TIME_ATTR_OPS.get(op) != attrs.get("attr"):
        raise InferError(f"Op '{node}': {RUN_TIME_ATTR} cannot give {op} its "
                         f"{attrs.get('attr')!r} attr at run time.")
    if value.dtype not in (dtypes.int32, dtypes.int64) or value.shape.ndims not in (None, 0, 1):
        raise TypeError(f"Op '{node}' ({op}): '{value.name}' must be an int32 or int64 "
                        f"scalar or vector, not {value.dtype.name} of shape {value.shape}.")
    rank = x.shape.ndims
    if op == "Transpose":
        if rank is None and value.shape.ndims == 1:
            rank = value.shape.dims[0]
        return x.dtype, TensorShape(None if rank is None else [None] * rank)
    if op in ("All", "Any"):
        if not x.dtype.is_bool:
            raise TypeError(f"Op '{node}' ({op}) reduces bool tensors, but '{x.name}' is "
                            f"{x.dtype.name}.")
    elif not x.dtype.is_numeric and not (x.dtype.is_complex and op in COMPLEX_REDUCTIONS):
        raise TypeError(f"Op '{node}' ({op}) needs a numeric input, but '{x.name}' is "
                        f"{x.dtype.name}.")
    keep = bool(attrs.get("keepdims", False))
    if rank is not None and not keep and value.shape.ndims is not None:
        count = 1 if value.shape.ndims == 0 else value.shape.dims[0]
        if count is not None and count <= rank:  # TF's: one axis fewer per axis given
            return x.dtype, TensorShape([None] * (rank - count))
    return x.dtype, TensorShape([None] * rank if keep and rank is not None else None)


register_op(OpDef(RUN_TIME_ATTR, _infer, 2, host_inputs=(1,)))


@register_gradient(RUN_TIME_ATTR)
def _run_time_attr_grad(op, dy):
    wrapped = op.attrs["op"]
    if wrapped == "Transpose":
        from .array import transpose
        from .array_sets import invert_permutation

        return [transpose(dy, invert_permutation(op.inputs[1])), None]
    if wrapped not in ("Sum", "Mean", "Max", "Min"):
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: "
                          f"{RUN_TIME_ATTR} of {wrapped}).")
    return [_reduction_grad(op, dy, wrapped), None]


def _reduction_grad(op, dy, wrapped: str):
    """TF's _SumGrad, _MeanGrad and _MinOrMaxGrad over axes a run gives: ``dy`` with the
    reduced axes kept as 1s (``_kept_shape``), broadcast back over the input; a Mean's
    divided by the count of each reduced group, a Max's (Min's) shared among the
    elements equal to the extreme."""
    from .array import reshape
    from .array_fill import broadcast_to, shape, size
    from .elementwise import cast, divide, equal, multiply

    x, axes = op.inputs
    sizes = shape(x)
    kept = _kept_shape(sizes, axes)
    grad = broadcast_to(reshape(dy, kept), sizes)
    if wrapped == "Mean":
        count = divide(size(x), size(op.outputs[0]))
        return divide(grad, cast(count, grad.dtype))
    if wrapped == "Sum":
        return grad
    chosen = cast(equal(broadcast_to(reshape(op.outputs[0], kept), sizes), x), grad.dtype)
    counts = op.graph.create_op(RUN_TIME_ATTR, [chosen, axes],
                                {"op": "Sum", "attr": "axis", "keepdims": True},
                                name="Sum").outputs[0]
    return multiply(divide(chosen, counts), grad)


def _kept_shape(sizes, axes):
    """TF's ``reduced_shape``: ``sizes`` with each of ``axes`` (negative ones counted
    from the end) set to 1."""
    from .array import expand_dims, reshape
    from .array_fill import ones_like, size
    from .elementwise import cast, equal, floormod, where
    from .reduce import reduce_any
    from .sequence import range as range_

    rank = size(sizes)
    axes = floormod(reshape(cast(axes, dtypes.int32), [-1]), rank)
    reduced = reduce_any(equal(expand_dims(range_(rank), 1), expand_dims(axes, 0)), axis=1)
    return where(reduced, ones_like(sizes), sizes)
