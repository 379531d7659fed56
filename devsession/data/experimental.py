"""TF1's ``tf.data.experimental``: ``AUTOTUNE`` and the CSV readers ``CsvDataset`` (the
records of CSV files as tuples of scalar columns) and ``make_csv_dataset`` (batches of
a dict of named columns, the names and types found in the files as TF finds them).

    dataset = ds.data.experimental.make_csv_dataset(
        "train-*.csv", batch_size=32, label_name="survived", num_epochs=1)
    features, labels = dataset.make_one_shot_iterator().get_next()   # a dict, a tensor

The records are parsed on the host by the ``csv`` stage
(``kernels/reference/dataset_csv.py``); a quoted field holding a newline is not
supported (each line is a record).  The transformations for ``dataset.apply``
(``shuffle_and_repeat``, ``map_and_batch``, ``parallel_interleave``...) and
``cardinality``, ``get_single_element``, ``sample_from_datasets``, ``unique``,
``assert_cardinality``, ``from_list``, ``RandomDataset``...: ``transformations.py``;
``group_by_window``, ``bucket_by_sequence_length``, ``group_by_reducer`` and
``Reducer``: ``grouping.py``; ``make_batched_features_dataset`` and
``parse_example_dataset``: ``features.py``; ``DatasetInitializer``,
``table_from_dataset``, ``index_table_from_dataset``: ``lookup.py``; ``Optional`` and
``get_next_as_optional``: ``optional.py``; ``TFRecordWriter``: ``writers.py``;
``rejection_resample``: ``resampling.py``; ``dense_to_sparse_batch``:
``sparse_batch.py``; the
``Options`` parts (``OptimizationOptions``, ``DistributeOptions``,
``AutoShardPolicy``...): ``options.py``.  Anything else under ``ds.data.experimental``
raises an error naming the TF1 symbol as unsupported.
"""

from __future__ import annotations

import collections
import csv
import glob
import gzip

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor
from ..io.tfrecord import compression_name
from ..ops.decode_csv import CSV_DTYPES
from .dataset import AUTOTUNE, Dataset, _check_names
from .features import make_batched_features_dataset, parse_example_dataset
from .grouping import Reducer, group_by_reducer
from .lookup import DatasetInitializer, index_table_from_dataset, table_from_dataset
from .optional import Optional, get_next_as_optional
from .options import (AutoShardPolicy, AutotuneAlgorithm, AutotuneOptions,
                      DistributeOptions, ExternalStatePolicy, OptimizationOptions,
                      ServiceOptions, ThreadingOptions)
from .readers import known_value
from .resampling import rejection_resample
from .sparse_batch import dense_to_sparse_batch
from .structure import ElementSpec
from .transformations import (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Counter,
                              RandomDataset, assert_cardinality, bucket_by_sequence_length,
                              cardinality, choose_from_datasets, copy_to_device,
                              enumerate_dataset, from_list, get_single_element,
                              group_by_window, ignore_errors, map_and_batch,
                              parallel_interleave, prefetch_to_device, sample_from_datasets,
                              scan, shuffle_and_repeat, take_while, unbatch, unique)
from .writers import TFRecordWriter

__all__ = ["AUTOTUNE", "CsvDataset", "make_csv_dataset", "shuffle_and_repeat",
           "map_and_batch", "parallel_interleave", "unbatch", "ignore_errors",
           "enumerate_dataset", "get_single_element", "Counter", "take_while", "scan",
           "sample_from_datasets", "choose_from_datasets", "cardinality",
           "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "prefetch_to_device",
           "copy_to_device", "group_by_window", "bucket_by_sequence_length",
           "group_by_reducer", "Reducer", "unique", "assert_cardinality", "from_list",
           "RandomDataset", "AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions",
           "DistributeOptions", "ExternalStatePolicy", "OptimizationOptions",
           "ServiceOptions", "ThreadingOptions", "DatasetInitializer", "table_from_dataset",
           "index_table_from_dataset", "parse_example_dataset",
           "make_batched_features_dataset", "Optional", "get_next_as_optional",
           "TFRecordWriter", "rejection_resample", "dense_to_sparse_batch"]


def CsvDataset(filenames, record_defaults, compression_type=None,  # noqa: N802
               buffer_size=None, header=False, field_delim=",", use_quote_delim=True,
               na_value="", select_cols=None, exclude_cols=None) -> Dataset:
    """TF1's ``tf.data.experimental.CsvDataset``: one element per record (line) of the
    CSV files ``filenames`` (a string, a list, or a string tensor of rank <= 1), a
    tuple of scalars typed by ``record_defaults``: a dtype (or an empty tensor) for a
    required column, a one-element default (``[0.0]``) for an optional one.
    ``select_cols``: the column indices parsed (increasing), or ``exclude_cols`` those
    skipped.  ``header``: each file's first line is skipped.  ``buffer_size`` is
    accepted.  Malformed records fail the ``get_next`` reaching them with
    ``InvalidArgumentError`` (TF's texts)."""
    return _csv_dataset(filenames, record_defaults, compression_type, header,
                        field_delim, use_quote_delim, na_value, select_cols,
                        exclude_cols, ignore_errors=False)


def _csv_dataset(filenames, record_defaults, compression_type, header, field_delim,
                 use_quote_delim, na_value, select_cols, exclude_cols,
                 ignore_errors: bool) -> Dataset:
    files = filenames if isinstance(filenames, Tensor) else \
        convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    _check_names(files, "CsvDataset: filenames")
    defaults = [_record_default(d, k) for k, d in enumerate(record_defaults)]
    if not defaults:
        raise ValueError("CsvDataset: record_defaults must name at least one column.")
    select = _columns(select_cols, "select_cols")
    exclude = _columns(exclude_cols, "exclude_cols")
    if select and exclude:
        raise ValueError("Either select_cols or exclude_cols should be empty")
    if exclude:           # the complement within the columns the defaults and they count
        select = [c for c in range(len(defaults) + len(exclude)) if c not in set(exclude)]
    delim = _static_text(field_delim, "field_delim")
    if len(delim.encode()) != 1:
        raise ValueError("CsvDataset: field_delim should be only 1 char.")
    stage = {"kind": "csv", "inputs": [0, 1 + len(defaults)],
             "compression": compression_name(_static(compression_type, "compression_type")),
             "header": bool(_static(header, "header")), "field_delim": delim,
             "use_quote_delim": bool(_static(use_quote_delim, "use_quote_delim")),
             "na_value": _static_text(na_value, "na_value"), "select_cols": select,
             "ignore_errors": ignore_errors}
    structure = tuple(ElementSpec(d.dtype, []) for d in defaults)
    return Dataset(files.graph, [stage], [files, *defaults], (), structure)


def _record_default(default, column: int) -> Tensor:
    """A record default as a tensor: a CSV dtype is an empty one (a required column)."""
    if not isinstance(default, Tensor) and _is_csv_dtype(default):
        return convert_to_tensor([], dtype=dtypes.as_dtype(default),
                                 name=f"record_defaults_{column}")
    tensor = convert_to_tensor(default, name=f"record_defaults_{column}")
    if tensor.dtype not in CSV_DTYPES:
        raise TypeError(f"CsvDataset: record default {column} is {tensor.dtype.name}; "
                        f"allowed: float32, float64, int32, int64, string.")
    shape = tensor.shape
    if shape.ndims is not None and (shape.ndims > 1 or shape.num_elements() not in
                                    (None, 0, 1)):
        raise ValueError(f"CsvDataset: record default {column} must be a scalar or a "
                         f"vector of at most one value, got shape {shape}.")
    return tensor


def _is_csv_dtype(value) -> bool:
    if not isinstance(value, (dtypes.DType, type)):
        return False
    try:
        return dtypes.as_dtype(value) in CSV_DTYPES
    except (TypeError, ValueError):
        return False


def _static(value, what: str):
    """A Python value of CsvDataset's argument ``what``, given as one or as a constant."""
    return known_value(value, "CsvDataset", what)


def _static_text(value, what: str) -> str:
    value = _static(value, what)
    return value.decode() if isinstance(value, bytes) else str(value)


def _columns(cols, what: str) -> list:
    cols = _static(cols, what)
    return [] if cols is None else [int(c) for c in cols]


# --- make_csv_dataset ------------------------------------------------------------------------

def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8") -> Dataset:
    """TF1's ``tf.data.experimental.make_csv_dataset``: batches of ``batch_size`` CSV
    records of the files matching ``file_pattern`` (a glob or a list of them), each an
    ``OrderedDict`` of column name to a batch of that column, or ``(features, label)``
    with ``label_name``.  Column names come from the header (``column_names`` else),
    types from the first ``num_rows_for_inference`` rows (``column_defaults`` else);
    ``select_columns`` keeps columns by name or index.  Repeated ``num_epochs`` times
    (None: forever, and every batch full), shuffled unless ``shuffle=False``.  Raises
    TF's ``ValueError``s for bad arguments.  ``sloppy`` changes nothing: the order
    is always TF's deterministic one."""
    if num_parallel_reads is None:
        num_parallel_reads = 1
    if prefetch_buffer_size is None:
        prefetch_buffer_size = AUTOTUNE
    filenames = _file_names(file_pattern)
    dataset = Dataset.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)

    if column_names is None or column_defaults is None:
        open_text = _text_opener(compression_type, encoding)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither "
                             "is provided.")
        column_names = _infer_column_names(filenames, field_delim, use_quote_delim,
                                           open_text)
    if len(column_names) != len(set(column_names)):
        raise ValueError("Either `column_names` argument or CSV header row contains "
                         f"duplicate column names: {_duplicates(column_names)}.")
    if select_columns is not None:
        select_columns = _sorted_column_indices(select_columns, column_names)
    if column_defaults is not None:
        column_defaults = [convert_to_tensor([], dtype=dtypes.as_dtype(d))
                           if not isinstance(d, Tensor) and _is_csv_dtype(d) else d
                           for d in column_defaults]
    else:
        column_defaults = _infer_column_defaults(
            filenames, len(column_names), field_delim, use_quote_delim, na_value, header,
            num_rows_for_inference, select_columns, open_text)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError(
            "If specified, `column_defaults` and `select_columns` must have the same "
            f"length: `column_defaults` has length {len(column_defaults)}, "
            f"`select_columns` has length {len(select_columns)}.")
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError("`label_name` provided must be one of the columns: "
                         f"{column_names}. Received: {label_name}.")

    def file_dataset(filename):
        return _csv_dataset(filename, column_defaults, compression_type, header,
                            field_delim, use_quote_delim, na_value, select_columns, None,
                            ignore_errors=bool(ignore_errors))

    def named(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            return features, features.pop(label_name)
        return features

    if num_parallel_reads == AUTOTUNE:
        dataset = dataset.interleave(file_dataset, num_parallel_calls=AUTOTUNE)
    else:
        dataset = dataset.interleave(file_dataset, cycle_length=num_parallel_reads,
                                     block_length=1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    # Full batches only when repeating forever, so the batch dimension is static (TF's).
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    return dataset.map(named).prefetch(prefetch_buffer_size)


def _file_names(file_pattern) -> list:
    """The sorted paths matching a glob pattern or a list of them (TF's errors)."""
    if isinstance(file_pattern, list):
        if not file_pattern:
            raise ValueError("Argument `file_pattern` should not be empty.")
        names = [name for entry in file_pattern for name in glob.glob(entry)]
    else:
        names = glob.glob(file_pattern)
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return sorted(names)


def _text_opener(compression_type, encoding):
    """How the column names and types are read from a file: as text, or gunzipped."""
    if compression_type is not None:
        kind = constant_value(compression_type) if isinstance(compression_type, Tensor) \
            else compression_type
        if hasattr(kind, "item"):
            kind = kind.item()
        if isinstance(kind, bytes):
            kind = kind.decode()
        if kind is None:
            raise ValueError(f"Received unknown `compression_type` {compression_type}. "
                             "Expected: GZIP, ZLIB or  (empty string).")
        if kind == "GZIP":
            return lambda name: gzip.open(name, "rt", encoding=encoding, newline="")
        if kind == "ZLIB":
            raise ValueError(f"`compression_type` {compression_type} is not supported "
                             "for probing columns.")
        if kind != "":
            raise ValueError(f"Received unknown `compression_type` {compression_type}. "
                             "Expected: GZIP, ZLIB or  (empty string).")
    return lambda name: open(name, "r", encoding=encoding, newline="")


def _reader(file, field_delim, use_quote_delim):
    return csv.reader(file, delimiter=field_delim,
                      quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)


def _infer_column_names(filenames, field_delim, use_quote_delim, open_text) -> list:
    """The header row of the first file, which every other file must repeat."""
    def header_of(name):
        with open_text(name) as f:
            try:
                return next(_reader(f, field_delim, use_quote_delim))
            except StopIteration:
                raise ValueError(f"Failed when reading the header line of {name}. Is it "
                                 f"an empty file?") from None
    names = header_of(filenames[0])
    for name in filenames[1:]:
        if header_of(name) != names:
            raise ValueError("All input CSV files should have the same column names in "
                             f"the header row. File {name} has different column names.")
    return names


def _infer_column_defaults(filenames, num_cols, field_delim, use_quote_delim, na_value,
                           header, num_rows_for_inference, select_columns,
                           open_text) -> list:
    """Each selected column's default, typed by the first rows of the files: 0 of the
    narrowest of int32, int64, float32, float64 that reads all its values, else ""."""
    columns = range(num_cols) if select_columns is None else select_columns
    types = [None] * len(columns)
    for i, row in enumerate(_rows(filenames, num_cols, field_delim, use_quote_delim,
                                  header, open_text)):
        if num_rows_for_inference is not None and i >= num_rows_for_inference:
            break
        for j, column in enumerate(columns):
            types[j] = _infer_type(row[column], na_value, types[j])
    types = [t or dtypes.string for t in types]
    return [convert_to_tensor(["" if t == dtypes.string else 0], dtype=t) for t in types]


def _rows(filenames, num_cols, field_delim, use_quote_delim, header, open_text):
    """The rows of the files in order, each checked to have ``num_cols`` fields."""
    for name in filenames:
        with open_text(name) as f:
            reader = _reader(f, field_delim, use_quote_delim)
            row_num = 1
            if header:
                next(reader)
                row_num += 1
            for row in reader:
                if len(row) != num_cols:
                    raise ValueError(f"Problem inferring types: CSV row {row_num} has "
                                     f"{len(row)} number of fields. Expected: {num_cols}.")
                row_num += 1
                yield row


_INFERRED = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string)


def _infer_type(text: str, na_value: str, previous):
    """The narrowest type of ``_INFERRED`` that reads ``text`` and is no narrower than
    ``previous`` (an empty or NA field leaves ``previous`` as it is)."""
    if text in ("", na_value):
        return previous
    lowest = 0 if previous is None else _INFERRED.index(previous)
    for k, dtype in enumerate(_INFERRED):
        if k >= lowest and _reads_as(text, dtype):
            return dtype


def _reads_as(text: str, dtype) -> bool:
    """Whether numpy reads ``text`` as a value of ``dtype`` (floats: a finite one below
    +inf), as TF's inference asks."""
    np_type = dtype.as_numpy_dtype
    try:
        if dtype == dtypes.int32:
            return np_type(text) == dtypes.int64.as_numpy_dtype(text)
        if dtype == dtypes.int64:
            np_type(text)
            return True
        if dtype in (dtypes.float32, dtypes.float64):
            with np.errstate(over="ignore"):         # past float32's range: inf, no
                return bool(np_type(text) < float("inf"))
    except (ValueError, OverflowError):
        return False
    return True


def _sorted_column_indices(select_columns, column_names) -> list:
    """``select_columns`` (names or indices) as sorted, distinct column indices."""
    indices = {n: i for i, n in enumerate(column_names)}
    num_cols = len(column_names)
    results = []
    for v in select_columns:
        if isinstance(v, int):
            if v < 0 or v >= num_cols:
                raise ValueError(f"Column index {v} specified in `select_columns` should be "
                                 f"> 0  and <= {num_cols}, which is the number of columns.")
            results.append(v)
        elif v not in indices:
            raise ValueError(f"Column {v} specified in `select_columns` must be of one of "
                             f"the columns: {indices.keys()}.")
        else:
            results.append(indices[v])
    unique = sorted(set(results))
    if len(unique) != len(select_columns):
        raise ValueError("The `select_columns` argument contains duplicate columns: "
                         f"{_duplicates(unique)}.")
    return unique


def _duplicates(values) -> set:
    ordered = sorted(values)
    return {a for a, b in zip(ordered[:-1], ordered[1:]) if a == b}


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("data.experimental", name)
