"""Tensor element types.

A ``DType`` wraps a numpy dtype and keeps TF1's names (``ds.float32.name == "float32"``);
it compares equal to the numpy dtype and to numpy type objects, so users can write
``t.dtype == np.float32``.  The wire enum values (``DataType`` in graph.proto) are
defined here too, next to the names, so the two cannot drift apart.

``ds.string`` holds byte strings, as TF1's: a string tensor's value is a numpy object
array whose elements are ``bytes`` (Python ``str`` values are UTF-8 encoded on the way
in), and a 0-d one is fetched as a ``bytes`` object.  The small integer types (int8,
int16, uint8, uint16, uint32) wrap around on overflow, as TF's do.  ``uint64`` is there for
the key and counter of TF's stateless random ops (``StatelessRandomGetKeyCounter``).
``ds.dtypes.bool`` is ``bool_`` (the module keeps Python's ``bool`` for itself).
``complex64`` and ``complex128`` are TF's complex types (the values of ``tf.complex``, the
FFTs); their kernels run on the host (numpy), and only the ops TF defines on complex
values take them.  The quantized types (``qint8``, ``quint8``, ``qint16``, ``quint16``,
``qint32``) are TF's: their numpy dtypes are TF's one-field structured dtypes
(``np.dtype([("qint8", np.int8)])``, what ``sess.run`` returns), they live on the host, and
only ``tf.quantization.quantize``/``dequantize`` and ``tf.bitcast`` take or make them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DType", "as_dtype", "converts_without_loss", "float16", "float32", "float64",
           "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool_",
           "string", "complex64", "complex128", "qint8", "quint8", "qint16", "quint16",
           "qint32", "half", "double"]


def _kind_in(kinds: str, doc: str) -> property:
    """A DType flag: whether its numpy kind (one letter) is one of ``kinds``."""
    return property(lambda self: self._np.kind in kinds, doc=doc)


class DType:
    """An element type; immutable and interned (one instance per type)."""

    __slots__ = ("_np", "_enum", "_name")

    def __init__(self, np_dtype: np.dtype, enum: int, name: str | None = None):
        self._np = np.dtype(np_dtype)
        self._enum = enum
        self._name = name or self._np.name

    @property
    def name(self) -> str:
        return self._name

    @property
    def base_dtype(self) -> "DType":
        """Itself (TF1's reference dtypes have a base; devsession's dtypes are all base)."""
        return self

    @property
    def is_string(self) -> bool:
        return self is string

    @property
    def as_numpy_dtype(self):
        """The numpy type (a quantized type's: its structured dtype, as TF's)."""
        return self._np if self.is_quantized else self._np.type

    @property
    def np(self) -> np.dtype:
        return self._np

    @property
    def enum(self) -> int:
        return self._enum

    @property
    def as_datatype_enum(self) -> int:
        """TF's name of the wire enum (what an ``AttrValue(type=...)`` holds)."""
        return self._enum

    is_quantized = property(lambda self: self._np.names is not None,
                            doc="qint8, quint8, qint16, quint16 or qint32.")

    def is_compatible_with(self, other) -> bool:
        """Whether a value of ``other``'s type can stand where this type is expected: the
        same type (TF1's reference types have a base; devsession's types are all base)."""
        return as_dtype(other) is self

    is_floating = _kind_in("f", "float16, float32 or float64.")
    is_integer = _kind_in("iu", "A signed or unsigned integer type.")
    is_unsigned = _kind_in("u", "An unsigned integer type (uint8 ... uint64).")
    is_bool = _kind_in("b", "The boolean type.")
    is_numeric = _kind_in("fiu", "A floating or integer type (not bool, string or complex).")
    is_complex = _kind_in("c", "complex64 or complex128.")

    @property
    def real_dtype(self) -> "DType":
        """The type of a complex type's parts (float32 of complex64, float64 of complex128);
        any other type itself, as TF's."""
        return {complex64: float32, complex128: float64}.get(self, self)

    @property
    def min(self):
        """The smallest value of a numeric type (as TF1's ``DType.min``)."""
        self._ordered("minimum")
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        self._ordered("maximum")
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def _ordered(self, what: str) -> None:
        if self.is_complex or self.is_quantized:     # TF's TypeError
            raise TypeError(f"Cannot find {what} value of {self.name}.")

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

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._np)

    def __repr__(self) -> str:
        return f"ds.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: {self.name!r}>"          # TF's, which scripts print and compare

    def __reduce__(self):
        return as_dtype, (self.name,)


float16 = DType(np.float16, 19)
float32 = DType(np.float32, 1)
float64 = DType(np.float64, 2)
int32 = DType(np.int32, 3)
int64 = DType(np.int64, 9)
bool_ = DType(np.bool_, 10)
# Enums as TF's DataType: DT_UINT8=4, DT_INT16=5, DT_INT8=6, DT_STRING=7, DT_UINT16=17.
uint8 = DType(np.uint8, 4)
int16 = DType(np.int16, 5)
int8 = DType(np.int8, 6)
string = DType(np.object_, 7, name="string")
uint16 = DType(np.uint16, 17)
uint32 = DType(np.uint32, 22)     # DT_UINT32
uint64 = DType(np.uint64, 23)     # DT_UINT64: the stateless random ops' keys and counters
complex64 = DType(np.complex64, 8)     # DT_COMPLEX64
complex128 = DType(np.complex128, 18)  # DT_COMPLEX128
# DT_QINT8=11, DT_QUINT8=12, DT_QINT32=13, DT_QINT16=15, DT_QUINT16=16: TF's numpy dtypes
qint8 = DType([("qint8", np.int8)], 11, name="qint8")
quint8 = DType([("quint8", np.uint8)], 12, name="quint8")
qint32 = DType([("qint32", np.int32)], 13, name="qint32")
qint16 = DType([("qint16", np.int16)], 15, name="qint16")
quint16 = DType([("quint16", np.uint16)], 16, name="quint16")
half, double = float16, float64   # TF's other names of them (tf.dtypes.half...)

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       bool_, string, complex64, complex128, qint8, quint8, qint16, quint16, qint32)
QUANTIZED = (qint8, quint8, qint32, qint16, quint16)     # in TF's order
FLOATS = (float16, float32, float64)
_BY_NP = {d.np: d for d in ALL}
_BY_ENUM = {d.enum: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL} | {"half": float16, "float": float32, "double": float64,
                                       "bool": bool_, "cfloat": complex64,
                                       "cdouble": complex128}


def as_dtype(value) -> DType:
    """Convert a DType, numpy dtype/type, name or wire enum to a ``DType``.

    ``str``, ``bytes`` and numpy's bytes/unicode/object dtypes are ``string``.  Raises
    TypeError for anything that is not one of the supported types.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value in _BY_ENUM:
        return _BY_ENUM[value]
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if value in (str, bytes):
        return string
    try:
        np_dtype = np.dtype(value)
        found = string if np_dtype.kind in "SUO" else _BY_NP.get(np_dtype.newbyteorder("="))
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
    if (src.kind in "SUO") != (want.kind in "SUO"):
        return False     # strings and numbers never convert into each other
    if src.kind == "c" and want.kind != "c":
        return False     # nor complex values into real ones (TF's TypeError)
    if want.kind == "O":
        return True
    if np.can_cast(src, want, casting="safe"):
        return True
    if want.kind == "c":     # complex from complex (rounding only), else as its real part
        return src.kind == "c" or converts_without_loss(array, np.finfo(want).dtype)
    if src.kind == "f" and want.kind == "f":
        return True
    if want.kind in "iu" and src.kind in "iub":
        info = np.iinfo(want)
        return array.size == 0 or (int(array.min()) >= info.min and int(array.max()) <= info.max)
    with np.errstate(all="ignore"):
        return bool(np.array_equal(array.astype(want).astype(src), array))


def filled_scalar(value: int, dtype: "DType") -> np.ndarray:
    """The scalar ``zeros``/``ones`` (and their ``_like``) fill a ``dtype`` tensor with:
    ``value`` as that dtype, and for strings TF's ``b""`` for 0 (a string has no 1: TypeError
    with TF's message)."""
    if dtype.is_string:
        if value != 0:
            raise TypeError(f"Expected string, but got {value} of type 'int'.")
        return string_array(b"")
    return np.array(value, dtype.np)


def string_array(value) -> np.ndarray:
    """``value`` (bytes, str, or nested lists/arrays of them) as a string tensor's value:
    an object array of ``bytes``, ``str`` encoded as UTF-8.  TypeError for anything else."""
    array = np.asarray(value, dtype=object)
    flat = array.reshape(-1)
    out = np.empty(flat.shape, dtype=object)
    for i, item in enumerate(flat):
        if isinstance(item, (bytes, np.bytes_)):
            out[i] = bytes(item)
        elif isinstance(item, (str, np.str_)):
            out[i] = str(item).encode("utf-8")
        else:
            raise TypeError(f"A string tensor holds bytes or str values, not "
                            f"{type(item).__name__} ({item!r}).")
    return out.reshape(array.shape)


def holds_strings(value) -> bool:
    """Whether a Python/numpy value is string data (bytes/str or arrays of them)."""
    if isinstance(value, (bytes, str, np.bytes_, np.str_)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "SU" or (
            value.dtype.kind == "O" and value.size > 0
            and isinstance(value.reshape(-1)[0], (bytes, str)))
    if isinstance(value, (list, tuple)) and value:
        return holds_strings(value[0])
    return False


def __getattr__(name: str):
    """``ds.dtypes.bool``, TF's name of ``bool_`` (a module global named ``bool`` would
    shadow Python's in this module)."""
    if name == "bool":
        return bool_
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
