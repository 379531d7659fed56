"""Dense and sparse tensors to and from RaggedTensors, as TF's ``ragged_tensor.py``:

* ``from_tensor``: rows cut to ``lengths`` (or a tuple of nested lengths), or with the
  trailing ``padding`` dropped, through SequenceMask and BooleanMask; ``ragged_rank > 1``
  flattens the outer dimensions first and puts uniform partitions back over them.
* ``to_tensor``: TF's ``RaggedTensorToTensor`` op (``ops/ragged.py``); ``shape`` given
  pads or truncates to it.
* ``from_sparse``: a 2-D SparseTensor in row-major order, grouped by its first index.
* ``to_sparse``: TF's ``RaggedTensorToSparse`` op.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..ops.array import concat, expand_dims, reshape
from ..ops.array_fill import shape as shape_of, zeros
from ..ops.common import make_op
from ..ops.elementwise import cast, equal, logical_not, maximum, minimum, multiply
from ..ops.masking import boolean_mask, sequence_mask
from ..ops.reduce import cumsum, reduce_all, reduce_max, reduce_sum
from ..ops.sequence import range as range_op
from ..sparse_tensor import SparseTensor, convert_to_sparse_tensor
from ..tensor_shape import TensorShape
from .ragged_tensor import RaggedTensor

__all__ = ["from_tensor", "to_tensor", "from_sparse", "to_sparse"]


def from_tensor(tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                row_splits_dtype=dtypes.int64) -> RaggedTensor:
    """``RaggedTensor.from_tensor`` (see the module docstring); ValueError for both
    ``lengths`` and ``padding``, a ragged rank below 1, or a tensor of rank below 2."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if lengths is not None and padding is not None:
        raise ValueError("Specify argument `lengths` or `padding`, but not both.")
    if not isinstance(ragged_rank, int):
        raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
    if ragged_rank <= 0:
        raise ValueError(f"Argument `ragged_rank` must be greater than 0. Received "
                         f"{ragged_rank}.")
    with name_scope(name or "RaggedFromTensor"):
        tensor = convert_to_tensor(tensor, name="tensor")
        rank = tensor.shape.ndims
        if rank is not None and rank < 2:
            raise ValueError(f"The rank of a RaggedTensor must be greater than 1, i.e., a "
                             f"list of scalars won't have ragged dimensions. Received "
                             f"argument `tensor` with rank {rank}.")
        if rank is not None and rank < ragged_rank + 1:
            raise ValueError(f"Shape {tensor.shape} must have rank at least "
                             f"{ragged_rank + 1}")
        if isinstance(lengths, (list, tuple)) and lengths and \
                not isinstance(lengths[0], (int, float)):
            return _from_nested_lengths(tensor, list(lengths), ragged_rank, row_splits_dtype)
        if ragged_rank > 1:
            return _from_tensor_nested(tensor, lengths, padding, ragged_rank,
                                       row_splits_dtype)
        input_shape = shape_of(tensor, out_type=row_splits_dtype)
        ncols = input_shape[1]
        if padding is not None:
            lengths = _lengths_before_padding(tensor, padding, ncols, row_splits_dtype)
        if lengths is not None:
            lengths = convert_to_tensor(lengths, dtype=row_splits_dtype, name="lengths") \
                if not isinstance(lengths, Tensor) else cast(lengths, row_splits_dtype)
            if lengths.shape.ndims is not None and lengths.shape.ndims != 1:
                raise ValueError(f"Shape {lengths.shape} must have rank 1")
            lengths = maximum(minimum(lengths, ncols), cast(0, row_splits_dtype))
            splits = concat([zeros([1], row_splits_dtype), cumsum(lengths)], 0)
            values = boolean_mask(tensor, sequence_mask(lengths, maxlen=ncols))
            return RaggedTensor.from_row_splits(values, splits, validate=False)
        values = reshape(tensor, concat([input_shape[0:1] * input_shape[1:2],
                                         input_shape[2:]], 0))
        splits = range_op(input_shape[0] + 1, dtype=row_splits_dtype) * ncols
        result = RaggedTensor.from_row_splits(values, splits, validate=False)
        if rank is not None:
            result._uniform_row_length = tensor.shape.dims[1]
        return result


def _lengths_before_padding(tensor, padding, ncols, row_splits_dtype):
    """Each row's length up to its last value that is not all ``padding``."""
    padding = convert_to_tensor(padding, dtype=tensor.dtype, name="padding")
    inner = tensor.shape.dims[2:] if tensor.shape.ndims is not None else None
    if inner is not None and padding.shape.ndims is not None:
        if padding.shape.ndims > len(inner) or any(
                a is not None and b is not None and a != b and a != 1
                for a, b in zip(padding.shape.dims[::-1], inner[::-1])):
            raise ValueError(f"Shapes {padding.shape} and {TensorShape(inner)} are "
                             f"incompatible")
    is_padding = equal(padding, tensor)
    if tensor.shape.ndims is None:
        raise ValueError("from_tensor with padding needs the tensor's rank")
    if tensor.shape.ndims > 2:
        is_padding = reduce_all(is_padding, axis=list(range(2, tensor.shape.ndims)))
    has_value = cast(logical_not(is_padding), row_splits_dtype)
    positions = expand_dims(range_op(1, ncols + 1, dtype=row_splits_dtype), 0)
    return reduce_max(multiply(has_value, positions), axis=1)


def _from_nested_lengths(tensor, lengths, ragged_rank, row_splits_dtype):
    if ragged_rank not in (1, len(lengths)):
        raise ValueError(f"If Argument `lengths` is a tuple of row_lengths, argument "
                         f"`ragged_rank` must be len(lengths): {len(lengths)}. Received "
                         f"ragged_rank: {ragged_rank}.")
    lengths = [convert_to_tensor(x, dtype=row_splits_dtype) for x in lengths]
    ones = cast(range_op(reduce_sum(lengths[-1])) * 0 + 1, dtypes.bool_)
    mask = RaggedTensor.from_nested_row_lengths(ones, lengths, validate=False)
    dense_mask = to_tensor(mask, default_value=False)
    return RaggedTensor.from_nested_row_lengths(boolean_mask(tensor, dense_mask), lengths,
                                                validate=False)


def _from_tensor_nested(tensor, lengths, padding, ragged_rank, row_splits_dtype):
    """The outer ``ragged_rank`` dimensions flattened into rows, then uniform
    partitions put back over them."""
    input_shape = shape_of(tensor, out_type=row_splits_dtype)
    sizes = [input_shape[i] for i in range(ragged_rank)]
    total = sizes[0]
    for size in sizes[1:]:
        total = total * size
    flattened = reshape(tensor, concat([reshape(total, [1]), input_shape[ragged_rank:]], 0))
    result = from_tensor(flattened, lengths, padding, 1, None, row_splits_dtype)
    outer = [sizes[0]]
    for size in sizes[1:-1]:
        outer.append(outer[-1] * size)
    for axis in range(ragged_rank - 1, 0, -1):
        splits = range_op(outer[axis - 1] + 1, dtype=row_splits_dtype) * sizes[axis]
        result = RaggedTensor.from_row_splits(result, splits, validate=False)
        if tensor.shape.ndims is not None:
            result._uniform_row_length = tensor.shape.dims[axis]
    return result


def _shape_operand(shape, dtype):
    """TF's ``_shape_as_tensor``: None is the scalar -1, unknown dimensions -1."""
    if shape is None:
        return convert_to_tensor(-1, dtype=dtype)
    if isinstance(shape, Tensor):
        return cast(shape, dtype) if shape.dtype != dtype else shape
    if isinstance(shape, TensorShape):
        shape = None if shape.dims is None else shape.dims
        if shape is None:
            return convert_to_tensor(-1, dtype=dtype)
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        from ..ops.array import stack
        return stack([cast(d, dtype) if isinstance(d, Tensor) else
                      convert_to_tensor(-1 if d is None else d, dtype=dtype) for d in shape])
    return convert_to_tensor(np.array([-1 if d is None else d for d in shape]), dtype=dtype)


def to_tensor(rt: RaggedTensor, default_value=None, name=None, shape=None) -> Tensor:
    """``RaggedTensor.to_tensor`` through TF's RaggedTensorToTensor op."""
    with name_scope(name or "RaggedToTensor"):
        splits = rt.nested_row_splits
        if default_value is None:
            default_value = "" if rt.dtype.is_string else np.zeros((), rt.dtype.np)
        default_value = convert_to_tensor(default_value, dtype=rt.dtype,
                                          name="default_value")
        shape_tensor = _shape_operand(shape, splits[0].dtype)
        out = make_op("RaggedTensorToTensor",
                      [shape_tensor, rt.flat_values, default_value, *splits],
                      {"Tindex": splits[0].dtype, "num_row_partition_tensors": len(splits),
                       "row_partition_types": ("ROW_SPLITS",) * len(splits)})
        ragged_shape = rt.shape
        if ragged_shape.ndims is not None and out.shape.ndims is not None:
            given = out.shape.dims
            out.set_shape([a if a is not None else b
                           for a, b in zip(given, ragged_shape.dims)])
        return out


def from_sparse(st_input, name=None, row_splits_dtype=dtypes.int64) -> RaggedTensor:
    """``RaggedTensor.from_sparse``: ValueError for a SparseTensor not of rank 2."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    with name_scope(name or "RaggedFromSparse"):
        st_input = convert_to_sparse_tensor(st_input, "st_input")
        rank = st_input.dense_shape.shape.dims
        if rank is not None and rank[0] is not None and rank[0] != 2:
            raise ValueError(f"rank(st_input) must be 2. Received: {st_input}")
        rowids = cast(st_input.indices[:, 0], row_splits_dtype)
        nrows = cast(st_input.dense_shape[0], row_splits_dtype)
        return RaggedTensor.from_value_rowids(st_input.values, rowids, nrows, validate=False)


def to_sparse(rt: RaggedTensor, name=None) -> SparseTensor:
    """``RaggedTensor.to_sparse`` through TF's RaggedTensorToSparse op."""
    with name_scope(name or "RaggedToSparse"):
        splits = rt.nested_row_splits
        graph = splits[0].graph
        op = graph.create_op("RaggedTensorToSparse", [*splits, rt.flat_values],
                             {"RAGGED_RANK": len(splits), "Tsplits": splits[0].dtype})
        return SparseTensor(*op.outputs)


def _from_tensor_method(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                        row_splits_dtype=dtypes.int64):
    """The rows of a dense tensor, cut to ``lengths`` or with trailing ``padding``
    dropped."""
    return from_tensor(tensor, lengths, padding, ragged_rank, name, row_splits_dtype)


def _from_sparse_method(cls, st_input, name=None, row_splits_dtype=dtypes.int64):
    """A 2-D SparseTensor in row-major order, its rows' values as rows."""
    return from_sparse(st_input, name, row_splits_dtype)


# The conversions are RaggedTensor's methods, as in TF's ragged_tensor.py (set here, so
# that ragged_tensor.py imports nothing above it).
RaggedTensor.from_tensor = classmethod(_from_tensor_method)
RaggedTensor.from_sparse = classmethod(_from_sparse_method)
RaggedTensor.to_tensor = to_tensor
RaggedTensor.to_sparse = to_sparse
