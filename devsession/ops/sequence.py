"""Ops whose output size depends on their input values: Range, Unique and Where (the
indices of true elements, TF1's one-argument ``tf.where``).

Their static shapes are as TF infers them: a Range of constant bounds has a known length
(and a static value, so a shape built from it still infers), Unique's outputs are
``[None]`` and ``x.shape``, Where's ``[None, rank]``.  Range reads its bounds on the host
(``host_inputs``).  Kernels: ``kernels/reference/sequence.py`` (numpy, the CPU's too) and
``kernels/cuda/host_ops.py``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import graph_of, make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["range", "unique", "where_indices"]


def range_length(start, limit, delta) -> int:
    """The number of elements of ``range(start, limit, delta)`` as TF counts them;
    ValueError for a zero delta or bounds the delta cannot reach."""
    if delta == 0:
        raise ValueError("Requires delta != 0 in range.")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise ValueError(f"Requires start {'<=' if delta > 0 else '>='} limit when delta "
                         f"{'> 0' if delta > 0 else '< 0'}: start={start}, limit={limit}, "
                         f"delta={delta}.")
    if all(isinstance(v, (int, np.integer)) for v in (start, limit, delta)):
        return (abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta))
    return int(math.ceil(abs((limit - start) / delta)))


def range_values(start, limit, delta, dtype) -> np.ndarray:
    n = range_length(start.item(), limit.item(), delta.item())
    return (start + np.arange(n, dtype=dtype) * delta).astype(dtype)


def _range(inputs, attrs, node):
    for x in inputs:
        if x.shape.ndims not in (None, 0):
            raise InferError(f"Op '{node}': range bounds must be scalars, but '{x.name}' has "
                             f"shape {x.shape}.")
        if not x.dtype.is_numeric:
            raise TypeError(f"Op '{node}': range bounds must be numbers, not {x.dtype.name}.")
    dtype = inputs[0].dtype
    if any(x.dtype != dtype for x in inputs):
        raise TypeError(f"Op '{node}': start, limit and delta must have one dtype, got "
                        f"{[x.dtype.name for x in inputs]}.")
    values = [x.value for x in inputs]
    if any(v is None for v in values):
        return dtype, TensorShape([None])
    try:
        return dtype, TensorShape([range_length(*[np.asarray(v).item() for v in values])])
    except ValueError as e:
        raise InferError(f"Op '{node}': {e}") from None


def _range_value(op, value_of):
    values = [value_of(t) for t in op.inputs]
    if any(v is None for v in values):
        return None
    return range_values(*[np.asarray(v) for v in values], op.outputs[0].dtype.np)


def _unique(inputs, attrs, node):
    (x,) = inputs
    if x.shape.ndims not in (None, 1):
        raise InferError(f"Op '{node}': unique needs a 1-D input, but '{x.name}' has shape "
                         f"{x.shape}.")
    out_idx = dtypes.as_dtype(attrs["out_idx"])
    if out_idx not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Op '{node}': out_idx must be int32 or int64, not {out_idx.name}.")
    return [(x.dtype, TensorShape([None])), (out_idx, TensorShape([x.shape[0]
                                                                  if x.shape.ndims else None]))]


def _where(inputs, attrs, node):
    (x,) = inputs
    if x.dtype.is_string:
        raise TypeError(f"Op '{node}': where needs a bool or numeric input, not string.")
    return dtypes.int64, TensorShape([None, x.shape.ndims])


register_op(OpDef("Range", _range, 3, host_inputs=(0, 1, 2), static_value=_range_value))
register_op(OpDef("Unique", _unique, 1, attr_defaults={"out_idx": dtypes.int32}))
register_op(OpDef("Where", _where, 1))
not_differentiable("Range", "Unique", "Where")  # index and string outputs: no gradient


def range(start, limit=None, delta=1, dtype=None, name="range") -> Tensor:  # noqa: A001
    """``[start, start + delta, ...)`` up to ``limit`` (exclusive), as TF1's ``tf.range``;
    ``range(n)`` counts from 0.  Python ints give int32, a float anywhere float32."""
    if limit is None:
        start, limit = 0, start
    graph = graph_of(start, limit, delta)
    bounds = [convert_to_tensor(v, graph=graph) if not isinstance(v, (int, float, np.number))
              else v for v in (start, limit, delta)]
    if dtype is None:
        kinds = [b.dtype if isinstance(b, Tensor) else dtypes.as_dtype(
            np.float32 if isinstance(b, (float, np.floating)) else np.int32) for b in bounds]
        dtype = next((k for k in kinds if k.is_floating), None) or next(
            (k for k in kinds if k == dtypes.int64), dtypes.int32)
    dtype = dtypes.as_dtype(dtype)
    tensors = []
    for b in bounds:
        if isinstance(b, Tensor):
            tensors.append(b if b.dtype == dtype else make_op("Cast", [b], {"DstT": dtype}))
        else:
            tensors.append(convert_to_tensor(np.asarray(b).astype(dtype.np), graph=graph))
    return make_op("Range", tensors, name=name)


def unique(x, out_idx=dtypes.int32, name=None) -> tuple[Tensor, Tensor]:
    """``(y, idx)``: the distinct values of 1-D ``x`` in order of first appearance, and
    for each element of ``x`` the index of its value in ``y`` (TF1's ``tf.unique``)."""
    x = convert_to_tensor(x)
    op = x.graph.create_op("Unique", [x], {"out_idx": dtypes.as_dtype(out_idx)},
                           name=name or "Unique")
    return op.outputs[0], op.outputs[1]


def where_indices(condition, name=None) -> Tensor:
    """The coordinates of the true (non-zero) elements of ``condition``, an int64 matrix
    of shape ``[num_true, rank]`` in row-major order: TF1's ``tf.where(condition)``."""
    return make_op("Where", [convert_to_tensor(condition)], name=name or "Where")
