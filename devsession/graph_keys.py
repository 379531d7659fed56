"""TF1's ``tf.GraphKeys`` and the module-level collection functions.

A collection is a named list on the graph (``Graph.add_to_collection``): variables,
trainable variables, summaries, losses, regularization losses, update ops.  devsession's
own builders use the same names, so a TF1 program's ``tf.get_collection(...)`` finds
what it expects.
"""

from __future__ import annotations

import re

from .graph import get_default_graph

__all__ = ["GraphKeys", "get_collection", "add_to_collection", "add_to_collections",
           "get_collection_ref", "model_variables"]


class GraphKeys:
    """The standard collection names (TF1's values)."""
    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES
    TRAINABLE_VARIABLES = "trainable_variables"
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    GLOBAL_STEP = "global_step"
    SUMMARIES = "summaries"
    LOSSES = "losses"
    REGULARIZATION_LOSSES = "regularization_losses"
    UPDATE_OPS = "update_ops"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    METRIC_VARIABLES = "metric_variables"
    TRAIN_OP = "train_op"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"      # ds.tables_initializer() runs these
    ASSET_FILEPATHS = "asset_filepaths"           # the vocabulary files tables read
    # what ds.train.Supervisor finds or keeps in the graph, as TF1's
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    SAVERS = "savers"
    SAVEABLE_OBJECTS = "saveable_objects"         # tables a Saver saves (lookup/saveable.py)


def get_collection(key: str, scope: str | None = None, graph=None) -> list:
    """The collection ``key`` of ``graph`` (default: the default graph), a copy; with
    ``scope``, only the items whose ``name`` matches it from the start (a regular
    expression, as TF1's)."""
    items = (graph or get_default_graph()).get_collection(key)
    if scope is None:
        return items
    pattern = re.compile(scope)
    return [item for item in items
            if getattr(item, "name", None) is not None and pattern.match(item.name)]


def add_to_collection(name: str, value) -> None:
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value) -> None:
    """``value`` added to each collection of ``names`` (one name, or several: each once)."""
    names = (names,) if isinstance(names, str) else set(names)
    for name in names:
        add_to_collection(name, value)


def get_collection_ref(key: str) -> list:
    """The default graph's collection ``key`` itself (created empty if missing): a
    change to the list changes the collection, as TF1's."""
    return get_default_graph().get_collection_ref(key)


def model_variables(scope: str | None = None) -> list:
    """The variables of ``GraphKeys.MODEL_VARIABLES`` (TF1's ``tf.model_variables``)."""
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)
