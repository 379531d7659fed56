"""TF1's string ops (``tf.strings`` and their ``tf.<name>`` spellings), as TF's ops with
TF's inputs and attrs so GraphDefs TensorFlow wrote import; the regex ops are in
``string_regex.py``, ``DecodeCSV`` in ``decode_csv.py``.

==========================  ===========================================================
op (attrs)                  builder
==========================  ===========================================================
StringToNumber (out_type)   ``string_to_number`` / ``strings.to_number``: float32,
                            float64, int32 or int64 read from each string
AsString (precision,        ``as_string``: numbers and bools as text, printf's ``%f``
scientific, shortest,       (``%e`` scientific, ``%g`` shortest; ``fill`` one of
width, fill)                `` +-0#`` before ``width``)
StringJoin (N, separator)   ``string_join`` / ``strings.join``: element-wise; scalars
                            go with any shape, the others must have one shape
StringLength (unit)         ``strings.length``: int32 bytes, or UTF-8 characters
Substr (unit)               ``substr``: ``pos``/``len`` (one shape, int32 or int64)
                            broadcast against the strings; a negative ``pos`` counts
                            from the end
StringStrip                 ``strings.strip``: ASCII whitespace off both ends
StringLower/StringUpper     ``strings.lower/upper``: ASCII, or Unicode with
(encoding)                  ``encoding="utf-8"``
StringToHashBucketFast      ``string_to_hash_bucket_fast``: FarmHash Fingerprint64 mod
(num_buckets)               ``num_buckets`` (int64), TF's very buckets
StringToHashBucketStrong    ``string_to_hash_bucket_strong``: SipHash-2-4 under the
(num_buckets, key)          two-int ``key``, mod ``num_buckets`` (int64), TF's buckets
ReduceJoin (keep_dims,      ``reduce_join``: strings joined along axes (an input, read on
separator)                  the host); the first axis listed varies fastest
EncodeBase64 (pad)          ``io.encode_base64`` / ``io.decode_base64``: web-safe base64
DecodeBase64                (``-`` and ``_``), padding optional when decoding
==========================  ===========================================================

Every kernel runs on the host (``kernels/reference/strings.py``), and none is
differentiable.  Attrs TF checks when the op is built (``unit``, ``num_buckets``,
``out_type``) are ``ValueError``/``TypeError`` here too; the rest, and bad values, are
``InvalidArgumentError`` at run time naming the node, with TF's texts.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import broadcast, graph_of, make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["string_to_number", "as_string", "string_join", "string_length", "substr",
           "string_strip", "string_lower", "string_upper", "string_to_hash_bucket_fast",
           "string_to_hash_bucket_strong", "reduce_join", "encode_base64", "decode_base64", "NUMBER_DTYPES",
           "AS_STRING_DTYPES", "STRING_OPS"]

NUMBER_DTYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
AS_STRING_DTYPES = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                    dtypes.uint16, dtypes.float16, dtypes.float32, dtypes.float64,
                    dtypes.bool_, dtypes.complex64, dtypes.complex128)
UNITS = ("BYTE", "UTF8_CHAR")
STRING_OPS = ("StringToNumber", "AsString", "StringJoin", "StringLength", "Substr",
              "StringStrip", "StringLower", "StringUpper", "StringToHashBucketFast",
              "StringToHashBucketStrong", "ReduceJoin", "EncodeBase64", "DecodeBase64")


def _strings(x, node: str, what: str = "input") -> None:
    if x.dtype != dtypes.string:
        raise TypeError(f"Op '{node}': {what} must be strings, but '{x.name}' is "
                        f"{x.dtype.name}.")


def check_strings(inputs, node: str) -> None:
    """TypeError unless every one of ``inputs`` is a string tensor (the regex and split
    ops)."""
    for x in inputs:
        if x.dtype != dtypes.string:
            raise TypeError(f"Op '{node}': '{x.name}' must be strings, got {x.dtype.name}.")


def check_scalar(spec, node: str, what: str) -> None:
    """ValueError (at build time) when the graph knows ``spec`` is not a scalar."""
    rank = spec.shape.ndims
    if rank not in (None, 0):
        raise InferError(f"Shape must be rank 0 but is rank {rank} for '{node}': the {what} "
                         f"must be a scalar, got {spec.shape}.")


def _unit(attrs, op_type: str) -> None:
    unit = attrs.get("unit", "BYTE")
    if unit not in UNITS:
        raise InferError(f"Attr 'unit' of '{op_type}' Op passed string '{unit}' not in: "
                         f"\"BYTE\", \"UTF8_CHAR\".")


def _same_strings(dtype):
    """infer for string -> ``dtype`` ops of one input, shape kept."""
    def infer(inputs, attrs, node):
        (x,) = inputs
        _strings(x, node)
        return dtype, x.shape
    return infer


def _infer_to_number(inputs, attrs, node):
    (x,) = inputs
    _strings(x, node, "string_tensor")
    dtype = dtypes.as_dtype(attrs.get("out_type", dtypes.float32))
    if dtype not in NUMBER_DTYPES:
        raise TypeError(f"Value for attr 'out_type' of {dtype.name} is not in the list of "
                        f"allowed values: float, double, int32, int64")
    return dtype, x.shape


def _infer_as_string(inputs, attrs, node):
    (x,) = inputs
    if x.dtype not in AS_STRING_DTYPES:
        raise TypeError(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed "
                        f"values: {', '.join(d.name for d in AS_STRING_DTYPES)}")
    return dtypes.string, x.shape


def _infer_join(inputs, attrs, node):
    for x in inputs:
        _strings(x, node, "inputs")
    if all(x.shape.ndims == 0 for x in inputs):
        return dtypes.string, TensorShape([])
    out = TensorShape(None)
    for x in inputs:
        if x.shape.ndims not in (None, 0):
            if out.ndims is not None and out.ndims != x.shape.ndims:
                raise InferError(f"Shapes must be equal rank, but are {out.ndims} and "
                                 f"{x.shape.ndims} for '{node}' (op: 'StringJoin').")
            if not out.is_compatible_with(x.shape):
                raise InferError(f"Op '{node}' (StringJoin): input shapes must be equal, "
                                 f"but are {out} and {x.shape}.")
            out = out.merge_with(x.shape)
    return dtypes.string, out


def _infer_length(inputs, attrs, node):
    (x,) = inputs
    _strings(x, node)
    _unit(attrs, "StringLength")
    return dtypes.int32, x.shape


def _infer_substr(inputs, attrs, node):
    x, pos, length = inputs
    _strings(x, node)
    _unit(attrs, "Substr")
    if pos.dtype not in (dtypes.int32, dtypes.int64) or length.dtype != pos.dtype:
        raise TypeError(f"Op '{node}': pos and len must both be int32 or both int64, got "
                        f"{pos.dtype.name} and {length.dtype.name}.")
    if pos.shape.ndims is not None and length.shape.ndims is not None:
        if pos.shape.ndims != length.shape.ndims:
            raise InferError(f"Shape must be rank {length.shape.ndims} but is rank "
                             f"{pos.shape.ndims} for '{node}' (op: 'Substr'): pos {pos.shape} "
                             f"and len {length.shape}.")
        if not pos.shape.is_compatible_with(length.shape):
            raise InferError(f"pos and len shapes must match: {pos.shape} vs. "
                             f"{length.shape} for '{node}' (op: 'Substr').")
    return dtypes.string, broadcast([x, pos], node)


def _infer_hash(inputs, attrs, node):
    (x,) = inputs
    _strings(x, node)
    buckets = int(attrs["num_buckets"])
    op_type = "StringToHashBucketStrong" if "key" in attrs else "StringToHashBucketFast"
    if buckets < 1:
        raise InferError(f"Attr 'num_buckets' of '{op_type}' Op passed "
                         f"{buckets} less than minimum 1.")
    return dtypes.int64, x.shape


def _infer_strong_hash(inputs, attrs, node):
    if len(attrs.get("key") or ()) != 2:
        raise InferError(f"Op '{node}': Key must have 2 elements, got "
                         f"{list(attrs.get('key') or ())}.")
    return _infer_hash(inputs, attrs, node)


def _infer_reduce_join(inputs, attrs, node):
    x, axes = inputs
    _strings(x, node, "inputs")
    if axes.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': reduction_indices must be int32, got "
                        f"{axes.dtype.name}.")
    keep = bool(attrs.get("keep_dims", False))
    rank = x.shape.ndims
    if axes.value is None or rank is None:
        return dtypes.string, TensorShape([None] * rank if keep and rank is not None
                                          else None)
    reduced = set()
    for axis in np.asarray(axes.value).reshape(-1).tolist():
        if not -max(rank, 1) <= axis < max(rank, 1):
            raise InferError(f"Invalid reduction dimension {axis} for input with {rank} "
                             f"dimensions. for '{node}' (op: 'ReduceJoin').")
        reduced.add(axis % max(rank, 1))
    dims = [1 if d in reduced else x.shape[d] for d in range(rank)] if keep else \
        [x.shape[d] for d in range(rank) if d not in reduced]
    return dtypes.string, TensorShape(dims)


register_op(OpDef("StringToNumber", _infer_to_number, 1,
                  attr_defaults={"out_type": dtypes.float32}))
register_op(OpDef("AsString", _infer_as_string, 1,
                  attr_defaults={"precision": -1, "scientific": False, "shortest": False,
                                 "width": -1, "fill": ""}))
register_op(OpDef("StringJoin", _infer_join, None, attr_defaults={"separator": ""}))
register_op(OpDef("StringLength", _infer_length, 1, attr_defaults={"unit": "BYTE"}))
register_op(OpDef("Substr", _infer_substr, 3, attr_defaults={"unit": "BYTE"}))
register_op(OpDef("StringStrip", _same_strings(dtypes.string), 1))
register_op(OpDef("StringLower", _same_strings(dtypes.string), 1,
                  attr_defaults={"encoding": ""}))
register_op(OpDef("StringUpper", _same_strings(dtypes.string), 1,
                  attr_defaults={"encoding": ""}))
register_op(OpDef("StringToHashBucketFast", _infer_hash, 1))
register_op(OpDef("StringToHashBucketStrong", _infer_strong_hash, 1))
register_op(OpDef("ReduceJoin", _infer_reduce_join, 2, host_inputs=(1,),
                  attr_defaults={"keep_dims": False, "separator": ""}))
register_op(OpDef("EncodeBase64", _same_strings(dtypes.string), 1,
                  attr_defaults={"pad": False}))
register_op(OpDef("DecodeBase64", _same_strings(dtypes.string), 1))
not_differentiable(*STRING_OPS)


# --- the builders ----------------------------------------------------------------------------

def _op(op_type: str, inputs, attrs=None, name=None) -> Tensor:
    """The ``op_type`` node on ``inputs`` ((name, value, dtype or None) each), in a name
    scope of its own: TF names the constants made from Python values ``Substr/pos``."""
    graph = graph_of(*(value for _, value, _ in inputs))
    with name_scope(name or op_type) as scope:
        tensors = [convert_to_tensor(value, dtype=dtype, graph=graph, name=key)
                   for key, value, dtype in inputs]
        return make_op(op_type, tensors, attrs, name=scope)


_S = dtypes.string


def string_to_number(string_tensor=None, out_type=dtypes.float32, name=None,
                     input=None):  # noqa: A002  (TF's newer name)
    """TF1's ``tf.string_to_number`` / ``tf.strings.to_number``: each string read as
    ``out_type`` (float32, float64, int32 or int64; TypeError for another); a string
    that is no such number is ``InvalidArgumentError`` ("StringToNumberOp could not
    correctly convert string: ...").  ``input`` is TF's newer name for
    ``string_tensor``."""
    value = input if input is not None else string_tensor
    return _op("StringToNumber", [("string_tensor", value, _S)],
               {"out_type": dtypes.as_dtype(out_type)}, name)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """TF1's ``tf.as_string`` / ``tf.strings.as_string``: numbers and bools as strings
    (see the module docstring); a bad combination of attrs is ``InvalidArgumentError``
    at run time, as TF's."""
    return _op("AsString", [("input", input, None)],
               {"precision": int(precision), "scientific": bool(scientific),
                "shortest": bool(shortest), "width": int(width), "fill": fill}, name)


def string_join(inputs, separator="", name=None):
    """TF1's ``tf.string_join`` / ``tf.strings.join``: the strings of ``inputs`` joined
    element-wise with ``separator``; scalars join every element, the rest must agree in
    shape (ValueError when the graph knows they do not)."""
    inputs = list(inputs)
    graph = graph_of(*inputs)
    with name_scope(name or "StringJoin") as scope:
        tensors = [convert_to_tensor(v, dtype=dtypes.string, graph=graph) for v in inputs]
        return make_op("StringJoin", tensors, {"N": len(tensors), "separator": separator},
                       name=scope)


def string_length(input, name=None, unit="BYTE"):  # noqa: A002
    """TF1's ``tf.strings.length``: int32 lengths in bytes, or in UTF-8 characters with
    ``unit="UTF8_CHAR"``."""
    return _op("StringLength", [("input", input, _S)], {"unit": unit}, name)


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002  (TF's names)
    """TF1's ``tf.substr`` / ``tf.strings.substr``: ``len`` bytes (or UTF-8 characters)
    from ``pos`` (negative: from the end) of each string; past the end it stops there,
    a negative ``len`` takes the rest (bytes) or nothing (characters).  ``pos`` out of
    range is ``InvalidArgumentError``."""
    graph = graph_of(input, pos, len)
    with name_scope(name or "Substr") as scope:
        x = convert_to_tensor(input, dtype=dtypes.string, graph=graph, name="input")
        pos = convert_to_tensor(pos, graph=graph, name="pos")
        length = convert_to_tensor(len, dtype_hint=pos.dtype, graph=graph, name="len")
        return make_op("Substr", [x, pos, length], {"unit": unit}, name=scope)


def string_strip(input, name=None):  # noqa: A002
    """TF1's ``tf.string_strip`` / ``tf.strings.strip``: leading and trailing ASCII
    whitespace removed."""
    return _op("StringStrip", [("input", input, _S)], None, name)


def string_lower(input, encoding="", name=None):  # noqa: A002
    """TF1's ``tf.strings.lower``: ASCII letters lowered, every letter with
    ``encoding="utf-8"`` (invalid bytes become U+FFFD, as ICU's)."""
    return _op("StringLower", [("input", input, _S)], {"encoding": encoding}, name)


def string_upper(input, encoding="", name=None):  # noqa: A002
    """TF1's ``tf.strings.upper``: as ``string_lower``, raised."""
    return _op("StringUpper", [("input", input, _S)], {"encoding": encoding}, name)


def string_to_hash_bucket_fast(input=None, num_buckets=None, name=None,  # noqa: A002
                               string_tensor=None):
    """TF1's ``tf.string_to_hash_bucket_fast`` / ``tf.strings.to_hash_bucket_fast``:
    each string's FarmHash Fingerprint64 modulo ``num_buckets`` (int64), the buckets TF
    computes; ValueError for fewer than one bucket."""
    value = input if input is not None else string_tensor
    return _op("StringToHashBucketFast", [("input", value, _S)],
               {"num_buckets": int(num_buckets)}, name)


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """TF1's ``tf.string_to_hash_bucket_strong`` / ``tf.strings.to_hash_bucket_strong``:
    each string's SipHash-2-4 under ``key`` (two ints) modulo ``num_buckets`` (int64),
    the buckets TF computes; ValueError for fewer than one bucket or a key of another
    length."""
    key = tuple(int(k) for k in key)
    for k in key:
        if not -2 ** 63 <= k < 2 ** 63:          # an int attr is an int64, as TF's
            raise ValueError(f"Value out of range: {k}")
    return _op("StringToHashBucketStrong", [("input", input, _S)],
               {"num_buckets": int(num_buckets), "key": key}, name)


def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None,
                reduction_indices=None, keepdims=None):
    """TF1's ``tf.reduce_join`` / ``tf.strings.reduce_join``: the strings joined with
    ``separator`` along ``axis`` (all axes when None: row-major order); with several
    axes the first listed varies fastest, as TF's.  ``keepdims`` (or TF1's
    ``keep_dims``) keeps the joined axes with length 1; ``reduction_indices`` is the old
    name of ``axis``."""
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'reduction_indices' and 'axis'.")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axis = axis if axis is not None else reduction_indices
    graph = graph_of(inputs, axis)
    # TF's op (and the inputs it converts) is named inside the scope "ReduceJoin"
    with name_scope("ReduceJoin"), name_scope(name or "ReduceJoin") as scope:
        x = convert_to_tensor(inputs, dtype=dtypes.string, graph=graph, name="inputs")
        if axis is None:
            if x.shape.ndims is None:
                raise ValueError("reduce_join with axis=None needs an input of known rank.")
            axis = np.arange(x.shape.ndims - 1, -1, -1, dtype=np.int32)
        axes = convert_to_tensor(axis, dtype=dtypes.int32, graph=graph,
                                 name="reduction_indices")
        return make_op("ReduceJoin", [x, axes], {"keep_dims": keep, "separator": separator},
                       name=scope)


def encode_base64(input, pad=False, name=None):  # noqa: A002
    """TF1's ``tf.io.encode_base64``: web-safe base64 (``-``, ``_``), ``=`` padding only
    with ``pad=True``."""
    return _op("EncodeBase64", [("input", input, _S)], {"pad": bool(pad)}, name)


def decode_base64(input, name=None):  # noqa: A002
    """TF1's ``tf.io.decode_base64``: web-safe base64, padded or not, decoded; other
    characters are ``InvalidArgumentError`` ("Invalid character found in base64.")."""
    return _op("DecodeBase64", [("input", input, _S)], None, name)
