"""``weighted_categorical_column``: a categorical column whose ids each come with a
weight, read from another feature of the same layout (a SparseTensor, or a dense tensor
whose zeros are left out), which embedding_column combines with, linear_model
multiplies its weights by and indicator_column puts in place of the counts.
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..graph import convert_to_tensor
from ..sparse_tensor import SparseTensor, SparseTensorValue
from .columns_base import CategoricalColumn, IdWeightPair, dtype_text, to_sparse_input

__all__ = ["weighted_categorical_column", "WeightedCategoricalColumn"]


class WeightedCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype"))):
    """See ``weighted_categorical_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def parents(self) -> list:
        return [self.categorical_column, self.weight_feature_key]

    @property
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    @property
    def _parse_example_spec(self) -> dict:
        from ..ops.parsing import VarLenFeature

        config = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in config:
            raise ValueError(f"Parse config {config[self.weight_feature_key]} already exists "
                             f"for {self.weight_feature_key}.")
        config[self.weight_feature_key] = VarLenFeature(self.dtype)
        return config

    def _transform_feature(self, inputs):
        from ..ops.elementwise import cast

        weights = inputs.get(self.weight_feature_key)
        if isinstance(weights, SparseTensorValue):
            weights = SparseTensor.from_value(weights)
        if not isinstance(weights, SparseTensor):
            weights = convert_to_tensor(weights)
        if self.dtype != weights.dtype:
            raise ValueError(f"Bad dtype, expected {dtype_text(self.dtype)}, but got "
                             f"{dtype_text(weights.dtype)}.")
        if not isinstance(weights, SparseTensor):
            weights = to_sparse_input(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = SparseTensor(weights.indices, cast(weights.values, dtypes.float32),
                                   weights.dense_shape)
        return inputs.get(self.categorical_column), weights

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        ids, weights = inputs.get(self)
        return IdWeightPair(ids, weights)


def weighted_categorical_column(categorical_column, weight_feature_key,
                                dtype=dtypes.float32) -> WeightedCategoricalColumn:
    """TF1's ``tf.feature_column.weighted_categorical_column``: the ids of
    ``categorical_column`` weighted by the feature ``weight_feature_key`` (of
    ``dtype``, integer or float; cast to float32), one weight per id."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {None if dtype is None else dtype_text(dtype)} is not "
                         "convertible to float.")
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)
