"""TF1's ``tf.data``: ``Dataset`` input pipelines and their ``Iterator``s, run inside a
session on the host (``dataset.py``, ``iterator.py``; the ops: ``ops/dataset.py``), and
the file readers ``TFRecordDataset``, ``TextLineDataset`` and ``FixedLengthRecordDataset``
(``readers.py``), ``Options`` and ``ThreadingOptions`` (``options.py``), and
``experimental`` (``AUTOTUNE``, the CSV readers ``CsvDataset`` and ``make_csv_dataset``:
``experimental.py``).

    dataset = ds.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(10000)
    images, labels = dataset.batch(128).repeat(5).make_one_shot_iterator().get_next()
    ...
    while True:
        try:
            sess.run(train_op)
        except ds.errors.OutOfRangeError:
            break

Anything else under ``ds.data`` raises an error naming the TF1 symbol as unsupported.
"""

from . import experimental
from .dataset import Dataset
from .iterator import Iterator, make_initializable_iterator, make_one_shot_iterator
from .dataset import AUTOTUNE
from .options import Options, ThreadingOptions
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset
from .transformations import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY

__all__ = ["Dataset", "TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset",
           "Iterator",
           "make_one_shot_iterator", "make_initializable_iterator",
           "get_output_types", "get_output_shapes", "get_output_classes", "experimental",
           "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Options",
           "ThreadingOptions"]


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


def __getattr__(name: str):
    from ..unsupported import missing

    raise missing("data", name)
