"""Kernels of TF1's string ops (``devsession/ops/strings.py``), on the host (``HOST``;
TF's string kernels are CPU kernels and string tensors never go to a GPU).

A string tensor is a numpy object array of ``bytes`` (``object_array``).  Most kernels
map one Python function over its elements (``each_string``); the rules each follows are
TF's kernel's, and its errors ``InvalidArgumentError`` naming the node with TF's text:

* ``StringToNumber``, ``AsString``: ``string_numbers.py``.
* ``Substr``: ``pos``/``len`` of the input's shape or scalars, else broadcast against it
  in up to two dimensions (TF's kernel does no more: three is ``UnimplementedError``).
  UTF-8 characters are counted as TF does, by their lead bytes (a byte that is not
  ``10xxxxxx``), so malformed text still has a length.
* ``StringLower/Upper`` with ``encoding="utf-8"``: Python's full Unicode case mapping
  (``ß`` -> ``SS``, final sigma), as ICU's; invalid bytes become U+FFFD.
* ``ReduceJoin``: the reduced axes moved last in reverse order of listing and joined in
  row-major order, so the first axis listed varies fastest.
* ``EncodeBase64``/``DecodeBase64``: TF's web-safe alphabet and padding rules (a
  4-character tail may end in ``=`` or ``==``; no other ``=``).
* ``StringSplit``/``StringSplitV2``: a SparseTensor's three arrays (``ops/string_split.py``
  gives the splitting rules).
"""

from __future__ import annotations

import base64
import binascii

import numpy as np

from devsession import dtypes
from devsession.errors import InvalidArgumentError, OutOfRangeError, UnimplementedError

from ..checks import fmt_shape
from ..registry import HOST, register_kernel
from .farmhash import fingerprint64
from .siphash import siphash24
from .string_numbers import format_value, parse_float, parse_int, printf_format

_WHITESPACE = b" \t\n\v\f\r"


def object_array(values: list, shape=None) -> np.ndarray:
    """``values`` (bytes) as an object array (1-D, or of ``shape``), filled one element
    at a time: ``np.array`` would make a fixed-width ``S`` array of them."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out if shape is None else out.reshape(shape)


def bytes_attr(node, key: str, default: str = "") -> bytes:
    """A string attr (a separator, a delimiter) as bytes: str from Python, bytes from a
    GraphDef; ``default`` when absent."""
    value = node.attrs.get(key, default)
    return value.encode() if isinstance(value, str) else bytes(value)


def each_string(fn, data, dtype=object) -> np.ndarray:
    """``fn`` applied to every element of the string array ``data`` (shape kept)."""
    data = np.asarray(data, dtype=object)
    values = [fn(bytes(s)) for s in data.reshape(-1)]
    if dtype is object:
        return object_array(values, data.shape)
    return np.asarray(values, dtype=dtype).reshape(data.shape)


def _invalid(node, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"'{node.name}': {message}", node.name)


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


# --- numbers ---------------------------------------------------------------------------------

@register_kernel("StringToNumber", HOST)
def build_string_to_number(node):
    dtype = np.dtype(node.output_dtype)
    parse = (lambda s: parse_int(s, 8 * dtype.itemsize)) if dtype.kind == "i" else \
        (lambda s: parse_float(s, dtype.type))

    def convert(s: bytes):
        value = parse(s)
        if value is None:
            raise _invalid(node, f"StringToNumberOp could not correctly convert string: "
                                 f"{_text(s)}")
        return value

    def string_to_number(data):
        return each_string(convert, data, dtype)
    return string_to_number


def _as_string_format(node, dtype: np.dtype):
    """(kind, printf format) of AsString's attrs, or the InvalidArgumentError TF raises."""
    attrs = node.attrs
    precision, width = int(attrs.get("precision", -1)), int(attrs.get("width", -1))
    scientific, shortest = bool(attrs.get("scientific")), bool(attrs.get("shortest"))
    fill = attrs.get("fill", "")
    fill = fill.decode(errors="replace") if isinstance(fill, bytes) else str(fill)
    name = dtypes.as_dtype(dtype).name
    kind = {"f": "f", "c": "c", "b": "b", "u": "u"}.get(dtype.kind, "i")
    if kind not in "fc":
        if scientific or shortest:
            return kind, _invalid(node, f"scientific and shortest format not supported for "
                                        f"datatype {name}")
        if precision > -1:
            return kind, _invalid(node, f"precision not supported for datatype {name}")
    if len(fill) > 1:
        return kind, _invalid(node, "Fill string must be one or fewer characters")
    if scientific and shortest:
        return kind, _invalid(node, "Cannot select both scientific and shortest notation")
    if fill not in ("", " ", "+", "-", "0", "#"):
        return kind, _invalid(node, f'Fill argument not supported: "{fill}"')
    return kind, printf_format("f" if kind == "c" else kind, precision, scientific, shortest,
                               width, fill)


@register_kernel("AsString", HOST)
def build_as_string(node):
    kind, spec = _as_string_format(node, np.dtype(node.input_dtypes[0]))

    def as_string(data):
        if isinstance(spec, InvalidArgumentError):
            raise spec
        data = np.asarray(data)
        flat = data.reshape(-1)
        if kind == "b":
            values = [b"true" if v else b"false" for v in flat]
        elif kind in "iu":
            values = [(spec % int(v)).encode() for v in flat]
        elif kind == "c":                   # TF's "(real,imag)", each part a float's text
            values = [f"({format_value(spec, float(v.real))},"
                      f"{format_value(spec, float(v.imag))})".encode() for v in flat]
        else:
            values = [format_value(spec, float(v)).encode() for v in flat]
        return object_array(values, data.shape)
    return as_string


# --- joining, lengths, pieces ----------------------------------------------------------------

@register_kernel("StringJoin", HOST)
def build_string_join(node):
    separator = bytes_attr(node, "separator")

    def string_join(*inputs):
        arrays = [np.asarray(x, dtype=object) for x in inputs]
        shape = ()
        for a in arrays:
            if a.ndim:
                if not shape:
                    shape = a.shape
                elif a.shape != shape:
                    raise _invalid(node, f"Input shapes do not match: {fmt_shape(shape)} vs. "
                                         f"{fmt_shape(a.shape)}")
        count = int(np.prod(shape, dtype=np.int64))
        columns = [[bytes(a.item())] * count if a.ndim == 0 else
                   [bytes(s) for s in a.reshape(-1)] for a in arrays]
        return object_array([separator.join(parts) for parts in zip(*columns)] if columns
                            else [b""] * count, shape)
    return string_join


def _char_starts(s: bytes) -> list:
    """Byte offsets of the UTF-8 characters of ``s``, counted as TF counts them."""
    return [i for i, b in enumerate(s) if b & 0xC0 != 0x80]


@register_kernel("StringLength", HOST)
def build_string_length(node):
    chars = node.attrs.get("unit", "BYTE") == "UTF8_CHAR"

    def string_length(data):
        return each_string((lambda s: len(_char_starts(s))) if chars else len, data, np.int32)
    return string_length


@register_kernel("Substr", HOST)
def build_substr(node):
    chars = node.attrs.get("unit", "BYTE") == "UTF8_CHAR"

    def piece(s: bytes, pos: int, length: int, index: int) -> bytes:
        if not chars:
            if not -len(s) <= pos <= len(s):
                raise _invalid(node, f"pos {pos} out of range for string b'{_text(s)}' at "
                                     f"index {index}")
            pos = pos + len(s) if pos < 0 else pos
            return s[pos:] if length < 0 else s[pos:pos + length]
        starts = _char_starts(s)
        if not -len(starts) <= pos <= len(starts):
            raise _invalid(node, f"pos {pos} out of range for string at index {index}")
        pos = pos + len(starts) if pos < 0 else pos
        if length < 0:
            return b""
        begin = starts[pos] if pos < len(starts) else len(s)
        end = starts[pos + length] if pos + length < len(starts) else len(s)
        return s[begin:end]

    def substr(data, pos, length):
        data, pos, length = (np.asarray(data, dtype=object), np.asarray(pos),
                             np.asarray(length))
        if pos.shape != length.shape:
            raise _invalid(node, f"pos and len should have the same shape, got: "
                                 f"{fmt_shape(pos.shape)} vs. {fmt_shape(length.shape)}")
        if pos.ndim and pos.shape != data.shape:
            try:
                shape = np.broadcast_shapes(data.shape, pos.shape)
            except ValueError:
                raise _invalid(node, f"Incompatible shapes: {fmt_shape(data.shape)} vs. "
                                     f"{fmt_shape(pos.shape)}") from None
            if len(shape) > 2:
                raise UnimplementedError(f"'{node.name}': Substr broadcast not implemented "
                                         f"for {len(shape)} dimensions", node.name)
            data, pos, length = (np.broadcast_to(a, shape) for a in (data, pos, length))
        else:
            pos, length = np.broadcast_to(pos, data.shape), np.broadcast_to(length, data.shape)
        flat = [piece(bytes(s), int(p), int(n), i) for i, (s, p, n) in
                enumerate(zip(data.reshape(-1), pos.reshape(-1), length.reshape(-1)))]
        return object_array(flat, data.shape)
    return substr


# --- case, whitespace, hashing ---------------------------------------------------------------

@register_kernel("StringStrip", HOST)
def build_string_strip(node):
    def string_strip(data):
        return each_string(lambda s: s.strip(_WHITESPACE), data)
    return string_strip


def _case_kernel(node, ascii_case, unicode_case):
    encoding = node.attrs.get("encoding", "")

    def change_case(data):
        if encoding not in ("", "utf-8"):
            raise _invalid(node, f"only utf-8 or '' (no encoding) is supported, received "
                                 f"{encoding}")
        if encoding == "":
            return each_string(ascii_case, data)
        return each_string(lambda s: unicode_case(s.decode("utf-8", "replace")).encode(), data)
    return change_case


@register_kernel("StringLower", HOST)
def build_string_lower(node):
    return _case_kernel(node, bytes.lower, str.lower)


@register_kernel("StringUpper", HOST)
def build_string_upper(node):
    return _case_kernel(node, bytes.upper, str.upper)


@register_kernel("StringToHashBucketFast", HOST)
def build_hash_bucket_fast(node):
    buckets = int(node.attrs["num_buckets"])

    def string_to_hash_bucket_fast(data):
        return each_string(lambda s: fingerprint64(s) % buckets, data, np.int64)
    return string_to_hash_bucket_fast


@register_kernel("StringToHashBucketStrong", HOST)
def build_hash_bucket_strong(node):
    buckets = int(node.attrs["num_buckets"])
    key0, key1 = (int(k) for k in node.attrs["key"])

    def string_to_hash_bucket_strong(data):
        return each_string(lambda s: siphash24(key0, key1, s) % buckets, data, np.int64)
    return string_to_hash_bucket_strong


# --- ReduceJoin ------------------------------------------------------------------------------

def _reduced_axes(node, axes, rank: int) -> list:
    """The axes to join, in the order listed, checked as TF's kernel checks them."""
    seen, out = set(), []
    for axis in np.asarray(axes).reshape(-1).tolist():
        if not -max(rank, 1) <= axis < max(rank, 1):
            raise OutOfRangeError(f"'{node.name}': Invalid reduction dimension {axis} for "
                                  f"input with {rank} dimension(s)", node.name)
        normal = axis % max(rank, 1)
        if normal in seen:
            raise _invalid(node, f"Duplicate reduction dimension {axis}")
        seen.add(normal)
        out.append(normal)
    return out


@register_kernel("ReduceJoin", HOST)
def build_reduce_join(node):
    separator = bytes_attr(node, "separator")
    keep = bool(node.attrs.get("keep_dims", False))

    def reduce_join(data, axes):
        data = np.asarray(data, dtype=object)
        reduced = [a for a in _reduced_axes(node, axes, data.ndim) if data.ndim]
        kept = [d for d in range(data.ndim) if d not in reduced]
        moved = np.transpose(data, kept + reduced[::-1])
        kept_shape = tuple(data.shape[d] for d in kept)
        joined = int(np.prod([data.shape[d] for d in reduced], dtype=np.int64))
        flat = moved.reshape(int(np.prod(kept_shape, dtype=np.int64)), joined)
        out = object_array([separator.join(bytes(s) for s in row) for row in flat])
        shape = tuple(1 if d in reduced else data.shape[d] for d in range(data.ndim)) \
            if keep else kept_shape
        return out.reshape(shape)
    return reduce_join


# --- base64 ----------------------------------------------------------------------------------

_WEB_SAFE = bytes.maketrans(b"+/", b"-_")
_STANDARD = bytes.maketrans(b"-_", b"+/")
_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@register_kernel("EncodeBase64", HOST)
def build_encode_base64(node):
    pad = bool(node.attrs.get("pad", False))

    def encode(s: bytes) -> bytes:
        text = base64.b64encode(s).translate(_WEB_SAFE)
        return text if pad else text.rstrip(b"=")

    def encode_base64(data):
        return each_string(encode, data)
    return encode_base64


@register_kernel("DecodeBase64", HOST)
def build_decode_base64(node):
    def decode(s: bytes) -> bytes:
        body = s
        if len(s) % 4 == 0 and s:
            body = s[:-2] if s.endswith(b"==") else s[:-1] if s.endswith(b"=") else s
        if len(body) % 4 == 1 and _ALPHABET.issuperset(body[:-1]):
            raise _invalid(node, "Base64 string length cannot be 1 modulo 4.")
        if not _ALPHABET.issuperset(body):
            raise _invalid(node, "Invalid character found in base64.")
        tail = (4 - len(body) % 4) % 4
        try:
            decoded = base64.b64decode(body.translate(_STANDARD) + b"A" * tail, validate=True)
        except binascii.Error:
            raise _invalid(node, "Invalid character found in base64.") from None
        return decoded[:len(decoded) - tail]

    def decode_base64(data):
        return each_string(decode, data)
    return decode_base64


# --- splitting into a SparseTensor -----------------------------------------------------------

def _split_bytes_at(s: bytes, delimiter: bytes, skip_empty: bool) -> list:
    """StringSplit's tokens: every byte of ``delimiter`` separates (none: single bytes)."""
    if not s:
        return []
    if not delimiter:
        return [s[i:i + 1] for i in range(len(s))]
    tokens, start = [], 0
    for i in range(len(s) + 1):
        if i == len(s) or s[i] in delimiter:
            if s[start:i] or not skip_empty:
                tokens.append(s[start:i])
            start = i + 1
    return tokens


def _split_v2(s: bytes, sep: bytes, maxsplit: int) -> list:
    """StringSplitV2's tokens: Python's split, except that with whitespace a last split
    leaves the (leading-whitespace-trimmed) rest as a token even when it is empty."""
    if maxsplit == 0:
        return [s]
    if sep:
        return s.split(sep, maxsplit if maxsplit > 0 else -1)
    # bytes.split(None) splits at the same ASCII whitespace; it returns exactly
    # ``maxsplit`` tokens only when nothing but whitespace follows the last, where TF
    # adds the empty rest
    tokens = s.split(None, maxsplit if maxsplit > 0 else -1)
    return tokens + [b""] if len(tokens) == maxsplit else tokens


def _sparse_tokens(node, data, separator, what: str, split):
    """(indices, values, dense_shape) of the tokens ``split`` gives each string."""
    data, separator = np.asarray(data, dtype=object), np.asarray(separator, dtype=object)
    if data.ndim != 1:
        raise _invalid(node, f"input must be a vector, got shape: {fmt_shape(data.shape)}")
    if separator.ndim:
        raise _invalid(node, f"{what} must be a scalar, got shape: "
                             f"{fmt_shape(separator.shape)}")
    rows = [split(bytes(s), bytes(separator.item())) for s in data]
    indices = np.array([(r, j) for r, tokens in enumerate(rows) for j in range(len(tokens))],
                       dtype=np.int64).reshape(-1, 2)
    values = object_array([token for tokens in rows for token in tokens])
    dense_shape = np.array([len(rows), max((len(t) for t in rows), default=0)], np.int64)
    return indices, values, dense_shape


@register_kernel("StringSplit", HOST)
def build_string_split(node):
    skip_empty = bool(node.attrs.get("skip_empty", True))

    def string_split(data, delimiter):
        return _sparse_tokens(node, data, delimiter, "delimiter",
                              lambda s, d: _split_bytes_at(s, d, skip_empty))
    return string_split


@register_kernel("StringSplitV2", HOST)
def build_string_split_v2(node):
    maxsplit = int(node.attrs.get("maxsplit", -1))

    def string_split_v2(data, sep):
        return _sparse_tokens(node, data, sep, "sep", lambda s, d: _split_v2(s, d, maxsplit))
    return string_split_v2
