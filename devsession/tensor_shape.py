"""Static tensor shapes with unknown dimensions, as TF1's ``TensorShape``.

A shape is either of unknown rank (``dims is None``) or a tuple whose entries are ints
or None (unknown).  Shapes compare equal to plain tuples and lists, so tests can write
``t.shape == (None, 3)``.  Indexing or iterating a shape gives each known size as a
``Dimension``: a known size is an int that also has TF1's ``.value``
(``x.get_shape()[-1].value``, the TF1 idiom); an unknown size is TF1's ``Dimension(None)``,
whose ``.value`` is None, so ``x.get_shape()[0].value is None`` reads a batch size of a
placeholder as TF1 does.  Arithmetic on Dimensions is a Dimension and comparing one with an
unknown size is None, as in TF1.  ``dims`` and ``as_list()`` hold plain ints and None: code
inside devsession reads sizes there (``shape.dims[i] is None``), never by indexing a shape,
whose unknown size is no None.
"""

from __future__ import annotations

import numbers
import operator
from typing import Iterable

from .proto import graph_pb2

__all__ = ["TensorShape", "Dimension", "as_shape", "broadcast_static", "fully_defined_dims",
           "refined", "merge_conflict", "bracketed", "unknown_dimension_error",
           "UNKNOWN_DIMENSION"]


class _DimensionType(type):
    """Lets ``isinstance(d, tf.Dimension)`` hold for an unknown size as well, as TF1 code
    tests it before reading ``d.value``."""

    def __instancecheck__(cls, obj) -> bool:
        return type.__instancecheck__(cls, obj) or (cls is Dimension and
                                                    obj is UNKNOWN_DIMENSION)


def _size(value) -> int:
    """TF1's check of a known size: an int (or a string of one), never negative, and no
    float with a fraction (TF1's 'Ambiguous dimension')."""
    size = int(value)
    if size != value and not isinstance(value, (str, bytes)):
        raise ValueError(f"Ambiguous dimension: {value}")
    if size < 0:
        raise ValueError(f"Dimension {size} must be >= 0")
    return size


def _operand(other):
    """``other``'s size for Dimension arithmetic: an int, None when unknown, or
    NotImplemented for what is no size (a tensor, an array, a float)."""
    if other is None or other is UNKNOWN_DIMENSION:
        return None
    if isinstance(other, numbers.Integral):
        return int(other)
    return NotImplemented


def _arithmetic(operation):
    """A TF1 Dimension operator: a Dimension (unknown when either side is), so
    ``(d * 2).value`` reads as in TF1."""

    def apply(self, other):
        other = _operand(other)
        if other is NotImplemented:
            return NotImplemented
        return UNKNOWN_DIMENSION if other is None else Dimension(operation(int(self), other))
    return apply


def _comparison(operation):
    """A TF1 Dimension comparison: None when either size is unknown (``d == None`` too)."""

    def compare(self, other):
        if other is None or other is UNKNOWN_DIMENSION:
            return None
        return operation(int(self), other)
    return compare


def _no_true_division(self, other):
    raise TypeError(f"unsupported operand type(s) for /: 'Dimension' and "
                    f"'{_type_name(other)}', please use // instead")


def _no_reflected_true_division(self, other):
    raise TypeError(f"unsupported operand type(s) for /: '{_type_name(other)}' and "
                    f"'Dimension', please use // instead")


def _type_name(value) -> str:
    return "Dimension" if isinstance(value, Dimension) else type(value).__name__


class Dimension(int, metaclass=_DimensionType):
    """A known size in a shape, as TF1's ``shape[i]`` gives it: an int with TF1's
    ``value``; arithmetic with it is a Dimension, comparing it with an unknown size None,
    and ``/`` TF1's TypeError (sizes divide with ``//``)."""

    __slots__ = ()

    def __new__(cls, value):
        value = getattr(value, "value", value)
        if value is None:
            return UNKNOWN_DIMENSION
        return super().__new__(cls, _size(value))

    @property
    def value(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"Dimension({int(self)})"        # TF1's repr

    def __str__(self) -> str:
        return str(int(self))                   # and TF1's str: the bare size

    __format__ = int.__format__
    __hash__ = int.__hash__

    __add__ = _arithmetic(operator.add)
    __radd__ = _arithmetic(lambda a, b: b + a)
    __sub__ = _arithmetic(operator.sub)
    __rsub__ = _arithmetic(lambda a, b: b - a)
    __mul__ = _arithmetic(operator.mul)
    __rmul__ = _arithmetic(lambda a, b: b * a)
    __floordiv__ = _arithmetic(operator.floordiv)
    __rfloordiv__ = _arithmetic(lambda a, b: b // a)
    __mod__ = _arithmetic(operator.mod)
    __rmod__ = _arithmetic(lambda a, b: b % a)
    __truediv__ = _no_true_division
    __rtruediv__ = _no_reflected_true_division

    __eq__ = _comparison(operator.eq)
    __ne__ = _comparison(operator.ne)
    __lt__ = _comparison(operator.lt)
    __le__ = _comparison(operator.le)
    __gt__ = _comparison(operator.gt)
    __ge__ = _comparison(operator.ge)

    def is_compatible_with(self, other) -> bool:
        other = getattr(other, "value", other)
        return other is None or int(other) == int(self)

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {Dimension(other)} are not compatible")

    def merge_with(self, other) -> "Dimension":
        self.assert_is_compatible_with(other)
        return self


class _UnknownDimension:
    """TF1's ``Dimension(None)``: an unknown size.  As in TF1, comparing it gives None,
    arithmetic with it stays unknown, it is falsy, and it is no int (``int()``, indexing
    and ``range`` raise TypeError), so an unknown batch size cannot silently become a
    number."""

    __slots__ = ()
    value = None

    def __repr__(self) -> str:
        return "Dimension(None)"

    def __str__(self) -> str:
        return "?"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __bool__(self) -> bool:
        return False

    def __int__(self):
        raise TypeError("Dimension(None) is an unknown size and has no int value; read "
                        "the size at run time with tf.shape(x).")

    __index__ = __int__

    def __hash__(self) -> int:
        return hash(None)

    def __reduce__(self):
        return (Dimension, (None,))

    def _unknown(self, other):
        return self

    def _compare(self, other):
        return None

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _compare
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unknown
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _unknown
    __truediv__ = _no_true_division
    __rtruediv__ = _no_reflected_true_division

    def is_compatible_with(self, other) -> bool:
        return True

    def assert_is_compatible_with(self, other) -> None:
        pass

    def merge_with(self, other):
        return Dimension(other)


UNKNOWN_DIMENSION = _UnknownDimension()


def _dimension(size):
    return UNKNOWN_DIMENSION if size is None else Dimension(size)


class TensorShape:
    """Immutable static shape; ``TensorShape(None)`` has unknown rank."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Iterable | None):
        if hasattr(dims, "unknown_rank"):            # a TensorShapeProto, as TF's takes
            dims = None if dims.unknown_rank else [None if d.size < 0 else d.size
                                                   for d in dims.dim]
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        else:
            if isinstance(dims, (str, bytes)):
                raise ValueError(f"A string has ambiguous TensorShape, please wrap in a list "
                                 f"or convert to an int: {dims}")
            if not hasattr(dims, "__iter__"):
                dims = (dims,)                        # TF1: TensorShape(5) is (5,)
            out = []
            for d in dims:
                d = getattr(d, "value", d)
                out.append(d if d is None or type(d) is int and d >= 0 else _size(d))
            self._dims = tuple(out)

    @property
    def dims(self) -> tuple | None:
        return self._dims

    @property
    def ndims(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self) -> tuple | None:
        return self._dims

    def as_proto(self):
        """TF's ``TensorShapeProto`` of this shape (-1 for an unknown dimension)."""
        proto = graph_pb2.TensorShapeProto(unknown_rank=self._dims is None)
        for d in self._dims or ():
            proto.dim.add(size=-1 if d is None else d)
        return proto

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other) -> "TensorShape":
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape(a if a is not None else b for a, b in zip(self._dims, other._dims))

    # --- TF1's rank checks, for code that checks its inputs' shapes when it builds ---

    def with_rank(self, rank: int) -> "TensorShape":
        """This shape, with ``rank`` dimensions when its rank was unknown.  Raises
        ValueError (TF's message) when it has another rank."""
        self.assert_has_rank(rank)
        return self if self._dims is not None else TensorShape([None] * rank)

    def with_rank_at_least(self, rank: int) -> "TensorShape":
        """This shape; ValueError when its known rank is below ``rank``."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> "TensorShape":
        """This shape; ValueError when its known rank is above ``rank``."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank: int) -> None:
        """ValueError unless the rank is ``rank`` or unknown."""
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other) -> None:
        """ValueError when both ranks are known and differ."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and \
                len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_is_compatible_with(self, other) -> None:
        """ValueError unless ``other`` could be this shape (see ``is_compatible_with``)."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")   # other as given

    def assert_is_fully_defined(self) -> None:
        """ValueError unless every dimension (and so the rank) is known."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def most_specific_compatible_shape(self, other) -> "TensorShape":
        """The most specific shape both are compatible with: unknown rank when the ranks
        differ (or one is unknown), else each dimension where the two agree, None where
        they do not."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape(a if a == b else None for a, b in zip(self._dims, other._dims))

    def concatenate(self, other) -> "TensorShape":
        """This shape's dimensions followed by ``other``'s (unknown if either is)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    __add__ = concatenate

    def __radd__(self, other) -> "TensorShape":
        return as_shape(other).concatenate(self)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return (_dimension(d) for d in self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else UNKNOWN_DIMENSION
        try:
            got = self._dims[key]
        except IndexError:
            raise IndexError("list index out of range") from None     # TF1's message
        return TensorShape(got) if isinstance(key, slice) else _dimension(got)

    def __bool__(self) -> bool:
        """TF1's: a shape says something unless its rank is unknown (a scalar's is True)."""
        return self._dims is not None

    def __eq__(self, other) -> bool:
        if not isinstance(other, TensorShape):
            try:
                other = as_shape(other)      # a list, tuple or int, as TF1 compares them
            except (TypeError, ValueError):
                return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __repr__(self) -> str:
        # TF1's: TensorShape([Dimension(None), Dimension(3)]), what printing a dict of
        # dataset output_shapes or a logged repr shows.
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape([%s])" % ", ".join(f"Dimension({d})" for d in self._dims)

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("?" if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"


def merge_conflict(a: TensorShape, b: TensorShape) -> str | None:
    """Why two shapes do not merge, in the words of TF's C++ shape merge (what its shape
    functions and ``set_shape`` raise, and TF1 code matches); None when they merge."""
    if a.dims is None or b.dims is None:
        return None
    if len(a.dims) != len(b.dims):
        return f"Shapes must be equal rank, but are {len(a.dims)} and {len(b.dims)}"
    for i, (p, q) in enumerate(zip(a.dims, b.dims)):
        if p is not None and q is not None and p != q:
            return (f"Dimension {i} in both shapes must be equal, but are {p} and {q}. "
                    f"Shapes are {bracketed(a)} and {bracketed(b)}.")
    return None


def refined(shape: TensorShape, by) -> TensorShape:
    """``shape`` merged with ``by``, as TF1's ``Tensor.set_shape`` does it; a conflict is
    the ValueError of TF's C++ shape merge."""
    by = as_shape(by)
    conflict = merge_conflict(shape, by)
    if conflict:
        raise ValueError(conflict)
    return shape.merge_with(by)


def bracketed(shape: TensorShape) -> str:
    """TF's C++ spelling of a shape, as its shape functions' errors show it: [?,3,4], and
    ? for an unknown rank."""
    if shape.dims is None:
        return "?"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.dims)


def unknown_dimension_error() -> ValueError:
    """TF1's error for an unknown size where a tensor goes (``tf.range(x.shape[0])``)."""
    return ValueError("Cannot convert unknown Dimension ? to a Tensor.")


def fully_defined_dims(shape: TensorShape) -> list:
    """A shape's sizes, to make a shape tensor of; ValueError (TF's message) when one of
    them is unknown, as TF1's ``tf.zeros(x.shape)`` of a placeholder with a None size."""
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    return list(shape.dims)


def as_shape(value) -> TensorShape:
    """A TensorShape from a TensorShape, a tuple/list of ints-or-None, or None."""
    if isinstance(value, TensorShape):
        return value
    if isinstance(value, int):
        return TensorShape((value,))
    return TensorShape(value)


def broadcast_static(a: TensorShape, b: TensorShape) -> TensorShape:
    """numpy's broadcasting rule on static shapes.

    Raises ValueError when two known dimensions differ and neither is 1.
    """
    if a.dims is None or b.dims is None:
        return TensorShape(None)
    x, y = a.dims, b.dims
    n = max(len(x), len(y))
    x = (1,) * (n - len(x)) + x
    y = (1,) * (n - len(y)) + y
    out = []
    for p, q in zip(x, y):
        if p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None:
            out.append(q)
        elif q is None or p == q:
            out.append(p)
        else:
            raise ValueError(f"Dimensions must be equal, but are {p} and {q}")  # TF's words
    return TensorShape(out)
