"""What a dataset's elements are made of, shared by datasets and iterators."""

from __future__ import annotations

from .. import dtypes
from ..tensor_shape import TensorShape

__all__ = ["ElementSpec"]


class ElementSpec:
    """One component of a dataset's elements: its dtype and static shape."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = dtypes.as_dtype(dtype)
        self.shape = TensorShape(shape)

    def __repr__(self):
        return f"ElementSpec({self.dtype.name}, {self.shape})"
