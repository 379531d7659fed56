"""Ops that route or count elements by their values: DynamicPartition, DynamicStitch,
ParallelDynamicStitch, Bincount, HistogramFixedWidth; ``bincount`` (TF1's composite: the
output size from ``max(arr)``, minlength and maxlength, then Bincount, or DenseBincount
for an int64 ``arr``, as TF 2.x) and
``histogram_fixed_width_bins`` (elementwise arithmetic, as TF builds it).

Their output sizes follow from the values, so their static shapes are TF's: each
partition is ``[None] + data.shape[rank(partitions):]``; a stitch has ``max(index) + 1``
rows when every index is a constant, else None; Bincount ``[size]`` and a histogram
``[nbins]`` when those are constants.  The session gives every run its actual shape
(as for Unique and Where).  Kernels: ``kernels/reference/partition.py`` (HOST),
``kernels/cuda/segments.py``; gradients (partition's uses stitch, stitch's gathers):
``partition_grad.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array_operands import int_values
from .common import graph_of, make_op
from .registry import InferError, OpDef, register_op

__all__ = ["dynamic_partition", "dynamic_stitch", "parallel_dynamic_stitch", "bincount",
           "histogram_fixed_width", "histogram_fixed_width_bins"]


def _prefix_error(node, data, prefix, what: str):
    return InferError(f"Op '{node}': {what} '{prefix.name}' with shape {prefix.shape} must be a "
                      f"prefix of the shape of '{data.name}' {data.shape}.")


def _starts_with(data, prefix) -> bool:
    if data.shape.ndims is None or prefix.shape.ndims is None:
        return True
    k = prefix.shape.ndims
    return k <= data.shape.ndims and TensorShape(data.shape.dims[:k]).is_compatible_with(
        prefix.shape)


def _tail(data, prefix) -> list | None:
    if data.shape.ndims is None or prefix.shape.ndims is None:
        return None
    return list(data.shape.dims[prefix.shape.ndims:])


def _dynamic_partition(inputs, attrs, node):
    data, partitions = inputs
    if partitions.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': partitions '{partitions.name}' must be int32, not "
                        f"{partitions.dtype.name}.")
    count = int(attrs.get("num_partitions", 0))
    if count < 1:
        raise InferError(f"Op '{node}': num_partitions must be at least 1, got {count}.")
    if not _starts_with(data, partitions):
        raise _prefix_error(node, data, partitions, "partitions")
    tail = _tail(data, partitions)
    out = TensorShape(None if tail is None else [None] + tail)
    return [(data.dtype, out)] * count


def _dynamic_stitch(inputs, attrs, node):
    if len(inputs) % 2 or not inputs:
        raise InferError(f"Op '{node}': DynamicStitch takes N indices and N data tensors, "
                         f"got {len(inputs)} inputs.")
    n = len(inputs) // 2
    indices, data = inputs[:n], inputs[n:]
    dtype = data[0].dtype
    tail = None
    for k, (index, values) in enumerate(zip(indices, data)):
        if index.dtype != dtypes.int32:
            raise TypeError(f"Op '{node}': indices '{index.name}' must be int32, not "
                            f"{index.dtype.name}.")
        if values.dtype != dtype:
            raise TypeError(f"Op '{node}': data '{values.name}' is {values.dtype.name}, but "
                            f"'{data[0].name}' is {dtype.name}.")
        if not _starts_with(values, index):
            raise _prefix_error(node, values, index, "indices")
        this = _tail(values, index)
        if this is not None and tail is not None and \
                not TensorShape(this).is_compatible_with(TensorShape(tail)):
            raise InferError(f"Op '{node}': the rows of '{values.name}' {values.shape} (past "
                             f"its indices) do not match those of '{data[0].name}' "
                             f"{data[0].shape}.")
        if this is not None:
            tail = this if tail is None else list(TensorShape(tail).merge_with(
                TensorShape(this)).dims)
    values = [index.value for index in indices]
    rows = None
    if all(v is not None for v in values):
        rows = max((int(np.max(v)) + 1 for v in values if np.size(v)), default=0)
    return dtype, TensorShape(None if tail is None else [rows] + tail)


def _bincount(inputs, attrs, node):
    arr, size, weights = inputs
    if arr.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': arr '{arr.name}' must be int32, not {arr.dtype.name}.")
    if weights.dtype not in (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64):
        raise TypeError(f"Op '{node}': weights '{weights.name}' must be int32, int64, float32 "
                        f"or float64, not {weights.dtype.name}.")
    n = int_values(size, node, "size", rank=0)
    if n is not None and n < 0:
        raise InferError(f"Op '{node}': size ({n}) must be non-negative.")
    return weights.dtype, TensorShape([n])


def _histogram(inputs, attrs, node):
    values, value_range, nbins = inputs
    if values.dtype not in (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64):
        raise TypeError(f"Op '{node}': values '{values.name}' must be int32, int64, float32 "
                        f"or float64, not {values.dtype.name}.")
    if value_range.dtype != values.dtype:
        raise TypeError(f"Op '{node}': value_range '{value_range.name}' is "
                        f"{value_range.dtype.name}, but values are {values.dtype.name}.")
    if not value_range.shape.is_compatible_with(TensorShape([2])):
        raise InferError(f"Op '{node}': value_range '{value_range.name}' must have shape "
                         f"[2], not {value_range.shape}.")
    n = int_values(nbins, node, "nbins", rank=0)
    if n is not None and n <= 0:
        raise InferError(f"Op '{node}': Requires nbins > 0: {n}.")
    dtype = dtypes.as_dtype(attrs.get("dtype", dtypes.int32))
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Op '{node}': dtype must be int32 or int64, not {dtype.name}.")
    return dtype, TensorShape([n])


def _register() -> None:
    register_op(OpDef("DynamicPartition", _dynamic_partition, 2))
    register_op(OpDef("DynamicStitch", _dynamic_stitch, None))
    register_op(OpDef("ParallelDynamicStitch", _dynamic_stitch, None))
    register_op(OpDef("Bincount", _bincount, 3, host_inputs=(1,)))
    register_op(OpDef("HistogramFixedWidth", _histogram, 3, host_inputs=(2,),
                      attr_defaults={"dtype": dtypes.int32}))


_register()


# --- builders --------------------------------------------------------------------------------

def dynamic_partition(data, partitions, num_partitions, name=None) -> list[Tensor]:
    """``num_partitions`` tensors: partition ``p`` holds the rows of ``data`` (its
    elements past ``partitions``' dimensions) whose ``partitions`` value is ``p``, in
    order."""
    graph = graph_of(data, partitions)
    data = convert_to_tensor(data, graph=graph)
    partitions = convert_to_tensor(partitions, dtype=dtypes.int32, graph=graph)
    op = graph.create_op("DynamicPartition", [data, partitions],
                         {"num_partitions": int(num_partitions)},
                         name=name or "DynamicPartition")
    return list(op.outputs)


def _stitch(op_type: str, indices, data, name) -> Tensor:
    if len(indices) != len(data) or not indices:
        raise ValueError(f"{op_type} needs as many indices as data tensors (at least one), "
                         f"got {len(indices)} and {len(data)}.")
    graph = graph_of(*indices, *data)
    index_tensors = [convert_to_tensor(i, dtype=dtypes.int32, graph=graph) for i in indices]
    hint = next((d.dtype for d in data if isinstance(d, Tensor)), None)
    data_tensors = [convert_to_tensor(d, dtype_hint=hint, graph=graph) for d in data]
    return make_op(op_type, index_tensors + data_tensors, {"N": len(indices)},
                   name=name or op_type)


def dynamic_stitch(indices, data, name=None) -> Tensor:
    """``merged[indices[m][i]] = data[m][i]`` (rows past each index's dimensions), with
    ``max(index) + 1`` rows; a later ``data`` wins where indices repeat."""
    return _stitch("DynamicStitch", list(indices), list(data), name)


def parallel_dynamic_stitch(indices, data, name=None) -> Tensor:
    """``dynamic_stitch`` as TF's ParallelDynamicStitch (which of repeated indices wins
    is unspecified there; here the last, as DynamicStitch)."""
    return _stitch("ParallelDynamicStitch", list(indices), list(data), name)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32,
             name=None) -> Tensor:
    """TF1's ``tf.math.bincount``: how often each value of ``arr`` occurs (or the sum of
    its ``weights``, of ``arr``'s shape), ``max(arr) + 1`` bins (0 for an empty ``arr``),
    at least ``minlength``, at most ``maxlength`` (larger values are skipped); a negative
    value is InvalidArgumentError when it runs.  ``arr`` may be int32 (TF1's Bincount) or
    int64 (counted by DenseBincount, as TF 2.x's compat.v1 counts every ``arr``); other
    dtypes are cast to int32 first, as TF 2.x's.  A SparseTensor's values are counted (its
    weights a SparseTensor too), as TF 2.x's dispatch does."""
    from ..sparse_tensor import SparseTensor
    from .array import concat, reshape
    from .elementwise import cast, maximum, minimum
    from .reduce import reduce_max

    if isinstance(arr, SparseTensor):
        arr = arr.values
        weights = weights.values if isinstance(weights, SparseTensor) else weights
    with name_scope(name or "bincount"):
        arr = convert_to_tensor(arr, name="arr")
        if arr.dtype != dtypes.int64:
            arr = cast(arr, dtypes.int32)          # the tensor itself when int32 already
        # max(arr) + 1, 0 for an empty arr (TF multiplies by "non-empty": its Max of
        # nothing is INT_MIN, devsession's an error); in arr's dtype, as TF's
        output_size = reduce_max(concat([reshape(arr, [-1]),
                                         convert_to_tensor([-1], dtype=arr.dtype)], 0)) + 1
        if minlength is not None:
            output_size = maximum(convert_to_tensor(minlength, dtype=arr.dtype,
                                                    name="minlength"), output_size)
        if maxlength is not None:
            output_size = minimum(convert_to_tensor(maxlength, dtype=arr.dtype,
                                                    name="maxlength"), output_size)
        if weights is None:
            weights = convert_to_tensor(np.zeros(0, dtypes.as_dtype(dtype).np))
        else:
            # TF1 sums weights with an UnsortedSegmentSum, which on the CPU fails for a
            # value past maxlength instead of skipping it as documented; Bincount skips.
            weights = convert_to_tensor(weights, name="weights")
        if arr.dtype == dtypes.int64:             # Bincount counts int32 only
            return make_op("DenseBincount", [reshape(arr, [-1]), output_size,
                                             reshape(weights, [-1])], name="DenseBincount")
        return make_op("Bincount", [arr, output_size, weights], name="Bincount")


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32,
                          name=None) -> Tensor:
    """How many ``values`` fall in each of ``nbins`` equal bins over ``value_range``
    ``[lo, hi]``; values below ``lo`` count in the first bin, from ``hi`` on in the
    last."""
    with name_scope(name or "histogram_fixed_width") as scope:
        graph = graph_of(values, value_range, nbins)
        values = convert_to_tensor(values, graph=graph, name="values")
        value_range = convert_to_tensor(value_range, dtype_hint=values.dtype, graph=graph,
                                        name="value_range")
        nbins = convert_to_tensor(nbins, dtype=dtypes.int32, graph=graph, name="nbins")
        return make_op("HistogramFixedWidth", [values, value_range, nbins],
                       {"dtype": dtypes.as_dtype(dtype)}, name=scope)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32,
                               name=None) -> Tensor:
    """The bin of each of ``values`` (their shape) for ``histogram_fixed_width``'s bins,
    as TF builds it: ``floor(nbins * (v - lo) / (hi - lo))`` clipped to the bins."""
    from .array import reshape
    from .array_fill import shape
    from .elementwise import cast, floor, maximum, minimum, truediv

    with name_scope(name or "histogram_fixed_width_bins"):
        values = convert_to_tensor(values, name="values")
        values_shape = shape(values)
        flat = reshape(values, [-1])
        value_range = convert_to_tensor(value_range, dtype_hint=values.dtype,
                                        name="value_range")
        nbins = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        nbins_float = cast(nbins, values.dtype)
        scaled = truediv(flat - value_range[0], value_range[1] - value_range[0],
                         name="scaled_values")
        indices = floor(nbins_float * scaled, name="indices")
        with name_scope("clip_by_value") as scope:      # TF's clip_by_value, inlined
            indices = maximum(minimum(indices, nbins_float - 1), 0.0, name=scope)
        indices = cast(indices, dtypes.int32)
        return reshape(indices, values_shape)        # int32 whatever ``dtype``, as TF

