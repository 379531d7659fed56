"""The kernels of TF's Unicode ops (``devsession/ops/unicode.py``), on the host.

Decoding follows the Unicode standard's well-formed byte sequences (its Table 3-7) with
the "maximal subpart" rule ICU uses: each maximal prefix of a valid sequence that cannot
be completed is one error, replaced by ``replacement_char`` (``errors='replace'``),
skipped (``'ignore'``) or an InvalidArgumentError (``'strict'``).  UTF-16-BE: a lone
surrogate or a trailing odd byte is one error; UTF-32-BE: a value past U+10FFFF, a
surrogate or a trailing partial unit.  Encoding: a value that is no Unicode scalar value
(negative, a surrogate, past U+10FFFF) is an error the same way.
"""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from .strings import object_array

__all__ = ["decode", "encode", "ENCODINGS"]

ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}

# (lowest, highest) of the first continuation byte and how many continuation bytes.
_UTF8_LEADS = {**{b: (0x80, 0xBF, 1) for b in range(0xC2, 0xE0)}, 0xE0: (0xA0, 0xBF, 2),
               **{b: (0x80, 0xBF, 2) for b in range(0xE1, 0xED)}, 0xED: (0x80, 0x9F, 2),
               0xEE: (0x80, 0xBF, 2), 0xEF: (0x80, 0xBF, 2), 0xF0: (0x90, 0xBF, 3),
               0xF1: (0x80, 0xBF, 3), 0xF2: (0x80, 0xBF, 3), 0xF3: (0x80, 0xBF, 3),
               0xF4: (0x80, 0x8F, 3)}


def _utf8(data: bytes):
    """(byte offset, code point or None for an error) of each character."""
    i, n = 0, len(data)
    while i < n:
        lead = data[i]
        if lead < 0x80:
            yield i, lead
            i += 1
            continue
        if lead not in _UTF8_LEADS:
            yield i, None
            i += 1
            continue
        low, high, need = _UTF8_LEADS[lead]
        point = lead & (0x1F if need == 1 else 0x0F if need == 2 else 0x07)
        j = i + 1
        for k in range(need):
            if j >= n or not ((low if k == 0 else 0x80) <= data[j] <= (high if k == 0 else 0xBF)):
                point = None
                break
            point = (point << 6) | (data[j] & 0x3F)
            j += 1
        yield i, point
        i = j


def _utf16(data: bytes):
    i, n = 0, len(data)
    while i < n:
        if i + 1 >= n:
            yield i, None
            return
        unit = (data[i] << 8) | data[i + 1]
        if 0xD800 <= unit < 0xDC00 and i + 3 < n:
            low = (data[i + 2] << 8) | data[i + 3]
            if 0xDC00 <= low < 0xE000:
                yield i, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                i += 4
                continue
        yield i, None if 0xD800 <= unit < 0xE000 else unit
        i += 2


def _utf32(data: bytes):
    for i in range(0, len(data), 4):
        unit = data[i:i + 4]
        value = int.from_bytes(unit, "big") if len(unit) == 4 else None
        if value is not None and (value > 0x10FFFF or 0xD800 <= value < 0xE000):
            value = None
        yield i, value


_DECODERS = {"UTF-8": _utf8, "UTF-16-BE": _utf16, "UTF-32-BE": _utf32}


def _encoding(node, attr: str) -> str:
    name = node.attrs[attr]
    name = name.decode() if isinstance(name, bytes) else str(name)
    if name not in ENCODINGS:
        raise invalid_argument(node.name, node.op, f"Could not create converter for "
                               f"{'input' if attr.startswith('input') else 'output'} "
                               f"encoding: {name}")
    return name


def decode(node, data: bytes, encoding: str, errors: str, replacement: int,
           replace_controls: bool):
    """[(byte offset, code point)] of one string."""
    out = []
    for offset, point in _DECODERS[encoding](data):
        if point is None:
            if errors == "strict":
                raise invalid_argument(node.name, node.op, "Invalid formatting on input "
                                       "string")
            if errors == "ignore":
                continue
            point = replacement
        elif replace_controls and point < 0x20:
            point = replacement
        out.append((offset, point))
    return out


def encode(node, points, encoding: str, errors: str, replacement: int) -> bytes:
    """One string of the code points."""
    chars = []
    for point in points:
        point = int(point)
        if point < 0 or point > 0x10FFFF or 0xD800 <= point < 0xE000:
            if errors == "strict":
                raise invalid_argument(node.name, node.op, "Code point is out of range for "
                                       "Unicode, or is a surrogate.")
            if errors == "ignore":
                continue
            point = replacement
        chars.append(chr(point))
    return "".join(chars).encode(ENCODINGS[encoding])


def _text(node, key: str, default: str) -> str:
    value = node.attrs.get(key, default)
    return value.decode() if isinstance(value, bytes) else str(value)


def _decode_kernel(node, with_offsets: bool):
    encoding = _encoding(node, "input_encoding")
    errors = _text(node, "errors", "replace")
    replacement = int(node.attrs.get("replacement_char", 0xFFFD))
    controls = bool(node.attrs.get("replace_control_characters", False))

    def unicode_decode(strings):
        flat = np.asarray(strings, dtype=object).reshape(-1)
        splits, points, offsets = [0], [], []
        for s in flat:
            chars = decode(node, bytes(s), encoding, errors, replacement, controls)
            points += [p for _, p in chars]
            offsets += [o for o, _ in chars]
            splits.append(len(points))
        result = (np.asarray(splits, np.int64), np.asarray(points, np.int32))
        return result + (np.asarray(offsets, np.int64),) if with_offsets else result
    return unicode_decode


register_kernel("UnicodeDecode", HOST)(lambda node: _decode_kernel(node, False))
register_kernel("UnicodeDecodeWithOffsets", HOST)(lambda node: _decode_kernel(node, True))


@register_kernel("UnicodeEncode", HOST)
def build_unicode_encode(node):
    encoding = _encoding(node, "output_encoding")
    errors = _text(node, "errors", "replace")
    replacement = int(node.attrs.get("replacement_char", 0xFFFD))

    def unicode_encode(values, splits):
        values, splits = np.asarray(values), np.asarray(splits, np.int64)
        if splits.ndim != 1 or len(splits) == 0 or splits[0] != 0 or \
                np.any(np.diff(splits) < 0) or splits[-1] != len(values):
            raise invalid_argument(node.name, node.op, f"Invalid input_splits "
                                   f"{splits.tolist()} for {len(values)} values")
        return object_array([encode(node, values[a:b], encoding, errors, replacement)
                             for a, b in zip(splits[:-1].tolist(), splits[1:].tolist())])
    return unicode_encode


@register_kernel("UnicodeScript", HOST)
def build_unicode_script(node):
    from .unicode_script_table import CODES, STARTS
    starts, codes = np.asarray(STARTS, np.int64), np.asarray(CODES, np.int32)

    def unicode_script(points):
        points = np.asarray(points, np.int64)
        found = codes[np.searchsorted(starts, points, side="right") - 1]
        return np.where((points < 0) | (points > 0x10FFFF), np.int32(-1), found)
    return unicode_script


@register_kernel("UnicodeTranscode", HOST)
def build_unicode_transcode(node):
    source = _encoding(node, "input_encoding")
    target = _encoding(node, "output_encoding")
    errors = _text(node, "errors", "replace")
    replacement = int(node.attrs.get("replacement_char", 0xFFFD))
    controls = bool(node.attrs.get("replace_control_characters", False))

    def unicode_transcode(strings):
        strings = np.asarray(strings, dtype=object)
        out = [encode(node, [p for _, p in decode(node, bytes(s), source, errors,
                                                    replacement, controls)],
                      target, errors, replacement) for s in strings.reshape(-1)]
        return object_array(out, strings.shape)
    return unicode_transcode
