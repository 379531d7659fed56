"""TF1's tensor utilities: ``is_tensor``, ``get_static_value`` (what the graph alone
says a tensor's value is), and ``make_tensor_proto`` / ``make_ndarray`` between numpy
arrays and devsession's ``TensorProto`` (``proto/graph.proto``, TF's wire format:
``tensor_codec.py`` reads and writes it)."""

from __future__ import annotations

import numpy as np

from . import dtypes
from .graph import Tensor, constant_value, python_value_to_array
from .proto import graph_pb2
from .tensor_codec import _VALUE_FIELDS, array_to_proto, proto_to_array, shape_to_proto
from .tensor_shape import TensorShape

__all__ = ["is_tensor", "get_static_value", "make_tensor_proto", "make_ndarray"]


def is_tensor(x) -> bool:
    """Whether ``x`` is a graph tensor: a Tensor, a SparseTensor or a Variable (TF's
    answers), not a Python or numpy value."""
    from .sparse_tensor import SparseTensor
    from .variables import Variable

    return isinstance(x, (Tensor, SparseTensor, Variable))


def get_static_value(tensor, partial: bool = False):
    """``tensor``'s value as a numpy array when the graph alone determines it (a
    constant, a shape the graph knows...), else None; a value that is not a tensor
    comes back as it is (TF1's ``tf.get_static_value``)."""
    del partial
    if not is_tensor(tensor):
        return tensor
    if not isinstance(tensor, Tensor):       # a Variable's value changes; sparse: unknown
        return None
    value = constant_value(tensor)
    return None if value is None else np.array(value, copy=True)


def make_tensor_proto(values, dtype=None, shape=None, verify_shape: bool = False,
                      allow_broadcast: bool = False) -> graph_pb2.TensorProto:
    """A ``TensorProto`` of ``values`` (TF's rules: Python floats are float32 unless
    ``dtype`` says otherwise; with ``shape``, fewer values than elements repeat the
    last one when read back, more are a ValueError; ``verify_shape`` /
    ``allow_broadcast`` ask for the shape exactly / let one value fill it)."""
    if isinstance(values, Tensor):
        raise TypeError(f"make_tensor_proto takes values, not the Tensor '{values.name}': "
                        f"fetch it first.")
    array = python_value_to_array(values, dtype, strict=dtype is not None)
    if dtype is not None:
        array = array.astype(dtypes.as_dtype(dtype).np, copy=False)
    if shape is None:
        return array_to_proto(array)
    dims = [int(d) for d in shape]
    size = int(np.prod(dims, dtype=np.int64))
    if allow_broadcast:
        if array.shape not in ((), (1,)) and array.size != size:
            raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {array.shape}.")
    else:
        if verify_shape and array.shape != tuple(dims):
            raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {array.shape}.")
        if array.size > size:
            raise ValueError(f"Too many elements provided. Takes at most {size}, but got "
                             f"{array.size}")
    if array.size == size:
        return array_to_proto(array.reshape(dims))
    return _compact_proto(array.reshape(-1), dims)


def _compact_proto(flat: np.ndarray, dims: list) -> graph_pb2.TensorProto:
    """TF's short form: fewer values than the shape holds, the last one repeating."""
    proto = array_to_proto(flat[:0])
    proto.tensor_shape.Clear()
    shape_to_proto(TensorShape(dims), proto.tensor_shape)
    if flat.dtype == object:
        proto.string_val.extend(flat.tolist())
        return proto
    proto.ClearField("tensor_content")
    field = _VALUE_FIELDS[flat.dtype]
    if flat.dtype == np.float16:          # half_val holds the bit patterns
        flat = flat.view(np.uint16).astype(np.int64)
    getattr(proto, field).extend(flat.tolist())
    return proto


def make_ndarray(tensor) -> np.ndarray:
    """The numpy array a ``TensorProto`` holds (TF's ``tf.make_ndarray``)."""
    if not isinstance(tensor, graph_pb2.TensorProto):
        raise TypeError(f"make_ndarray takes a TensorProto, not {type(tensor).__name__}.")
    return proto_to_array(tensor)
