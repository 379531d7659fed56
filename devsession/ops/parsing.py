"""Parsing serialized ``tf.train.Example`` protos: TF1's ``parse_single_example`` and
``parse_example`` (``ds.io`` and ``ds``), with ``FixedLenFeature`` describing a dense
feature and ``VarLenFeature`` a feature of any number of values (a SparseTensor),
``FixedLenSequenceFeature`` (``allow_missing=True``) rows of a shape, as many as an example
has, padded; and
``decode_raw``, the bytes of strings read as numbers (TF's ``DecodeRaw``).

    features = {"label": ds.io.FixedLenFeature([], ds.int64),
                "image": ds.io.FixedLenFeature([28, 28], ds.float32),
                "weight": ds.io.FixedLenFeature([], ds.float32, default_value=1.0),
                "tags": ds.io.VarLenFeature(ds.int64)}
    dataset = ds.data.TFRecordDataset(files).map(
        lambda record: ds.io.parse_single_example(record, features))

The ops are TF's, with TF's inputs, attrs and outputs, so TF GraphDefs holding them
import.  Outputs come in TF's order: the sparse features' indices, then their values,
then their dense shapes, then the dense features' values.

* ``ParseSingleExample(serialized, dense_defaults...)``: attrs ``sparse_keys`` and
  ``dense_keys`` (lists of strings), ``num_sparse``, ``sparse_types``, ``Tdense``,
  ``dense_shapes``; a sparse feature is ``[n, 1]`` indices, ``[n]`` values and the
  shape ``[n]``.
* ``ParseExampleV2(serialized, names, sparse_keys, dense_keys, ragged_keys,
  dense_defaults...)``: the keys are string-vector inputs; attrs ``Tdense``,
  ``dense_shapes``, ``num_sparse``, ``sparse_types``, ``ragged_value_types``,
  ``ragged_split_types``; dense outputs ``serialized.shape + dense_shape``; a sparse
  feature of a batch is indices ``[example, j]``, its values in order, and the shape
  ``[batch, the most values an example has]``.

Keys are taken in sorted order, as TF's, and the result is a dict by key: a Tensor per
FixedLenFeature, a SparseTensor per VarLenFeature and per SparseFeature (parsed as TF's:
its index and value keys as VarLenFeatures, merged after by ``sparse.merge``, so indices
outside ``size`` pass, and as many values as indices is checked only by the reorder).
A default of no elements (what ``default_value=None`` becomes) makes a dense feature
required; a VarLenFeature an example lacks has no values there.  A FixedLenSequenceFeature is a dense key of shape
``[-1] + shape`` (TF's): its values must be a whole number of rows (else
``InvalidArgumentError``), and a batch is padded to its longest example with the
feature's default (0 or "" without one); ``parse_single_example`` of one is TF 2's
ParseExampleV2 of a scalar.  SequenceExamples: ``ops/sequence_parsing.py``.
``RaggedFeature`` raises ``UnsupportedTF1Error`` (and a GraphDef with ragged keys does
not import).  The kernel (``kernels/reference/parsing.py``) runs on the host: a feature
that is missing without a default, of another kind than its dtype or of another size
than its shape is an ``InvalidArgumentError`` naming the key, the example and the node.

``DecodeRaw(bytes)``: attrs ``out_type`` and ``little_endian``; each string of
``bytes`` read as a vector of ``out_type`` (output ``bytes.shape + [n]``).  The strings
must all have the same length, a multiple of the dtype's size (else
``InvalidArgumentError`` with TF's wording), as CIFAR-10's fixed-length records do.
"""

from __future__ import annotations

import collections

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from ..sparse_tensor import SparseTensor
from ..tensor_shape import TensorShape
from .array import reshape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["FixedLenFeature", "VarLenFeature", "SparseFeature", "FixedLenSequenceFeature",
           "RaggedFeature", "parse_single_example", "parse_example", "PARSE_EXAMPLE",
           "PARSE_SINGLE_EXAMPLE", "FEATURE_DTYPES", "decode_raw", "DECODE_RAW",
           "RAW_DTYPES"]

PARSE_EXAMPLE = "ParseExampleV2"
DECODE_RAW = "DecodeRaw"
# The dtypes DecodeRaw reads (TF's out_type, less bool, bfloat16 and the complex types
# devsession lacks).
RAW_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16,
              dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16)
PARSE_SINGLE_EXAMPLE = "ParseSingleExample"
# The dtypes an Example's features hold: Int64List, FloatList, BytesList.
FEATURE_DTYPES = (dtypes.int64, dtypes.float32, dtypes.string)


class FixedLenFeature(collections.namedtuple(
        "FixedLenFeature", ["shape", "dtype", "default_value"])):
    """TF1's ``tf.io.FixedLenFeature(shape, dtype, default_value=None)``: a feature of
    exactly ``prod(shape)`` values of ``dtype`` (int64, float32 or string);
    ``default_value`` (reshaped to ``shape``) when an example lacks it, else the
    feature is required."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


def _unsupported(name: str, why: str):
    def unsupported(*args, **kwargs):
        from ..unsupported import UnsupportedTF1Error

        raise UnsupportedTF1Error(f"tf.io.{name} is not supported by devsession yet: {why}; "
                                  f"use FixedLenFeature (with a default_value for a "
                                  f"feature some examples lack) or VarLenFeature.")
    unsupported.__name__ = unsupported.__qualname__ = name
    unsupported.__doc__ = f"TF1's ``tf.io.{name}``: raises ``UnsupportedTF1Error`` ({why})."
    return unsupported


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """TF1's ``tf.io.VarLenFeature(dtype)``: a feature of any number of values of
    ``dtype`` (int64, float32 or string), parsed into a SparseTensor."""


class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """TF's ``tf.io.SparseFeature(index_key, value_key, dtype, size, already_sorted=False)``:
    a SparseTensor of dense shape ``[size]`` holding the values of feature ``value_key``
    (of ``dtype``) at the int64 indices of feature ``index_key`` (a list of index keys and
    of sizes for more dims); in row-major order unless ``already_sorted``."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


RaggedFeature = _unsupported("RaggedFeature", "it parses into a RaggedTensor, which "
                                              "devsession lacks")


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """TF1's ``tf.io.FixedLenSequenceFeature(shape, dtype, allow_missing=False,
    default_value=None)``: a sequence of any number of ``shape``-shaped values.  In a
    SequenceExample's feature lists (``parse_single_sequence_example``) each step is one
    Feature; in an Example (``parse_example``, ``allow_missing=True`` only) the values
    are one list read as rows, and ``default_value`` (a scalar) pads the shorter
    examples of a batch."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


# --- the ops ---------------------------------------------------------------------------------

def _dense_attrs(attrs, node: str, defaults, rows: bool = False) -> tuple:
    """(dtypes, shapes) of the dense outputs, checked; InferError for what is unsupported."""
    if attrs.get("ragged_value_types") or attrs.get("ragged_split_types"):
        raise InferError(f"Op '{node}': ragged features are not supported (devsession has "
                         f"no RaggedTensor).")
    types, shapes = tuple(attrs["Tdense"]), tuple(attrs["dense_shapes"])
    if len(types) != len(shapes) or len(defaults) != len(types):
        raise InferError(f"Op '{node}': {len(types)} Tdense, {len(shapes)} dense_shapes and "
                         f"{len(defaults)} dense_defaults must agree.")
    for dtype, default in zip(types, defaults):
        if dtype not in FEATURE_DTYPES or default.dtype != dtype:
            raise InferError(f"Op '{node}': a dense feature is int64, float32 or string and "
                             f"its default of the same dtype, got {dtype.name} with a "
                             f"{default.dtype.name} default.")
    for shape in shapes:
        shape = TensorShape(shape)
        if rows and shape.ndims and shape.dims[0] is None:
            shape = shape[1:]              # a FixedLenSequenceFeature: rows of this shape
        if not shape.is_fully_defined():
            raise InferError(f"Op '{node}': dense_shapes must be fully defined, got "
                             f"{TensorShape(shape)}.")
    return types, [TensorShape(s) for s in shapes]


def _sparse_types(attrs, node: str) -> tuple:
    """The sparse features' dtypes, checked against ``num_sparse``."""
    types = tuple(attrs.get("sparse_types", ()))
    if attrs.get("num_sparse", 0) != len(types):
        raise InferError(f"Op '{node}': num_sparse is {attrs.get('num_sparse', 0)} but "
                         f"{len(types)} sparse_types are given.")
    for dtype in types:
        if dtype not in FEATURE_DTYPES:
            raise InferError(f"Op '{node}': a sparse feature is int64, float32 or string, "
                             f"got {dtype.name}.")
    return types


def _sparse_outputs(types, rank: int | None) -> list:
    """The (dtype, shape) of the sparse outputs: indices, values, shapes (TF's order)."""
    return [(dtypes.int64, TensorShape([None, rank])) for _ in types] + \
        [(t, TensorShape([None])) for t in types] + \
        [(dtypes.int64, TensorShape([rank])) for _ in types]


def _infer_single(inputs, attrs, node):
    serialized, defaults = inputs[0], inputs[1:]
    if serialized.dtype != dtypes.string or not serialized.shape.is_compatible_with([]):
        raise InferError(f"Op '{node}': serialized must be a scalar string, got "
                         f"{serialized.dtype.name} {serialized.shape}.")
    types, shapes = _dense_attrs(attrs, node, defaults)
    if len(attrs.get("dense_keys", ())) != len(types):
        raise InferError(f"Op '{node}': {len(attrs.get('dense_keys', ()))} dense_keys for "
                         f"{len(types)} Tdense.")
    sparse = _sparse_types(attrs, node)
    if len(attrs.get("sparse_keys", ())) != len(sparse):
        raise InferError(f"Op '{node}': {len(attrs.get('sparse_keys', ()))} sparse_keys for "
                         f"{len(sparse)} sparse_types.")
    return _sparse_outputs(sparse, 1) + [(t, s) for t, s in zip(types, shapes)]


def _infer_batch(inputs, attrs, node):
    if len(inputs) < 5:
        raise InferError(f"Op '{node}': ParseExampleV2 takes serialized, names, "
                         f"sparse_keys, dense_keys, ragged_keys and the dense defaults.")
    serialized, keys, defaults = inputs[0], inputs[1:5], inputs[5:]
    if any(t.dtype != dtypes.string for t in (serialized, *keys)):
        raise InferError(f"Op '{node}': serialized, names and the keys must be strings.")
    types, shapes = _dense_attrs(attrs, node, defaults, rows=True)
    sparse = _sparse_types(attrs, node)
    lead = serialized.shape
    rank = lead.ndims + 1 if lead.ndims is not None else None
    return _sparse_outputs(sparse, rank) + \
        [(t, lead.concatenate(s) if lead.ndims is not None else TensorShape(None))
         for t, s in zip(types, shapes)]


register_op(OpDef(PARSE_SINGLE_EXAMPLE, _infer_single, None,
                  attr_defaults={"num_sparse": 0, "sparse_keys": (), "sparse_types": ()}))
register_op(OpDef(PARSE_EXAMPLE, _infer_batch, None,
                  attr_defaults={"num_sparse": 0, "sparse_types": (),
                                 "ragged_value_types": (), "ragged_split_types": ()}))


def _infer_decode_raw(inputs, attrs, node):
    (data,) = inputs
    dtype = dtypes.as_dtype(attrs["out_type"])
    if data.dtype != dtypes.string:
        raise InferError(f"Op '{node}': DecodeRaw reads strings, got {data.dtype.name}.")
    if dtype not in RAW_DTYPES:
        raise InferError(f"Op '{node}': DecodeRaw's out_type is one of "
                         f"{', '.join(d.name for d in RAW_DTYPES)}, got {dtype.name}.")
    shape = data.shape.concatenate([None]) if data.shape.ndims is not None else \
        TensorShape(None)
    return [(dtype, shape)]


register_op(OpDef(DECODE_RAW, _infer_decode_raw, 1, attr_defaults={"little_endian": True}))
not_differentiable(PARSE_SINGLE_EXAMPLE, PARSE_EXAMPLE, DECODE_RAW)


# --- the builders ----------------------------------------------------------------------------

def _features(features, where: str):
    """(sparse keys, their dtypes, dense keys, dtypes, shapes, default tensors) of
    ``features``, a dict of FixedLenFeature, FixedLenSequenceFeature (allow_missing:
    shape ``[None] + shape``) and VarLenFeature, each kind in sorted key order;
    ``ValueError``/``TypeError`` for anything else."""
    if not isinstance(features, dict) or not features:
        raise ValueError(f"{where}: features must be a non-empty dict of FixedLenFeature "
                         f"and VarLenFeature.")
    sparse_keys, sparse_types = [], []
    keys, types, shapes, defaults = [], [], [], []
    for key in sorted(features):
        feature = features[key]
        if not isinstance(feature, (FixedLenFeature, VarLenFeature,
                                    FixedLenSequenceFeature)):
            raise TypeError(f"{where}: feature '{key}' is a {type(feature).__name__}; "
                            f"devsession parses FixedLenFeature, FixedLenSequenceFeature "
                            f"and VarLenFeature.")
        if isinstance(feature, FixedLenSequenceFeature) and not feature.allow_missing:
            raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing "
                             "to be True.")
        dtype = dtypes.as_dtype(feature.dtype)
        if dtype not in FEATURE_DTYPES:
            raise ValueError(f"{where}: feature '{key}' has dtype {dtype.name}; Examples "
                             f"hold int64, float32 and string features.")
        if isinstance(feature, VarLenFeature):
            sparse_keys.append(key)
            sparse_types.append(dtype)
            continue
        shape = TensorShape(feature.shape)
        if not shape.is_fully_defined():
            raise ValueError(f"{where}: all dimensions of shape for feature '{key}' need "
                             f"to be known but received {shape}.")
        keys.append(key)
        types.append(dtype)
        if isinstance(feature, FixedLenSequenceFeature):
            shapes.append(TensorShape([None]).concatenate(shape))
            defaults.append(_default_tensor(key, feature.default_value, dtype,
                                            TensorShape([])))
            continue
        shapes.append(shape)
        defaults.append(_default_tensor(key, feature.default_value, dtype, shape))
    return sparse_keys, sparse_types, keys, types, shapes, defaults


def _split_sparse_features(features) -> tuple:
    """(``features`` with each SparseFeature replaced by VarLenFeatures of its index keys
    (int64) and value key, the SparseFeatures by key), as TF's ``_ParseOpParams``; its
    ValueErrors for a SparseFeature lacking a key or dtype and for a key parsed as two
    dtypes or as both dense and sparse."""
    if not isinstance(features, dict) or \
            not any(isinstance(f, SparseFeature) for f in features.values()):
        return features, {}
    dense, sparse, merged = {}, {}, {}
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, VarLenFeature):
            _add_sparse_key(sparse, key, feature.dtype)
        elif not isinstance(feature, SparseFeature):
            dense[key] = feature
        else:
            for index_key in _checked_index_keys(key, feature):
                _add_sparse_key(sparse, index_key, dtypes.int64)
            _add_sparse_key(sparse, feature.value_key, feature.dtype)
            merged[key] = feature
    both = set(dense) & set(sparse)
    if both:
        raise ValueError(f"Dense and sparse keys must not intersect; dense_keys: "
                         f"{list(dense)}, sparse_keys: {list(sparse)}, intersection: {both}")
    return {**dense, **{k: VarLenFeature(t) for k, t in sparse.items()}}, merged


def _checked_index_keys(key: str, feature: SparseFeature) -> list:
    for part in ("index_key", "value_key"):
        if not getattr(feature, part):
            raise ValueError(f"Missing {part} for SparseFeature {feature}.")
    if not feature.dtype:
        raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
    return [feature.index_key] if isinstance(feature.index_key, str) else \
        sorted(feature.index_key)


def _add_sparse_key(sparse: dict, key: str, dtype) -> None:
    """Adds ``key`` parsed as ``dtype``; ValueError if it is parsed as another."""
    dtype = dtypes.as_dtype(dtype)
    if key in sparse and sparse[key] != dtype:
        raise ValueError(f"Conflicting type {sparse[key]} vs {dtype} for feature {key}.")
    sparse.setdefault(key, dtype)


def _merged_results(results: dict, features: dict, merged: dict) -> dict:
    """The parse ``results`` with a SparseTensor per SparseFeature, built as TF's
    ``sparse_merge`` (its indices from the index keys, in row-major order unless
    ``already_sorted``), and only the keys of ``features``."""
    from .sparse_composites import sparse_merge

    updates = {}
    for key in sorted(merged):
        feature = merged[key]
        ids = results[feature.index_key] if isinstance(feature.index_key, str) else \
            [results[k] for k in feature.index_key]
        updates[key] = sparse_merge(ids, results[feature.value_key], feature.size,
                                    already_sorted=feature.already_sorted)
    results = {**results, **updates}
    return {key: value for key, value in results.items() if key in features}


def _results(op, sparse_keys, dense_keys) -> dict:
    """The op's outputs by key: a SparseTensor per sparse key, a Tensor per dense one."""
    n = len(sparse_keys)
    out = {key: SparseTensor(op.outputs[k], op.outputs[n + k], op.outputs[2 * n + k])
           for k, key in enumerate(sparse_keys)}
    out.update(zip(dense_keys, op.outputs[3 * n:]))
    return out


def _default_tensor(key: str, value, dtype, shape: TensorShape) -> Tensor:
    """The default as TF1 passes it: an empty tensor when there is none, else the value
    reshaped to the feature's shape."""
    if value is None:
        empty = dtypes.string_array([]) if dtype == dtypes.string else \
            np.zeros([0], dtype=dtype.as_numpy_dtype)
        return convert_to_tensor(empty, dtype=dtype, name=f"{_safe(key)}_no_default")
    if isinstance(value, Tensor):
        return reshape(value, shape.as_list())
    array = np.asarray(dtypes.string_array(value) if dtype == dtypes.string else
                       np.asarray(value, dtype=dtype.as_numpy_dtype))
    if array.size != shape.num_elements():
        raise ValueError(f"Feature '{key}': its default_value has {array.size} elements, "
                         f"its shape {shape} needs {shape.num_elements()}.")
    return convert_to_tensor(array.reshape(shape.as_list()), dtype=dtype,
                             name=f"key_{_safe(key)}")


def _safe(key: str) -> str:
    return "".join(c if c.isalnum() or c in "_.-/" else "_" for c in key)


def parse_single_example(serialized, features, name=None, example_names=None) -> dict:
    """TF1's ``tf.io.parse_single_example``: the features of one serialized Example (a
    scalar string tensor), as a dict by key of tensors of each FixedLenFeature's shape
    and SparseTensors of rank 1 for the VarLenFeatures (see the module docstring)."""
    parsed, merged = _split_sparse_features(features)
    sparse_keys, sparse_types, keys, types, shapes, defaults = _features(
        parsed, "parse_single_example")
    if any(not s.is_fully_defined() for s in shapes):      # TF 2's: ParseExampleV2
        return parse_example(serialized, features, name=name or "ParseSingleExample",
                             example_names=None if example_names is None else
                             [example_names])
    graph = get_default_graph()
    with name_scope(name or "ParseSingleExample"):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string, graph=graph)
        attrs = {"dense_keys": tuple(keys), "Tdense": tuple(types),
                 "dense_shapes": tuple(shapes), "num_sparse": len(sparse_keys),
                 "sparse_keys": tuple(sparse_keys), "sparse_types": tuple(sparse_types)}
        op = graph.create_op(PARSE_SINGLE_EXAMPLE, [serialized, *defaults], attrs,
                             name="ParseSingleExample")
        return _merged_results(_results(op, sparse_keys, keys), features, merged)


def parse_example(serialized, features, name=None, example_names=None) -> dict:
    """TF1's ``tf.io.parse_example``: the features of a vector of serialized Examples,
    as a dict by key of tensors ``[batch] + shape`` for the FixedLenFeatures and
    SparseTensors of shape ``[batch, longest]`` for the VarLenFeatures (see the module
    docstring).  ``example_names`` (strings, one per example) name them in errors."""
    parsed, merged = _split_sparse_features(features)
    sparse_keys, sparse_types, keys, types, shapes, defaults = _features(
        parsed, "parse_example")
    graph = get_default_graph()
    with name_scope(name or "ParseExample"):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string, graph=graph)
        names = example_names if isinstance(example_names, Tensor) else \
            convert_to_tensor(dtypes.string_array(list(example_names or [])),
                              dtype=dtypes.string, name="names")
        key_tensors = [convert_to_tensor(dtypes.string_array(k), dtype=dtypes.string, name=n)
                       for k, n in ((sparse_keys, "sparse_keys"), (keys, "dense_keys"),
                                    ([], "ragged_keys"))]
        attrs = {"Tdense": tuple(types), "dense_shapes": tuple(shapes),
                 "num_sparse": len(sparse_keys), "sparse_types": tuple(sparse_types),
                 "ragged_value_types": (), "ragged_split_types": ()}
        op = graph.create_op(PARSE_EXAMPLE, [serialized, names, *key_tensors, *defaults],
                             attrs, name="ParseExampleV2")
    return _merged_results(_results(op, sparse_keys, keys), features, merged)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, fixed_length=None,
               name=None, bytes=None):  # noqa: A002  (TF1's keyword)
    """TF1's ``tf.io.decode_raw`` / ``tf.decode_raw``: each string of ``input_bytes`` read
    as a vector of ``out_type`` (shape ``input_bytes.shape + [n]``), little-endian unless
    ``little_endian=False``.  ``bytes`` is TF1's older name for ``input_bytes``.  Raises
    ``TypeError`` for an ``out_type`` it cannot read and ``UnsupportedTF1Error`` for
    ``fixed_length`` (TF's DecodePaddedRaw)."""
    if input_bytes is None:
        input_bytes = bytes
    if input_bytes is None or out_type is None:
        raise ValueError("decode_raw needs input_bytes and out_type.")
    if fixed_length is not None:
        from ..unsupported import UnsupportedTF1Error

        raise UnsupportedTF1Error("tf.io.decode_raw(fixed_length=...) is not supported by "
                                  "devsession yet; records of one length (as "
                                  "FixedLengthRecordDataset reads) need no fixed_length.")
    dtype = dtypes.as_dtype(out_type)
    if dtype not in RAW_DTYPES:
        raise TypeError(f"decode_raw: out_type must be one of "
                        f"{', '.join(d.name for d in RAW_DTYPES)}, got {dtype.name}.")
    graph = get_default_graph()
    data = convert_to_tensor(input_bytes, dtype=dtypes.string, graph=graph)
    op = graph.create_op(DECODE_RAW, [data], {"out_type": dtype,
                                              "little_endian": bool(little_endian)},
                         name=name or "DecodeRaw")
    return op.outputs[0]
