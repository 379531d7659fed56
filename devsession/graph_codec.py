"""Op attributes and nodes -> GraphDef protobufs (``proto/graph.proto``).

A bottom module: it reads anything shaped like an ``Operation`` (name, type, device,
inputs, control inputs, attrs), so ``Graph.as_graph_def`` uses it without this module
knowing graphs, and ``graph_def.py`` (the import side, above ``graph.py``) decodes with
``decode_attr``.  Attributes are encoded by their Python type, in TF's AttrValue fields:
bool ``b``, int ``i``, str ``s``, DType ``type``, TensorShape ``shape``, ndarray ``tensor``
(a TensorProto), a tuple of one kind of these ``list``; a float goes in ``f`` (float32)
when float32 holds it exactly, as every float attr TF defines does, else in devsession's
``double_value`` (random ops' bounds need double precision).  Decoding reads every kind
TF writes (lists of any kind come back as tuples) and names the node in its errors; a
TF function reference is ``UnimplementedError``.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .errors import InvalidArgumentError, UnimplementedError
from .proto import graph_pb2
from .tensor_codec import (array_to_proto, dtype_from_enum, proto_to_array, proto_to_shape,
                           shape_to_proto)
from .tensor_shape import TensorShape

__all__ = ["encode_attr", "decode_attr", "node_def_of", "graph_to_graph_def", "FORMAT_VERSION"]

FORMAT_VERSION = 1


def encode_attr(value, out: graph_pb2.AttrValue) -> None:
    if isinstance(value, (tuple, list)):
        _encode_list(value, out)
    elif isinstance(value, (float, np.floating)) and not isinstance(value, np.float32) \
            and not _exact_in_float32(float(value)):
        out.double_value = float(value)
    else:
        field, encoded = _encode_scalar(value)
        if field in ("shape", "tensor"):
            encoded(getattr(out, field))
        else:
            setattr(out, field, encoded)


def _exact_in_float32(value: float) -> bool:
    with np.errstate(over="ignore"):
        return value != value or float(np.float32(value)) == value  # NaN is NaN in f


def _encode_scalar(value):
    """(AttrValue field, value to set or function filling the message) of one value."""
    if isinstance(value, (bool, np.bool_)):
        return "b", bool(value)
    if isinstance(value, (int, np.integer)):
        return "i", int(value)
    if isinstance(value, (float, np.floating)):
        return "f", float(value)
    if isinstance(value, str):
        return "s", value.encode()
    if isinstance(value, bytes):
        return "s", value
    if isinstance(value, dtypes.DType):
        return "type", value.enum
    if isinstance(value, TensorShape):
        return "shape", lambda out: shape_to_proto(value, out)
    if isinstance(value, np.ndarray):
        return "tensor", lambda out: array_to_proto(value, out)
    raise TypeError(f"Cannot encode attribute value {value!r} of type {type(value).__name__}.")


def _encode_list(values, out: graph_pb2.AttrValue) -> None:
    """A tuple of values of one kind (ints, floats, strings...), in TF's ListValue."""
    out.list.SetInParent()
    encoded = [_encode_scalar(v) for v in values]
    kinds = {field for field, _ in encoded}
    if kinds == {"i", "f"}:  # a mix of ints and floats is a list of floats
        encoded = [("f", float(v)) for _, v in encoded]
        kinds = {"f"}
    if len(kinds) > 1:
        raise TypeError(f"Cannot encode attribute list {values!r}: its values are of "
                        f"different kinds.")
    for field, value in encoded:
        if field in ("shape", "tensor"):
            value(getattr(out.list, field).add())
        else:
            getattr(out.list, field).append(value)


def decode_attr(proto: graph_pb2.AttrValue, node: str | None = None, key: str = ""):
    """The Python value of an AttrValue (see the module docstring); errors name ``node``."""
    kind = proto.WhichOneof("value")
    if kind == "list":
        return _decode_list(proto.list, node, key)
    if kind is None:
        where = f"Node '{node}': attr '{key}': " if node else ""
        raise InvalidArgumentError(f"{where}An AttrValue has no value set.", node)
    if kind == "func":
        raise UnimplementedError(
            f"Node '{node}': attr '{key}' names the function '{proto.func.name}'; devsession "
            f"runs no TF functions.", node)
    if kind == "placeholder":
        raise InvalidArgumentError(
            f"Node '{node}': attr '{key}' is a function-body placeholder "
            f"('{proto.placeholder}'), which a GraphDef's nodes cannot hold.", node)
    return _decode_scalar(kind, getattr(proto, kind), node)


def _decode_scalar(kind: str, value, node):
    if kind in ("b", "i"):
        return value
    if kind in ("f", "double_value"):
        return float(value)
    if kind == "s":
        try:
            return value.decode()
        except UnicodeDecodeError:
            return value  # bytes that are not text stay bytes
    if kind == "type":
        return dtype_from_enum(int(value), node)
    if kind == "shape":
        return proto_to_shape(value, node)
    if kind == "tensor":
        array = proto_to_array(value, node)
        array.setflags(write=False)
        return array
    raise InvalidArgumentError(f"Node '{node}': unknown AttrValue kind '{kind}'.", node)


def _decode_list(proto, node, key: str) -> tuple:
    filled = [field for field in _LIST_FIELDS if len(getattr(proto, field))]
    if len(filled) > 1:
        raise InvalidArgumentError(f"Node '{node}': attr '{key}' is a list holding values of "
                                   f"several kinds ({', '.join(filled)}).", node)
    if not filled:
        return ()
    if filled[0] == "func":
        raise UnimplementedError(f"Node '{node}': attr '{key}' names TF functions; "
                                 f"devsession runs no TF functions.", node)
    return tuple(_decode_scalar(filled[0], v, node) for v in getattr(proto, filled[0]))


_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")


def node_def_of(op, out: "graph_pb2.NodeDef | None" = None) -> graph_pb2.NodeDef:
    """The NodeDef of one node (anything shaped like an ``Operation``)."""
    node = out if out is not None else graph_pb2.NodeDef()
    node.name, node.op, node.device = op.name, op.type, op.device
    node.input.extend(t.name for t in op.inputs)
    node.input.extend(f"^{c.name}" for c in op.control_inputs)
    for key, value in sorted(op.attrs.items()):
        encode_attr(value, node.attr[key])
    return node


def graph_to_graph_def(ops) -> graph_pb2.GraphDef:
    """The GraphDef of ``ops`` (a graph's operations, in graph order)."""
    out = graph_pb2.GraphDef(version=FORMAT_VERSION)
    for op in ops:
        node_def_of(op, out.node.add())
    return out
