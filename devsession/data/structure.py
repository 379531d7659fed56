"""What a dataset's elements are made of, shared by datasets and iterators."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor
from ..ops import nest
from ..tensor_shape import TensorShape

__all__ = ["ElementSpec", "Structured"]


class ElementSpec:
    """One component of a dataset's elements: its dtype and static shape."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = dtypes.as_dtype(dtype)
        self.shape = TensorShape(shape)

    def __repr__(self):
        return f"ElementSpec({self.dtype.name}, {self.shape})"


class Structured:
    """TF1's ``output_types``, ``output_shapes`` and ``output_classes`` of anything with
    a ``_structure`` (a nest of ElementSpec): a Dataset, an Iterator."""

    _structure: object

    @property
    def output_types(self):
        return nest.map_structure(lambda s: s.dtype, self._structure)

    @property
    def output_shapes(self):
        return nest.map_structure(lambda s: s.shape, self._structure)

    @property
    def output_classes(self):
        return nest.map_structure(lambda s: Tensor, self._structure)
