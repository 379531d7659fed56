"""``embedding_column``: a categorical column's ids as a learned dense vector, the rows
of an ``embedding_weights`` variable (``num_buckets x dimension``) combined per example
by ``combiner`` ("mean", "sqrtn" or "sum") through ``nn.safe_embedding_lookup_sparse``
(an example without ids gets zeros).  The variable is made where the column is used:
``input_layer/<column name>/embedding_weights`` inside input_layer, as TF names it.
"""

from __future__ import annotations

import collections
import math

from .. import dtypes
from ..graph_keys import GraphKeys
from ..tensor_shape import TensorShape
from .columns_base import CategoricalColumn, DenseColumn, OverCategoricalColumn

__all__ = ["embedding_column", "EmbeddingColumn", "EmbeddingLike", "embed",
           "checked_initializer"]


class EmbeddingLike(OverCategoricalColumn, DenseColumn):
    """What the embedding columns share: a ``dimension``-wide vector per example, from
    the categorical column's ids as they are."""

    __slots__ = ()

    @property
    def variable_shape(self) -> TensorShape:
        return TensorShape([self.dimension])

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)


class EmbeddingColumn(EmbeddingLike, collections.namedtuple(
        "EmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer",
                            "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm",
                            "trainable"))):
    """See ``embedding_column``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        from ..variable_scope import get_variable

        if weight_collections and GraphKeys.GLOBAL_VARIABLES not in weight_collections:
            weight_collections.append(GraphKeys.GLOBAL_VARIABLES)
        weights = get_variable("embedding_weights",
                               shape=(self.categorical_column.num_buckets, self.dimension),
                               dtype=dtypes.float32, initializer=self.initializer,
                               trainable=bool(self.trainable and trainable in (None, True)),
                               collections=weight_collections)
        return embed(self, weights, inputs, weight_collections, trainable)


def embed(column, weights, inputs, weight_collections=None, trainable=None):
    """``column``'s categorical ids looked up in ``weights`` (restored from the
    column's checkpoint when it names one) and combined per example."""
    from ..ops.safe_embedding import safe_embedding_lookup_sparse

    pair = column.categorical_column._get_sparse_tensors(inputs, weight_collections,
                                                         trainable)
    if column.ckpt_to_load_from is not None:
        from ..train.checkpoint_init import init_from_checkpoint

        init_from_checkpoint(column.ckpt_to_load_from, {column.tensor_name_in_ckpt: weights})
    return safe_embedding_lookup_sparse(weights, pair.id_tensor, pair.weight_tensor,
                                        combiner=column.combiner,
                                        name=f"{column.name}_weights",
                                        max_norm=column.max_norm)


def checked_initializer(dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer,
                        where: str = ""):
    """An embedding column's initializer, TF's truncated normal of stddev
    ``1/sqrt(dimension)`` unless given, after TF's checks of the arguments (``where``
    ends the initializer's message, as TF's embedding_column names the column)."""
    from ..initializers import truncated_normal_initializer

    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` "
                         "or none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified.{where}")
    if initializer is None:
        initializer = truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return initializer


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True, use_safe_embedding_lookup=True) -> EmbeddingColumn:
    """TF1's ``tf.feature_column.embedding_column`` (see the module docstring); the
    default initializer is TF's truncated normal of stddev ``1/sqrt(dimension)``."""
    initializer = checked_initializer(dimension, ckpt_to_load_from, tensor_name_in_ckpt,
                                      initializer, f" Embedding of column_name: "
                                                   f"{categorical_column.name}")
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError("categorical_column must be a CategoricalColumn. "
                         f"Given: {categorical_column}")
    return EmbeddingColumn(categorical_column, dimension, combiner, initializer,
                           ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable)
