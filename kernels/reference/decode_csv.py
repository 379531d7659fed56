"""Kernel of ``DecodeCSV`` (``devsession/ops/decode_csv.py``): CSV records into one
tensor per column, on the host (``HOST``; TF's is a CPU kernel).

Each record is split into fields as TF's kernel splits it (RFC 4180 with TF's quirks):

* a field starting with ``"`` (when ``use_quote_delim``) runs to a ``"`` followed by the
  delimiter or the end; ``""`` inside it is one quote, any other quote is an error;
* an unquoted field runs to the delimiter and may hold no quote (when
  ``use_quote_delim``), ``\\n`` or ``\\r``;
* a ``\\n`` or ``\\r`` where a field would start is skipped;
* a record ending in the delimiter has one more, empty, field; an empty record none.

With ``select_cols`` only those columns are kept and reading stops after the last of
them, so later columns are neither counted nor checked.  A kept field that is empty or
equals ``na_value`` takes its column's default (none given: "Field f is required but
missing in record r!"); numbers are read by ``string_numbers``.  Every error is an
``InvalidArgumentError`` naming the node, with TF's text.
"""

from __future__ import annotations

import numpy as np

from devsession import dtypes
from devsession.errors import InvalidArgumentError

from ..registry import HOST, register_kernel
from .string_numbers import parse_float, parse_int
from .strings import bytes_attr

_QUOTE, _CR, _LF = ord('"'), ord("\r"), ord("\n")


class FieldSplitter:
    """Splits one record at a time (delimiter, quoting and columns fixed per node)."""

    def __init__(self, node, delim: int, quoting: bool, select_cols: tuple):
        self.node = node
        self.delim = delim
        self.quoting = quoting
        self.select = select_cols

    def _error(self, message: str):
        return InvalidArgumentError(f"'{self.node.name}': {message}", self.node.name)

    def split(self, record: bytes) -> list:
        fields: list = []
        if not record:
            return fields
        i, n, parsed = 0, len(record), 0
        delim, select = self.delim, self.select
        while i < n:
            if record[i] in (_LF, _CR):
                i += 1
                continue
            keep = not select or select[len(fields)] == parsed
            if self.quoting and record[i] == _QUOTE:
                field, i = self._quoted(record, i + 1)
            else:
                field, i = self._unquoted(record, i)
            parsed += 1
            if keep:
                fields.append(field)
                if select and len(fields) == len(select):
                    return fields
        if record[-1] == delim and (not select or select[len(fields)] == parsed):
            fields.append(b"")
        return fields

    def _unquoted(self, record: bytes, i: int) -> tuple:
        end = record.find(bytes((self.delim,)), i)
        end = len(record) if end < 0 else end
        field = record[i:end]
        if b"\n" in field or b"\r" in field or (self.quoting and b'"' in field):
            raise self._error("Unquoted fields cannot have quotes/CRLFs inside")
        return field, end + 1

    def _quoted(self, record: bytes, i: int) -> tuple:
        """The field of a quoted run starting after its opening quote at ``i``."""
        n, delim = len(record), self.delim
        out = bytearray()
        while i < n - 1 and (record[i] != _QUOTE or record[i + 1] != delim):
            if record[i] != _QUOTE:
                out.append(record[i])
                i += 1
            elif record[i + 1] == _QUOTE:
                out.append(_QUOTE)
                i += 2
            else:
                raise self._error("Quote inside a string has to be escaped by another quote")
        if not (i < n and record[i] == _QUOTE and (i == n - 1 or record[i + 1] == delim)):
            raise self._error("Quoted field has to end with quote followed by delim or end")
        return bytes(out), i + 2


def _text(field: bytes) -> str:
    return field.decode("utf-8", "replace")


def field_converter(dtype: np.dtype):
    """(TF's name of the type, field bytes -> value or None)."""
    if dtype == np.int32:
        return "int32", lambda f: parse_int(f, 32)
    if dtype == np.int64:
        return "int64", lambda f: parse_int(f, 64)
    if dtype == np.float32:
        return "float", lambda f: parse_float(f, np.float32)
    if dtype == np.float64:
        return "double", lambda f: parse_float(f, np.float64)
    return "string", bytes


@register_kernel("DecodeCSV", HOST)
def build_decode_csv(node):
    attrs = node.attrs
    out_types = [np.dtype(d) for d in node.output_dtypes]
    delim = bytes_attr(node, "field_delim", ",")
    na_value = bytes_attr(node, "na_value")
    select = tuple(int(c) for c in attrs.get("select_cols", ()))
    converters = [field_converter(d) for d in out_types]

    def decode_csv(records, *defaults):
        if len(delim) != 1:
            raise InvalidArgumentError(f"'{node.name}': field_delim should be only 1 char",
                                       node.name)
        if select and len(select) != len(out_types):
            raise InvalidArgumentError(f"'{node.name}': select_cols should match output "
                                       f"size", node.name)
        if any(a >= b for a, b in zip(select, select[1:])):
            raise InvalidArgumentError(f"'{node.name}': select_cols should be strictly "
                                       f"increasing indices", node.name)
        if select and select[0] < 0:
            raise InvalidArgumentError(f"'{node.name}': select_cols should be non-negative "
                                       f"indices", node.name)
        fills = _defaults(node, defaults)
        splitter = FieldSplitter(node, delim[0], bool(attrs.get("use_quote_delim", True)),
                                  select)
        records = np.asarray(records, dtype=object)
        columns = [[] for _ in out_types]
        for r, record in enumerate(records.reshape(-1)):
            fields = splitter.split(bytes(record))
            if len(fields) != len(out_types):
                raise InvalidArgumentError(
                    f"'{node.name}': Expect {len(out_types)} fields but have {len(fields)} "
                    f"in record {r}", node.name)
            for f, (field, (type_name, convert)) in enumerate(zip(fields, converters)):
                if not field or field == na_value:
                    if fills[f] is None:
                        raise InvalidArgumentError(
                            f"'{node.name}': Field {f} is required but missing in record "
                            f"{r}!", node.name)
                    columns[f].append(fills[f])
                    continue
                value = convert(field)
                if value is None:
                    raise InvalidArgumentError(
                        f"'{node.name}': Field {f} in record {r} is not a valid {type_name}: "
                        f"{_text(field)}", node.name)
                columns[f].append(value)
        outputs = []
        for column, dtype in zip(columns, out_types):
            array = dtypes.string_array(column) if dtype == object else \
                np.asarray(column, dtype=dtype)
            outputs.append(array.reshape(records.shape))
        return outputs[0] if len(outputs) == 1 else tuple(outputs)
    return decode_csv


def _defaults(node, defaults) -> list:
    """Each column's default value, or None where the column is required."""
    fills = []
    for f, default in enumerate(defaults):
        default = np.asarray(default)
        if default.ndim > 1:
            raise InvalidArgumentError(f"'{node.name}': Each record default should be at "
                                       f"most rank 1", node.name)
        if default.size > 1:
            raise InvalidArgumentError(f"'{node.name}': There should only be 1 default per "
                                       f"field but field {f} has {default.size}", node.name)
        fills.append(default.reshape(-1)[0] if default.size else None)
    return fills
