"""numpy arrays <-> ``TensorProto``: raw little-endian bytes, dtype and shape (string
tensors: one ``string_val`` per element), nothing else.

No per-element encoding and nothing executable: decoding checks the dtype is one of
ours and the byte count matches the shape, and raises ``InvalidArgumentError``
otherwise, so bad bytes from a file or the network can never become a wrong array.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .errors import InvalidArgumentError
from .proto import graph_pb2
from .tensor_shape import TensorShape

__all__ = ["array_to_proto", "proto_to_array", "shape_to_proto", "proto_to_shape"]


def shape_to_proto(shape: TensorShape, out: "graph_pb2.TensorShapeProto | None" = None):
    proto = out if out is not None else graph_pb2.TensorShapeProto()
    proto.SetInParent()  # a scalar shape sets no field, but must still count as set
    if shape.dims is None:
        proto.unknown_rank = True
    else:
        for d in shape.dims:
            proto.dim.add(size=-1 if d is None else d)
    return proto


def proto_to_shape(proto: "graph_pb2.TensorShapeProto") -> TensorShape:
    if proto.unknown_rank:
        return TensorShape(None)
    dims = []
    for d in proto.dim:
        if d.size < -1:
            raise InvalidArgumentError(f"Invalid dimension {d.size} in a TensorShapeProto.")
        dims.append(None if d.size == -1 else d.size)
    return TensorShape(dims)


def array_to_proto(array: np.ndarray, out: "graph_pb2.TensorProto | None" = None):
    array = np.asarray(array)
    dtype = dtypes.as_dtype(array.dtype)
    proto = out if out is not None else graph_pb2.TensorProto()
    proto.dtype = dtype.enum
    shape_to_proto(TensorShape(array.shape), proto.shape)
    if dtype.is_string:       # one string_val per element, as TF encodes strings
        proto.string_val.extend(dtypes.string_array(array).reshape(-1).tolist())
        return proto
    proto.tensor_content = np.ascontiguousarray(array, dtype=dtype.np.newbyteorder("<")).tobytes()
    return proto


def proto_to_array(proto: "graph_pb2.TensorProto") -> np.ndarray:
    """A fresh, writable array; InvalidArgumentError if the bytes do not fit the header."""
    try:
        dtype = dtypes.as_dtype(int(proto.dtype))
    except TypeError:
        raise InvalidArgumentError(f"Unsupported tensor dtype enum {proto.dtype}.") from None
    shape = proto_to_shape(proto.shape)
    if not shape.is_fully_defined():
        raise InvalidArgumentError(f"A tensor value needs a fully defined shape, got {shape}.")
    count = shape.num_elements()
    if dtype.is_string:
        if len(proto.string_val) != count:
            raise InvalidArgumentError(f"String tensor of shape {shape} needs {count} values, "
                                       f"got {len(proto.string_val)}.")
        out = np.empty(count, dtype=object)
        out[:] = [bytes(v) for v in proto.string_val]
        return out.reshape(shape.dims)
    expected = count * dtype.size
    if len(proto.tensor_content) != expected:
        raise InvalidArgumentError(
            f"Tensor of dtype {dtype.name} and shape {shape} needs {expected} bytes, "
            f"got {len(proto.tensor_content)}.")
    flat = np.frombuffer(proto.tensor_content, dtype=dtype.np.newbyteorder("<"), count=count)
    return flat.astype(dtype.np, copy=True).reshape(shape.dims)
