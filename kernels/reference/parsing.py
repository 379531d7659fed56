"""Kernels of ``ParseSingleExample``, ``ParseExampleV2`` and ``DecodeRaw``
(``devsession/ops/parsing.py``): serialized ``tf.train.Example`` protos, or the raw bytes
of strings, into arrays, on the host (``HOST``; GPU sessions place them on the CPU, as
TF's parse ops are CPU ops).

Each example is decoded with the Example message of ``proto/example.proto``; a
feature's value list must be of its dtype's kind (int64: ``int64_list``, float32:
``float_list``, string: ``bytes_list``).  A dense key (sorted, as the op's attrs or
inputs list them) must hold exactly its shape's number of values; a missing one takes
its default (an empty default: the feature is required).  A sparse key may hold any
number of values, or be missing (none); the outputs list, per sparse key, the
coordinates ``[example..., j]`` of its values, the values in example order, and the
shape ``batch shape + [the most values one example has]``.  Errors are
``InvalidArgumentError`` naming the node, with TF's wording (``Index`` is the
example's position in the batch).
"""

from __future__ import annotations

import numpy as np

from devsession import dtypes
from devsession.errors import InvalidArgumentError
from devsession.proto.example_pb2 import Example

from ..registry import HOST, register_kernel
from .strings import object_array

KINDS = {np.dtype(np.int64): ("int64_list", "int64"),
          np.dtype(np.float32): ("float_list", "float"),
          np.dtype(object): ("bytes_list", "string")}
KIND_NAMES = {"int64_list": "int64", "float_list": "float", "bytes_list": "string"}


class _ExampleParser:
    """Parses the features of one example at a time (node, keys, dtypes, shapes,
    defaults fixed for a run)."""

    def __init__(self, node, sparse_keys, keys, defaults, sparse_types=None, types=None,
                 shapes=None):
        # (the types and shapes are the Example ops' attrs unless given: a
        # SequenceExample's context passes its own)
        self.node = node
        self.sparse_keys = sparse_keys
        self.sparse_types = [np.dtype(dtypes.as_dtype(d).np) for d in (
            node.attrs.get("sparse_types", ()) if sparse_types is None else sparse_types)]
        self.keys = keys
        self.types = [np.dtype(d) for d in node.output_dtypes[3 * len(sparse_keys):]] \
            if types is None else [np.dtype(dtypes.as_dtype(d).np) for d in types]
        self.shapes = [tuple(getattr(s, "dims", s)) for s in (
            node.attrs["dense_shapes"] if shapes is None else shapes)]
        self.defaults = []
        for key, dtype, shape, default in zip(keys, self.types, self.shapes, defaults):
            default = np.asarray(default)
            if shape and shape[0] is None:     # rows: the default pads (0 or "" if none)
                pad = default.reshape(-1)[:1]
                self.defaults.append(pad[0] if pad.size else zero(dtype))
                continue
            if default.size and default.size != int(np.prod(shape, dtype=np.int64)):
                raise InvalidArgumentError(
                    f"'{node.name}': the default of feature '{key}' has {default.size} "
                    f"values, its shape {shape_text(shape)} needs {int(np.prod(shape))}.",
                    node.name)
            self.defaults.append(default.reshape(shape) if default.size else None)

    def parse(self, serialized, name: str, index: int | None) -> tuple[list, list]:
        """(the sparse keys' value vectors, the dense keys' arrays) of one example;
        ``index`` is its position in a batch (None for ParseSingleExample's one)."""
        example = Example()
        try:
            example.ParseFromString(bytes(serialized))
        except Exception:                 # protobuf's DecodeError, or a bad type
            raise InvalidArgumentError(f"'{self.node.name}': Could not parse example input, "
                                       f"value: '{preview(serialized)}'",
                                       self.node.name) from None
        return self.parse_features(example.features.feature, name, index)

    def parse_features(self, features, name: str, index: int | None) -> tuple[list, list]:
        """``parse`` of a decoded Features map (an Example's, a SequenceExample's
        context)."""
        sparse = [self._sparse(features, key, dtype, name, index)
                  for key, dtype in zip(self.sparse_keys, self.sparse_types)]
        dense = []
        for key, dtype, shape, default in zip(self.keys, self.types, self.shapes,
                                              self.defaults):
            if shape and shape[0] is None:
                dense.append(self._rows(features, key, dtype, shape, name, index or 0))
                continue
            if key not in features or features[key].WhichOneof("kind") is None:
                if default is None:
                    raise InvalidArgumentError(
                        f"'{self.node.name}': Name: {name}, Feature: {key} (data type: "
                        f"{KINDS[dtype][1]}) is required but could not be found.",
                        self.node.name)
                dense.append(default.copy())
                continue
            dense.append(self._values(features[key], key, dtype, shape, name, index or 0))
        return sparse, dense

    def _sparse(self, features, key, dtype, name, index) -> np.ndarray:
        feature = features.get(key) if key in features else None
        kind = feature.WhichOneof("kind") if feature is not None else None
        if kind is None:
            return np.zeros(0, dtype=dtype)
        field, type_name = KINDS[dtype]
        if kind != field:
            where = f"Key: {key}." if index is None else \
                f"Name: {name}, Key: {key}, Index: {index}."
            raise InvalidArgumentError(
                f"'{self.node.name}': {where}  Data types don't match. Expected type: "
                f"{type_name}, Actual type: {KIND_NAMES[kind]}", self.node.name)
        return value_array(getattr(feature, field).value, dtype)

    def _rows(self, features, key, dtype, shape, name, index) -> np.ndarray:
        """A FixedLenSequenceFeature's values as rows ``[n] + shape[1:]`` (none if the
        example lacks it): TF's variable-length dense feature."""
        feature = features[key] if key in features else None
        kind = feature.WhichOneof("kind") if feature is not None else None
        if kind is None:
            return np.zeros((0, *shape[1:]), dtype=dtype)
        values, type_name = self._dense_values(feature, key, dtype, name, index)
        stride = int(np.prod(shape[1:], dtype=np.int64))
        if stride == 0 or len(values) % stride:
            raise InvalidArgumentError(
                f"'{self.node.name}': Name: {name}, Key: {key}, Index: {index}.  Number of "
                f"{type_name} values is not a multiple of stride length. Saw {len(values)} "
                f"values but output shape is: {shape_text(shape)}", self.node.name)
        return value_array(values, dtype).reshape((-1, *shape[1:]))

    def _dense_values(self, feature, key, dtype, name, index) -> tuple:
        """(the values of a dense feature's list, TF's name of its type); TF's error
        when the list is of another kind."""
        field, type_name = KINDS[dtype]
        kind = feature.WhichOneof("kind")
        if kind != field:
            raise InvalidArgumentError(
                f"'{self.node.name}': Name: {name}, Key: {key}, Index: {index}.  Data types "
                f"don't match. Data type: {KIND_NAMES[kind]} but expected type: {type_name}",
                self.node.name)
        return getattr(feature, field).value, type_name

    def _values(self, feature, key, dtype, shape, name, index) -> np.ndarray:
        values, type_name = self._dense_values(feature, key, dtype, name, index)
        expected = int(np.prod(shape, dtype=np.int64))
        if len(values) != expected:
            raise InvalidArgumentError(
                f"'{self.node.name}': Name: {name}, Key: {key}, Index: {index}.  Number of "
                f"{type_name} values != expected.  Values size: {len(values)} but output "
                f"shape: {shape_text(shape)}", self.node.name)
        return value_array(values, dtype).reshape(shape)


def shape_text(shape) -> str:
    """A shape as TF's messages write it: ``[?,2]``."""
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def zero(dtype: np.dtype):
    return b"" if dtype == object else dtype.type(0)


def pad_rows(rows: list, pad, dtype: np.dtype) -> np.ndarray:
    """Arrays ``[n_i] + shape`` stacked into ``[len(rows), max n_i] + shape``, the rest
    ``pad``."""
    longest = max((len(r) for r in rows), default=0)
    tail = rows[0].shape[1:] if rows else ()
    out = np.empty((len(rows), longest, *tail), dtype=dtype)
    out[...] = pad
    for k, r in enumerate(rows):
        out[k, :len(r)] = r
    return out


def value_array(values, dtype: np.dtype) -> np.ndarray:
    return object_array(list(values)) if dtype == object else np.asarray(values, dtype=dtype)


def sparse_outputs(per_example: list, batch_shape: tuple, dtype: np.dtype) -> tuple:
    """(indices, values, shape) of one sparse key from each example's value vector."""
    lengths = np.array([len(v) for v in per_example], dtype=np.int64)
    longest = int(lengths.max()) if lengths.size else 0
    example = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    position = np.arange(int(lengths.sum()), dtype=np.int64) - \
        np.repeat(np.cumsum(lengths) - lengths, lengths)
    lead = np.stack(np.unravel_index(example, batch_shape), axis=1) if batch_shape else \
        np.zeros((example.size, 0), np.int64)
    indices = np.concatenate([lead.astype(np.int64), position[:, None]], axis=1)
    values = np.concatenate(per_example) if per_example else np.zeros(0, dtype=dtype)
    return indices, values.astype(dtype, copy=False), np.array([*batch_shape, longest],
                                                                dtype=np.int64)


def preview(serialized) -> str:
    data = bytes(serialized)
    return data[:32].hex() + ("..." if len(data) > 32 else "")


def example_names(names, count: int) -> list:
    names = np.asarray(names, dtype=object).reshape(-1)
    return [n.decode(errors="replace") if isinstance(n, bytes) else str(n)
            for n in names] if names.size == count else ["<unknown>"] * count


def _outputs(sparse: list, dense: list):
    # TF's order: every key's indices, then every key's values, then every key's shape
    out = [part for parts in zip(*sparse) for part in parts] + dense
    return out[0] if len(out) == 1 else tuple(out)


@register_kernel("ParseSingleExample", HOST)
def build_parse_single_example(node):
    sparse_keys = list(node.attrs.get("sparse_keys", ()))
    keys = list(node.attrs["dense_keys"])

    def parse_single_example(serialized, *defaults):
        parser = _ExampleParser(node, sparse_keys, keys, defaults)
        sparse, dense = parser.parse(np.asarray(serialized, dtype=object).item(),
                                     "<unknown>", None)
        return _outputs([sparse_outputs([v], (), t)
                         for v, t in zip(sparse, parser.sparse_types)], dense)
    return parse_single_example


def key_list(keys) -> list:
    return [k.decode() if isinstance(k, bytes) else str(k)
            for k in dtypes.string_array(keys).reshape(-1)]


@register_kernel("ParseExampleV2", HOST)
def build_parse_example(node):
    def parse_example(serialized, names, sparse_keys, dense_keys, ragged_keys, *defaults):
        if np.asarray(ragged_keys).size:
            raise InvalidArgumentError(f"'{node.name}': ragged keys are not supported.",
                                       node.name)
        sparse_keys, keys = key_list(sparse_keys), key_list(dense_keys)
        if len(keys) != len(defaults):
            raise InvalidArgumentError(f"'{node.name}': {len(keys)} dense_keys for "
                                       f"{len(defaults)} dense_defaults.", node.name)
        if len(sparse_keys) != node.attrs.get("num_sparse", 0):
            raise InvalidArgumentError(f"'{node.name}': {len(sparse_keys)} sparse_keys for "
                                       f"num_sparse {node.attrs.get('num_sparse', 0)}.",
                                       node.name)
        parser = _ExampleParser(node, sparse_keys, keys, defaults)
        serialized = np.asarray(serialized, dtype=object)
        flat = serialized.reshape(-1)
        single = serialized.ndim == 0        # TF's message then names no example
        parsed = [parser.parse(s, n, None if single else i)
                  for i, (s, n) in enumerate(zip(flat, example_names(names, flat.size)))]
        sparse = [sparse_outputs([p[0][k] for p in parsed], serialized.shape, dtype)
                  for k, dtype in enumerate(parser.sparse_types)]
        dense = []
        for k, (dtype, shape) in enumerate(zip(parser.types, parser.shapes)):
            if shape and shape[0] is None:
                rows = [p[1][k] for p in parsed]
                dense.append(rows[0] if single else
                             pad_rows(rows, parser.defaults[k], dtype).reshape(
                                 serialized.shape + (-1, *shape[1:])))
                continue
            stacked = np.stack([p[1][k] for p in parsed]) if parsed else \
                np.zeros((0, *shape), dtype=dtype)
            dense.append(stacked.reshape(serialized.shape + shape))
        return _outputs(sparse, dense)
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
