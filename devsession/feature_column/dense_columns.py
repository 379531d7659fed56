"""The columns that are dense without variables: ``numeric_column`` (a float feature of
a fixed shape, optionally normalized), ``bucketized_column`` (a numeric column cut at
boundaries: a one-hot per value for input_layer, ids for linear_model and embeddings)
and ``indicator_column`` (a categorical column as a multi-hot vector).  TF1's checks and
ValueError/TypeError messages at column creation.
"""

from __future__ import annotations

import collections

import numpy as np

from .. import dtypes
from ..sparse_tensor import SparseTensor
from ..tensor_shape import TensorShape
from ..ops.bucketize import bucketize
from .columns_base import (CategoricalColumn, DenseColumn, IdWeightPair, OfOneFeature,
                           OverCategoricalColumn, assert_key_is_string, dtype_text)

__all__ = ["numeric_column", "bucketized_column", "indicator_column", "NumericColumn",
           "BucketizedColumn", "IndicatorColumn"]


class NumericColumn(OfOneFeature, DenseColumn, collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """See ``numeric_column``."""

    __slots__ = ()

    @property
    def variable_shape(self) -> TensorShape:
        return TensorShape(self.shape)

    @property
    def _parse_example_spec(self) -> dict:
        from ..ops.parsing import FixedLenFeature

        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def _transform_feature(self, inputs):
        from ..ops.elementwise import cast

        tensor = inputs.get(self.key)
        if isinstance(tensor, SparseTensor):
            raise ValueError("The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            tensor = self.normalizer_fn(tensor)
        return cast(tensor, dtypes.float32)


def _check_shape(shape, key) -> tuple:
    if not isinstance(shape, (list, tuple)):
        shape = [shape]
    shape = tuple(shape)
    for dimension in shape:
        if not isinstance(dimension, int):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dimension < 1:
            raise ValueError("shape dimensions must be greater than 0. "
                             f"shape: {shape}, key: {key}")
    return shape


def _filled(shape, value):
    return tuple(_filled(shape[1:], value) for _ in range(shape[0])) if shape else value


def _as_tuple(value):
    return tuple(_as_tuple(v) for v in value) if isinstance(value, (list, tuple)) else value


def _check_default_value(shape, default_value, dtype, key):
    """The default value as a tuple of ``shape`` (TF's checks: an int, a float for a
    float column, or nested values of the column's shape)."""
    if default_value is None:
        return None
    if isinstance(default_value, int) or (isinstance(default_value, float)
                                          and dtype.is_floating):
        return _filled(shape, default_value)
    if callable(getattr(default_value, "tolist", None)):
        default_value = default_value.tolist()
    if isinstance(default_value, (list, tuple)):
        if np.shape(default_value) != tuple(shape):
            raise ValueError("The shape of default_value must be equal to given shape. "
                             f"default_value: {default_value}, shape: {shape}, key: {key}")
        flat = np.ravel(np.array(default_value, dtype=object)).tolist()
        if all(isinstance(v, int) for v in flat) or (
                any(isinstance(v, float) for v in flat) and dtype.is_floating):
            return _as_tuple(default_value)
    raise TypeError("default_value must be compatible with dtype. "
                    f"default_value: {default_value}, dtype: {dtype_text(dtype)}, key: {key}")


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None) -> NumericColumn:
    """TF1's ``tf.feature_column.numeric_column``: the feature ``key``, ``shape`` values
    per example, cast to float32 after ``normalizer_fn`` (a callable on the tensor)."""
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype_text(dtype)}, key: {key}")
    default_value = _check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    assert_key_is_string(key)
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


class BucketizedColumn(DenseColumn, CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ("source_column", "boundaries"))):
    """See ``bucketized_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def parents(self) -> list:
        return [self.source_column]

    @property
    def _parse_example_spec(self) -> dict:
        return self.source_column._parse_example_spec

    @property
    def variable_shape(self) -> TensorShape:
        return TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    @property
    def num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _transform_feature(self, inputs):
        return bucketize(inputs.get(self.source_column), self.boundaries)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        from ..ops.array_index import one_hot
        from ..ops.elementwise import cast

        return one_hot(cast(inputs.get(self), dtypes.int64), len(self.boundaries) + 1,
                       on_value=1.0, off_value=0.0)

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        """One id per value: value ``j``'s bucket offset by ``j`` times the buckets per
        value, so each position of a multi-dimensional source has ids of its own."""
        from ..ops.array import reshape, stack, tile, transpose
        from ..ops.array_fill import shape
        from ..ops.elementwise import cast
        from ..ops.sequence import range as range_

        buckets = inputs.get(self)
        batch_size = shape(buckets)[0]
        width = self.source_column.shape[0]
        rows = reshape(tile(stack([range_(0, batch_size)], axis=1), [1, width]), (-1,))
        positions = tile(range_(0, width), [batch_size])
        ids = reshape(buckets, (-1,)) + (len(self.boundaries) + 1) * positions
        indices = cast(transpose(stack((rows, positions))), dtypes.int64)
        dense_shape = cast(stack([batch_size, width]), dtypes.int64)
        return IdWeightPair(SparseTensor(indices, ids, dense_shape), None)


def bucketized_column(source_column, boundaries) -> BucketizedColumn:
    """TF1's ``tf.feature_column.bucketized_column``: ``source_column`` (a numeric
    column of one dimension) cut at the sorted ``boundaries``."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError("source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for low, high in zip(boundaries[:-1], boundaries[1:]):
        if low >= high:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))


class IndicatorColumn(OverCategoricalColumn, DenseColumn, collections.namedtuple(
        "IndicatorColumn", ("categorical_column",))):
    """See ``indicator_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"

    @property
    def variable_shape(self) -> TensorShape:
        return TensorShape([1, self.categorical_column.num_buckets])

    def _transform_feature(self, inputs):
        """The ids as a dense matrix (-1 where a row has fewer), one-hot each, summed
        over a row: a count per bucket; with weights, each bucket's summed weight."""
        from ..ops.array_index import one_hot
        from ..ops.reduce import reduce_sum
        from ..ops.sparse import sparse_tensor_to_dense

        pair = self.categorical_column._get_sparse_tensors(inputs)
        if pair.weight_tensor is not None:
            return _weighted_buckets(pair, self.categorical_column.num_buckets)
        dense_ids = sparse_tensor_to_dense(pair.id_tensor, default_value=-1)
        return reduce_sum(one_hot(dense_ids, self.categorical_column.num_buckets,
                                  on_value=1.0, off_value=0.0), axis=[-2])


def _weighted_buckets(pair, num_buckets):
    """``[batch, num_buckets]``: each id's weight added into its bucket (TF's merge of
    ids and weights, scattered so that repeated ids add up)."""
    from ..ops.gather_nd import scatter_nd
    from ..ops.sparse_composites import sparse_merge
    from ..ops.sparse_slicing import sparse_slice

    merged = sparse_merge(pair.id_tensor, pair.weight_tensor, num_buckets)
    merged = sparse_slice(merged, [0, 0], merged.dense_shape)
    return scatter_nd(merged.indices, merged.values, merged.dense_shape)


def indicator_column(categorical_column) -> IndicatorColumn:
    """TF1's ``tf.feature_column.indicator_column``: ``categorical_column`` as a
    multi-hot float vector of ``num_buckets`` per example."""
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError("Unsupported input type. Input must be a CategoricalColumn. "
                         f"Given: {categorical_column}")
    return IndicatorColumn(categorical_column)
