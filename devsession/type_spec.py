"""TF's type specs, as far as TF1 graph programs meet them: ``tf.TypeSpec`` (the base),
``tf.TensorSpec(shape, dtype=float32, name=None)`` (a Tensor's static shape and dtype:
``from_tensor`` names it after the tensor's op, ``from_spec`` copies another,
``is_compatible_with`` a spec or a Tensor of that dtype and a compatible shape,
``most_specific_compatible_type`` the shape two specs share), ``tf.SparseTensorSpec(shape,
dtype)`` (``from_value`` of a SparseTensor), and ``tf.type_spec_from_value`` (a Tensor's
spec without a name, a SparseTensor's, or the spec of what a Python or numpy value
converts to: Python floats float32, ints int32, as ``convert_to_tensor``; no node is
built).  Specs are immutable values: equal when their parts are equal, hashable."""

from __future__ import annotations

from . import dtypes
from .graph import Tensor, python_value_to_array
from .sparse_tensor import SparseTensor
from .tensor_shape import TensorShape

__all__ = ["TypeSpec", "TensorSpec", "SparseTensorSpec", "type_spec_from_value"]


class TypeSpec:
    """The base of the specs: what kind of value, of which static type."""

    __slots__ = ()

    value_type: type = object

    def _parts(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._parts() == self._parts()

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__,) + tuple(
            tuple(p.as_list()) if isinstance(p, TensorShape) and p.ndims is not None else
            str(p) for p in self._parts()))


class TensorSpec(TypeSpec):
    """A Tensor's static shape, dtype and (optional) name."""

    __slots__ = ("_shape", "_dtype", "_name")
    value_type = Tensor

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    def _parts(self) -> tuple:
        return (self._shape, self._dtype, self._name)

    @classmethod
    def from_tensor(cls, tensor, name=None) -> "TensorSpec":
        """The spec of ``tensor``, named ``name`` or after the tensor's op."""
        if not isinstance(tensor, Tensor):
            raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        return cls(tensor.shape, tensor.dtype, name or tensor.op.name)

    @classmethod
    def from_spec(cls, spec, name=None) -> "TensorSpec":
        return cls(spec.shape, spec.dtype, name or spec.name)

    def is_compatible_with(self, spec_or_tensor) -> bool:
        """Whether a TensorSpec or Tensor has this dtype and a compatible shape (anything
        else is not)."""
        if not isinstance(spec_or_tensor, (TensorSpec, Tensor)):
            return False
        return (spec_or_tensor.dtype == self._dtype
                and self._shape.is_compatible_with(spec_or_tensor.shape))

    def most_specific_compatible_type(self, other) -> "TensorSpec":
        """The spec both are instances of: the dimensions they share (TF's ValueError for
        specs of different kinds, dtypes or names)."""
        if type(other) is not type(self) or (other.dtype, other.name) != (self._dtype,
                                                                          self._name):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return TensorSpec(self._shape.most_specific_compatible_shape(other.shape),
                          self._dtype, self._name)

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


class SparseTensorSpec(TypeSpec):
    """A SparseTensor's static dense shape and the dtype of its values."""

    __slots__ = ("_shape", "_dtype")
    value_type = SparseTensor

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    def _parts(self) -> tuple:
        return (self._shape, self._dtype)

    @classmethod
    def from_value(cls, value) -> "SparseTensorSpec":
        return cls(value.shape, value.dtype)

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self._shape}, {self._dtype!r})"


def type_spec_from_value(value) -> TypeSpec:
    """The spec of ``value`` (see the module docstring); TypeError (TF's) for a value that
    is no tensor and converts to none."""
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, SparseTensor):
        return SparseTensorSpec.from_value(value)
    try:
        array = python_value_to_array(value, None, strict=False)
    except (TypeError, ValueError):
        array = None
    if array is None or array.dtype == object and not dtypes.holds_strings(value):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type "
                        f"{type(value)}.")
    return TensorSpec(array.shape, dtypes.as_dtype(array.dtype))
