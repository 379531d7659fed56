"""Reductions: Sum, Mean, Max, Min (``reduce_*``) and ArgMax.

``axis`` attrs are sorted, non-negative axes, resolved when the node is built.
Kernels: ``kernels/{reference,cpu,cuda}/reduce.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import make_op, normalise_axis, normalised_axis, numeric
from .registry import InferError, OpDef, register_op

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax"]

REDUCTIONS = ("Sum", "Mean", "Max", "Min")


def _reduce(inputs, attrs, node):
    (x,) = inputs
    numeric(x, node)
    axis, keep = attrs["axis"], attrs["keepdims"]
    dtype = x.dtype
    if x.shape.ndims is None:
        return dtype, TensorShape(None)
    if keep:
        dims = [1 if i in axis else d for i, d in enumerate(x.shape.dims)]
    else:
        dims = [d for i, d in enumerate(x.shape.dims) if i not in axis]
    return dtype, TensorShape(dims)


def _argmax(inputs, attrs, node):
    (x,) = inputs
    numeric(x, node)
    if x.shape.ndims is None:
        return dtypes.int64, TensorShape(None)
    return dtypes.int64, TensorShape(d for i, d in enumerate(x.shape.dims) if i != attrs["axis"])


for _name in REDUCTIONS:
    register_op(OpDef(_name, _reduce, 1, attr_defaults={"keepdims": False}))
register_op(OpDef("ArgMax", _argmax, 1))


def _axes(x: Tensor, axis, name: str) -> tuple:
    rank = x.shape.ndims
    if axis is None:
        if rank is None:
            raise ValueError(f"Reducing '{x.name}' over all axes needs a known rank; "
                             f"pass axis= explicitly.")
        return tuple(range(rank))
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    try:
        out = tuple(sorted({normalise_axis(int(a), rank, name) for a in axes}))
    except InferError as e:
        raise ValueError(str(e)) from None
    return out


def _reduction(op_type):
    def build(input_tensor, axis=None, keepdims=False, name=None, keep_dims=None):
        x = convert_to_tensor(input_tensor)
        keep = bool(keep_dims if keep_dims is not None else keepdims)
        return make_op(op_type, [x], {"axis": _axes(x, axis, name or op_type), "keepdims": keep},
                   name)
    build.__name__ = f"reduce_{op_type.lower()}"
    build.__doc__ = f"{op_type} over ``axis`` (all axes when None), as tf.reduce_*."
    return build


reduce_sum = _reduction("Sum")
reduce_mean = _reduction("Mean")
reduce_max = _reduction("Max")
reduce_min = _reduction("Min")


def argmax(input, axis=None, name=None, output_type=dtypes.int64) -> Tensor:  # noqa: A002
    """Index of the largest value along ``axis`` (default 0, as TF1), as int64."""
    x = convert_to_tensor(input)
    axis = normalised_axis(0 if axis is None else axis, x.shape.ndims, name or "ArgMax")
    if dtypes.as_dtype(output_type) != dtypes.int64:
        raise TypeError("argmax returns int64; cast the result for another type.")
    return make_op("ArgMax", [x], {"axis": axis}, name)
