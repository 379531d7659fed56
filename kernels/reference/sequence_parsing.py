"""Kernels of ``ParseSequenceExampleV2`` and ``ParseSingleSequenceExample``
(``devsession/ops/sequence_parsing.py``): serialized ``tf.train.SequenceExample`` protos
into arrays, on the host (``HOST``, as TF's parse ops).

The context is an Example's features (``parsing._ExampleParser``); a dense feature list
must hold one Feature of its dtype's kind per step, each of the shape's number of
values (the total not a whole number of rows, or rows not one per step, is TF's
error); a missing one is no steps where ``feature_list_dense_missing_assumed_empty``
says so, else an error.  A batch pads the dense lists to the longest (0 or "") and
reports each example's steps (the lengths); a sparse list's values are at
``[example, step, k]``.  Errors are ``InvalidArgumentError`` naming the node, with TF
2.21's wording.
"""

from __future__ import annotations

import numpy as np

from devsession import dtypes
from devsession.errors import InvalidArgumentError
from devsession.proto.example_pb2 import SequenceExample

from ..registry import HOST, register_kernel
from .parsing import (KINDS, _ExampleParser, example_names, key_list, pad_rows, shape_text,
                      sparse_outputs, value_array, zero)


class _Spec:
    """What one run parses: the keys, types and shapes of the context and the lists."""

    def __init__(self, node, context_sparse, context_dense, list_sparse, list_dense,
                 missing, defaults):
        attrs = node.attrs
        self.node = node
        self.context = _ExampleParser(node, context_sparse, context_dense, defaults,
                                      attrs.get("context_sparse_types", ()),
                                      attrs.get("Tcontext_dense", ()),
                                      attrs.get("context_dense_shapes", ()))
        self.required = [k for k, d in zip(context_dense, self.context.defaults) if d is None]
        self.list_sparse = list_sparse
        self.list_sparse_types = _np_types(attrs.get("feature_list_sparse_types", ()))
        self.list_dense = list_dense
        self.list_types = _np_types(attrs.get("feature_list_dense_types", ()))
        self.list_shapes = [tuple(getattr(s, "dims", s))
                            for s in attrs.get("feature_list_dense_shapes", ())]
        self.missing = set(missing)
        for keys, label in ((context_sparse, "Ncontext_sparse"),
                            (list_sparse, "Nfeature_list_sparse"),
                            (list_dense, "Nfeature_list_dense")):
            if len(keys) != attrs.get(label, 0):
                self.fail(f"{len(keys)} keys for {label} {attrs.get(label, 0)}.")
        if len(context_dense) != len(defaults):
            self.fail(f"{len(context_dense)} context_dense_keys for {len(defaults)} "
                      f"context_dense_defaults.")

    def fail(self, message: str):
        raise InvalidArgumentError(f"'{self.node.name}': {message}", self.node.name)

    def parse(self, serialized, name: str, index: int, single: bool) -> tuple:
        """(context sparse, context dense, list sparse: steps of values, list dense:
        rows) of one example."""
        example = SequenceExample()
        try:
            example.ParseFromString(bytes(serialized))
        except Exception:                 # protobuf's DecodeError, or a bad type
            self.fail(f"Invalid protocol message input, example id: {name}")
        context = example.context.feature
        for key in self.required:
            if key not in context or context[key].WhichOneof("kind") is None:
                shape = self.context.shapes[self.context.keys.index(key)]
                self.fail(f"Inconsistent max number of elements for feature {key}: "
                          f"expected {int(np.prod(shape, dtype=np.int64))}, but found 0")
        c_sparse, c_dense = self.context.parse_features(context, name,
                                                        None if single else index)
        lists = example.feature_lists.feature_list
        l_sparse = [self._steps(lists, key, dtype, name, index)
                    for key, dtype in zip(self.list_sparse, self.list_sparse_types)]
        l_dense = [self._rows(lists, key, dtype, shape, name, index)
                   for key, dtype, shape in zip(self.list_dense, self.list_types,
                                                self.list_shapes)]
        return c_sparse, c_dense, l_sparse, l_dense

    def _steps(self, lists, key, dtype, name, index) -> list:
        """Each step's values of a feature list (none if the example lacks it)."""
        if key not in lists:
            return []
        field, type_name = KINDS[dtype]
        steps = []
        for feature in lists[key].feature:
            kind = feature.WhichOneof("kind")
            if kind is not None and kind != field:
                self.fail(f"Name: {name}, Feature list: {key}, Index: {index}.  Data types "
                          f"don't match. Expected type: {type_name}")
            steps.append(value_array(getattr(feature, field).value if kind else [], dtype))
        return steps

    def _rows(self, lists, key, dtype, shape, name, index) -> np.ndarray:
        """A dense feature list as ``[steps] + shape``."""
        if key not in lists:
            if key not in self.missing:
                self.fail(f"Name: {name}, Feature list '{key}' is required but could not be "
                          f"found.  Did you mean to include it in "
                          f"feature_list_dense_missing_assumed_empty or "
                          f"feature_list_dense_defaults?")
            return np.zeros((0, *shape), dtype=dtype)
        steps = self._steps(lists, key, dtype, name, index)
        values = np.concatenate(steps) if steps else np.zeros(0, dtype=dtype)
        stride = int(np.prod(shape, dtype=np.int64))
        if stride and values.size % stride:
            self.fail(f"Feature list '{key}' has an unexpected number of values.  Total "
                      f"values size: {values.size} is not consistent with output shape: "
                      f"{shape_text((None, *shape))}")
        rows = values.size // stride if stride else len(steps)
        if rows != len(steps):
            self.fail(f"Name: {name}, Key: {key}, Index: {index}.  Number of values != "
                      f"expected.  values size: {rows} but output shape: "
                      f"{shape_text(shape)}")
        return values.astype(dtype, copy=False).reshape((len(steps), *shape))


def _np_types(types) -> list:
    return [np.dtype(dtypes.as_dtype(t).np) for t in types]


def _list_sparse(per_example: list, single: bool, dtype: np.dtype) -> tuple:
    """(indices, values, shape) of a sparse feature list: ``[example, step, k]``."""
    coords, values = [], []
    for b, steps in enumerate(per_example):
        for j, step in enumerate(steps):
            coords += [(b, j, k) for k in range(len(step))]
            values.append(step)
    most_steps = max((len(s) for s in per_example), default=0)
    most_values = max((len(v) for s in per_example for v in s), default=0)
    indices = np.array(coords, dtype=np.int64).reshape(-1, 3)
    shape = [len(per_example), most_steps, most_values]
    values = np.concatenate(values).astype(dtype, copy=False) if values else \
        np.zeros(0, dtype=dtype)
    if single:
        return indices[:, 1:], values, np.array(shape[1:], dtype=np.int64)
    return indices, values, np.array(shape, dtype=np.int64)


def _run(spec: _Spec, serialized, names, lengths: bool):
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim > 1:
        spec.fail(f"serialized must be a scalar or a vector, got shape "
                  f"{list(serialized.shape)}.")
    single = serialized.ndim == 0
    flat = serialized.reshape(-1)
    names = np.asarray(names, dtype=object).reshape(-1)
    if names.size not in (0, flat.size):
        spec.fail("example_names must be empty or have the correct number of elements")
    parsed = [spec.parse(s, n, i, single)
              for i, (s, n) in enumerate(zip(flat, example_names(names, flat.size)))]
    lead = serialized.shape
    out = [sparse_outputs([p[0][k] for p in parsed], lead, dtype)
           for k, dtype in enumerate(spec.context.sparse_types)]
    flat_out = [part for parts in zip(*out) for part in parts]
    for k, (dtype, shape) in enumerate(zip(spec.context.types, spec.context.shapes)):
        stacked = np.stack([p[1][k] for p in parsed]) if parsed else \
            np.zeros((0, *shape), dtype=dtype)
        flat_out.append(stacked.reshape(lead + shape))
    lists = [_list_sparse([p[2][k] for p in parsed], single, dtype)
             for k, dtype in enumerate(spec.list_sparse_types)]
    flat_out += [part for parts in zip(*lists) for part in parts]
    for k, dtype in enumerate(spec.list_types):
        rows = [p[3][k] for p in parsed]
        flat_out.append(rows[0] if single else pad_rows(rows, zero(dtype), dtype))
    if lengths:
        for k in range(len(spec.list_types)):
            steps = np.array([len(p[3][k]) for p in parsed], dtype=np.int64)
            flat_out.append(steps.reshape(lead))
    return flat_out[0] if len(flat_out) == 1 else tuple(flat_out)


@register_kernel("ParseSequenceExampleV2", HOST)
def build_parse_sequence_example(node):
    def parse_sequence_example(serialized, names, context_sparse, context_dense,
                               context_ragged, list_sparse, list_dense, list_ragged,
                               missing, *defaults):
        if np.asarray(context_ragged).size or np.asarray(list_ragged).size:
            raise InvalidArgumentError(f"'{node.name}': ragged keys are not supported.",
                                       node.name)
        list_dense = key_list(list_dense)
        missing = np.asarray(missing, dtype=bool).reshape(-1)
        if missing.size != len(list_dense):
            raise InvalidArgumentError(
                f"'{node.name}': feature_list_dense_missing_assumed_empty has "
                f"{missing.size} values for {len(list_dense)} feature_list_dense_keys.",
                node.name)
        spec = _Spec(node, key_list(context_sparse), key_list(context_dense),
                     key_list(list_sparse), list_dense,
                     [k for k, m in zip(list_dense, missing) if m], defaults)
        return _run(spec, serialized, names, lengths=True)
    return parse_sequence_example


@register_kernel("ParseSingleSequenceExample", HOST)
def build_parse_single_sequence_example(node):
    counts = [node.attrs.get(k, 0) for k in ("Ncontext_sparse", "Ncontext_dense",
                                              "Nfeature_list_sparse", "Nfeature_list_dense")]

    def parse_single_sequence_example(serialized, missing, *rest):
        keys, at = [], 0
        for n in counts:
            keys.append(key_list([np.asarray(k, dtype=object).item()
                                  for k in rest[at:at + n]]))
            at += n
        defaults, debug_name = rest[at:-1], rest[-1]
        spec = _Spec(node, *keys, key_list(missing), defaults)
        name = key_list(debug_name)
        return _run(spec, np.asarray(serialized, dtype=object).reshape(()),
                    [n for n in name if n], lengths=False)
    return parse_single_sequence_example
