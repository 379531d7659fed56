"""Tensor element types.

A ``DType`` wraps a numpy dtype and keeps TF1's names (``ds.float32.name == "float32"``);
it compares equal to the numpy dtype and to numpy type objects, so users can write
``t.dtype == np.float32``.  The wire enum values (``DataType`` in graph.proto) are
defined here too, next to the names, so the two cannot drift apart.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DType", "as_dtype", "converts_without_loss", "float16", "float32", "float64", "int32", "int64", "bool_"]


class DType:
    """An element type; immutable and interned (one instance per type)."""

    __slots__ = ("_np", "_enum")

    def __init__(self, np_dtype: np.dtype, enum: int):
        self._np = np.dtype(np_dtype)
        self._enum = enum

    @property
    def name(self) -> str:
        return self._np.name

    @property
    def as_numpy_dtype(self):
        return self._np.type

    @property
    def np(self) -> np.dtype:
        return self._np

    @property
    def enum(self) -> int:
        return self._enum

    @property
    def is_floating(self) -> bool:
        return self._np.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self._np.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self._np.kind == "b"

    @property
    def is_numeric(self) -> bool:
        return self._np.kind in "fiu"

    @property
    def size(self) -> int:
        return self._np.itemsize

    def __eq__(self, other) -> bool:
        if isinstance(other, DType):
            return self is other
        try:
            return self._np == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self._np)

    def __repr__(self) -> str:
        return f"ds.{self.name}"

    def __reduce__(self):
        return as_dtype, (self.name,)


float16 = DType(np.float16, 19)
float32 = DType(np.float32, 1)
float64 = DType(np.float64, 2)
int32 = DType(np.int32, 3)
int64 = DType(np.int64, 9)
bool_ = DType(np.bool_, 10)

ALL = (float16, float32, float64, int32, int64, bool_)
FLOATS = (float16, float32, float64)
_BY_NP = {d.np: d for d in ALL}
_BY_ENUM = {d.enum: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL} | {"half": float16, "float": float32, "double": float64}


def as_dtype(value) -> DType:
    """Convert a DType, numpy dtype/type, name or wire enum to a ``DType``.

    Raises TypeError for anything that is not one of the six supported types.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value in _BY_ENUM:
        return _BY_ENUM[value]
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        found = _BY_NP.get(np.dtype(value).newbyteorder("="))
    except TypeError:
        found = None
    if found is None:
        names = ", ".join(d.name for d in ALL)
        raise TypeError(f"Unsupported dtype {value!r}; devsession supports {names}.")
    return found


def converts_without_loss(array: np.ndarray, dtype) -> bool:
    """Whether ``array`` can become ``dtype`` keeping every value: safe casts always; a
    float to a narrower float as TF1 does (rounding only); integers when every value
    fits; floats to integers only when the values are whole numbers that fit.  Feeds and
    constants follow this one rule."""
    src, want = array.dtype, np.dtype(dtype)
    if np.can_cast(src, want, casting="safe"):
        return True
    if src.kind == "f" and want.kind == "f":
        return True
    if want.kind in "iu" and src.kind in "iub":
        info = np.iinfo(want)
        return array.size == 0 or (int(array.min()) >= info.min and int(array.max()) <= info.max)
    with np.errstate(all="ignore"):
        return bool(np.array_equal(array.astype(want).astype(src), array))
