"""TF1's two ways to turn a dict of features into a model's input with feature columns:

* ``input_layer``: one dense float tensor ``[batch, sum of the columns' sizes]``, the
  dense columns' tensors side by side in the order of their names (as TF sorts them),
  each column built in a variable scope of its own name under ``input_layer``;
* ``linear_model``: a ``[batch, units]`` weighted sum: a ``weights`` variable per column
  (``num_buckets x units`` for a categorical column, whose ids pick rows combined by
  ``sparse_combiner``; ``size x units`` for a dense one, multiplied) and a
  ``bias_weights``, all starting at zero, under ``linear_model/<column name>/``.

Variables join ``GLOBAL_VARIABLES``, ``MODEL_VARIABLES`` and ``weight_collections``
(and ``TRAINABLE_VARIABLES`` when ``trainable``), so the optimizers train them.
"""

from __future__ import annotations

from ..graph_keys import GraphKeys, add_to_collection, get_collection
from .columns_base import (CategoricalColumn, DenseColumn, LazyBuilder,
                           normalize_feature_columns)

__all__ = ["input_layer", "linear_model"]


def _with_model_collections(weight_collections) -> list:
    collections = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in collections:
            collections.append(key)
    return collections


def _as_batch_rows(tensor, column):
    """``tensor`` as ``[batch, column size]``."""
    from ..ops.array import reshape
    from ..ops.array_fill import shape

    return reshape(tensor, (shape(tensor)[0], column._variable_shape.num_elements()))


def _verify_static_batch_size_equality(tensors, columns) -> None:
    """TF1's ValueError when two columns' tensors have different static batch sizes."""
    expected, first = None, None
    for tensor, column in zip(tensors, columns):
        size = tensor.shape.dims[0] if tensor.shape.ndims else None
        if size is None:
            continue
        if expected is None:
            expected, first = size, column
        elif size != expected:
            raise ValueError("Batch size (first dimension) of each feature must be same. "
                             f"Batch size of columns ({first.name}, {column.name}): "
                             f"({expected}, {size})")


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """TF1's ``tf.feature_column.input_layer`` (see the module docstring): ``features``
    a dict of raw features (tensors, SparseTensors) by key, ``feature_columns`` dense
    columns (ValueError for a categorical one: wrap it in an embedding_column or
    indicator_column).  ``cols_to_vars`` / ``cols_to_output_tensors``, dicts, are filled
    with each column's variables / its ``[batch, size]`` tensor."""
    from ..ops.array import concat
    from ..variable_scope import get_variable_scope, variable_scope

    feature_columns = normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, DenseColumn):
            raise ValueError("Items of feature_columns must be a _DenseColumn. You can wrap "
                             "a categorical column with an embedding_column or "
                             f"indicator_column. Given: {column}")
    weight_collections = _with_model_collections(weight_collections)
    with variable_scope(None, default_name="input_layer", values=list(features.values())):
        builder = LazyBuilder(features)
        outputs, ordered = [], []
        for column in sorted(feature_columns, key=lambda c: c.name):
            ordered.append(column)
            with variable_scope(None, default_name=column._var_scope_name):
                tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                                  trainable=trainable)
                output = _as_batch_rows(tensor, column)
                outputs.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = get_collection(GraphKeys.GLOBAL_VARIABLES,
                                                          get_variable_scope().name)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        _verify_static_batch_size_equality(outputs, ordered)
        return concat(outputs, 1)


def _new_weights(name, shape, trainable, collections):
    """A zero-initialized model variable joining ``collections``."""
    from ..initializers import zeros_initializer
    from ..variable_scope import get_variable

    variable = get_variable(name, shape=shape, initializer=zeros_initializer(),
                            trainable=trainable)
    for key in collections:
        if key != GraphKeys.GLOBAL_VARIABLES:
            add_to_collection(key, variable)
    return variable


def _rows_by_rest(sp):
    """``[rows, -1]``: a SparseTensor's examples, each with all its ids in one row."""
    from .. import dtypes
    from ..ops.array import stack
    from ..ops.elementwise import cast

    return stack([cast(sp.dense_shape[0], dtypes.int64), cast(-1, dtypes.int64)])


def _column_weighted_sum(column, builder, units, sparse_combiner, collections, trainable):
    """One column's ``[batch, units]`` term of the linear model."""
    from ..ops.linalg import matmul
    from ..ops.safe_embedding import safe_embedding_lookup_sparse
    from ..ops.sparse import sparse_reshape

    if isinstance(column, CategoricalColumn):
        weights = _new_weights("weights", (column.num_buckets, units), trainable, collections)
        pair = column._get_sparse_tensors(builder, collections, trainable)
        ids = sparse_reshape(pair.id_tensor, _rows_by_rest(pair.id_tensor))
        weight_tensor = pair.weight_tensor
        if weight_tensor is not None:
            weight_tensor = sparse_reshape(weight_tensor, _rows_by_rest(weight_tensor))
        return safe_embedding_lookup_sparse(weights, ids, sparse_weights=weight_tensor,
                                            combiner=sparse_combiner,
                                            name="weighted_sum")
    size = column._variable_shape.num_elements()
    weights = _new_weights("weights", (size, units), trainable, collections)
    tensor = column._get_dense_tensor(builder, weight_collections=collections,
                                      trainable=trainable)
    return matmul(_as_batch_rows(tensor, column), weights, name="weighted_sum")


def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """TF1's ``tf.feature_column.linear_model`` (see the module docstring): the
    ``[batch, units]`` float32 predictions of dense and categorical columns;
    ``sparse_combiner`` ("sum", "mean" or "sqrtn") combines a multi-valued example's
    weights.  ``cols_to_vars`` is filled with each column's variables and "bias"."""
    from ..ops.array_fill import add_n
    from ..ops.nn import bias_add
    from ..variable_scope import get_variable_scope, variable_scope

    feature_columns = normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, (DenseColumn, CategoricalColumn)):
            raise ValueError("Items of feature_columns must be either a _DenseColumn or "
                             f"_CategoricalColumn. Given: {column}")
    collections = _with_model_collections(weight_collections)
    with variable_scope(None, default_name="linear_model", values=list(features.values())):
        builder = LazyBuilder(features)
        sums, ordered, variables = [], [], {}
        for column in sorted(feature_columns, key=lambda c: c.name):
            ordered.append(column)
            with variable_scope(None, default_name=column._var_scope_name):
                weighted_sum = _column_weighted_sum(column, builder, units, sparse_combiner,
                                                    collections, trainable)
                variables[column] = get_collection(GraphKeys.GLOBAL_VARIABLES,
                                                   get_variable_scope().name)
            sums.append(weighted_sum)
        _verify_static_batch_size_equality(sums, ordered)
        without_bias = add_n(sums, name="weighted_sum_no_bias")
        bias = _new_weights("bias_weights", (units,), trainable, collections)
        variables["bias"] = [bias]
        predictions = bias_add(without_bias, bias, name="weighted_sum")
    if cols_to_vars is not None:
        cols_to_vars.update(variables)
    return predictions
