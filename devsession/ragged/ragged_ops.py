"""``tf.ragged``'s functions, composed as TF's Python composes them:

* ``constant(pylist)`` / ``constant_value``: nested Python lists split into flat values
  and row splits on the host (numpy), then constants (or a RaggedTensorValue);
* ``range``: TF's ``RaggedRange`` op;
* ``placeholder(dtype, ragged_rank, value_shape)``: placeholders for the flat values and
  each level's splits, fed together from a RaggedTensorValue;
* ``row_splits_to_segment_ids`` and ``segment_ids_to_row_splits`` (``segment_ids.py``);
* ``map_flat_values(op, *args)``: ``op`` on the flat values of ragged arguments that
  share one row partition (TF's assertion checks it at run time when their splits are
  different tensors);
* ``boolean_mask(data, mask)``: the kept values, ragged where the mask has rank above 1;
* ``stack_dynamic_partitions``: DynamicPartition's parts as the rows of one ragged tensor.
* ``gather_rows(rt, indices)``: rows picked by index (each picked row's value positions a
  ``RaggedRange`` from its start to its limit, the values gathered there), as TF's
  ``ragged_gather_ops`` composes it without its dedicated op.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes
from ..graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from ..ops.array import concat, identity, reshape
from ..ops.array_fill import shape as shape_of
from ..ops.assertions import assert_equal
from ..ops.array_index import unsorted_segment_sum
from ..ops.elementwise import cast
from ..ops.gather_options import gather
from ..ops.masking import boolean_mask as dense_boolean_mask
from ..ops.partition import bincount, dynamic_partition
from ..ops.reduce import reduce_prod, reduce_sum
from ..ops.sequence import range as range_op
from ..ops.state import constant as dense_constant, placeholder as dense_placeholder
from .ragged_tensor import RaggedTensor, is_ragged, ragged_from_value
from .segment_ids import row_splits_to_segment_ids, segment_ids_to_row_splits
from .ragged_tensor_value import RaggedTensorValue

__all__ = ["constant", "constant_value", "range", "placeholder", "row_splits_to_segment_ids",
           "segment_ids_to_row_splits", "map_flat_values", "boolean_mask",
           "stack_dynamic_partitions", "ragged_from_value", "gather_rows"]


# --- constants ------------------------------------------------------------------------

def _depths(pylist, depth=0):
    """(depth of the scalars or None, deepest list nesting), TF's ValueError when the
    scalars are at different depths."""
    if not isinstance(pylist, (list, tuple)) and np.ndim(pylist) == 0:
        return depth, depth
    if isinstance(pylist, np.ndarray):
        return depth + pylist.ndim, depth + pylist.ndim
    scalar, deepest = None, depth + 1
    for item in pylist:
        s, d = _depths(item, depth + 1)
        if s is not None:
            if scalar is not None and s != scalar:
                raise ValueError("all scalar values must have the same nesting depth")
            scalar = s
        deepest = max(deepest, d)
    return scalar, deepest


def _split(pylist, ragged_rank, inner_shape, dtype):
    """(flat values array, [row splits per level]) of a nested list."""
    nested_splits, values = [], list(pylist)
    for _ in builtins.range(ragged_rank):
        splits, flat = [0], []
        for row in values:
            splits.append(splits[-1] + len(row))
            flat.extend(row)
        nested_splits.append(np.array(splits, np.int64))
        values = flat
    if values:
        array = np.array(values, dtype=None if dtype is None else dtype.np)
    else:
        array = np.zeros((0,) + tuple(inner_shape or ()),
                         np.float32 if dtype is None else dtype.np)
    if inner_shape is not None and tuple(array.shape[1:]) != tuple(inner_shape):
        try:
            array = array.reshape((len(values),) + tuple(inner_shape))
        except ValueError:
            raise ValueError(f"Too many elements provided. Needed at most "
                             f"{int(np.prod(inner_shape))}, but received "
                             f"{array.size // max(len(values), 1)}") from None
    return array, nested_splits


def _ragged_parts(pylist, dtype, ragged_rank, inner_shape):
    if is_ragged(pylist):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if not isinstance(pylist, (list, tuple)) and np.ndim(pylist) == 0:
        if ragged_rank:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"ragged_rank={ragged_rank}")
        return None
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _depths(pylist)
    if scalar_depth is not None:
        if max_depth > scalar_depth:
            raise ValueError(f"Invalid pylist={pylist!r}: empty list nesting is greater "
                             f"than scalar value nesting")
        if ragged_rank is not None and max_depth < ragged_rank:
            raise ValueError(f"Invalid pylist={pylist}, max depth smaller than "
                             f"ragged_rank={ragged_rank}")
    inner = () if inner_shape is None else tuple(inner_shape)
    if ragged_rank == 0 or (ragged_rank is None and max_depth - len(inner) < 2):
        return None
    if ragged_rank is None:
        depth = max_depth if scalar_depth is None else scalar_depth
        ragged_rank = max(1, depth - 1 - len(inner))
    return _split(pylist, ragged_rank, inner_shape, dtype)


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=dtypes.int64):
    """TF's ``tf.ragged.constant``: a RaggedTensor of constants (a dense constant when
    ``pylist`` has no ragged dimension); ValueError for inconsistent nesting."""
    with name_scope(name or "RaggedConstant"):
        parts = _ragged_parts(pylist, dtype, ragged_rank, inner_shape)
        if parts is None:
            return dense_constant(pylist, dtype=dtype, shape=inner_shape)
        values, nested_splits = parts
        flat = dense_constant(values.tolist() if values.dtype.kind != "O" else values,
                              dtype=dtype, shape=values.shape) if values.size else \
            dense_constant(values, dtype=dtype)
        splits_dtype = dtypes.as_dtype(row_splits_dtype)
        splits = [dense_constant(s, dtype=splits_dtype) for s in nested_splits]
        return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)


def constant_value(pylist, dtype=None, ragged_rank=None, inner_shape=None,
                   row_splits_dtype="int64"):
    """TF's ``tf.ragged.constant_value``: the same as a RaggedTensorValue (numpy)."""
    parts = _ragged_parts(pylist, dtype, ragged_rank, inner_shape)
    if parts is None:
        return np.array(pylist, dtype=None if dtype is None else dtypes.as_dtype(dtype).np)
    values, nested_splits = parts
    result = values
    for splits in reversed(nested_splits):
        result = RaggedTensorValue(result, splits.astype(dtypes.as_dtype(row_splits_dtype).np))
    return result


# --- ranges and placeholders ----------------------------------------------------------

def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001
          row_splits_dtype=dtypes.int64) -> RaggedTensor:
    """TF's ``tf.ragged.range``: one range per row (RaggedRange)."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if limits is None:
        starts, limits = 0, starts
    with name_scope(name or "RaggedRange"):
        want = dtypes.as_dtype(dtype) if dtype is not None else _common_dtype(
            [starts, limits, deltas])
        starts, limits, deltas = (
            cast(v, want) if isinstance(v, Tensor) and v.dtype != want else
            (v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=want, name=n))
            for v, n in zip((starts, limits, deltas), ("starts", "limits", "deltas")))
        op = starts.graph.create_op("RaggedRange", [starts, limits, deltas],
                                    {"Tsplits": row_splits_dtype})   # T: the inputs'
        splits, values = op.outputs
        return RaggedTensor.from_row_splits(values, splits, validate=False)


def _common_dtype(values):
    """The widest of the arguments' dtypes, as TF's ``_infer_matching_dtype``."""
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
    found = []
    for v in values:
        if isinstance(v, Tensor):
            found.append(v.dtype)
        else:
            array = np.asarray(v)
            found.append(dtypes.float32 if array.dtype.kind == "f" else dtypes.int32)
    tensor_types = [v.dtype for v in values if isinstance(v, Tensor)]
    pool = tensor_types or found
    return max(pool, key=lambda d: order.index(d) if d in order else -1)


def placeholder(dtype, ragged_rank, value_shape=None, name=None) -> RaggedTensor:
    """TF's ``tf.ragged.placeholder``: fed a RaggedTensorValue of that ragged rank."""
    if ragged_rank == 0:
        return dense_placeholder(dtype, value_shape, name=name)
    with name_scope(name or "RaggedPlaceholder"):
        flat = dense_placeholder(dtype, [None] + list(value_shape or []),
                                 name="flat_values")
        splits = [dense_placeholder(dtypes.int64, [None], name=f"row_splits_{i}")
                  for i in builtins.range(ragged_rank)]
        return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)


# --- functions of flat values ---------------------------------------------------------

def map_flat_values(op, *args, **kwargs):
    """``op`` of the flat values of the ragged arguments, over their one row partition;
    ValueError when there are none or their ragged ranks differ."""
    partitions = []

    def swap(value):
        if isinstance(value, RaggedTensorValue):
            value = ragged_from_value(value)
        if isinstance(value, RaggedTensor):
            partitions.append(value.nested_row_splits)
            return value.flat_values
        if isinstance(value, list):
            return [swap(v) for v in value]
        if isinstance(value, tuple):
            return tuple(swap(v) for v in value)
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        return value

    flat_args = [swap(a) for a in args]
    flat_kwargs = {k: swap(v) for k, v in kwargs.items()}
    if not partitions:
        return op(*args, **kwargs)
    if len({len(p) for p in partitions}) > 1:
        raise ValueError("All ragged inputs must have the same ragged_rank.")
    splits = _merged_partitions(partitions)
    result = op(*flat_args, **flat_kwargs)
    with name_scope(None):
        return RaggedTensor.from_nested_row_splits(result, splits, validate=False)


_INCOMPATIBLE = ("RowPartition._merge_precomputed_encodings: partitions have incompatible "
                "row_splits")


def _merged_partitions(partitions) -> list:
    """The first partition, checked at run time against any other that is a different
    tensor, with TF's message."""
    first = list(partitions[0])
    checks = []
    for other in partitions[1:]:
        for a, b in zip(first, other):
            if a is not b:
                checks.append(assert_equal(a, b, message=_INCOMPATIBLE))
    if not checks:
        return first
    with control_dependencies(checks):
        return [identity(s) for s in first]


def boolean_mask(data, mask, name=None):
    """TF's ``tf.ragged.boolean_mask``: the values of ``data`` where ``mask`` is true;
    a mask of rank k > 1 keeps k - 1 ragged dimensions."""
    with name_scope(name or "RaggedMask"):
        if isinstance(mask, RaggedTensorValue):
            mask = ragged_from_value(mask)
        if isinstance(data, RaggedTensorValue):
            data = ragged_from_value(data)
        if not isinstance(mask, RaggedTensor):
            mask = convert_to_tensor(mask, dtype=dtypes.bool_, name="mask")
        if mask.dtype != dtypes.bool_:
            raise ValueError("mask must have dtype bool")
        if isinstance(mask, RaggedTensor):
            if not isinstance(data, RaggedTensor):
                raise ValueError("If mask is ragged, then data must also be ragged.")
            return _mask_ragged(data, mask)
        if isinstance(data, RaggedTensor):
            if mask.shape.ndims != 1:
                raise ValueError("devsession's ragged boolean_mask of a RaggedTensor takes "
                                 "a ragged mask or a vector of rows")
            from ..ops.array_composites import where
            return gather_rows(data, reshape(where(mask), [-1]))
        data = convert_to_tensor(data, name="data")
        if mask.shape.ndims is None:
            raise ValueError("mask.shape.ndims must be known statically.")
        if mask.shape.ndims <= 1:
            return dense_boolean_mask(data, mask)
        return _mask_dense(data, mask)


def _mask_dense(data: Tensor, mask: Tensor) -> RaggedTensor:
    """A dense mask of rank k > 1: the kept values of each innermost row, under k - 2
    uniform outer partitions."""
    rank = mask.shape.ndims
    mask_shape = shape_of(mask, out_type=dtypes.int64)
    result = RaggedTensor.from_row_lengths(
        dense_boolean_mask(data, mask),
        reshape(reduce_sum(cast(mask, dtypes.int64), axis=-1), [-1]), validate=False)
    for level in builtins.range(rank - 2, 0, -1):
        rows = reduce_prod(mask_shape[:level])
        splits = range_op(rows + 1, dtype=dtypes.int64) * mask_shape[level]
        result = RaggedTensor.from_row_splits(result, splits, validate=False)
    return result


def _mask_ragged(data: RaggedTensor, mask: RaggedTensor):
    """Ragged data with a ragged mask of one row partition (checked at run time): the
    innermost masked level's rows shrink to the kept values, outer levels stay."""
    splits = _merged_partitions([data.nested_row_splits[:mask.ragged_rank],
                                 mask.nested_row_splits])
    values = data
    for _ in builtins.range(mask.ragged_rank):
        values = values.values
    if isinstance(values, RaggedTensor):
        kept = boolean_mask(values, mask.flat_values)
    else:
        kept = dense_boolean_mask(values, mask.flat_values)
    inner = splits[-1]
    counts = unsorted_segment_sum(cast(mask.flat_values, inner.dtype),
                                  row_splits_to_segment_ids(inner),
                                  shape_of(inner, out_type=inner.dtype)[0] - 1)
    result = RaggedTensor.from_row_lengths(kept, counts, validate=False)
    for outer in reversed(splits[:-1]):
        result = RaggedTensor.from_row_splits(result, outer, validate=False)
    return result


def stack_dynamic_partitions(data, partitions, num_partitions, name=None) -> RaggedTensor:
    """TF's ``tf.ragged.stack_dynamic_partitions``: row ``i`` holds the values of
    ``data`` whose partition is ``i``, in their order."""
    with name_scope(name or "SegmentStack"):
        data = convert_to_tensor(data, name="data")
        partitions = convert_to_tensor(partitions, dtype=dtypes.int32, name="partitions")
        num = int(num_partitions)
        parts = dynamic_partition(data, partitions, num)
        lengths = bincount(reshape(partitions, [-1]), minlength=num, maxlength=num)
        values = concat(parts, 0)
        return RaggedTensor.from_row_lengths(values, lengths, validate=False)


def gather_rows(rt: RaggedTensor, indices, name=None) -> RaggedTensor:
    """The rows ``indices`` (a vector) of ``rt``, in that order."""
    with name_scope(name or "RaggedGather"):
        indices = convert_to_tensor(indices, name="indices")
        splits = rt.row_splits
        indices = cast(indices, splits.dtype)
        starts, limits = gather(splits[:-1], indices), gather(splits[1:], indices)
        positions = range(starts, limits, row_splits_dtype=splits.dtype)
        values = rt.values
        if isinstance(values, RaggedTensor):
            picked = gather_rows(values, positions.values)
        else:
            picked = gather(values, positions.values)
        return RaggedTensor(picked, positions.row_splits, internal=True)
