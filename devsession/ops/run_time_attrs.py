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
are known; else the shape is unknown); a Transpose keeps the rank.  Its gradient is the
wrapped op's only for Transpose (the inverse permutation, computed at run time too, as
TF's ``_TransposeGrad``); a reduction's is ``LookupError``, as for an op without one.

``ds.transpose`` builds it for a perm only a run knows (a placeholder, a perm computed
from ``tf.rank(x)``, ``matrix_transpose`` or ``transpose`` of an input of unknown rank).
"""

from __future__ import annotations

from .. import dtypes
from ..tensor_shape import TensorShape
from .reduce import COMPLEX_REDUCTIONS
from .registry import InferError, OpDef, register_gradient, register_op

__all__ = ["RUN_TIME_ATTR", "RUN_TIME_ATTR_OPS"]

RUN_TIME_ATTR = "_RunTimeAttr"
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
    if op.attrs["op"] != "Transpose":
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: "
                          f"{RUN_TIME_ATTR} of {op.attrs['op']}).")
    from .array import transpose
    from .array_sets import invert_permutation

    return [transpose(dy, invert_permutation(op.inputs[1])), None]
