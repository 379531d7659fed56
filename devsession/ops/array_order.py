"""Ordering along an axis: Roll (``tf.roll``), LowerBound/UpperBound (``tf.searchsorted``)
and TF's composites ``tf.sort`` and ``tf.argsort``.

* **Roll(input, shift, axis)** shifts elements cyclically; ``shift`` and ``axis`` are int
  scalars or vectors of one length (read on the host), an axis may repeat (its shifts
  add).  Static shape: the input's; a rank-0 input or shift/axis of different static
  lengths is a ValueError when built, TF's run-time errors are InvalidArgumentErrors.
* **LowerBound/UpperBound(sorted_inputs, values)**: per row of the 2-D inputs, the first
  index whose element is >= (> for UpperBound) each value; ``out_type`` int32 or int64.
  Rows of different static counts build (TF's shape function checks only the ranks) and
  fail when run, with TF's 'Leading dim_size...' InvalidArgumentError.
  ``searchsorted`` reshapes N-D operands to rows around them, as TF's does.
* ``sort``/``argsort`` are TF's: ``TopKV2`` with k the axis' size (stable: ties keep
  their order), the axis transposed last when it is not; ascending order sorts
  ``-x`` (``~x`` for signed integers, computed as ``-x - 1``, so the minimum survives;
  ``max - x`` for unsigned ones).  Gradients: Roll's rolls back; the sorts' come from
  TopKV2's.  Kernels: ``kernels/reference/array_order.py`` (every device).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from .array import reshape, transpose
from .array_fill import shape as shape_of
from .array_index import strided_slice
from .common import make_op
from .elementwise import negative, subtract
from .registry import InferError, OpDef, not_differentiable, register_gradient, register_op

__all__ = ["roll", "sort", "argsort", "searchsorted", "lower_bound", "upper_bound"]

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _roll(inputs, attrs, node):
    x, shift, axis = inputs
    if x.shape.ndims == 0:
        raise InferError(f"Op '{node}': Shape must be at least rank 1 but is rank 0 for "
                         f"'{x.name}'.")
    for spec, what in ((shift, "shift"), (axis, "axis")):
        if spec.dtype not in _INDEX_DTYPES:
            raise TypeError(f"Op '{node}': {what} must be int32 or int64, not "
                            f"{spec.dtype.name}.")
        if spec.shape.ndims not in (None, 0, 1):
            raise InferError(f"Op '{node}': {what} must be a scalar or a vector, but "
                             f"'{spec.name}' has shape {spec.shape}.")
    if not shift.shape.is_compatible_with(axis.shape):
        raise InferError(f"Op '{node}': shift and axis must have one shape, but are "
                         f"{shift.shape} and {axis.shape}.")
    return x.dtype, x.shape


def _bound(inputs, attrs, node):
    sorted_inputs, values = inputs
    for spec in inputs:
        if spec.shape.ndims not in (None, 2):
            raise InferError(f"Op '{node}': Shape must be rank 2 but is rank "
                             f"{spec.shape.ndims} for '{spec.name}'.")
    if sorted_inputs.dtype != values.dtype:
        raise TypeError(f"Op '{node}': sorted_inputs and values must have one dtype, got "
                        f"{sorted_inputs.dtype.name} and {values.dtype.name}.")
    out_type = dtypes.as_dtype(attrs["out_type"])
    if out_type not in _INDEX_DTYPES:
        raise TypeError(f"Op '{node}': out_type must be int32 or int64, not {out_type.name}.")
    return out_type, values.shape


register_op(OpDef("Roll", _roll, 3, host_inputs=(1, 2)))
for _bound_op in ("LowerBound", "UpperBound"):
    register_op(OpDef(_bound_op, _bound, 2, attr_defaults={"out_type": dtypes.int32}))
not_differentiable("LowerBound", "UpperBound")   # integer positions


@register_gradient("Roll")
def _roll_grad(op, grad):
    _, shift, axis = op.inputs
    return [roll(grad, negative(shift), axis), None, None]


def roll(input, shift, axis, name=None) -> Tensor:  # noqa: A002  (TF's argument names)
    """``input`` shifted cyclically by ``shift`` along ``axis`` (TF's ``tf.roll``)."""
    x = convert_to_tensor(input)
    s = convert_to_tensor(shift, dtype_hint=dtypes.int32, graph=x.graph)
    a = convert_to_tensor(axis, dtype_hint=dtypes.int32, graph=x.graph)
    return make_op("Roll", [x, s, a], name=name or "Roll")


def lower_bound(sorted_inputs, values, out_type=dtypes.int32, name=None) -> Tensor:
    """LowerBound of rows (see the module docstring)."""
    return _bound_node("LowerBound", sorted_inputs, values, out_type, name)


def upper_bound(sorted_inputs, values, out_type=dtypes.int32, name=None) -> Tensor:
    """UpperBound of rows (see the module docstring)."""
    return _bound_node("UpperBound", sorted_inputs, values, out_type, name)


def _bound_node(op, sorted_inputs, values, out_type, name) -> Tensor:
    s = convert_to_tensor(sorted_inputs)
    v = convert_to_tensor(values, dtype_hint=s.dtype, graph=s.graph)
    return make_op(op, [s, v], {"out_type": dtypes.as_dtype(out_type)}, name=name or op)


def _last(size_vector: Tensor) -> Tensor:
    return strided_slice(size_vector, [-1], [0], [1], end_mask=1, shrink_axis_mask=1)


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32,
                 name=None) -> Tensor:
    """For each value, its insertion index into the innermost rows of
    ``sorted_sequence`` that keeps them sorted: before equal elements (``side="left"``)
    or after them ("right"), as TF's ``tf.searchsorted``."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = '{side}'.")
    with name_scope(name or "searchsorted"):
        s = convert_to_tensor(sorted_sequence, name="sorted_sequence")
        v = convert_to_tensor(values, dtype_hint=s.dtype, graph=s.graph, name="values")
        for t in (s, v):
            if t.shape.ndims == 0:
                raise ValueError(f"searchsorted needs operands of rank >= 1, but "
                                 f"'{t.name}' is a scalar.")
        rows_s = reshape(s, [-1, _last(shape_of(s))])
        rows_v = reshape(v, [-1, _last(shape_of(v))])
        build = upper_bound if side == "right" else lower_bound
        return reshape(build(rows_s, rows_v, out_type), shape_of(v))


# --- sort and argsort: TopKV2 composites, as TF's sort_ops.py ---------------------------------

def _order_key(x: Tensor) -> Tensor:
    """A value whose descending order is ``x``'s ascending order (its own inverse)."""
    if x.dtype.is_unsigned:
        return subtract(np.array(x.dtype.max, x.dtype.np), x)
    if x.dtype.is_integer:
        return subtract(negative(x), np.array(1, x.dtype.np))   # ~x, without overflow
    return negative(x)


def _sorted(values, axis, direction, return_indices: bool):
    from .top_k import top_k

    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. "
                         f"Received: direction={direction}")
    if isinstance(axis, Tensor):
        if axis.shape.ndims not in (None, 0) or constant_value(axis) is None:
            raise ValueError(f"Argument `axis` must be a constant scalar. Received: "
                             f"axis={axis}.")
        axis = constant_value(axis)
    if np.ndim(axis) != 0:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    axis = int(axis)
    x = convert_to_tensor(values, name="values")
    rank = x.shape.ndims
    if rank is None:
        if axis != -1:
            raise ValueError("sort along an axis other than -1 needs an input of known rank.")
    elif not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} is out of range for a tensor of rank "
                         f"{rank}.")
    ascending = direction == "ASCENDING"
    key = _order_key(x) if ascending else x
    perm = None
    if rank is not None and axis % rank != rank - 1:
        a = axis % rank
        perm = list(range(rank))
        perm[a], perm[-1] = rank - 1, a          # a swap: its own inverse
        key = transpose(key, perm)
    k = _last(shape_of(key))
    picked = top_k(key, k)
    out = picked.indices if return_indices else picked.values
    if perm is not None:
        out = transpose(out, perm)
    if ascending and not return_indices:
        out = _order_key(out)
    return out


def sort(values, axis=-1, direction="ASCENDING", name=None) -> Tensor:
    """``values`` sorted along ``axis`` (a constant), as TF's ``tf.sort``."""
    with name_scope(name or "sort"):
        return _sorted(values, axis, direction, return_indices=False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None) -> Tensor:
    """The int32 indices that sort ``values`` along ``axis``, as TF's ``tf.argsort``;
    always stable (equal elements keep their order), so ``stable`` changes nothing."""
    del stable
    with name_scope(name or "argsort"):
        return _sorted(values, axis, direction, return_indices=True)
