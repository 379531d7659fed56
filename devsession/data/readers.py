"""``ds.data.TFRecordDataset`` and ``TextLineDataset``: the records of TFRecord files, or
the lines of text files, as a dataset's source.

    filenames = ds.placeholder(ds.string, [None])
    dataset = ds.data.TFRecordDataset(filenames).map(parse).batch(32)
    iterator = dataset.make_initializable_iterator()
    sess.run(iterator.initializer, {filenames: ["train-0.tfrecord", "train-1.tfrecord"]})

Elements are scalar ``string`` tensors, one per record or line, read when ``get_next``
asks for them (``io/tfrecord.py`` reads the frames, ``io/plain_records.py`` the lines;
the kernels are ``kernels/reference/dataset_readers.py``).  The files are read one
after another, or with ``num_parallel_reads=n`` in TF's order for that: ``n`` files
interleaved a record at a time (devsession reads them on one thread; the order is what
matters).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor
from ..io.tfrecord import compression_name
from .dataset import AUTOTUNE, Dataset, _python_int
from .structure import ElementSpec

__all__ = ["TFRecordDataset", "TextLineDataset"]


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


def _file_dataset(kind: str, where: str, filenames, compression_type, num_parallel_reads,
                  **attrs) -> Dataset:
    """A dataset whose source stage ``kind`` reads the files ``filenames``."""
    files = filenames if isinstance(filenames, Tensor) else \
        convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    if files.dtype != dtypes.string:
        raise TypeError(f"{where}: filenames must be a string tensor, got "
                        f"{files.dtype.name}.")
    if files.shape.ndims is not None and files.shape.ndims > 1:
        raise ValueError(f"{where}: filenames must be a scalar or a vector, got "
                         f"shape {files.shape}.")
    if isinstance(compression_type, Tensor):
        known = constant_value(compression_type)
        if known is None:
            raise ValueError(f"{where}: compression_type must be known when the "
                             f"graph is built (a Python string or a constant).")
        compression_type = known.item() if hasattr(known, "item") else known
    cycle = 1 if num_parallel_reads is None else \
        _python_int(num_parallel_reads, where, minimum=AUTOTUNE)
    if cycle == 0:
        raise ValueError(f"{where}: num_parallel_reads must be positive (or AUTOTUNE).")
    stage = {"kind": kind, "inputs": [0, 1], "compression":
             compression_name(compression_type), "cycle_length": cycle, **attrs}
    return Dataset(files.graph, [stage], [files], (), ElementSpec(dtypes.string, []))
