"""Op attributes and nodes -> GraphDef protobufs (``proto/graph.proto``).

A bottom module: it reads anything shaped like an ``Operation`` (name, type, device,
inputs, control inputs, attrs), so ``Graph.as_graph_def`` uses it without this module
knowing graphs, and ``graph_def.py`` (the import side, above ``graph.py``) decodes with
``decode_attr``.  Attributes are encoded by their Python type: bool, int, float (as
double), str, DType, TensorShape, tuple of ints and ndarray (as a TensorProto).
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .errors import InvalidArgumentError
from .proto import graph_pb2
from .tensor_codec import array_to_proto, proto_to_array, proto_to_shape, shape_to_proto
from .tensor_shape import TensorShape

__all__ = ["encode_attr", "decode_attr", "graph_to_graph_def", "FORMAT_VERSION"]

FORMAT_VERSION = 1


def encode_attr(value, out: graph_pb2.AttrValue) -> None:
    if isinstance(value, bool) or isinstance(value, np.bool_):
        out.b = bool(value)
    elif isinstance(value, (int, np.integer)):
        out.i = int(value)
    elif isinstance(value, (float, np.floating)):
        out.d = float(value)
    elif isinstance(value, str):
        out.s = value.encode()
    elif isinstance(value, dtypes.DType):
        out.type = value.enum
    elif isinstance(value, TensorShape):
        shape_to_proto(value, out.shape)
    elif isinstance(value, np.ndarray):
        array_to_proto(value, out.tensor)
    elif isinstance(value, (tuple, list)):
        out.list.SetInParent()
        out.list.i.extend(int(v) for v in value)
    else:
        raise TypeError(f"Cannot encode attribute value {value!r} of type {type(value).__name__}.")


def decode_attr(proto: graph_pb2.AttrValue):
    kind = proto.WhichOneof("value")
    if kind == "b":
        return proto.b
    if kind == "i":
        return proto.i
    if kind in ("d", "f"):
        return float(getattr(proto, kind))
    if kind == "s":
        return proto.s.decode()
    if kind == "type":
        try:
            return dtypes.as_dtype(int(proto.type))
        except TypeError as e:
            raise InvalidArgumentError(str(e)) from None
    if kind == "shape":
        return proto_to_shape(proto.shape)
    if kind == "tensor":
        array = proto_to_array(proto.tensor)
        array.setflags(write=False)
        return array
    if kind == "list":
        return tuple(proto.list.i)
    raise InvalidArgumentError("An AttrValue has no value set.")


def graph_to_graph_def(ops) -> graph_pb2.GraphDef:
    """The GraphDef of ``ops`` (a graph's operations, in graph order)."""
    out = graph_pb2.GraphDef(version=FORMAT_VERSION)
    for op in ops:
        node = out.node.add(name=op.name, op=op.type, device=op.device)
        node.input.extend(t.name for t in op.inputs)
        node.input.extend(f"^{c.name}" for c in op.control_inputs)
        for key, value in sorted(op.attrs.items()):
            encode_attr(value, node.attr[key])
    return out
