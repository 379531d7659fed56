"""TF1's input pipelines over ``tf.train.Example`` records: ``parse_example_dataset``
(a ``map`` of ``io.parse_example`` over batches of serialized Examples) and
``make_batched_features_dataset`` (TF's composition: list the files, interleave their
readers, shuffle, repeat, batch, parse, split off the label):

    dataset = ds.data.experimental.make_batched_features_dataset(
        "train-*.tfrecord", 32, {"x": ds.io.FixedLenFeature([4], ds.float32),
                                 "label": ds.io.FixedLenFeature([], ds.int64)},
        label_key="label", num_epochs=1, shuffle=False)

A dataset's elements are dense tensors, so the features are the dense kinds
(``FixedLenFeature``, ``FixedLenSequenceFeature``); a ``VarLenFeature`` (a
``SparseTensor``) is refused when the pipeline is built.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor
from ..ops.parsing import parse_example
from .dataset import AUTOTUNE, Dataset
from .readers import TFRecordDataset
from .transformations import parallel_interleave

__all__ = ["parse_example_dataset", "make_batched_features_dataset"]


def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """TF's ``parse_example_dataset``, for ``apply``: each element (a vector of
    serialized Examples) parsed into a dict of ``features``' tensors.  Raises TF's
    ``ValueError`` without ``features`` and ``TypeError`` for elements that are not
    string vectors."""
    if features is None:
        raise ValueError("Argument `features` is required, but not specified.")

    def apply(dataset: Dataset) -> Dataset:
        spec = dataset._structure
        if not hasattr(spec, "dtype") or spec.dtype != dtypes.string or \
                not spec.shape.is_compatible_with([None]):
            raise TypeError(f"Input dataset should be a dataset of vectors of strings. "
                            f"Instead it is `{spec}`.")
        return dataset.map(lambda serialized: _dense(parse_example(serialized, features)))
    return apply


def _dense(parsed: dict) -> dict:
    for key, value in parsed.items():
        if not isinstance(value, Tensor):
            raise TypeError(f"parse_example_dataset: feature {key!r} parses to a "
                            f"{type(value).__name__}; devsession's datasets hold dense "
                            f"tensors (FixedLenFeature, FixedLenSequenceFeature).")
    return parsed


def make_batched_features_dataset(file_pattern, batch_size, features, reader=None,
                                  label_key=None, reader_args=None, num_epochs=None,
                                  shuffle=True, shuffle_buffer_size=10000,
                                  shuffle_seed=None, prefetch_buffer_size=None,
                                  reader_num_threads=None, parser_num_threads=None,
                                  sloppy_ordering=False, drop_final_batch=False) -> Dataset:
    """TF's ``make_batched_features_dataset``: batches of ``batch_size`` Examples of
    the files matching ``file_pattern`` (read by ``reader``, TFRecordDataset by
    default, ``reader_num_threads`` files interleaved a record at a time), parsed into
    a dict of ``features`` (and ``(features, label)`` with ``label_key``); shuffled
    (files and records, seeded by ``shuffle_seed``) unless ``shuffle=False``;
    repeated ``num_epochs`` times (None: forever, every batch full).  Raises TF's
    ``ValueError`` for a ``label_key`` that is no feature."""
    if reader is None:
        reader = TFRecordDataset
    if reader_num_threads is None:
        reader_num_threads = 1
    if prefetch_buffer_size is None:
        prefetch_buffer_size = AUTOTUNE
    if isinstance(reader, type) and not issubclass(reader, Dataset) and \
            hasattr(reader, "read"):
        raise TypeError("The `reader` argument must return a `Dataset` object. "
                        "`tf.ReaderBase` subclasses are not supported. For example, pass "
                        "`tf.data.TFRecordDataset` instead of `tf.TFRecordReader`.")
    reader_args = list(reader_args or [])
    dataset = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    if reader_num_threads == AUTOTUNE:
        dataset = dataset.interleave(lambda filename: reader(filename, *reader_args),
                                     num_parallel_calls=AUTOTUNE)
    else:
        dataset = dataset.apply(parallel_interleave(
            lambda filename: reader(filename, *reader_args), reader_num_threads))
    if dataset.output_types == (dtypes.string, dtypes.string):
        dataset = dataset.map(lambda _, value: value)      # (key, value) readers
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(parse_example_dataset(features, parser_num_threads))
    if label_key:
        if label_key not in features:
            raise ValueError(f"The `label_key` provided ({label_key}) must be one of the "
                             f"`features` keys: {features.keys()}.")
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset.prefetch(prefetch_buffer_size)
