"""What every feature column shares: the base classes (a column is dense, categorical,
or both), the ids-and-weights pair a categorical column hands on, the builder that turns
a dict of raw features into each column's tensors once, and the checks TF1 makes of a
list of columns.

A column is a namedtuple (hashable, compared by its fields), as TF's, so the builder can
cache a column's transformed tensor under the column itself: a bucketized column used
both alone and in an embedding is bucketized once.
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor, SparseTensorValue

__all__ = ["FeatureColumn", "DenseColumn", "CategoricalColumn", "OverCategoricalColumn", "OfOneFeature",
           "IdWeightPair",
           "LazyBuilder", "to_sparse_input", "normalize_feature_columns",
           "assert_key_is_string", "assert_string_or_int", "dtype_text"]

IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])


class FeatureColumn:
    """A feature column: its ``name``, the raw features it reads (``parents``) and
    ``_transform_feature`` (the transformed tensor, built once through the builder)."""

    __slots__ = ()

    @property
    def _var_scope_name(self) -> str:
        """The variable scope input_layer and linear_model open for the column."""
        return self.name

    def _transform_feature(self, inputs):
        raise NotImplementedError


class DenseColumn(FeatureColumn):
    """A column input_layer can use: a float tensor of ``variable_shape`` per example."""

    __slots__ = ()

    @property
    def _variable_shape(self):
        return self.variable_shape

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)


class CategoricalColumn(FeatureColumn):
    """A column of ids in ``[0, num_buckets)``, a SparseTensor per batch (with optional
    weights): what embedding_column, indicator_column and linear_model read."""

    __slots__ = ()
    IdWeightPair = IdWeightPair

    @property
    def _num_buckets(self) -> int:
        return self.num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return IdWeightPair(inputs.get(self), None)


def dtype_text(dtype) -> str:
    """A dtype as TF's messages print it (``<dtype: 'string'>``)."""
    return f"<dtype: '{dtype.name}'>"


def assert_key_is_string(key) -> None:
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def assert_string_or_int(dtype, prefix: str) -> None:
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype_text(dtype)}.")


def normalize_feature_columns(feature_columns) -> list:
    """``feature_columns`` as a list, with TF1's ValueErrors for a dict, an empty list,
    an item that is not a column, or two columns of one name."""
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    feature_columns = list(feature_columns)
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError("Items of feature_columns must be a _FeatureColumn. "
                             f"Given (type {type(column)}): {column}.")
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    by_name = {}
    for column in feature_columns:
        if column.name in by_name:
            raise ValueError(
                f"Duplicate feature column name found for columns: {column} and "
                f"{by_name[column.name]}. This usually means that these columns refer to "
                "same base feature. Either one must be discarded or a duplicated but "
                "renamed item must be inserted in features dict.")
        by_name[column.name] = column
    return feature_columns


class OfOneFeature:
    """A column reading one raw feature (``key``: the numeric and the keyed categorical
    columns): named by it, and it is the column's parent."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return self.key

    @property
    def parents(self) -> list:
        return [self.key]


class OverCategoricalColumn:
    """A column built over one categorical column (``categorical_column``: the
    indicator and embedding columns): that column is its parent, and what it parses
    is what that column parses."""

    __slots__ = ()

    @property
    def parents(self) -> list:
        return [self.categorical_column]

    @property
    def _parse_example_spec(self) -> dict:
        return self.categorical_column._parse_example_spec


class LazyBuilder:
    """The features of one input_layer / linear_model call: ``get(key)`` is the raw
    feature ``key`` (a rank-1 feature made a column of one value per example) or a
    column's transformed tensor, each built once and cached."""

    def __init__(self, features):
        self._features = dict(features)
        self._cache = {}

    def get(self, key):
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str) and key in self._features:
            tensor = self._raw_feature(key)
        elif isinstance(key, str):
            raise ValueError(f"Feature {key} is not in features dictionary.")
        elif isinstance(key, FeatureColumn):
            tensor = key._transform_feature(self)
            if tensor is None:
                raise ValueError(f"Column {key.name} is not supported.")
        else:
            raise TypeError('"key" must be either a "str" or "_FeatureColumn". '
                            f"Provided: {key}")
        self._cache[key] = tensor
        return tensor

    def _raw_feature(self, key: str):
        from ..ops.array import expand_dims
        from ..ops.sparse import sparse_reshape

        value = self._features[key]
        if isinstance(value, SparseTensorValue):
            value = SparseTensor.from_value(value)
        if not isinstance(value, SparseTensor):
            value = convert_to_tensor(value)
        rank = value.shape.ndims
        if rank is None:
            return _at_least_rank_two(value, key)
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {value}")
        if rank != 1:
            return value
        if isinstance(value, SparseTensor):
            return sparse_reshape(value, _batch_by_one(value))
        return expand_dims(value, -1)


def _at_least_rank_two(value, key: str):
    """A feature of unknown rank reshaped to ``[d0, 1]`` when it turns out a vector (its
    shape with ones appended up to rank two; a no-op reshape otherwise), and an error at
    run time when it is a scalar, as TF's check."""
    from ..graph import control_dependencies
    from ..ops.array import concat, reshape
    from ..ops.array_fill import fill, shape
    from ..ops.assertions import assert_positive
    from ..ops.elementwise import cast, maximum
    from ..ops.sparse import sparse_reshape

    sparse = isinstance(value, SparseTensor)
    dims = value.dense_shape if sparse else shape(value, out_type=dtypes.int64)
    value_rank = shape(dims)[0]
    check = assert_positive(value_rank, message=f"Feature (key: {key}) cannot have rank 0. "
                                                f"Given: {value}")
    with control_dependencies([check]):
        missing = maximum(2 - value_rank, 0)
        target = concat([dims, fill([missing], cast(1, dtypes.int64))], 0)
        return sparse_reshape(value, target) if sparse else reshape(value, target)


def _batch_by_one(sp: SparseTensor):
    """``[dense_shape[0], 1]``: a rank-1 SparseTensor made a column (TF's reshape)."""
    from ..ops.array import stack
    from ..ops.elementwise import cast

    return stack([cast(sp.dense_shape[0], dtypes.int64), 1])


def to_sparse_input(input_tensor, ignore_value=None) -> SparseTensor:
    """A categorical feature as a SparseTensor: a SparseTensor as it is, a dense tensor
    without its cells equal to ``ignore_value`` (by default "" for strings, -1 for
    integers: TF's marks of a missing value)."""
    from ..ops.array_fill import shape
    from ..ops.elementwise import cast, not_equal
    from ..ops.gather_nd import gather_nd
    from ..ops.sequence import where_indices

    if isinstance(input_tensor, SparseTensorValue):
        input_tensor = SparseTensor.from_value(input_tensor)
    if isinstance(input_tensor, SparseTensor):
        return input_tensor
    input_tensor = convert_to_tensor(input_tensor)
    with name_scope("to_sparse_input"):
        if ignore_value is None:
            if input_tensor.dtype == dtypes.string:
                ignore_value = ""
            elif input_tensor.dtype.is_integer:
                ignore_value = -1
            else:
                ignore_value = input_tensor.dtype.as_numpy_dtype()
        ignore = cast(ignore_value, input_tensor.dtype, name="ignore_value")
        indices = where_indices(not_equal(input_tensor, ignore), name="indices")
        return SparseTensor(indices, gather_nd(input_tensor, indices, name="values"),
                            shape(input_tensor, out_type=dtypes.int64, name="dense_shape"))
