"""numpy arrays <-> ``TensorProto``, and TF's dtype enums.

Encoding writes what TensorFlow reads for every dtype: TF's dtype enum, the shape, and
``tensor_content`` (raw little-endian bytes, C order); string tensors, one ``string_val``
per element (TF's encoding: strings have no fixed size).

Decoding reads every form TensorFlow writes:

* ``tensor_content``, when present (its length must be exactly elements * item size);
* otherwise the typed field of the dtype (``float_val``, ``double_val``, ``int_val``,
  ``int64_val``, ``bool_val``, ``half_val``: float16 bit patterns; the small integer types
  in ``int_val``; uint64 in ``uint64_val``; strings in ``string_val``; complex64 and
  complex128 in ``scomplex_val`` and ``dcomplex_val``, real and imaginary parts
  interleaved, a pair counting as one value), filling the shape in
  C order, its last value repeating to fill the rest (TF's rule: one value is a fill, a
  short list is padded, an empty field means zeros).  More values than elements, or values
  in another dtype's field, are an error (TF never writes either).

A TensorProto is untrusted input (files, the network), so nothing is allocated before
the shape is checked: a constant may expand to at most ``constant_limit_bytes()`` (2 GiB,
the most a GraphDef can carry as content, or a quarter of the machine's memory if less):
more is ``ResourceExhaustedError``; negative dimensions, a wrong content length or an
enum TF does not define are ``InvalidArgumentError``; a dtype TF has but devsession does
not (bfloat16...), or a constant of a quantized type (devsession's quantized values come
only from ``tf.quantization.quantize`` and ``tf.bitcast``), is ``UnimplementedError``.
Errors name the node when the caller says which one it is decoding.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from . import dtypes
from .errors import InvalidArgumentError, ResourceExhaustedError, UnimplementedError
from .proto import graph_pb2
from .tensor_shape import TensorShape

__all__ = ["array_to_proto", "proto_to_array", "shape_to_proto", "proto_to_shape",
           "dtype_from_enum", "constant_limit_bytes"]

# The typed value field of each dtype devsession has (by numpy dtype).
_VALUE_FIELDS = {
    np.dtype(np.float32): "float_val", np.dtype(np.float64): "double_val",
    np.dtype(np.int32): "int_val", np.dtype(np.int64): "int64_val",
    np.dtype(np.bool_): "bool_val", np.dtype(np.float16): "half_val",
    np.dtype(np.int8): "int_val", np.dtype(np.int16): "int_val", np.dtype(np.uint8): "int_val",
    np.dtype(np.uint16): "int_val", np.dtype(np.uint32): "uint32_val",
    np.dtype(np.uint64): "uint64_val",
    np.dtype(np.complex64): "scomplex_val", np.dtype(np.complex128): "dcomplex_val",
}
_ALL_VALUE_FIELDS = ("float_val", "double_val", "int_val", "int64_val", "bool_val",
                     "half_val", "string_val", "uint32_val", "uint64_val", "scomplex_val",
                     "dcomplex_val")
_COMPLEX_FIELDS = ("scomplex_val", "dcomplex_val")
_REF_OFFSET = 100  # TF1's reference types (DT_FLOAT_REF = 101...) are their base type + 100


def _where(node: str | None) -> str:
    return f"Node '{node}': " if node else ""


def dtype_from_enum(enum: int, node: str | None = None, what: str = "dtype") -> dtypes.DType:
    """The DType of a TF ``DataType`` enum (``*_REF`` types as their base type).

    ``UnimplementedError`` for a type TF has and devsession not, ``InvalidArgumentError``
    for a number TF does not define.
    """
    base = enum - _REF_OFFSET if enum > _REF_OFFSET else enum
    try:
        return dtypes.as_dtype(int(base))
    except TypeError:
        pass
    if base in graph_pb2.DataType.values() and base != graph_pb2.DT_INVALID:
        tf_name = graph_pb2.DataType.Name(base)
        raise UnimplementedError(
            f"{_where(node)}{tf_name} ({tf_name[3:].lower()}) is not supported by devsession "
            f"yet; it computes with {', '.join(d.name for d in dtypes.ALL)}.",
            node) from None
    raise InvalidArgumentError(f"{_where(node)}Unsupported {what} {enum}.", node) from None


def shape_to_proto(shape: TensorShape, out: "graph_pb2.TensorShapeProto | None" = None):
    proto = out if out is not None else graph_pb2.TensorShapeProto()
    proto.SetInParent()  # a scalar shape sets no field, but must still count as set
    proto.MergeFrom(shape.as_proto())
    return proto


def proto_to_shape(proto: "graph_pb2.TensorShapeProto", node: str | None = None) -> TensorShape:
    if proto.unknown_rank:
        return TensorShape(None)
    dims = []
    for d in proto.dim:
        if d.size < -1:
            raise InvalidArgumentError(
                f"{_where(node)}Invalid dimension {d.size} in a TensorShapeProto.", node)
        dims.append(None if d.size == -1 else d.size)
    return TensorShape(dims)


def array_to_proto(array: np.ndarray, out: "graph_pb2.TensorProto | None" = None):
    array = np.asarray(array)
    dtype = dtypes.as_dtype(array.dtype)
    proto = out if out is not None else graph_pb2.TensorProto()
    proto.dtype = dtype.enum
    shape_to_proto(TensorShape(array.shape), proto.tensor_shape)
    if dtype.is_string:       # one string_val per element, as TF encodes strings
        proto.string_val.extend(dtypes.string_array(array).reshape(-1).tolist())
        return proto
    proto.tensor_content = np.ascontiguousarray(array, dtype=dtype.np.newbyteorder("<")).tobytes()
    return proto


@functools.cache
def constant_limit_bytes() -> int:
    """The most bytes one decoded constant may take: 2 GiB (protobuf's limit on a whole
    GraphDef), or a quarter of physical memory on a smaller machine."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        memory = 2**33
    return min(2**31, memory // 4)


def proto_to_array(proto: "graph_pb2.TensorProto", node: str | None = None) -> np.ndarray:
    """A fresh, writable array of any form TF writes (see the module docstring)."""
    dtype = dtype_from_enum(int(proto.dtype), node, "tensor dtype enum")
    if dtype.is_quantized:
        raise UnimplementedError(f"{_where(node)}A tensor of quantized type {dtype.name} is not "
                                 f"supported by devsession yet as a constant.", node)
    shape = proto_to_shape(proto.tensor_shape, node)
    if not shape.is_fully_defined():
        raise InvalidArgumentError(
            f"{_where(node)}A tensor value needs a fully defined shape, got {shape}.", node)
    count = 1
    for d in shape.dims:
        count *= d  # Python ints: no overflow, however large the dimensions
    needed = count * dtype.size
    if needed > constant_limit_bytes():
        raise ResourceExhaustedError(
            f"{_where(node)}A constant of dtype {dtype.name} and shape {shape} would take "
            f"{needed} bytes, more than the {constant_limit_bytes()} bytes a constant may "
            f"take; feed such a value through a placeholder instead.", node)
    if dtype.is_string:
        return _string_values(proto, count, shape, node).reshape(shape.dims)
    if proto.tensor_content:
        if len(proto.tensor_content) != needed:
            raise InvalidArgumentError(
                f"{_where(node)}Tensor of dtype {dtype.name} and shape {shape} needs {needed} "
                f"bytes, got {len(proto.tensor_content)}.", node)
        flat = np.frombuffer(proto.tensor_content, dtype=dtype.np.newbyteorder("<"),
                             count=count).astype(dtype.np, copy=True)
    else:
        flat = _typed_values(proto, dtype, count, shape, node)
    return flat.reshape(shape.dims)


def _typed_values(proto, dtype: dtypes.DType, count: int, shape, node) -> np.ndarray:
    field = _VALUE_FIELDS[dtype.np]
    for other in _ALL_VALUE_FIELDS:
        if other != field and len(getattr(proto, other)):
            raise InvalidArgumentError(
                f"{_where(node)}A {dtype.name} tensor holds its values in {field}, not "
                f"{other}.", node)
    values = getattr(proto, field)
    if field in _COMPLEX_FIELDS:
        if len(values) % 2:
            raise InvalidArgumentError(
                f"{_where(node)}{field} holds {len(values)} numbers: a complex tensor's "
                f"values are (real, imaginary) pairs.", node)
        pairs = np.array(values, dtype=dtype.real_dtype.np).reshape(-1, 2)
        values = pairs[:, 0] + 1j * pairs[:, 1] if len(pairs) else []
    if len(values) > count:
        raise InvalidArgumentError(
            f"{_where(node)}Tensor of shape {shape} has {count} elements, but {field} holds "
            f"{len(values)} values.", node)
    if field == "half_val":  # int32s holding IEEE half bit patterns
        given = np.array(values, dtype=np.int64)
        if given.size and (given.min() < 0 or given.max() > 0xFFFF):
            raise InvalidArgumentError(
                f"{_where(node)}half_val holds a value that is not a 16-bit pattern.", node)
        given = given.astype(np.uint16).view(np.float16)
    else:
        given = np.array(values, dtype=dtype.np)
    if len(given) == count:
        return given
    out = np.zeros(count, dtype.np)
    out[:len(given)] = given
    if len(given):
        out[len(given):] = given[-1]
    return out


def _string_values(proto, count: int, shape, node) -> np.ndarray:
    """An object array of bytes: one string_val per element, or one repeated (a fill)."""
    values = [bytes(v) for v in proto.string_val]
    if len(values) not in (count, 1) and not (count == 0 and not values):
        raise InvalidArgumentError(
            f"{_where(node)}String tensor of shape {shape} needs {count} values, got "
            f"{len(values)}.", node)
    out = np.empty(count, dtype=object)
    out[:] = values if len(values) == count else values * count
    return out
