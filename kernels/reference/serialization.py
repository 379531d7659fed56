"""Kernels of ``SerializeTensor`` and ``ParseTensor`` (``devsession/ops/serialization.py``):
an array to and from the bytes of its ``TensorProto`` (``tensor_codec``: TF's encoding,
``tensor_content`` for numbers, ``string_val`` for strings), and of
``DecodeJSONExample``: protobuf's JSON parser into ``tf.train.Example``, serialized with
its map keys sorted (the bytes TF writes); on the host."""

from __future__ import annotations

import base64

import numpy as np

from devsession import dtypes
from devsession.errors import InvalidArgumentError
from devsession.proto import example_pb2, graph_pb2
from devsession.tensor_codec import array_to_proto, proto_to_array

from ..registry import HOST, register_kernel

# TF's DataTypeString names, as its messages write them
_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _tf_name(dtype) -> str:
    name = dtypes.as_dtype(dtype).name
    return _TF_NAMES.get(name, name)


@register_kernel("SerializeTensor", HOST)
def build_serialize_tensor(node):
    def serialize_tensor(tensor):
        array = np.asarray(tensor, dtype=object) if isinstance(tensor, bytes) else \
            np.asarray(tensor)
        if array.dtype.kind in "SU":
            array = dtypes.string_array(array)
        return np.array(array_to_proto(array).SerializeToString(), dtype=object)
    return serialize_tensor


@register_kernel("ParseTensor", HOST)
def build_parse_tensor(node):
    want = dtypes.as_dtype(node.attrs["out_type"])

    def parse_tensor(serialized):
        data = bytes(np.asarray(serialized, dtype=object).item())
        proto = graph_pb2.TensorProto()
        try:
            proto.ParseFromString(data)
            array = proto_to_array(proto, node.name)
        except InvalidArgumentError:
            raise
        except Exception:                 # protobuf's DecodeError, an unknown enum
            raise InvalidArgumentError(
                f"'{node.name}': Could not parse `serialized` as TensorProto, base64: "
                f"{base64.b64encode(data).decode()}", node.name) from None
        got = dtypes.as_dtype(array.dtype if array.dtype != object else dtypes.string)
        if got != want:
            raise InvalidArgumentError(
                f"'{node.name}': Type mismatch between parsed tensor ({_tf_name(got)}) and "
                f"dtype ({_tf_name(want)})", node.name)
        return array
    return parse_tensor


@register_kernel("DecodeJSONExample", HOST)
def build_decode_json_example(node):
    from google.protobuf import json_format

    def decode(text) -> bytes:
        text = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
        example = example_pb2.Example()
        try:
            json_format.Parse(text, example)
        except (json_format.ParseError, ValueError) as e:
            raise InvalidArgumentError(f"Error while parsing JSON: {e}", node.name) from None
        return example.SerializeToString(deterministic=True)

    def decode_json_example(json_examples):
        texts = np.asarray(json_examples, dtype=object)
        out = np.empty(texts.shape, dtype=object)
        for index, text in np.ndenumerate(texts):
            out[index] = decode(text)
        return out
    return decode_json_example
