"""TF's Unicode string ops and ``tf.strings``' functions over them:

* ``UnicodeDecode(input)`` / ``UnicodeDecodeWithOffsets``, attrs ``input_encoding``,
  ``errors``, ``replacement_char``, ``replace_control_characters``, ``Tsplits``: each
  string's code points as ``(row_splits, char_values[, char_to_byte_starts])``:
  ``tf.strings.unicode_decode`` / ``unicode_decode_with_offsets`` (a RaggedTensor of
  ragged rank ``input rank``; a scalar's a vector) and ``unicode_split`` /
  ``unicode_split_with_offsets`` (each character encoded alone again);
* ``UnicodeEncode(input_values, input_splits)``, attrs ``output_encoding``, ``errors``,
  ``replacement_char``, ``Tsplits``: one string per row of code points:
  ``tf.strings.unicode_encode`` (of a RaggedTensor or a dense tensor);
* ``UnicodeTranscode(input)``: each string decoded and encoded again, same shape:
  ``tf.strings.unicode_transcode``;
* ``UnicodeScript(input)``: each int32 code point's ICU script code (-1 for no code
  point), from a table generated from TF's op (``kernels/reference/
  unicode_script_table.py``): ``tf.strings.unicode_script``;
* ``tf.strings.bytes_split``: TF's ``StringSplit`` with an empty delimiter.

The encodings are UTF-8, UTF-16-BE and UTF-32-BE (another name is TF's
InvalidArgumentError at run time); ``errors`` is ``'replace'``, ``'ignore'`` or
``'strict'`` (another: ValueError when built).  Kernels: ``kernels/reference/unicode.py``
(host).  Not differentiable.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["unicode_decode", "unicode_decode_with_offsets", "unicode_split",
           "unicode_split_with_offsets", "unicode_encode", "unicode_transcode",
           "unicode_script", "bytes_split", "UNICODE_OPS"]

UNICODE_OPS = ("UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeEncode",
               "UnicodeTranscode", "UnicodeScript")
_ERRORS = ("strict", "replace", "ignore")


def _check_errors(attrs, node):
    errors = attrs.get("errors", "replace")
    errors = errors.decode() if isinstance(errors, bytes) else errors
    if errors not in _ERRORS:
        op_type = node.split("/")[-1]
        raise InferError(f"Attr 'errors' of '{op_type}' Op passed string '{errors}' not in: "
                         f"\"strict\", \"replace\", \"ignore\".")


def _infer_decode(with_offsets: bool):
    def infer(inputs, attrs, node):
        _check_errors(attrs, node)
        if inputs[0].dtype != dtypes.string:
            raise TypeError(f"Op '{node}': input must be strings, not {inputs[0].dtype.name}.")
        size = inputs[0].shape.num_elements() if inputs[0].shape.ndims is not None else None
        splits = dtypes.as_dtype(attrs.get("Tsplits", dtypes.int64))
        out = [(splits, TensorShape([None if size is None else size + 1])),
               (dtypes.int32, TensorShape([None]))]
        return out + [(dtypes.int64, TensorShape([None]))] if with_offsets else out
    return infer


def _infer_encode(inputs, attrs, node):
    _check_errors(attrs, node)
    values, splits = inputs
    if values.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': input_values must be int32, not {values.dtype.name}.")
    rows = splits.shape.dims[0] if splits.shape.ndims == 1 else None
    return dtypes.string, TensorShape([None if rows is None else rows - 1])


def _infer_transcode(inputs, attrs, node):
    _check_errors(attrs, node)
    return dtypes.string, inputs[0].shape


_DECODE_DEFAULTS = {"errors": "replace", "replacement_char": 65533,
                    "replace_control_characters": False, "Tsplits": dtypes.int64}
register_op(OpDef("UnicodeDecode", _infer_decode(False), 1, attr_defaults=_DECODE_DEFAULTS))
register_op(OpDef("UnicodeDecodeWithOffsets", _infer_decode(True), 1,
                  attr_defaults=_DECODE_DEFAULTS))
register_op(OpDef("UnicodeEncode", _infer_encode, 2,
                  attr_defaults={"errors": "replace", "replacement_char": 65533,
                                 "Tsplits": dtypes.int64}))
def _infer_script(inputs, attrs, node):
    if inputs[0].dtype != dtypes.int32:
        raise TypeError(f"Value passed to parameter 'input' has DataType "
                        f"{inputs[0].dtype.name} not in list of allowed values: int32")
    return dtypes.int32, inputs[0].shape


register_op(OpDef("UnicodeScript", _infer_script, 1))
register_op(OpDef("UnicodeTranscode", _infer_transcode, 1,
                  attr_defaults={"errors": "replace", "replacement_char": 65533,
                                 "replace_control_characters": False}))
for _op_type in UNICODE_OPS:
    not_differentiable(_op_type)


def _ragged_input(value):
    from ..ragged.ragged_tensor import convert_to_ragged_or_tensor
    return convert_to_ragged_or_tensor(value, dtype=None, name="input")


def _decode(input, input_encoding, errors, replacement_char, replace_control_characters,
            with_offsets):
    """TF's ``_unicode_decode``: the strings flattened, decoded by one op, and the
    result given the input's (ragged) shape."""
    from ..ragged.ragged_conversion import from_tensor
    from ..ragged.ragged_tensor import RaggedTensor
    from .array import reshape

    input = _ragged_input(input)
    rank = input.shape.ndims
    if rank is None:
        raise ValueError("Rank of `input` must be statically known.")
    if rank > 1:
        if not isinstance(input, RaggedTensor):
            input = from_tensor(input, ragged_rank=rank - 1)
        elif input.ragged_rank < rank - 1:
            input = input.with_flat_values(from_tensor(
                input.flat_values, ragged_rank=rank - input.ragged_rank - 1))
    flat = reshape(input.flat_values if isinstance(input, RaggedTensor) else input, [-1])
    op = flat.graph.create_op(
        "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode", [flat],
        {"input_encoding": input_encoding, "errors": errors,
         "replacement_char": int(replacement_char),
         "replace_control_characters": bool(replace_control_characters),
         "Tsplits": dtypes.int64})
    splits, points = op.outputs[0], op.outputs[1]
    results = [points] + ([op.outputs[2]] if with_offsets else [])
    if rank > 0:
        results = [RaggedTensor.from_row_splits(r, splits, validate=False) for r in results]
        if rank > 1:
            results = [input.with_flat_values(r) for r in results]
    return tuple(results) if with_offsets else results[0]


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,
                   replace_control_characters=False, name=None):
    """TF's ``tf.strings.unicode_decode``: each string's code points (int32)."""
    with name_scope(name or "UnicodeDecode"):
        return _decode(input, input_encoding, errors, replacement_char,
                       replace_control_characters, False)


def unicode_decode_with_offsets(input, input_encoding, errors="replace",
                                replacement_char=65533, replace_control_characters=False,
                                name=None):
    """TF's ``unicode_decode_with_offsets``: code points and each one's byte offset."""
    with name_scope(name or "UnicodeDecodeWithOffsets"):
        return _decode(input, input_encoding, errors, replacement_char,
                       replace_control_characters, True)


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,
                  name=None):
    """TF's ``tf.strings.unicode_split``: each string's characters as strings."""
    from .array import expand_dims
    with name_scope(name or "UnicodeSplit"):
        points = _decode(input, input_encoding, errors, replacement_char, False, False)
        return unicode_encode(_expand_last(points, expand_dims), input_encoding, errors,
                              replacement_char)


def unicode_split_with_offsets(input, input_encoding, errors="replace",
                               replacement_char=65533, name=None):
    """TF's ``unicode_split_with_offsets``: the characters and their byte offsets."""
    from .array import expand_dims
    with name_scope(name or "UnicodeSplitWithOffsets"):
        points, offsets = _decode(input, input_encoding, errors, replacement_char, False,
                                  True)
        chars = unicode_encode(_expand_last(points, expand_dims), input_encoding, errors,
                               replacement_char)
        return chars, offsets


def _expand_last(points, expand_dims):
    """Each code point as a row of its own (TF's ``expand_dims(codepoints, -1)``)."""
    from ..ragged.ragged_tensor import RaggedTensor
    if isinstance(points, RaggedTensor):
        return points.with_flat_values(expand_dims(points.flat_values, -1))
    return expand_dims(points, -1)


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,
                   name=None) -> Tensor:
    """TF's ``tf.strings.unicode_encode``: each innermost row of code points as one
    string; ValueError for an input of unknown rank."""
    from ..ragged.ragged_conversion import from_tensor
    from ..ragged.ragged_tensor import RaggedTensor

    with name_scope(name or "UnicodeEncode"):
        value = _ragged_input(input)
        if value.shape.ndims is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if isinstance(value, RaggedTensor):
            if value.flat_values.shape.ndims > 1:
                return value.with_flat_values(unicode_encode(
                    value.flat_values, output_encoding, errors, replacement_char))
            if value.ragged_rank > 1:
                return value.with_values(unicode_encode(value.values, output_encoding,
                                                        errors, replacement_char))
            return make_op("UnicodeEncode", [value.values, value.row_splits],
                           {"output_encoding": output_encoding, "errors": errors,
                            "replacement_char": int(replacement_char),
                            "Tsplits": value.row_splits.dtype})
        rank = value.shape.ndims
        if rank == 0:
            raise ValueError("input must have rank at least 1 (a row of code points)")
        if rank == 1:
            from .array import expand_dims, reshape
            return reshape(unicode_encode(expand_dims(value, 0), output_encoding, errors,
                                          replacement_char), [])
        if rank == 2:
            return unicode_encode(from_tensor(value), output_encoding, errors,
                                  replacement_char)
        return unicode_encode(from_tensor(value, ragged_rank=rank - 1), output_encoding,
                              errors, replacement_char).to_tensor(default_value="")


def unicode_transcode(input, input_encoding, output_encoding, errors="replace",
                      replacement_char=65533, replace_control_characters=False,
                      name=None) -> Tensor:
    """TF's ``tf.strings.unicode_transcode`` (dense strings, same shape)."""
    value = convert_to_tensor(input, dtype=dtypes.string, name="input")
    return make_op("UnicodeTranscode", [value],
                   {"input_encoding": input_encoding, "output_encoding": output_encoding,
                    "errors": errors, "replacement_char": int(replacement_char),
                    "replace_control_characters": bool(replace_control_characters)},
                   name=name or "UnicodeTranscode")


def unicode_script(input, name=None) -> Tensor:
    """TF's ``tf.strings.unicode_script``: the ICU script code (UScriptCode) of each
    int32 code point, -1 for a value that is none."""
    value = convert_to_tensor(input, name="input")
    return make_op("UnicodeScript", [value], {}, name=name or "UnicodeScript")


def bytes_split(input, name=None):
    """TF's ``tf.strings.bytes_split``: each string's bytes, a RaggedTensor (a vector for
    a scalar); ValueError for an input of unknown rank."""
    from ..ragged.ragged_conversion import from_tensor
    from ..ragged.ragged_tensor import RaggedTensor
    from .array import stack

    with name_scope(name or "StringsByteSplit"):
        value = _ragged_input(input)
        if isinstance(value, RaggedTensor):
            return value.with_flat_values(bytes_split(value.flat_values))
        rank = value.shape.ndims
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank == 0:
            return bytes_split(stack([value]))[0]
        if rank == 1:
            op = value.graph.create_op("StringSplit", [value, convert_to_tensor("")],
                                       {"skip_empty": False})
            indices, values, shape = op.outputs
            return RaggedTensor.from_value_rowids(values, indices[:, 0], shape[0],
                                                  validate=False)
        return bytes_split(from_tensor(value))
