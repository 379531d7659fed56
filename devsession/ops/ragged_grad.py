"""The gradient of ``RaggedTensorToTensor`` (``ops/ragged.py``), as TF's
``_ragged_tensor_to_tensor_grad``: the same op run on the positions ``0..nvals-1`` of the
flat values (``-1`` the default) finds where each value landed in the dense output; a
value's gradient is the output gradient there (0 for a value the shape cut off), and
the default value's is the sum of the gradient over the padded places, reduced to its
shape.  The shape and the row partitions get none."""

from __future__ import annotations

from .. import dtypes
from .array import concat, reshape
from .array_fill import shape as shape_of
from .array_index import unsorted_segment_sum
from .common import make_op
from .elementwise import cast, less, where
from .reduce import reduce_sum
from .registry import register_gradient
from .sequence import range as range_op

__all__ = []


@register_gradient("RaggedTensorToTensor")
def _ragged_tensor_to_tensor_grad(op, grad):
    shape, values, default_value, *partitions = op.inputs
    index_type = dtypes.int64
    nvals = shape_of(values, out_type=index_type)[0]
    outer = len(partitions) + 1 - (1 if op.attrs["row_partition_types"][0] in
                                   ("FIRST_DIM_SIZE", b"FIRST_DIM_SIZE") else 0)
    outer_shape = shape if shape.shape.ndims == 0 else shape[:outer]
    positions = make_op("RaggedTensorToTensor",
                        [outer_shape, range_op(nvals, dtype=index_type),
                         cast(-1, index_type), *partitions],
                        {"Tindex": op.attrs["Tindex"],
                         "num_row_partition_tensors": len(partitions),
                         "row_partition_types": op.attrs["row_partition_types"]})
    flat_positions = reshape(positions, [-1])
    padded = less(flat_positions, 0)
    segments = where(padded, nvals + 0 * flat_positions, flat_positions)
    rows = reshape(grad, concat([[-1], shape_of(grad, out_type=dtypes.int32)[outer:]], 0))
    summed = unsorted_segment_sum(rows, segments, nvals + 1)
    values_grad = summed[:-1]
    default_grad = summed[-1]
    extra = (default_grad.shape.ndims or 0) - (default_value.shape.ndims or 0)
    if extra > 0:
        default_grad = reduce_sum(default_grad, axis=list(range(extra)))
    for axis, size in enumerate(default_value.shape.dims or []):
        if size == 1:
            default_grad = reduce_sum(default_grad, axis=axis, keepdims=True)
    return [None, values_grad, default_grad] + [None] * len(partitions)
