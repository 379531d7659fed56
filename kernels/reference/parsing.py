"""Kernels of ``ParseSingleExample``, ``ParseExampleV2`` and ``DecodeRaw``
(``devsession/ops/parsing.py``): serialized ``tf.train.Example`` protos, or the raw bytes
of strings, into dense arrays, on the host (``HOST``; GPU sessions place them on the CPU,
as TF's parse ops are CPU ops).

Each example is decoded with the Example message of ``proto/example.proto``; for each
dense key (sorted, as the op's attrs or inputs list them) its feature's value list must
be of the dtype's kind (int64: ``int64_list``, float32: ``float_list``, string:
``bytes_list``) and hold exactly the shape's number of values.  A missing feature takes
its default (an empty default: the feature is required).  Errors are
``InvalidArgumentError`` naming the node, with TF's wording.
"""

from __future__ import annotations

import numpy as np

from devsession import dtypes
from devsession.errors import InvalidArgumentError
from devsession.proto.example_pb2 import Example

from ..registry import HOST, register_kernel

_KINDS = {np.dtype(np.int64): ("int64_list", "int64"),
          np.dtype(np.float32): ("float_list", "float"),
          np.dtype(object): ("bytes_list", "string")}
_KIND_NAMES = {"int64_list": "int64", "float_list": "float", "bytes_list": "string"}


class _DenseParser:
    """Parses the dense features of one example at a time (node, keys, dtypes, shapes,
    defaults fixed for a run)."""

    def __init__(self, node, keys, defaults):
        self.node = node
        self.keys = keys
        self.types = [np.dtype(d) for d in node.output_dtypes]
        self.shapes = [tuple(s) for s in node.attrs["dense_shapes"]]
        self.defaults = []
        for key, dtype, shape, default in zip(keys, self.types, self.shapes, defaults):
            default = np.asarray(default)
            if default.size and default.size != int(np.prod(shape, dtype=np.int64)):
                raise InvalidArgumentError(
                    f"'{node.name}': the default of feature '{key}' has {default.size} "
                    f"values, its shape {list(shape)} needs {int(np.prod(shape))}.",
                    node.name)
            self.defaults.append(default.reshape(shape) if default.size else None)

    def parse(self, serialized, name: str) -> list:
        example = Example()
        try:
            example.ParseFromString(bytes(serialized))
        except Exception:                 # protobuf's DecodeError, or a bad type
            raise InvalidArgumentError(f"'{self.node.name}': Could not parse example input, "
                                       f"value: '{_preview(serialized)}'",
                                       self.node.name) from None
        features = example.features.feature
        out = []
        for key, dtype, shape, default in zip(self.keys, self.types, self.shapes,
                                              self.defaults):
            if key not in features or features[key].WhichOneof("kind") is None:
                if default is None:
                    raise InvalidArgumentError(
                        f"'{self.node.name}': Name: {name}, Feature: {key} (data type: "
                        f"{_KINDS[dtype][1]}) is required but could not be found.",
                        self.node.name)
                out.append(default.copy())
                continue
            out.append(self._values(features[key], key, dtype, shape, name))
        return out

    def _values(self, feature, key, dtype, shape, name) -> np.ndarray:
        field, type_name = _KINDS[dtype]
        kind = feature.WhichOneof("kind")
        if kind != field:
            raise InvalidArgumentError(
                f"'{self.node.name}': Name: {name}, Key: {key}, Index: 0.  Data types don't "
                f"match. Data type: {_KIND_NAMES[kind]} but expected type: {type_name}",
                self.node.name)
        values = getattr(feature, field).value
        expected = int(np.prod(shape, dtype=np.int64))
        if len(values) != expected:
            raise InvalidArgumentError(
                f"'{self.node.name}': Name: {name}, Key: {key}, Index: 0.  Number of "
                f"{type_name} values != expected.  Values size: {len(values)} but output "
                f"shape: {list(shape)}", self.node.name)
        if dtype == object:
            array = np.empty(expected, dtype=object)
            array[:] = list(values)
        else:
            array = np.asarray(values, dtype=dtype)
        return array.reshape(shape)


def _preview(serialized) -> str:
    data = bytes(serialized)
    return data[:32].hex() + ("..." if len(data) > 32 else "")


def _names(names, count: int) -> list:
    names = np.asarray(names, dtype=object).reshape(-1)
    return [n.decode(errors="replace") if isinstance(n, bytes) else str(n)
            for n in names] if names.size == count else ["<unknown>"] * count


@register_kernel("ParseSingleExample", HOST)
def build_parse_single_example(node):
    keys = list(node.attrs["dense_keys"])

    def parse_single_example(serialized, *defaults):
        parser = _DenseParser(node, keys, defaults)
        values = parser.parse(np.asarray(serialized, dtype=object).item(), "<unknown>")
        return values[0] if len(values) == 1 else tuple(values)
    return parse_single_example


@register_kernel("ParseExampleV2", HOST)
def build_parse_example(node):
    def parse_example(serialized, names, sparse_keys, dense_keys, ragged_keys, *defaults):
        if np.asarray(sparse_keys).size or np.asarray(ragged_keys).size:
            raise InvalidArgumentError(f"'{node.name}': sparse and ragged keys are not "
                                       f"supported.", node.name)
        keys = [k.decode() if isinstance(k, bytes) else str(k)
                for k in dtypes.string_array(dense_keys).reshape(-1)]
        if len(keys) != len(defaults):
            raise InvalidArgumentError(f"'{node.name}': {len(keys)} dense_keys for "
                                       f"{len(defaults)} dense_defaults.", node.name)
        parser = _DenseParser(node, keys, defaults)
        serialized = np.asarray(serialized, dtype=object)
        flat = serialized.reshape(-1)
        parsed = [parser.parse(s, n) for s, n in zip(flat, _names(names, flat.size))]
        values = []
        for k, (dtype, shape) in enumerate(zip(parser.types, parser.shapes)):
            stacked = np.stack([p[k] for p in parsed]) if parsed else \
                np.zeros((0, *shape), dtype=dtype)
            values.append(stacked.reshape(serialized.shape + shape))
        return values[0] if len(values) == 1 else tuple(values)
    return parse_example


@register_kernel("DecodeRaw", HOST)
def build_decode_raw(node):
    dtype = np.dtype(node.output_dtypes[0])
    stored = dtype.newbyteorder("<" if node.attrs.get("little_endian", True) else ">")

    def decode_raw(data):
        data = np.asarray(data, dtype=object)
        flat = [bytes(b) for b in data.reshape(-1)]
        size = len(flat[0]) if flat else 0
        if size % dtype.itemsize:
            raise InvalidArgumentError(
                f"'{node.name}': Input to DecodeRaw has length {size} that is not a "
                f"multiple of {dtype.itemsize}, the size of {dtypes.as_dtype(dtype).name}",
                node.name)
        for index, b in enumerate(flat):
            if len(b) != size:
                raise InvalidArgumentError(
                    f"'{node.name}': DecodeRaw requires input strings to all be the same "
                    f"size, but element {index} has size {len(b)} != {size}", node.name)
        values = np.frombuffer(b"".join(flat), dtype=stored).astype(dtype)
        return values.reshape(data.shape + (size // dtype.itemsize,))
    return decode_raw
