"""TF1's ``shared_embedding_columns``: embedding columns over several categorical
columns of one vocabulary (a query's words and a title's words) that look their ids up
in one ``embedding_weights`` variable.

The first column input_layer builds makes the variable, in the variable scope named by
the columns' ``shared_embedding_collection_name`` (by default their sorted names joined
by "_" and "_shared_embedding") and puts it into the graph collection of that name; the
others find it there, as TF1's columns do.
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..graph_keys import GraphKeys, add_to_collection, get_collection
from .columns_base import CategoricalColumn
from .embedding_column import EmbeddingLike, checked_initializer, embed

__all__ = ["shared_embedding_columns", "SharedEmbeddingColumn"]


class SharedEmbeddingColumn(EmbeddingLike, collections.namedtuple(
        "SharedEmbeddingColumn",
        ("categorical_column", "dimension", "combiner", "initializer",
         "shared_embedding_collection_name", "ckpt_to_load_from", "tensor_name_in_ckpt",
         "max_norm", "trainable"))):
    """See ``shared_embedding_columns``."""

    __slots__ = ()

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self) -> str:
        return self.shared_embedding_collection_name

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        from ..graph import name_scope

        with name_scope(self.name):
            return embed(self, self._shared_weights(weight_collections, trainable), inputs,
                         weight_collections, trainable)

    def _shared_weights(self, weight_collections, trainable):
        """The collection's variable, made (and added to it) by the first column."""
        from ..variable_scope import get_variable

        shape = (self.categorical_column.num_buckets, self.dimension)
        shared = get_collection(self.shared_embedding_collection_name)
        if len(shared) > 1:
            raise ValueError(
                f"Collection {shared} can only contain one variable. Suggested fix A: Choose "
                "a unique name for this collection. Suggested fix B: Do not add any "
                "variables to this collection. The feature_column library already adds a "
                "variable under the hood.")
        if shared:
            if tuple(shared[0].shape.as_list()) != shape:
                raise ValueError(
                    f"Shared embedding collection {self.shared_embedding_collection_name} "
                    f"contains variable {shared[0].name} of unexpected shape "
                    f"{shared[0].shape}. Expected shape is {shape}. Suggested fix A: Choose "
                    "a unique name for this collection. Suggested fix B: Do not add any "
                    "variables to this collection. The feature_column library already adds "
                    "a variable under the hood.")
            return shared[0]
        if weight_collections and GraphKeys.GLOBAL_VARIABLES not in weight_collections:
            weight_collections.append(GraphKeys.GLOBAL_VARIABLES)
        weights = get_variable("embedding_weights", shape=shape, dtype=dtypes.float32,
                               initializer=self.initializer,
                               trainable=bool(self.trainable and trainable in (None, True)),
                               collections=weight_collections)
        add_to_collection(self.shared_embedding_collection_name, weights)
        return weights


def _unweighted(column):
    """The categorical column under any weighting (what the type check compares)."""
    from .weighted_column import WeightedCategoricalColumn

    while isinstance(column, WeightedCategoricalColumn):
        column = column.categorical_column
    return column


def shared_embedding_columns(categorical_columns, dimension, combiner="mean",
                             initializer=None, shared_embedding_collection_name=None,
                             ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                             max_norm=None, trainable=True,
                             use_safe_embedding_lookup=True) -> list:
    """TF1's ``tf.feature_column.shared_embedding_columns``: one embedding column per
    categorical column (in the order given), all of one ``dimension`` and one shared
    variable; the columns must be of one type and number of buckets."""
    initializer = checked_initializer(dimension, ckpt_to_load_from, tensor_name_in_ckpt,
                                      initializer)
    ordered = sorted(categorical_columns, key=lambda c: c.name)
    first = ordered[0]
    if not isinstance(first, CategoricalColumn):
        raise ValueError("All categorical_columns must be subclasses of _CategoricalColumn. "
                         f"Given: {first}, of type: {type(first)}")
    num_buckets = first.num_buckets
    base = _unweighted(first)
    for column in ordered[1:]:
        other = _unweighted(column)
        if not isinstance(other, type(base)):
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same "
                "type, or be weighted_categorical_column or sequence column of the same "
                f"type. Given column: {base} of type: {type(base)} does not match given "
                f"column: {other} of type: {type(other)}")
        if num_buckets != other.num_buckets:
            raise ValueError(
                "To use shared_embedding_column, all categorical_columns must have the same "
                f"number of buckets. ven column: {base} with buckets: {num_buckets} does  "
                f"not match column: {other} with buckets: {other.num_buckets}")
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = ("_".join(c.name for c in ordered)
                                            + "_shared_embedding")
    return [SharedEmbeddingColumn(column, dimension, combiner, initializer,
                                  shared_embedding_collection_name, ckpt_to_load_from,
                                  tensor_name_in_ckpt, max_norm, trainable)
            for column in categorical_columns]
