"""The entries ``InitializeTableFromTextFileV2`` reads from a text file, as TF's
``TextFileLineIterator`` (``lookup_util.cc``) reads them.

One entry per line (``\\n`` ends a line, a ``\\r`` before it is dropped, the last line
needs no end).  A key or value is, by its index: ``-1`` (``LINE_NUMBER``) the line's
number from 0 plus ``offset``; ``-2`` (``WHOLE_LINE``) the line itself; ``n >= 0`` the
``n``-th field of the line split at each ``delimiter`` (one character).  A field is
converted to the table's dtype (integers and floats parsed, surrounding spaces allowed).
With ``vocab_size`` (> 0) only that many lines are read, and a file with fewer is
``InvalidArgumentError``.  An empty line, too few fields or a field that does not parse
are ``InvalidArgumentError`` with TF's messages.
"""

from __future__ import annotations

import re

import numpy as np

from devsession.errors import InvalidArgumentError, NotFoundError

__all__ = ["read_entries", "LINE_NUMBER", "WHOLE_LINE"]

LINE_NUMBER, WHOLE_LINE = -1, -2
_INTEGER = re.compile(rb"\s*[+-]?\d+\s*\Z")


def read_entries(filename: str, key_index: int, value_index: int, key_dtype, value_dtype,
                 vocab_size: int, delimiter: str, offset: int, node_name: str):
    """(keys, values): two lists, one item per line read."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError as e:
        raise NotFoundError(f"{filename}; {e.strerror}", node_name) from None
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()                      # the file's last line ended in "\n"
    if vocab_size > 0:
        if len(lines) < vocab_size:
            raise InvalidArgumentError(f"Invalid vocab_size in {filename}: expected "
                                       f"{vocab_size} but got {len(lines)}", node_name)
        lines = lines[:vocab_size]
    keys, values, position = [], [], 0
    for number, line in enumerate(lines):
        position += len(line) + 1
        line = line[:-1] if line.endswith(b"\r") else line
        if not line:
            raise InvalidArgumentError(f"Invalid content in {filename}: empty line found "
                                       f"at position {position}.", node_name)
        fields = line.split(delimiter.encode()) if max(key_index, value_index) >= 0 else ()
        if max(key_index, value_index) >= len(fields):
            raise InvalidArgumentError(
                f"Invalid number of columns in {filename} line {number} "
                f"({line.decode('utf-8', 'replace')}) : expected "
                f"{max(key_index, value_index)} got {len(fields)}", node_name)
        keys.append(_item(line, fields, key_index, key_dtype, number, offset, node_name))
        values.append(_item(line, fields, value_index, value_dtype, number, offset,
                            node_name))
    return keys, values


def _item(line: bytes, fields, index: int, dtype, number: int, offset: int, node_name):
    if index == LINE_NUMBER:
        return number + offset
    text = line if index == WHOLE_LINE else fields[index]
    dtype = np.dtype(getattr(dtype, "np", dtype))
    if dtype == object:
        return text
    try:
        if dtype.kind in "iu":
            if not _INTEGER.match(text):
                raise ValueError(text)
            value = int(text)
            if np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
                return value
            raise ValueError(text)
        if dtype.kind == "f":
            return float(dtype.type(text.decode("ascii").strip()))
        if dtype.kind == "b":
            return {b"true": True, b"false": False}[text.strip()]
    except (ValueError, KeyError, UnicodeDecodeError):
        pass
    names = {"float32": "float", "float64": "double"}
    raise InvalidArgumentError(f"Field {text.decode('utf-8', 'replace')} in line {number} "
                               f"is not a valid {names.get(dtype.name, dtype.name)}.",
                               node_name)
