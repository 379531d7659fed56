"""Tensors as bytes: TF1's ``tf.io.serialize_tensor`` and ``tf.io.parse_tensor`` (TF's
``SerializeTensor(tensor; T)`` and ``ParseTensor(serialized; out_type)``), a tensor as the
bytes of its ``TensorProto`` (TF's dtype enum, shape and ``tensor_content``; strings one
``string_val`` each), as TFRecord pipelines store whole arrays:

    record = ds.io.serialize_tensor(features)           # a scalar string
    back = ds.io.parse_tensor(record, out_type=ds.float32)

``tf.io.decode_json_example`` (TF's ``DecodeJSONExample``): ``tf.train.Example``\\ s
written in protobuf's JSON mapping, as their serialized bytes, element by element.

Host kernels (``kernels/reference/serialization.py``); not differentiable, as TF's.
ParseTensor of bytes that are not a TensorProto, or of another dtype, is TF's
``InvalidArgumentError`` naming the node.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, get_default_graph
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["serialize_tensor", "parse_tensor", "decode_json_example", "SERIALIZE_TENSOR",
           "PARSE_TENSOR", "DECODE_JSON_EXAMPLE"]

SERIALIZE_TENSOR = "SerializeTensor"
PARSE_TENSOR = "ParseTensor"
DECODE_JSON_EXAMPLE = "DecodeJSONExample"


def _infer_serialize(inputs, attrs, node):
    return [(dtypes.string, TensorShape([]))]


def _infer_parse(inputs, attrs, node):
    (serialized,) = inputs
    if serialized.dtype != dtypes.string or not serialized.shape.is_compatible_with([]):
        raise InferError(f"Op '{node}': ParseTensor reads a scalar string, got "
                         f"{serialized.dtype.name} {serialized.shape}.")
    return [(dtypes.as_dtype(attrs["out_type"]), TensorShape(None))]


register_op(OpDef(SERIALIZE_TENSOR, _infer_serialize, 1))
def _infer_decode_json(inputs, attrs, node):
    (json_examples,) = inputs
    if json_examples.dtype != dtypes.string:
        raise TypeError(f"Value passed to parameter 'json_examples' has DataType "
                        f"{json_examples.dtype.name} not in list of allowed values: string")
    return [(dtypes.string, json_examples.shape)]


register_op(OpDef(PARSE_TENSOR, _infer_parse, 1))
register_op(OpDef(DECODE_JSON_EXAMPLE, _infer_decode_json, 1))
not_differentiable(SERIALIZE_TENSOR, PARSE_TENSOR, DECODE_JSON_EXAMPLE)


def serialize_tensor(tensor, name=None):
    """TF1's ``tf.io.serialize_tensor``: a scalar string, the TensorProto of ``tensor``."""
    graph = get_default_graph()
    tensor = convert_to_tensor(tensor, graph=graph)
    return graph.create_op(SERIALIZE_TENSOR, [tensor], {},
                           name=name or "SerializeTensor").outputs[0]


def parse_tensor(serialized, out_type, name=None):
    """TF1's ``tf.io.parse_tensor``: the tensor of ``out_type`` a serialized TensorProto
    holds (its shape known only when run)."""
    graph = get_default_graph()
    serialized = convert_to_tensor(serialized, dtype=dtypes.string, graph=graph)
    return graph.create_op(PARSE_TENSOR, [serialized], {"out_type": dtypes.as_dtype(out_type)},
                           name=name or "ParseTensor").outputs[0]


def decode_json_example(json_examples, name=None):
    """TF1's ``tf.io.decode_json_example``: each JSON string (a ``tf.train.Example`` in
    protobuf's JSON mapping) as that Example's serialized bytes, of the input's shape."""
    graph = get_default_graph()
    json_examples = convert_to_tensor(json_examples, graph=graph)
    return graph.create_op(DECODE_JSON_EXAMPLE, [json_examples], {},
                           name=name or "DecodeJSONExample").outputs[0]
