"""``crossed_column``: a wide model's feature cross, every combination of one value of
each of its keys in an example hashed into ``hash_bucket_size`` ids (TF's
``SparseCross`` with hashed output, ``ds.sparse.cross_hashed``, the same hash of the
same values, so a model's weights line up with TF's).

A key is a raw feature's name (its strings or integers crossed as they are, a dense
feature's every cell included) or a categorical column (its ids crossed); a crossed
column among the keys contributes its own keys.  The column is categorical: it goes
into linear_model as it is, into input_layer through indicator_column or
embedding_column.
"""

from __future__ import annotations

import collections

from .categorical_columns import HashedCategoricalColumn
from .columns_base import CategoricalColumn

__all__ = ["crossed_column", "CrossedColumn"]


def _leaf_keys(column) -> list:
    """The keys of ``column`` with each nested crossed column's keys in its place."""
    leaves = []
    for key in column.keys:
        leaves.extend(_leaf_keys(key) if isinstance(key, CrossedColumn) else [key])
    return leaves


class CrossedColumn(CategoricalColumn, collections.namedtuple(
        "CrossedColumn", ("keys", "hash_bucket_size", "hash_key"))):
    """See ``crossed_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        """The leaf keys' names, sorted, joined by ``_X_`` (TF's)."""
        return "_X_".join(sorted(key if isinstance(key, str) else key.name
                                 for key in _leaf_keys(self)))

    @property
    def parents(self) -> list:
        return list(self.keys)

    @property
    def _parse_example_spec(self) -> dict:
        """The keys' specs, a raw feature's a VarLenFeature of strings."""
        from .. import dtypes
        from ..ops.parsing import VarLenFeature

        config = {}
        for key in self.keys:
            config.update({key: VarLenFeature(dtypes.string)} if isinstance(key, str)
                          else key._parse_example_spec)
        return config

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    def _transform_feature(self, inputs):
        from ..ops.sparse_cross import sparse_cross_hashed

        features = []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                features.append(inputs.get(key))
                continue
            pair = key._get_sparse_tensors(inputs)
            if pair.weight_tensor is not None:
                raise ValueError("crossed_column does not support weight_tensor, but the "
                                 "given column populates weight_tensor. "
                                 f"Given column: {key.name}")
            features.append(pair.id_tensor)
        return sparse_cross_hashed(features, num_buckets=self.hash_bucket_size,
                                   hash_key=self.hash_key)


def crossed_column(keys, hash_bucket_size, hash_key=None) -> CrossedColumn:
    """TF1's ``tf.feature_column.crossed_column``: the cross of ``keys`` (two or more
    feature names or categorical columns, not hash-bucket columns: hash the raw feature
    by its name instead) hashed into ``hash_bucket_size`` buckets; ``hash_key`` seeds
    TF's FingerprintCat64 chain (by default TF's key)."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, CategoricalColumn)):
            raise ValueError("Unsupported key type. All keys must be either string, or "
                             "categorical column except HashedCategoricalColumn. "
                             f"Given: {key}")
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError("categorical_column_with_hash_bucket is not supported for "
                             "crossing. Hashing before crossing will increase probability "
                             "of collision. Instead, use the feature name as a string. "
                             f"Given: {key}")
    return CrossedColumn(tuple(keys), hash_bucket_size, hash_key)
