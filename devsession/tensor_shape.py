"""Static tensor shapes with unknown dimensions, as TF1's ``TensorShape``.

A shape is either of unknown rank (``dims is None``) or a tuple whose entries are ints
or None (unknown).  Shapes compare equal to plain tuples and lists, so tests can write
``t.shape == (None, 3)``.  Indexing or iterating a shape gives each known size as a
``Dimension``: a known size is an int that also has TF1's ``.value``
(``x.get_shape()[-1].value``, the TF1 idiom); an unknown size is TF1's ``Dimension(None)``,
whose ``.value`` is None, so ``x.get_shape()[0].value is None`` reads a batch size of a
placeholder as TF1 does.  ``dims`` and ``as_list()`` hold plain ints and None.
"""

from __future__ import annotations

from typing import Iterable

from .proto import graph_pb2

__all__ = ["TensorShape", "Dimension", "as_shape", "broadcast_static", "fully_defined_dims"]


class Dimension(int):
    """A known size in a shape, as TF1's ``shape[i]`` gives it: an int (arithmetic and
    comparisons are int's) with TF1's ``value``."""

    __slots__ = ()

    def __new__(cls, value):
        value = getattr(value, "value", value)
        if value is None:
            return UNKNOWN_DIMENSION
        return super().__new__(cls, value)

    @property
    def value(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"Dimension({int(self)})"        # TF1's repr

    def __str__(self) -> str:
        return str(int(self))                   # and TF1's str: the bare size

    __format__ = int.__format__

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
            out = []
            for d in dims:
                d = getattr(d, "value", d)
                if d is None:
                    out.append(None)
                else:
                    d = int(d)
                    if d < 0:
                        raise ValueError(f"Dimension {d} must be >= 0 or None.")
                    out.append(d)
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
            raise ValueError(f"Shapes {self} and {other} are not compatible.")
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
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

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
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return (_dimension(d) for d in self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else UNKNOWN_DIMENSION
        got = self._dims[key]
        return TensorShape(got) if isinstance(key, slice) else _dimension(got)

    def __eq__(self, other) -> bool:
        if isinstance(other, TensorShape):
            return self._dims == other._dims
        if isinstance(other, (tuple, list)):
            return self._dims is not None and self._dims == tuple(other)
        return NotImplemented

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
            raise ValueError(f"Dimensions {p} and {q} are not broadcastable.")
    return TensorShape(out)
