"""``tf.RaggedTensorSpec``: the type of a RaggedTensor (shape, dtype, ragged rank, row
splits dtype), as TF's; ``is_compatible_with`` a RaggedTensor or another spec."""

from __future__ import annotations

from .. import dtypes
from ..tensor_shape import TensorShape

__all__ = ["RaggedTensorSpec"]


class RaggedTensorSpec:
    """TF's ``RaggedTensorSpec(shape=None, dtype=float32, ragged_rank=None,
    row_splits_dtype=int64, flat_values_spec=None)``; ValueError for a ragged rank that
    does not fit the shape."""

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None,
                 row_splits_dtype=dtypes.int64, flat_values_spec=None):
        self._shape = TensorShape(shape) if not isinstance(shape, TensorShape) else shape
        self._dtype = dtypes.as_dtype(dtype)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        rank = self._shape.ndims
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and (ragged_rank >= rank or ragged_rank < 0):
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than "
                             f"the rank of the shape ({rank}).")
        self._ragged_rank = ragged_rank
        self._flat_values_spec = flat_values_spec

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)

    @classmethod
    def from_value(cls, value) -> "RaggedTensorSpec":
        return cls(shape=value.shape, dtype=value.dtype, ragged_rank=value.ragged_rank,
                   row_splits_dtype=value.row_splits.dtype)

    def is_compatible_with(self, other) -> bool:
        if not isinstance(other, RaggedTensorSpec):
            if not hasattr(other, "ragged_rank"):
                return False
            other = RaggedTensorSpec.from_value(other)
        return (self._dtype == other.dtype and self._ragged_rank == other.ragged_rank
                and self._row_splits_dtype == other.row_splits_dtype
                and self._shape.is_compatible_with(other.shape))

    def __eq__(self, other) -> bool:
        return (isinstance(other, RaggedTensorSpec) and self._dtype == other.dtype
                and self._ragged_rank == other.ragged_rank
                and self._row_splits_dtype == other.row_splits_dtype
                and self._shape.as_list() == other.shape.as_list()
                if self._shape.ndims is not None else
                isinstance(other, RaggedTensorSpec) and other.shape.ndims is None)

    def __hash__(self):
        return hash((self._dtype, self._ragged_rank, self._row_splits_dtype))

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec(TensorShape({self._shape.as_list() if self._shape.ndims is not None else None}), "
                f"tf.{self._dtype.name}, {self._ragged_rank}, tf.{self._row_splits_dtype.name})")
