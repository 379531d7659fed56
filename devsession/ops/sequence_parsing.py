"""Parsing serialized ``tf.train.SequenceExample`` protos: TF1's
``parse_single_sequence_example`` and ``parse_sequence_example`` (``ds.io`` and ``ds``),
as sequence models' input pipelines read them:

    context, sequence = ds.io.parse_single_sequence_example(
        record,
        context_features={"length": ds.io.FixedLenFeature([], ds.int64)},
        sequence_features={"tokens": ds.io.FixedLenSequenceFeature([], ds.int64),
                           "tags": ds.io.VarLenFeature(ds.string)})

The context is parsed as an Example's features (FixedLenFeature, VarLenFeature); a
feature list is one Feature per step: a FixedLenSequenceFeature gives ``[steps] + shape``
(a batch: ``[batch, longest] + shape``, padded with 0 or ""), a VarLenFeature a
SparseTensor ``[steps, most values]`` (a batch: ``[batch, steps, values]``).  A missing
feature list is an error unless ``allow_missing`` (then no steps).

The op is TF 2's ``ParseSequenceExampleV2`` (serialized a scalar or a vector, debug names,
the six key vectors, ``feature_list_dense_missing_assumed_empty`` as bools, the context
defaults; attrs ``Ncontext_sparse``, ``Tcontext_dense``, ``context_sparse_types``,
``context_dense_shapes``, ``Nfeature_list_sparse``, ``Nfeature_list_dense``,
``feature_list_dense_types``, ``feature_list_sparse_types``, ``feature_list_dense_shapes``
and the ragged ones, empty), and TF 1's ``ParseSingleSequenceExample`` (keys as scalar
inputs) imports too.  Outputs in TF's order: context sparse (indices, values, shapes),
context dense, feature-list sparse, feature-list dense, then (V2) each dense list's
lengths.  Keys are sorted, as TF's.  Kernels: ``kernels/reference/sequence_parsing.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from ..sparse_tensor import SparseTensor
from ..tensor_shape import TensorShape
from .parsing import (FEATURE_DTYPES, FixedLenFeature, FixedLenSequenceFeature,
                      VarLenFeature, _features, _sparse_outputs)
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["parse_single_sequence_example", "parse_sequence_example",
           "PARSE_SEQUENCE_EXAMPLE", "PARSE_SINGLE_SEQUENCE_EXAMPLE"]

PARSE_SEQUENCE_EXAMPLE = "ParseSequenceExampleV2"
PARSE_SINGLE_SEQUENCE_EXAMPLE = "ParseSingleSequenceExample"


def _types(attrs, key: str, node: str) -> tuple:
    types = tuple(attrs.get(key, ()))
    for dtype in types:
        if dtype not in FEATURE_DTYPES:
            raise InferError(f"Op '{node}': {key} are int64, float32 or string, got "
                             f"{dtype.name}.")
    return types


def _shapes(attrs, key: str, count: int, node: str) -> list:
    shapes = [TensorShape(s) for s in attrs.get(key, ())]
    if len(shapes) != count:
        raise InferError(f"Op '{node}': {len(shapes)} {key} for {count} types.")
    for shape in shapes:
        if not shape.is_fully_defined():
            raise InferError(f"Op '{node}': Shape {shape} is not fully defined.")
    return shapes


def _outputs(attrs, node, defaults, lead: TensorShape, lengths: bool) -> list:
    """The outputs' (dtype, shape) for ``lead``, the batch shape (scalar: [])."""
    if attrs.get("context_ragged_value_types") or attrs.get("feature_list_ragged_value_types"):
        raise InferError(f"Op '{node}': ragged features are not supported (devsession has "
                         f"no RaggedTensor).")
    context_sparse = _types(attrs, "context_sparse_types", node)
    context_dense = _types(attrs, "Tcontext_dense", node)
    list_sparse = _types(attrs, "feature_list_sparse_types", node)
    list_dense = _types(attrs, "feature_list_dense_types", node)
    if len(context_sparse) != attrs.get("Ncontext_sparse", 0) or \
            len(list_sparse) != attrs.get("Nfeature_list_sparse", 0) or \
            len(list_dense) != attrs.get("Nfeature_list_dense", 0):
        raise InferError(f"Op '{node}': the N attrs and the type lists disagree.")
    if len(defaults) != len(context_dense) or \
            any(d.dtype != t for d, t in zip(defaults, context_dense)):
        raise InferError(f"Op '{node}': context_dense_defaults must be one per "
                         f"Tcontext_dense, of its dtype.")
    context_shapes = _shapes(attrs, "context_dense_shapes", len(context_dense), node)
    list_shapes = _shapes(attrs, "feature_list_dense_shapes", len(list_dense), node)
    rank = lead.ndims
    steps = lead.concatenate([None]) if rank is not None else TensorShape(None)
    out = _sparse_outputs(context_sparse, None if rank is None else rank + 1)
    out += [(t, lead.concatenate(s) if rank is not None else TensorShape(None))
            for t, s in zip(context_dense, context_shapes)]
    out += _sparse_outputs(list_sparse, None if rank is None else rank + 2)
    out += [(t, steps.concatenate(s) if rank is not None else TensorShape(None))
            for t, s in zip(list_dense, list_shapes)]
    if lengths:
        out += [(dtypes.int64, lead) for _ in list_dense]
    return out


def _infer_v2(inputs, attrs, node):
    if len(inputs) < 9:
        raise InferError(f"Op '{node}': ParseSequenceExampleV2 takes serialized, "
                         f"debug_name, six key vectors, "
                         f"feature_list_dense_missing_assumed_empty and the defaults.")
    serialized = inputs[0]
    if any(t.dtype != dtypes.string for t in inputs[:8]) or inputs[8].dtype != dtypes.bool_:
        raise InferError(f"Op '{node}': serialized, debug_name and the keys are strings, "
                         f"feature_list_dense_missing_assumed_empty bools.")
    if serialized.shape.ndims is not None and serialized.shape.ndims > 1:
        raise InferError(f"Op '{node}': serialized must be a scalar or a vector, got "
                         f"{serialized.shape}.")
    return _outputs(attrs, node, inputs[9:], serialized.shape, lengths=True)


def _infer_single(inputs, attrs, node):
    counts = [attrs.get(k, 0) for k in ("Ncontext_sparse", "Ncontext_dense",
                                         "Nfeature_list_sparse", "Nfeature_list_dense")]
    if len(inputs) != 3 + sum(counts) + len(attrs.get("Tcontext_dense", ())):
        raise InferError(f"Op '{node}': ParseSingleSequenceExample takes serialized, "
                         f"feature_list_dense_missing_assumed_empty, the keys, the "
                         f"defaults and debug_name.")
    if not inputs[0].shape.is_compatible_with([]):
        raise InferError(f"Op '{node}': serialized must be a scalar, got "
                         f"{inputs[0].shape}.")
    first = 2 + sum(counts)
    defaults = inputs[first:first + counts[1]]
    return _outputs(attrs, node, defaults, TensorShape([]), lengths=False)


_ATTR_DEFAULTS = {"Ncontext_sparse": 0, "Nfeature_list_sparse": 0, "Nfeature_list_dense": 0,
                  "context_sparse_types": (), "Tcontext_dense": (),
                  "feature_list_dense_types": (), "feature_list_sparse_types": (),
                  "context_dense_shapes": (), "feature_list_dense_shapes": (),
                  "context_ragged_value_types": (), "context_ragged_split_types": (),
                  "feature_list_ragged_value_types": (),
                  "feature_list_ragged_split_types": ()}
register_op(OpDef(PARSE_SEQUENCE_EXAMPLE, _infer_v2, None, attr_defaults=_ATTR_DEFAULTS))
register_op(OpDef(PARSE_SINGLE_SEQUENCE_EXAMPLE, _infer_single, None,
                  attr_defaults={**_ATTR_DEFAULTS, "Ncontext_dense": 0}))
not_differentiable(PARSE_SEQUENCE_EXAMPLE, PARSE_SINGLE_SEQUENCE_EXAMPLE)


# --- the builders ----------------------------------------------------------------------------

def _sequence_features(features: dict) -> tuple:
    """(sparse keys, types, dense keys, types, shapes, allow_missing) of the feature lists."""
    sparse_keys, sparse_types, keys, types, shapes, missing = [], [], [], [], [], []
    for key in sorted(features):
        feature = features[key]
        if not isinstance(feature, (FixedLenSequenceFeature, VarLenFeature)):
            raise ValueError(f"Unsupported feature type {type(feature).__name__} for key "
                             f"'{key}': sequence_features are FixedLenSequenceFeature or "
                             f"VarLenFeature.")
        dtype = dtypes.as_dtype(feature.dtype)
        if dtype not in FEATURE_DTYPES:
            raise ValueError(f"Feature '{key}' has dtype {dtype.name}; SequenceExamples "
                             f"hold int64, float32 and string features.")
        if isinstance(feature, VarLenFeature):
            sparse_keys.append(key)
            sparse_types.append(dtype)
            continue
        shape = TensorShape(feature.shape)
        if not shape.is_fully_defined():
            raise ValueError(f"Shape {shape} is not fully defined for feature '{key}'.")
        keys.append(key)
        types.append(dtype)
        shapes.append(shape)
        missing.append(bool(feature.allow_missing))
    return sparse_keys, sparse_types, keys, types, shapes, missing


def _context(context_features: dict) -> tuple:
    for key, feature in context_features.items():
        if not isinstance(feature, (FixedLenFeature, VarLenFeature)):
            raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key "
                             f"'{key}'")
    if not context_features:
        return [], [], [], [], [], []
    return _features(context_features, "parse_sequence_example")


def _strings(values, name: str) -> Tensor:
    return convert_to_tensor(dtypes.string_array(list(values)), dtype=dtypes.string,
                             name=name)


def _parse(serialized, context_features, sequence_features, names, name: str) -> tuple:
    """The ParseSequenceExampleV2 op's (context dict, feature-list dict, lengths dict)."""
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    if not context_features and not sequence_features:
        raise ValueError("Both context_features and sequence_features are None, but at "
                         "least one should have values.")
    c_sparse, c_sparse_types, c_keys, c_types, c_shapes, c_defaults = _context(
        context_features)
    f_sparse, f_sparse_types, f_keys, f_types, f_shapes, missing = _sequence_features(
        sequence_features)
    graph = get_default_graph()
    inputs = [serialized, names]
    for keys, label in ((c_sparse, "context_sparse_keys"), (c_keys, "context_dense_keys"),
                        ([], "context_ragged_keys"), (f_sparse, "feature_list_sparse_keys"),
                        (f_keys, "feature_list_dense_keys"), ([], "feature_list_ragged_keys")):
        inputs.append(_strings(keys, label))
    inputs.append(convert_to_tensor(np.array(missing, dtype=bool), dtype=dtypes.bool_,
                                    name="feature_list_dense_missing_assumed_empty"))
    attrs = {"Ncontext_sparse": len(c_sparse), "context_sparse_types": tuple(c_sparse_types),
             "Tcontext_dense": tuple(c_types), "context_dense_shapes": tuple(c_shapes),
             "Nfeature_list_sparse": len(f_sparse), "Nfeature_list_dense": len(f_keys),
             "feature_list_sparse_types": tuple(f_sparse_types),
             "feature_list_dense_types": tuple(f_types),
             "feature_list_dense_shapes": tuple(f_shapes),
             "context_ragged_value_types": (), "context_ragged_split_types": (),
             "feature_list_ragged_value_types": (), "feature_list_ragged_split_types": ()}
    op = graph.create_op(PARSE_SEQUENCE_EXAMPLE, [*inputs, *c_defaults], attrs, name=name)
    out = list(op.outputs)
    context = _sparse_dict(out, c_sparse)
    context.update(zip(c_keys, out[3 * len(c_sparse):][:len(c_keys)]))
    rest = out[3 * len(c_sparse) + len(c_keys):]
    sequence = _sparse_dict(rest, f_sparse)
    dense = rest[3 * len(f_sparse):]
    sequence.update(zip(f_keys, dense[:len(f_keys)]))
    return context, sequence, dict(zip(f_keys, dense[len(f_keys):]))


def _sparse_dict(outputs: list, keys: list) -> dict:
    n = len(keys)
    return {key: SparseTensor(outputs[k], outputs[n + k], outputs[2 * n + k])
            for k, key in enumerate(keys)}


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None) -> tuple:
    """TF1's ``tf.io.parse_single_sequence_example``: ``(context, feature_lists)``, dicts
    by key of one serialized SequenceExample's (a scalar string) features (see the
    module docstring).  ``example_name`` names it in errors."""
    with name_scope(name or "ParseSingleSequenceExample"):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string)
        if serialized.shape.ndims is not None and serialized.shape.ndims != 0:
            raise ValueError("Input serialized must be a scalar")
        names = example_name if isinstance(example_name, Tensor) else \
            _strings([] if example_name is None else [example_name], "debug_name")
        context, sequence, _ = _parse(serialized, context_features, sequence_features,
                                      names, "ParseSequenceExampleV2")
    return context, sequence


def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None) -> tuple:
    """TF1's ``tf.io.parse_sequence_example``: ``(context, feature_lists, lengths)`` of a
    vector of serialized SequenceExamples: context tensors ``[batch] + shape``, feature
    lists ``[batch, longest] + shape`` padded (0 or ""), each dense list's lengths
    ``[batch]``; VarLenFeatures as SparseTensors."""
    with name_scope(name or "ParseSequenceExample"):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string)
        if serialized.shape.ndims is not None and serialized.shape.ndims != 1:
            raise ValueError(f"Input serialized must be a vector, got shape "
                             f"{serialized.shape}.")
        names = example_names if isinstance(example_names, Tensor) else \
            _strings(list(example_names or []), "debug_name")
        return _parse(serialized, context_features, sequence_features, names,
                      "ParseSequenceExampleV2")
