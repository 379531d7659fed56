"""``tf.data.experimental``'s lookup tables filled from a dataset: ``DatasetInitializer``
(a table initializer reading ``(key, value)`` scalar pairs), ``table_from_dataset``
and ``index_table_from_dataset`` (each key's position in a dataset of keys):

    vocab = ds.data.TextLineDataset("vocab.txt")
    table = ds.data.experimental.index_table_from_dataset(vocab, num_oov_buckets=1)
    ids = table.lookup(words)           # after ds.tables_initializer()

The initializer's keys and values are the whole dataset batched into one element, read
when the table's initializer runs (an empty dataset fails it with ``OutOfRangeError``,
as TF's); a table with
``num_oov_buckets`` gives the keys it lacks ``size + Fingerprint64(key) %
num_oov_buckets`` (TF's ``IdTableWithHashBuckets`` with its ``FastHashSpec``, as
``lookup.StaticVocabularyTable`` does).  TF's ``ValueError``/``TypeError`` for
datasets, buckets and sizes it refuses.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, control_dependencies, name_scope
from ..lookup.initializers import KeyValueTensorInitializer
from ..lookup.tables import StaticHashTable, StaticVocabularyTable
from .dataset import Dataset
from .transformations import assert_cardinality

__all__ = ["DatasetInitializer", "table_from_dataset", "index_table_from_dataset"]

_ALL = int(np.iinfo(np.int64).max)       # a batch holding every element


class DatasetInitializer(KeyValueTensorInitializer):
    """TF's ``tf.data.experimental.DatasetInitializer``: fills a table with the
    ``(key, value)`` scalar pairs of ``dataset``."""

    def __init__(self, dataset: Dataset):
        _check_pairs(dataset)
        self.dataset = dataset
        with dataset._graph.as_default():
            iterator = dataset.batch(_ALL).make_initializable_iterator()
            with control_dependencies([iterator.initializer]):
                keys, values = iterator.get_next()
        super().__init__(keys, values, name="dataset_init")


def _check_pairs(dataset: Dataset) -> None:
    base = ("Datasets used to initialize lookup tables must produce elements in the form "
            "(key, value), where the keys and values are scalar tensors. ")
    specs = dataset._structure
    if not isinstance(specs, tuple) or len(specs) != 2:
        count = len(specs) if isinstance(specs, (tuple, dict)) else 1
        raise ValueError(base + f"However, the given dataset produces {count} components "
                         f"instead of two (key, value) components. Full dataset element "
                         f"spec: {specs}.")
    for what, spec in zip(("key", "value"), specs):
        if not hasattr(spec, "dtype"):
            raise ValueError(base + f"However, the given dataset produces non-Tensor "
                             f"{what}s of type {type(spec)}.")
        if spec.shape.ndims not in (None, 0):
            raise ValueError(base + f"However, the given dataset produces non-scalar "
                             f"{what} Tensors of rank {spec.shape.ndims}.")


def table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None, default_value=None,
                       hasher_spec=None, key_dtype=dtypes.string, name=None):
    """TF's ``table_from_dataset``: a ``StaticHashTable`` of the ``(key, value)``
    pairs of ``dataset`` (its first ``vocab_size``, checked to be that many), with
    ``num_oov_buckets`` hash buckets for missing keys (see the module docstring)."""
    _check_pairs(dataset)
    value_dtype = dataset.flat_specs[1].dtype
    if default_value is None:
        default_value = -1
        if not (value_dtype.is_integer or value_dtype.is_floating):
            raise ValueError(f"`default_value` must be specified when creating a table "
                             f"from a dataset that produces values of type "
                             f"<dtype: '{value_dtype.name}'>.")
    if num_oov_buckets < 0:
        raise ValueError(f"`num_oov_buckets` must be greater than or equal to 0, got "
                         f"{num_oov_buckets}.")
    if not isinstance(vocab_size, Tensor) and vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    key_dtype = dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype != dtypes.string:
        raise TypeError(f"`key_dtype` must be either an integer or string type, but got "
                        f"<dtype: '{key_dtype.name}'>")
    if vocab_size is not None:
        dataset = dataset.take(vocab_size).apply(assert_cardinality(vocab_size))
    with dataset._graph.as_default(), name_scope(name or "string_to_index"):
        initializer = DatasetInitializer(dataset)
        with name_scope("hash_table"):
            if num_oov_buckets:
                return StaticVocabularyTable(initializer, num_oov_buckets,
                                             lookup_key_dtype=key_dtype)
            return StaticHashTable(initializer, default_value)


def index_table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None,
                             default_value=-1, hasher_spec=None, key_dtype=dtypes.string,
                             name=None):
    """TF's ``index_table_from_dataset``: each key of ``dataset`` to its position."""
    return table_from_dataset(dataset.enumerate().map(lambda v, k: (k, v)),
                              num_oov_buckets, vocab_size, default_value, hasher_spec,
                              key_dtype, name)
