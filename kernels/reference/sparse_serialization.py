"""Kernels of ``SerializeSparse``, ``SerializeManySparse``, ``DeserializeManySparse`` and
``DeserializeSparse`` (``devsession/ops/sparse_serialization.py``), on the host.

A SparseTensor is three ``TensorProto``\\ s written as TF's ``AsProtoTensorContent``
writes them: the dtype, the shape, and ``tensor_content`` (little-endian numbers; for
strings every length as a varint, then every string's bytes), so the bytes equal TF's.
Reading also takes any form ``tensor_codec.proto_to_array`` reads (``string_val``...).

Deserializing stacks the serialized SparseTensors of a ``[..., 3]`` string array as TF's
kernel does: each one's indices get the position of its row prepended, in row order
(TF's concatenation along the new first dimension keeps each row's own order), and the
dense shape is the rows' leading shape followed by the largest size of each dimension.
"""

from __future__ import annotations

import numpy as np
from google.protobuf.message import DecodeError

from devsession import dtypes
from devsession.errors import OpError
from devsession.proto import graph_pb2
from devsession.tensor_codec import array_to_proto, proto_to_array

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .sparse import check_indices, sparse_parts

__all__ = ["encode_tensor", "decode_tensor"]

# DataTypeString's names where they differ from devsession's
_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _tf_name(dtype) -> str:
    name = dtypes.as_dtype(dtype).name
    return _TF_NAMES.get(name, name)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError("a truncated varint")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at


def encode_tensor(array: np.ndarray) -> bytes:
    """The bytes of TF's ``TensorProto`` of ``array`` with its values in
    ``tensor_content`` (TF's ``AsProtoTensorContent``)."""
    array = np.asarray(array)
    if array.dtype != object:
        return array_to_proto(array).SerializeToString()
    proto = graph_pb2.TensorProto()
    proto.dtype = dtypes.string.enum
    proto.tensor_shape.CopyFrom(array_to_proto(np.zeros(array.shape, np.int8)).tensor_shape)
    strings = [bytes(s) for s in dtypes.string_array(array).reshape(-1)]
    proto.tensor_content = b"".join(_varint(len(s)) for s in strings) + b"".join(strings)
    return proto.SerializeToString()


def _decode_strings(content: bytes, count: int) -> np.ndarray:
    lengths, at = [], 0
    for _ in range(count):
        length, at = _read_varint(content, at)
        lengths.append(length)
    if at + sum(lengths) != len(content):
        raise ValueError("string tensor_content of the wrong length")
    out = np.empty(count, object)
    for i, length in enumerate(lengths):
        out[i], at = content[at:at + length], at + length
    return out


def decode_tensor(data: bytes, node) -> np.ndarray:
    """The array of a serialized ``TensorProto`` (TF's ``Tensor::FromProto``);
    ``InvalidArgumentError`` naming ``node`` for bytes that are not one."""
    proto = graph_pb2.TensorProto()
    try:
        proto.ParseFromString(data)
        if proto.dtype == dtypes.string.enum and proto.tensor_content:
            shape = [d.size for d in proto.tensor_shape.dim]
            return _decode_strings(proto.tensor_content,
                                   int(np.prod(shape, dtype=np.int64))).reshape(shape)
        return proto_to_array(proto, node.name)
    except OpError:               # too large to allocate, or TF's rules broken: its words
        raise
    except (DecodeError, ValueError, TypeError):
        raise invalid_argument(node.name, node.op, "Could not parse serialized proto") \
            from None


def _serialized(indices, values, shape) -> np.ndarray:
    return np.array([encode_tensor(np.asarray(indices, np.int64)), encode_tensor(values),
                     encode_tensor(np.asarray(shape, np.int64))], object)


@register_kernel("SerializeSparse", HOST)
def build_serialize_sparse(node):
    def serialize_sparse(indices, values, shape):
        indices, values, shape = sparse_parts(node, indices, values, shape)
        return _serialized(indices, values, shape)
    return serialize_sparse


@register_kernel("SerializeManySparse", HOST)
def build_serialize_many_sparse(node):
    def serialize_many_sparse(indices, values, shape):
        indices, values, shape = sparse_parts(node, indices, values, shape)
        if len(shape) < 2:
            raise invalid_argument(node.name, node.op, f"Rank of input SparseTensor should "
                                   f"be > 1, but saw rank: {len(shape)}")
        check_indices(node, indices, shape)
        rows = np.empty((shape[0], 3), object)
        for row in range(shape[0]):
            take = indices[:, 0] == row
            rows[row] = _serialized(indices[take, 1:], values[take], shape[1:])
        return rows
    return serialize_many_sparse


def _one_sparse(node, data, want, i: int):
    """(indices, values, shape) of serialized SparseTensor ``i``, checked as TF's
    ``GetAndValidateSparseTensor`` does."""
    indices, values, shape = (decode_tensor(bytes(d), node) for d in data)
    if indices.ndim != 2 or indices.dtype != np.int64:
        raise invalid_argument(node.name, node.op, f"Expected serialized_sparse[{i}, 0] to "
                               f"represent an index matrix but received shape "
                               f"{fmt_shape(indices.shape)}")
    got = dtypes.string if values.dtype == object else dtypes.as_dtype(values.dtype)
    if got != want:
        raise invalid_argument(node.name, node.op, f"Requested SparseTensor of type "
                               f"{_tf_name(want)} but SparseTensor[{i}].values.dtype() == "
                               f"{_tf_name(got)}")
    if values.ndim != 1 or shape.ndim != 1 or shape.dtype != np.int64 \
            or len(values) != len(indices) or indices.shape[1] != len(shape):
        raise invalid_argument(node.name, node.op, f"Expected serialized_sparse[{i}] to "
                               f"hold a SparseTensor: indices {fmt_shape(indices.shape)}, "
                               f"values {fmt_shape(values.shape)}, shape "
                               f"{fmt_shape(shape.shape)}")
    return indices, values, shape


def _deserialize(node, serialized) -> tuple:
    serialized = np.asarray(serialized, object)
    want = dtypes.as_dtype(node.attrs["dtype"])
    if serialized.ndim == 0 or serialized.shape[-1] != 3:
        what = "non-zero rank" if serialized.ndim == 0 else "3 as the last dimension"
        raise invalid_argument(node.name, node.op, f"Serialized sparse should have {what} "
                               f"{fmt_shape(serialized.shape)}")
    batch = serialized.shape[:-1]
    rows = serialized.reshape(-1, 3)
    if not len(rows):
        raise invalid_argument(node.name, node.op, f"Serialized sparse should have at least "
                               f"1 serialized tensor, but has a zero dimension "
                               f"{fmt_shape(serialized.shape)}")
    parts, widest = [], None
    for i, row in enumerate(rows):
        indices, values, shape = _one_sparse(node, row, want, i)
        if widest is None:
            widest = shape.copy()
        elif len(shape) != len(widest):
            raise invalid_argument(node.name, node.op, f"Inconsistent shape across "
                                   f"SparseTensors: rank prior to SparseTensor[{i}] was: "
                                   f"{len(widest)} but rank of SparseTensor[{i}] is: "
                                   f"{len(shape)}")
        else:
            widest = np.maximum(widest, shape)
        parts.append((indices, values))
    if serialized.ndim == 1:          # one SparseTensor: as it was written
        indices, values = parts[0]
        return indices, values, widest
    positions = np.array(np.unravel_index(np.arange(len(rows)), batch), np.int64).T
    indices = np.concatenate([np.hstack([np.repeat(positions[i:i + 1], len(ix), 0), ix])
                              for i, (ix, _) in enumerate(parts)])
    values = np.concatenate([v for _, v in parts]).astype(want.np, copy=False)
    return indices, values, np.concatenate([np.array(batch, np.int64), widest])


@register_kernel(("DeserializeManySparse", "DeserializeSparse"), HOST)
def build_deserialize_sparse(node):
    def deserialize_sparse(serialized):
        return _deserialize(node, serialized)
    return deserialize_sparse
