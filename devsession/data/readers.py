"""``ds.data.TFRecordDataset``, ``TextLineDataset`` and ``FixedLengthRecordDataset``: the
records of TFRecord files, the lines of text files, or the fixed-length records of binary
files (CIFAR-10's), as a dataset's source (``Dataset.list_files`` lists the files).

    filenames = ds.placeholder(ds.string, [None])
    dataset = ds.data.TFRecordDataset(filenames).map(parse).batch(32)
    iterator = dataset.make_initializable_iterator()
    sess.run(iterator.initializer, {filenames: ["train-0.tfrecord", "train-1.tfrecord"]})

Elements are scalar ``string`` tensors, one per record or line, read when ``get_next``
asks for them (``io/tfrecord.py`` reads the frames, ``io/plain_records.py`` the rest;
the kernels are ``kernels/reference/dataset_readers.py``).  The files are read one
after another, or with ``num_parallel_reads=n`` in TF's order for that: ``n`` files
interleaved a record at a time (devsession reads them on one thread; the order is what
matters).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor
from ..io.tfrecord import compression_name
from .dataset import AUTOTUNE, Dataset, _check_names, _python_int
from .structure import ElementSpec

__all__ = ["TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset"]


def TFRecordDataset(filenames, compression_type=None, buffer_size=None,  # noqa: N802
                    num_parallel_reads=None) -> Dataset:
    """TF1's ``tf.data.TFRecordDataset``: a dataset of the records of ``filenames`` (a
    string, a list of strings, or a string tensor of rank 0 or 1, e.g. a placeholder fed
    when an initializable iterator starts).  ``compression_type``: None, "", "GZIP" or
    "ZLIB" (a Python string or a constant).  ``buffer_size`` is accepted (reads are
    buffered anyway).  Raises ``TypeError``/``ValueError`` for filenames that are not
    strings of rank <= 1, an unknown compression or a bad ``num_parallel_reads``."""
    return _file_dataset("tfrecord", "TFRecordDataset", filenames, compression_type,
                         num_parallel_reads)


def TextLineDataset(filenames, compression_type=None, buffer_size=None,  # noqa: N802
                    num_parallel_reads=None) -> Dataset:
    """TF1's ``tf.data.TextLineDataset``: a dataset of the lines of ``filenames``, each
    a scalar string without its ``\\n`` or ``\\r\\n`` (TF drops every ``\\r``); empty
    lines are kept and a last line without a newline is read.  Arguments and errors as
    ``TFRecordDataset``'s."""
    return _file_dataset("textline", "TextLineDataset", filenames, compression_type,
                         num_parallel_reads)


def FixedLengthRecordDataset(filenames, record_bytes, header_bytes=None,  # noqa: N802
                             footer_bytes=None, buffer_size=None, compression_type=None,
                             num_parallel_reads=None) -> Dataset:
    """TF1's ``tf.data.FixedLengthRecordDataset``: a dataset of the ``record_bytes``-long
    records of each file in ``filenames``, after its first ``header_bytes`` and before
    its last ``footer_bytes`` (the sizes Python ints or constants).  Each record is a
    scalar string; ``ds.io.decode_raw`` turns it into numbers:

        # CIFAR-10's binary files: a label byte, then 32x32x3 image bytes (CHW)
        dataset = ds.data.FixedLengthRecordDataset(files, 1 + 32 * 32 * 3).map(
            lambda r: ds.io.decode_raw(r, ds.uint8))

    A file whose body is not a whole number of records fails the ``get_next`` that
    reaches it with ``InvalidArgumentError`` naming the file and the sizes (a compressed
    one: ``DataLossError``, after its whole records), as TF's.  Other arguments and
    errors as ``TFRecordDataset``'s; a size below its minimum is ``ValueError``."""
    sizes = {}
    for key, value, least in (("record_bytes", record_bytes, 1),
                              ("header_bytes", header_bytes, 0),
                              ("footer_bytes", footer_bytes, 0)):
        sizes[key] = 0 if value is None else \
            _python_int(value, f"FixedLengthRecordDataset: {key}", minimum=least)
    return _file_dataset("fixed_length", "FixedLengthRecordDataset", filenames,
                         compression_type, num_parallel_reads, **sizes)


def _file_dataset(kind: str, where: str, filenames, compression_type, num_parallel_reads,
                  **attrs) -> Dataset:
    """A dataset whose source stage ``kind`` reads the files ``filenames``."""
    files = filenames if isinstance(filenames, Tensor) else \
        convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    _check_names(files, f"{where}: filenames")
    compression_type = known_value(compression_type, where, "compression_type")
    cycle = 1 if num_parallel_reads is None else \
        _python_int(num_parallel_reads, where, minimum=AUTOTUNE)
    if cycle == 0:
        raise ValueError(f"{where}: num_parallel_reads must be positive (or AUTOTUNE).")
    stage = {"kind": kind, "inputs": [0, 1], "compression":
             compression_name(compression_type), "cycle_length": cycle, **attrs}
    return Dataset(files.graph, [stage], [files], (), ElementSpec(dtypes.string, []))


def known_value(value, where: str, what: str):
    """The Python value of a reader's argument ``what``, given as one or as a constant
    tensor (ValueError, naming ``where``, for a tensor known only when run)."""
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is None:
            raise ValueError(f"{where}: {what} must be known when the graph is built "
                             f"(a Python value or a constant).")
        value = known.item() if hasattr(known, "item") else known
    return value
