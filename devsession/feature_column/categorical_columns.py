"""The categorical columns that map a raw feature to ids: ``..._with_identity`` (the
integers are the ids), ``..._with_vocabulary_list`` and ``..._with_vocabulary_file``
(a lookup table of ``ds.lookup``: a word's position, a hash bucket past the vocabulary
for the others) and ``..._with_hash_bucket`` (Fingerprint64 of the text modulo the
buckets, TF's ``StringToHashBucketFast``).

A dense feature becomes a SparseTensor without its missing cells ("" or -1) first; a
SparseTensor (a feature of several values per example) is used as it is.  The ids are
an int64 SparseTensor of the input's indices.
"""

from __future__ import annotations

import collections
import os

import numpy as np

from .. import dtypes
from ..sparse_tensor import SparseTensor
from .columns_base import (CategoricalColumn, OfOneFeature, assert_key_is_string,
                           assert_string_or_int,
                           dtype_text, to_sparse_input)

__all__ = ["categorical_column_with_identity", "categorical_column_with_vocabulary_list",
           "categorical_column_with_vocabulary_file", "categorical_column_with_hash_bucket"]


def _check_compatible(column, tensor) -> None:
    if column.dtype.is_integer != tensor.dtype.is_integer:
        raise ValueError("Column dtype and SparseTensors dtype must be compatible. "
                         f"key: {column.key}, column dtype: {dtype_text(column.dtype)}, "
                         f"tensor dtype: {dtype_text(tensor.dtype)}")
    assert_string_or_int(tensor.dtype, prefix=f"column_name: {column.key} input_tensor")


class _KeyedColumn(OfOneFeature, CategoricalColumn):
    """A categorical column of one raw feature, named by its key."""

    __slots__ = ()

    @property
    def _parse_example_spec(self) -> dict:
        """A VarLenFeature of the column's dtype (int64 for identity columns)."""
        from ..ops.parsing import VarLenFeature

        return {self.key: VarLenFeature(getattr(self, "dtype", dtypes.int64))}


class IdentityCategoricalColumn(_KeyedColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ("key", "number_buckets", "default_value"))):
    """See ``categorical_column_with_identity``."""

    __slots__ = ()

    @property
    def num_buckets(self) -> int:
        return self.number_buckets

    def _transform_feature(self, inputs):
        from ..ops.array_fill import fill, shape
        from ..ops.elementwise import cast, greater_equal, less, logical_or, where

        tensor = to_sparse_input(inputs.get(self.key))
        if not tensor.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} "
                             f"dtype: {dtype_text(tensor.dtype)}")
        values = tensor.values
        if values.dtype != dtypes.int64:
            values = cast(values, dtypes.int64, name="values")
        if self.default_value is not None:
            num_buckets = cast(self.num_buckets, dtypes.int64, name="num_buckets")
            zero = cast(0, dtypes.int64, name="zero")
            out_of_range = logical_or(less(values, zero), greater_equal(values, num_buckets),
                                      name="out_of_range")
            defaults = fill(shape(values), cast(self.default_value, dtypes.int64),
                            name="default_values")
            values = where(out_of_range, defaults, values)
        return SparseTensor(tensor.indices, values, tensor.dense_shape)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """TF1's ``tf.feature_column.categorical_column_with_identity``: integer features
    that are their own ids in ``[0, num_buckets)``; one outside is ``default_value``
    when given (else an error when an embedding or weights gather it)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    assert_key_is_string(key)
    return IdentityCategoricalColumn(key, num_buckets, default_value)


class HashedCategoricalColumn(_KeyedColumn, collections.namedtuple(
        "HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype"))):
    """See ``categorical_column_with_hash_bucket``."""

    __slots__ = ()

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    def _transform_feature(self, inputs):
        from ..ops.strings import as_string, string_to_hash_bucket_fast

        tensor = to_sparse_input(inputs.get(self.key))
        assert_string_or_int(tensor.dtype, prefix=f"column_name: {self.key} input_tensor")
        if self.dtype.is_integer != tensor.dtype.is_integer:
            raise ValueError("Column dtype and SparseTensors dtype must be compatible. "
                             f"key: {self.key}, column dtype: {dtype_text(self.dtype)}, "
                             f"tensor dtype: {dtype_text(tensor.dtype)}")
        text = tensor.values if self.dtype == dtypes.string else as_string(tensor.values)
        ids = string_to_hash_bucket_fast(text, self.hash_bucket_size, name="lookup")
        return SparseTensor(tensor.indices, ids, tensor.dense_shape)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """TF1's ``tf.feature_column.categorical_column_with_hash_bucket``: each string (or
    an integer's decimal text) to ``Fingerprint64(text) % hash_bucket_size``."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError("hash_bucket_size must be at least 1. "
                         f"hash_bucket_size: {hash_bucket_size}, key: {key}")
    assert_key_is_string(key)
    dtype = dtypes.as_dtype(dtype)
    assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


def _vocabulary_ids(column, tensor, make_table):
    """``tensor``'s values looked up in the table ``make_table(key_dtype)`` builds
    (integer features as int64 keys, as TF's index tables want)."""
    from ..ops.elementwise import cast

    _check_compatible(column, tensor)
    key_dtype = column.dtype
    if tensor.dtype.is_integer:
        key_dtype = dtypes.int64
        tensor = SparseTensor(tensor.indices, cast(tensor.values, dtypes.int64),
                              tensor.dense_shape)
    return make_table(key_dtype).lookup(tensor)


def _index_table(initializer, num_oov_buckets: int, default_value: int, name: str):
    """TF's index table: out-of-vocabulary words hashed into ``num_oov_buckets`` past
    the vocabulary, or ``default_value`` when there are none."""
    from ..lookup import StaticHashTable, StaticVocabularyTable

    if num_oov_buckets:
        return StaticVocabularyTable(initializer, num_oov_buckets, name=name)
    return StaticHashTable(initializer, default_value, name=name)


class VocabularyListCategoricalColumn(_KeyedColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn",
        ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"))):
    """See ``categorical_column_with_vocabulary_list``."""

    __slots__ = ()

    @property
    def num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets

    def _transform_feature(self, inputs):
        from ..lookup import KeyValueTensorInitializer

        def make_table(key_dtype):
            keys = np.array(self.vocabulary_list, dtype=object if key_dtype == dtypes.string
                            else key_dtype.as_numpy_dtype)
            ids = np.arange(len(self.vocabulary_list), dtype=np.int64)
            initializer = KeyValueTensorInitializer(keys, ids, key_dtype, dtypes.int64)
            return _index_table(initializer, self.num_oov_buckets, self.default_value,
                                f"{self.key}_lookup")

        return _vocabulary_ids(self, to_sparse_input(inputs.get(self.key)), make_table)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                            default_value=-1, num_oov_buckets=0):
    """TF1's ``tf.feature_column.categorical_column_with_vocabulary_list``: a word's
    position in ``vocabulary_list``; another word is ``default_value``, or with
    ``num_oov_buckets`` a hash bucket after the vocabulary."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, "
                         f"column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, "
                         f"column_name: {key}")
    vocabulary_dtype = dtypes.as_dtype(np.array(vocabulary_list).dtype)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    assert_string_or_int(vocabulary_dtype, prefix=f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocabulary_dtype.is_integer:
            raise ValueError(f"dtype {dtype_text(dtype)} and vocabulary dtype {dtype_text(vocabulary_dtype)} do not "
                             f"match, column_name: {key}")
    assert_string_or_int(dtype, prefix=f"column_name: {key}")
    assert_key_is_string(key)
    return VocabularyListCategoricalColumn(key, tuple(vocabulary_list), dtype, default_value,
                                           num_oov_buckets)


class VocabularyFileCategoricalColumn(_KeyedColumn, collections.namedtuple(
        "VocabularyFileCategoricalColumn",
        ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype",
         "default_value"))):
    """See ``categorical_column_with_vocabulary_file``."""

    __slots__ = ()

    @property
    def num_buckets(self) -> int:
        return self.vocabulary_size + self.num_oov_buckets

    def _transform_feature(self, inputs):
        from ..lookup import TextFileIndex, TextFileInitializer

        def make_table(key_dtype):
            initializer = TextFileInitializer(
                self.vocabulary_file, key_dtype, TextFileIndex.WHOLE_LINE, dtypes.int64,
                TextFileIndex.LINE_NUMBER, vocab_size=self.vocabulary_size)
            return _index_table(initializer, self.num_oov_buckets, self.default_value,
                                f"{self.key}_lookup")

        return _vocabulary_ids(self, to_sparse_input(inputs.get(self.key)), make_table)


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None,
                                            dtype=dtypes.string):
    """TF1's ``tf.feature_column.categorical_column_with_vocabulary_file``: a word's
    line number in ``vocabulary_file`` (its first ``vocabulary_size`` lines, by default
    all of them); another word is ``default_value`` (-1), or with ``num_oov_buckets`` a
    hash bucket after the vocabulary."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        if not os.path.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with open(vocabulary_file, "rb") as lines:
            vocabulary_size = sum(1 for _ in lines)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes.as_dtype(dtype)
    assert_string_or_int(dtype, prefix=f"column_name: {key}")
    assert_key_is_string(key)
    return VocabularyFileCategoricalColumn(
        key, vocabulary_file, vocabulary_size, 0 if num_oov_buckets is None else num_oov_buckets,
        dtype, -1 if default_value is None else default_value)
