"""The ``csv`` dataset source (``tf.data.experimental.CsvDataset``, built by
``devsession/data/experimental.py``): the records of CSV files, one element per line,
a tuple of scalar columns typed by the record defaults (the stage's inputs after the
filenames).

Each file's lines are read as ``TextLineDataset`` reads them (``read_lines``: GZIP and
ZLIB too), its first skipped when ``header``, and each line is split into fields as
``DecodeCSV`` splits a record (``decode_csv.FieldSplitter``), the ``select_cols`` kept.
An empty line is one empty field, as TF's CsvDataset reads it.  A field that is empty
or equals ``na_value`` takes its column's default; malformed records are
``InvalidArgumentError`` with TF's CsvDataset texts ("Expect 3 fields but have 1 in
record", "Field 0 is required but missing in record!"), naming the node, for that
record's ``get_next`` alone: the next gives the next record, as TF's.  With
``ignore_errors`` (make_csv_dataset's) such records are skipped instead.

Not as TF's: a line ends at every ``\\n``, so a quoted field cannot hold a newline (TF's
reads one); ``\\r`` is dropped everywhere, as ``TextLineDataset`` drops it.
"""

from __future__ import annotations

import numpy as np

from devsession.errors import InvalidArgumentError
from devsession.io.plain_records import read_lines

from .dataset_failures import Failed
from .dataset_readers import _named, _text, file_records
from .decode_csv import FieldSplitter, field_converter

__all__ = ["csv_source"]


def csv_source(node, stage, args):
    """A source of the parsed records of the files ``args[0]``, defaults ``args[1:]``."""
    files, defaults = args[0], args[1:]
    if files.ndim > 1:
        raise InvalidArgumentError(f"'{node.name}': filenames must be a scalar or a "
                                   f"vector, got shape {list(files.shape)}.", node.name)
    paths = [_text(f) for f in np.asarray(files, dtype=object).reshape(-1)]
    select = tuple(stage["select_cols"])
    _check_select(node, select, len(defaults))
    fills = [_fill(node, k, d) for k, d in enumerate(defaults)]
    dtypes = [np.asarray(d).dtype for d in defaults]
    parse = _record_parser(node, stage, select, fills, dtypes)

    def records_of(path):
        lines = file_records(node, read_lines(path, stage["compression"]), lambda x: x)
        if stage["header"]:
            header = next(lines, None)
            if header.__class__ is Failed:
                yield header
        for line in lines:
            if line.__class__ is Failed:
                yield line
                continue
            try:
                yield parse(line)
            except InvalidArgumentError as e:     # that record's error, as TF's
                if not stage["ignore_errors"]:
                    yield Failed(_named(node, e))
    return lambda: (e for path in paths for e in records_of(path))


def _record_parser(node, stage, select: tuple, fills: list, dtypes: list):
    """``parse(line)``: one element, a list of scalar arrays, as TF's CsvDataset."""
    delim = stage["field_delim"].encode()
    splitter = FieldSplitter(node, delim[0], stage["use_quote_delim"], select)
    na_value = stage["na_value"].encode()
    converters = [field_converter(d) for d in dtypes]
    count = len(fills)

    def error(message):
        return InvalidArgumentError(f"'{node.name}': {message}", node.name)

    def parse(line: bytes) -> list:
        fields = splitter.split(line) if line else \
            ([b""] if not select or select[0] == 0 else [])
        element = []        # TF checks each field as it reads it, then the count
        for f, (field, (type_name, convert)) in enumerate(zip(fields, converters)):
            if not field or field == na_value:
                if fills[f] is None:
                    raise error(f"Field {f} is required but missing in record!")
                element.append(np.array(fills[f], dtype=dtypes[f]))
                continue
            value = convert(field)
            if value is None:
                raise error(f"Field {f} in record is not a valid {type_name}: "
                            f"{field.decode('utf-8', 'replace')}")
            element.append(np.array(value, dtype=dtypes[f]))
        if len(fields) != count:
            have = "more" if len(fields) > count else len(fields)
            raise error(f"Expect {count} fields but have {have} in record")
        return element
    return parse


def _check_select(node, select: tuple, count: int) -> None:
    """TF's CsvDataset checks of ``select_cols`` (when the iterator starts)."""
    def error(message):
        return InvalidArgumentError(f"'{node.name}': {message}", node.name)
    if select and len(select) != count:
        raise error("select_cols should match output size")
    if any(a >= b for a, b in zip(select, select[1:])):
        raise error("select_cols should be strictly increasing indices")
    if select and select[0] < 0:
        raise error("select_cols should be non-negative indices")


def _fill(node, column: int, default):
    """A column's default value, or None where the column is required."""
    default = np.asarray(default)
    if default.ndim > 1:
        raise InvalidArgumentError(f"'{node.name}': Each record default should be at most "
                                   f"rank 1", node.name)
    if default.size > 1:
        raise InvalidArgumentError(f"'{node.name}': There should only be 1 default per "
                                   f"field but field {column} has {default.size}",
                                   node.name)
    return default.reshape(-1)[0] if default.size else None
