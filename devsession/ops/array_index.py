"""Slicing and gathering: Slice, StridedSlice (tensor indexing ``x[1:, ::2, 0]``),
StridedSliceGrad, GatherV2 (``gather``, ``nn.embedding_lookup``), UnsortedSegmentSum
and OneHot.

Indexing follows TF's ``_slice_helper``: each item of ``x[...]`` becomes one sparse
(begin, end, stride) entry of a StridedSlice, and the masks say what an entry means
(``:`` without a start or stop, ``...``, ``None`` for a new axis, a plain index that
removes its axis).  ``kernels/slicing.py`` resolves a spec against a shape once, for
static inference here and for the kernels, so both apply the same rules and messages.

Indices are checked as TF's CPU kernels check them, on every device: a gathered index
outside ``[0, n)`` or a segment id ``>= num_segments`` is an ``InvalidArgumentError``
naming the node (a negative segment id drops its row, as in TF); a one-hot index out of
range gives an all-off row.

Kernels: ``kernels/reference/array_index.py`` (numpy), ``kernels/cpu/array.py``
(numba, for the ops that compute) and ``kernels/cuda/array.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..kernels.slicing import MASKS, SliceError, slice_spec, strided_slice_spec
from ..tensor_shape import TensorShape, bracketed
from .array_operands import (INDEX_DTYPES, check_int, int_operand, int_values,
                             partial_shape_value, shape_operand, small, vector_length)
from .common import graph_of, make_op
from .registry import InferError, OpDef, register_op

_PySlice = slice      # the builtin, before ``slice`` below (TF's name) shadows it

__all__ = ["slice", "strided_slice", "strided_slice_grad", "gather", "embedding_lookup", "unsorted_segment_sum",
           "one_hot", "getitem"]


def _spec_or_error(node, build):
    try:
        return build()
    except SliceError as e:
        raise InferError(f"Op '{node}': {e}") from None


# --- Slice ----------------------------------------------------------------------------------

def _slice(inputs, attrs, node):
    x, begin, size = inputs
    b = int_values(begin, node, "begin")
    n = int_values(size, node, "size")
    rank = x.shape.ndims
    lengths = vector_length(begin), vector_length(size)
    if None not in lengths and lengths[0] != lengths[1]:
        raise InferError(f"Dimension 0 in both shapes must be equal, but are {lengths[0]} and "
                         f"{lengths[1]}. Shapes are [{lengths[0]}] and [{lengths[1]}]. for "
                         f"'{node}': begin and size of a Slice must be as long.")
    if n is None:
        sizes = _partial_sizes(x.shape, b, size)
        if sizes is not None:
            return x.dtype, sizes
    if rank is None:
        length = vector_length(begin) or vector_length(size)
        if length is None:
            return x.dtype, TensorShape(None)
        return x.dtype, TensorShape([None if n is None or n[i] < 0 else n[i]
                                     for i in range(length)])
    spec = _spec_or_error(node, lambda: slice_spec(x.shape.dims, b, n))
    return x.dtype, TensorShape(spec.final_shape)


def _partial_sizes(x_shape: TensorShape, begin, size) -> TensorShape | None:
    """TF's Slice shape from sizes the graph knows only in part ([-1, 2, tf.shape(x)[2]]):
    each known size, and a -1 the rest of the input from a known begin; None when not
    even their count is known."""
    sizes = partial_shape_value(size.tensor) if size.tensor is not None else None
    if sizes is None:
        length = shape_operand(size).ndims
        sizes = None if length is None else [None] * length
    if sizes is None or x_shape.ndims not in (None, len(sizes)):
        return None
    dims = []
    for i, d in enumerate(sizes):
        if d == -1 and begin is not None and x_shape.ndims is not None and \
                x_shape.dims[i] is not None:
            d = x_shape.dims[i] - begin[i]
        dims.append(None if d is None or d < 0 else d)
    return TensorShape(dims)


def _slice_value(op, value_of):
    x, b, n = (value_of(t) for t in op.inputs)
    if not small(x) or b is None or n is None:
        return None
    try:
        spec = slice_spec(np.shape(x), b.tolist(), n.tolist())
    except SliceError:
        return None
    return np.asarray(x)[spec.index]


# --- StridedSlice, StridedSliceGrad ---------------------------------------------------------

def _masks(attrs) -> dict:
    return {m: int(attrs.get(m, 0)) for m in MASKS}


def _strided_spec(node, shape_dims, begin, end, strides, attrs):
    b = int_values(begin, node, "begin")
    e = int_values(end, node, "end")
    s = int_values(strides, node, "strides")
    lengths = {n for n in (vector_length(begin), vector_length(end), vector_length(strides))
               if n is not None}
    if len(lengths) > 1:
        raise InferError(f"Op '{node}': begin, end and strides must have the same length, "
                         f"got {sorted(lengths)}.")
    if shape_dims is None or s is None:
        return None
    return _spec_or_error(node, lambda: strided_slice_spec(shape_dims, b, e, s,
                                                           **_masks(attrs)))


def _strided_slice(inputs, attrs, node):
    x, begin, end, strides = inputs
    spec = _strided_spec(node, x.shape.dims, begin, end, strides, attrs)
    return x.dtype, TensorShape(None if spec is None else spec.final_shape)


def _strided_slice_value(op, value_of):
    x, b, e, s = (value_of(t) for t in op.inputs)
    if not small(x) or b is None or e is None or s is None:
        return None
    try:
        spec = strided_slice_spec(np.shape(x), b.tolist(), e.tolist(), s.tolist(),
                                  **_masks(op.attrs))
    except SliceError:
        return None
    x = np.asarray(x)           # indexed to one element, a string array gives bytes
    return np.asarray(x[spec.index], dtype=x.dtype).reshape(spec.final_shape)


def _strided_slice_grad(inputs, attrs, node):
    shape, begin, end, strides, dy = inputs
    dims = int_values(shape, node, "shape")
    if dims is None:
        n = vector_length(shape)
        return dy.dtype, TensorShape(None if n is None else [None] * n)
    spec = _strided_spec(node, dims, begin, end, strides, attrs)
    if spec is not None and not dy.shape.is_compatible_with(TensorShape(spec.final_shape)):
        raise InferError(f"Op '{node}': the gradient '{dy.name}' has shape {dy.shape}, but "
                         f"the slice of a tensor of shape {dims} has shape "
                         f"{list(spec.final_shape)}.")
    return dy.dtype, TensorShape(dims)


# --- GatherV2, UnsortedSegmentSum, OneHot ---------------------------------------------------

def _gather(inputs, attrs, node):
    params, indices, axis = inputs
    check_int(indices, node, "indices")
    a = int_values(axis, node, "axis", rank=0)
    if attrs.get("batch_dims", 0) != 0:
        raise InferError(f"Op '{node}': GatherV2 with batch_dims != 0 is not supported yet.")
    p, i = params.shape, indices.shape
    if a is None or p.ndims is None or i.ndims is None:
        return params.dtype, TensorShape(None)
    if not -p.ndims <= a < p.ndims:
        raise InferError(f"Op '{node}': axis {a} is out of range for params '{params.name}' "
                         f"with shape {p} (rank {p.ndims}).")
    a %= p.ndims
    return params.dtype, TensorShape(p.dims[:a] + i.dims + p.dims[a + 1:])


def _gather_value(op, value_of):
    params, indices, axis = (value_of(t) for t in op.inputs)
    if not small(params) or indices is None or axis is None:
        return None
    axis = int(axis)
    n = np.shape(params)[axis] if -np.ndim(params) <= axis < np.ndim(params) else 0
    if np.size(indices) and (np.min(indices) < 0 or np.max(indices) >= n):
        return None            # the run reports it, naming the node
    return np.take(params, indices, axis=axis)


def _segment_sum(inputs, attrs, node):
    data, ids, num_segments = inputs
    if not (data.dtype.is_numeric or data.dtype.is_complex):
        raise TypeError(f"Op '{node}': data '{data.name}' must be numeric, not "
                        f"{data.dtype.name}.")
    check_int(ids, node, "segment_ids")
    n = int_values(num_segments, node, "num_segments", rank=0)
    if n is not None and n < 0:         # TF's shape function's sentence
        raise InferError(f"Dimension size, given by scalar input 2, must be non-negative but "
                         f"is {n} for '{node}' with input shapes: "
                         f"{', '.join(bracketed(x.shape) for x in inputs)} and with computed "
                         f"input tensors: input[2] = <{n}>.")
    if data.shape.ndims is None or ids.shape.ndims is None:
        return data.dtype, TensorShape(None)
    k = ids.shape.ndims
    if k > data.shape.ndims or not TensorShape(data.shape.dims[:k]).is_compatible_with(
            ids.shape):
        raise InferError(f"Op '{node}': segment_ids '{ids.name}' with shape {ids.shape} "
                         f"must be a prefix of the shape of data '{data.name}' "
                         f"{data.shape}.")
    return data.dtype, TensorShape([n] + list(data.shape.dims[k:]))


def _one_hot(inputs, attrs, node):
    indices, depth, on, off = inputs
    check_int(indices, node, "indices")
    d = int_values(depth, node, "depth", rank=0)
    if on.dtype != off.dtype:
        raise TypeError(f"Op '{node}': on_value '{on.name}' is {on.dtype.name} but "
                        f"off_value '{off.name}' is {off.dtype.name}.")
    for v in (on, off):
        if v.shape.ndims not in (None, 0):
            raise InferError(f"Op '{node}': '{v.name}' must be a scalar, got shape "
                             f"{v.shape}.")
    if d is not None and d < 0:
        raise InferError(f"Op '{node}': depth must be non-negative, got {d}.")
    axis = attrs.get("axis", -1)
    rank = indices.shape.ndims
    if rank is None:
        return on.dtype, TensorShape(None)
    if not -1 <= axis <= rank:
        raise InferError(f"Op '{node}': axis {axis} must be in [-1, {rank}] for indices "
                         f"'{indices.name}' of shape {indices.shape}.")
    dims = list(indices.shape.dims)
    dims.insert(rank if axis == -1 else axis, d)
    return on.dtype, TensorShape(dims)


def _register() -> None:
    register_op(OpDef("Slice", _slice, 3, host_inputs=(1, 2), static_value=_slice_value))
    register_op(OpDef("StridedSlice", _strided_slice, 4, host_inputs=(1, 2, 3),
                      attr_defaults={m: 0 for m in MASKS}, static_value=_strided_slice_value))
    register_op(OpDef("StridedSliceGrad", _strided_slice_grad, 5, host_inputs=(0, 1, 2, 3),
                      attr_defaults={m: 0 for m in MASKS}))
    register_op(OpDef("GatherV2", _gather, 3, host_inputs=(2,),
                      attr_defaults={"batch_dims": 0}, static_value=_gather_value))
    register_op(OpDef("UnsortedSegmentSum", _segment_sum, 3, host_inputs=(2,)))
    register_op(OpDef("OneHot", _one_hot, 4, host_inputs=(1,), attr_defaults={"axis": -1}))


_register()


# --- builders -------------------------------------------------------------------------------

def slice(input_, begin, size, name=None) -> Tensor:  # noqa: A001  (TF's name)
    """The block of ``input_`` starting at ``begin`` with extent ``size`` (-1: to the
    end of that axis)."""
    x = convert_to_tensor(input_)
    return make_op("Slice", [x, int_operand(begin, x.graph), int_operand(size, x.graph)],
                   name=name)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0,
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, name=None) -> Tensor:
    """TF's StridedSlice (what ``x[...]`` builds); ``strides`` default to 1s."""
    x = convert_to_tensor(input_)
    begin, end = int_operand(begin, x.graph), int_operand(end, x.graph)
    if strides is None:
        n = begin.shape.dims[0] if begin.shape.ndims == 1 else None
        if n is None:
            raise ValueError("strided_slice without strides needs a begin of known length.")
        strides = [1] * n
    strides = int_operand(strides, x.graph)
    masks = dict(zip(MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                             shrink_axis_mask)))
    return make_op("StridedSlice", [x, *_same_int_dtype([begin, end, strides])],
                   {m: int(v) for m, v in masks.items()}, name)


def strided_slice_grad(shape, begin, end, strides, dy, begin_mask=0, end_mask=0,
                       ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0,
                       name=None) -> Tensor:
    """TF's StridedSliceGrad: zeros of ``shape`` with ``dy`` written where the slice
    ``[begin:end:strides]`` (with the masks) took its elements (StridedSlice's
    gradient)."""
    dy = convert_to_tensor(dy)
    vectors = [int_operand(v, dy.graph) for v in (shape, begin, end, strides)]
    masks = dict(zip(MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                             shrink_axis_mask)))
    return make_op("StridedSliceGrad", [*_same_int_dtype(vectors), dy],
                   {m: int(v) for m, v in masks.items()}, name)


def _same_int_dtype(tensors):
    if all(t.dtype == tensors[0].dtype for t in tensors):
        return tensors
    from .elementwise import cast

    return [cast(t, dtypes.int64) for t in tensors]


def _is_index(item) -> bool:
    if isinstance(item, (bool, np.bool_)):
        return False
    if isinstance(item, (int, np.integer)):
        return True
    if hasattr(item, "_as_tensor"):
        item = item._as_tensor()
    return isinstance(item, Tensor) and item.dtype in INDEX_DTYPES and \
        item.shape.ndims in (None, 0)


def getitem(tensor, key) -> Tensor:
    """``tensor[key]`` as TF1: ints, slices (with negative steps), ``...``, ``None`` and
    scalar int tensors; TypeError for anything else (boolean masks, lists of indices)."""
    items = key if isinstance(key, (tuple, list)) else (key,)
    if sum(1 for item in items if item is Ellipsis) > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed.")
    entries = [_sparse_entry(item) for item in items]
    masks = {m: sum(1 << i for i, entry in enumerate(entries) if m in entry[3]) for m in MASKS}
    graph = graph_of(tensor, *[v for entry in entries for v in entry[:3]])
    x = convert_to_tensor(tensor)
    vectors = [int_operand([entry[k] for entry in entries], graph) for k in range(3)]
    return make_op("StridedSlice", [x, *_same_int_dtype(vectors)], masks, "strided_slice")


def _sparse_entry(item) -> tuple:
    """(begin, end, stride, the masks it sets) of one item of an index, as TF's
    ``_slice_helper`` makes them."""
    if isinstance(item, _PySlice):
        if any(v is not None and not _is_index(v) for v in (item.start, item.stop, item.step)):
            raise TypeError(_bad_index(item))
        masks = {m for m, v in (("begin_mask", item.start), ("end_mask", item.stop))
                 if v is None}
        return (0 if item.start is None else item.start, 0 if item.stop is None else item.stop,
                1 if item.step is None else item.step, masks)
    if item is Ellipsis:
        return 0, 0, 1, {"ellipsis_mask"}
    if item is None:
        return 0, 0, 1, {"new_axis_mask"}
    if _is_index(item):
        return item, item + 1, 1, {"shrink_axis_mask"}
    raise TypeError(_bad_index(item))


def _bad_index(item) -> str:
    return (f"Only integers, slices (`:`), ellipsis (`...`), ds.newaxis (`None`) and "
            f"scalar int32/int64 tensors are valid indices, got {item!r}.")


def gather(params, indices, validate_indices=None, name=None, axis=None,
           batch_dims=0) -> Tensor:
    """The slices of ``params`` at ``indices`` along ``axis`` (default 0), TF1's
    argument order; an index outside ``[0, params.shape[axis])`` is an
    ``InvalidArgumentError`` naming the node when the graph runs."""
    graph = graph_of(params, indices)
    p = convert_to_tensor(params, graph=graph)
    i = int_operand(indices, graph)
    a = int_operand(0 if axis is None else axis, graph)
    return make_op("GatherV2", [p, i, a], {"batch_dims": int(batch_dims)}, name)


def embedding_lookup(params, ids, partition_strategy="mod", name=None,
                     validate_indices=True, max_norm=None) -> Tensor:
    """Rows ``ids`` of ``params``: one tensor, a list of shards or a PartitionedVariable
    (its parts).  Over n shards, as TF1's ``embedding_lookup``: "mod" puts id ``i`` in
    shard ``i % n`` at row ``i // n``; "div" gives each shard a contiguous block of ids,
    the first ``total % n`` shards one id more (how a partitioner cuts a variable)."""
    if max_norm is not None:
        raise ValueError("embedding_lookup's max_norm is not supported yet.")
    if hasattr(params, "_get_variable_list"):          # a PartitionedVariable
        params = list(params)
    shards = list(params) if isinstance(params, (list, tuple)) else [params]
    if not shards:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if len(shards) == 1:            # TF's node: the gather named as the lookup's scope
        return gather(shards[0], ids, name=name or "embedding_lookup")
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}.Must be "
                         f"one of either `mod` or `div`.")
    with name_scope(name or "embedding_lookup") as scope:
        owners, shards = shards, [convert_to_tensor(p) for p in shards]
        return _sharded_lookup(shards, owners, int_operand(ids, graph_of(*shards, ids)),
                               partition_strategy, scope.rstrip("/"))


def _sharded_lookup(shards, owners, ids, strategy: str, name: str):
    """TF's sharded lookup: each flat id's shard and row, a DynamicPartition of the rows
    (and of the ids' positions) by shard, one gather per shard colocated with its shard
    (its ``owners`` entry: on a ps task only the rows looked up leave it), and a
    ParallelDynamicStitch of the results back in the ids' order, reshaped to
    ``ids.shape + row shape``.  An id outside the shards' rows makes its shard's gather
    fail, naming that node."""
    from .array import concat, reshape
    from .array_fill import shape as shape_of, size
    from .elementwise import cast, floordiv, floormod
    from .partition import dynamic_partition, parallel_dynamic_stitch
    from .sequence import range as range_

    n = len(shards)
    flat = reshape(ids, [-1])
    positions = range_(size(flat, out_type=dtypes.int32))
    count = convert_to_tensor(n, dtype=ids.dtype)
    if strategy == "mod":
        assignments, rows = floormod(flat, count), floordiv(flat, count)
    else:
        assignments, rows = _div_assignments(shards, flat)
    assignments = cast(assignments, dtypes.int32)
    shard_rows = dynamic_partition(rows, assignments, n)
    shard_positions = dynamic_partition(positions, assignments, n)
    looked_up = []
    for p, (params, owner) in enumerate(zip(shards, owners)):
        with ids.graph.colocate_with(owner if hasattr(owner, "_ref") else params):
            looked_up.append(gather(params, shard_rows[p]))
    out = parallel_dynamic_stitch(shard_positions, looked_up, name=name)
    row_shape = shards[0].shape[1:]
    for params in shards[1:]:
        row_shape = row_shape.merge_with(params.shape[1:])
    row_dims = list(row_shape.dims) if row_shape.is_fully_defined() else \
        shape_of(shards[0])[1:]
    out = reshape(out, concat([shape_of(ids), row_dims], 0))
    out.set_shape(ids.shape.concatenate(row_shape))
    return out


def _div_assignments(shards, flat):
    """(shard, row) of each id under "div": ``total // n`` ids per shard, the first
    ``total % n`` shards one more (TF's arithmetic, the total from the static shapes
    when they are known)."""
    from .array import stack
    from .array_fill import shape as shape_of
    from .elementwise import cast, floordiv, floormod, less, maximum, where
    from .reduce import reduce_sum

    n = len(shards)
    sizes = [p.shape.dims[0] if p.shape.ndims else None for p in shards]
    if all(d is not None for d in sizes) and sum(sizes):
        total = convert_to_tensor(sum(sizes), dtype=flat.dtype)
    else:
        total = reduce_sum(cast(stack([d if d is not None else shape_of(p)[0]
                                       for d, p in zip(sizes, shards)]), flat.dtype))
    count = convert_to_tensor(n, dtype=flat.dtype)
    one = convert_to_tensor(1, dtype=flat.dtype)
    per_shard = floordiv(total, count)
    extras = floormod(total, count)
    assignments = maximum(floordiv(flat, per_shard + one),
                          floordiv(flat - extras, per_shard))
    rows = where(less(assignments, extras), floormod(flat, per_shard + one),
                 floormod(flat - extras, per_shard))
    return assignments, rows


def unsorted_segment_sum(data, segment_ids, num_segments, name=None) -> Tensor:
    """``out[s] = sum of data[i] where segment_ids[i] == s``, for ``num_segments``
    segments; rows with a negative id are dropped."""
    graph = graph_of(data, segment_ids, num_segments)
    x = convert_to_tensor(data, graph=graph)
    return make_op("UnsortedSegmentSum", [x, int_operand(segment_ids, graph),
                                          int_operand(num_segments, graph)], name=name)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None,
            name=None) -> Tensor:
    """``on_value`` where the new axis' position equals the index, ``off_value``
    elsewhere (an index outside ``[0, depth)`` gives an all-off row), as TF."""
    graph = graph_of(indices, depth, on_value, off_value)
    with name_scope(name or "one_hot") as scope:        # TF's op and constants' names
        return _one_hot_op(graph, indices, depth, on_value, off_value, axis, dtype, scope)


def _one_hot_hint(value, dtype):
    """TF's ``dtype_hint=dtype`` for on/off values: a Python number takes the dtype
    argument (``on_value=2.0, dtype=tf.float64`` is float64, ``on_value=1`` with float32
    is 1.0), but a Python float never becomes an integer (TF's constant refuses 1.0 as
    int32) and tensors and numpy arrays keep their own dtype."""
    if dtype is None or not isinstance(value, (bool, int, float, list, tuple)):
        return None
    if dtype.is_integer and np.asarray(value).dtype.kind in "fc":
        return None
    return dtype


def _one_hot_op(graph, indices, depth, on_value, off_value, axis, dtype, scope) -> Tensor:
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    values = {k: convert_to_tensor(v, graph=graph, dtype_hint=_one_hot_hint(v, dtype))
              for k, v in (("on_value", on_value), ("off_value", off_value)) if v is not None}
    if dtype is not None:
        for key, v in values.items():
            if v.dtype != dtype:
                raise TypeError(f"one_hot: dtype of {key} ({v.dtype.name}) does not match "
                                f"the dtype argument ({dtype.name}).")
    elif values:
        found = {v.dtype for v in values.values()}
        if len(found) > 1:
            raise TypeError("one_hot: on_value and off_value must have the same dtype, got "
                            + " and ".join(sorted(d.name for d in found)) + ".")
        dtype = found.pop()
    else:
        dtype = dtypes.float32
    on = values["on_value"] if on_value is not None else \
        convert_to_tensor(1, dtype=dtype, graph=graph, name="on_value")
    off = values["off_value"] if off_value is not None else \
        convert_to_tensor(0, dtype=dtype, graph=graph, name="off_value")
    ids = int_operand(indices, graph, name="indices")
    return make_op("OneHot", [ids, int_operand(depth, graph, name="depth"), on, off],
                   {"axis": -1 if axis is None else int(axis)}, scope)

