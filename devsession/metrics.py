"""``ds.metrics``: TF1's streaming metrics, the ones training scripts evaluate with.

Each returns ``(value, update_op)``: ``update_op`` adds a batch to two local variables
(``<name>/total`` and ``<name>/count``, in ``tf.GraphKeys.LOCAL_VARIABLES`` and
``METRIC_VARIABLES``, so ``ds.local_variables_initializer()`` resets them) and gives
the mean so far; ``value`` reads it without adding.  The mean of nothing is 0.

==============================================  ======================================
``mean(values, weights=None)``                  the (weighted) mean of every value
``accuracy(labels, predictions, weights=None)``  the fraction of ``predictions ==
                                                labels`` (predictions cast to the
                                                labels' dtype)
``mean_squared_error``, ``mean_absolute_error``  of ``predictions - labels``
==============================================  ======================================

    acc, acc_op = ds.metrics.accuracy(labels=ds.argmax(y, 1), predictions=ds.argmax(logits, 1))
    sess.run(ds.local_variables_initializer())
    for batch in batches:
        sess.run(acc_op, {x: ..., y: ...})
    print(sess.run(acc))
"""

from __future__ import annotations

import numpy as np

from .dtypes import float32
from .graph import control_dependencies, convert_to_tensor
from .graph_keys import GraphKeys, add_to_collection
from .ops import cast, equal, maximum, ones_like, reduce_sum, size, where, zeros_like
from .ops.elementwise import abs as abs_
from .ops.elementwise import squared_difference
from .variable_scope import variable_scope
from .variables import Variable

__all__ = ["mean", "accuracy", "mean_squared_error", "mean_absolute_error"]


def mean(values, weights=None, metrics_collections=None, updates_collections=None,
         name=None):
    """``(mean, update_op)`` of ``values`` (weighted by ``weights``, which broadcast to
    them), over every batch ``update_op`` has seen."""
    with variable_scope(name, default_name="mean"):
        values = cast(convert_to_tensor(values), float32)
        total = _metric_variable("total")
        count = _metric_variable("count")
        if weights is None:
            number = cast(size(values), float32)
        else:
            weights = cast(convert_to_tensor(weights), float32) * ones_like(values)
            values = values * weights
            number = reduce_sum(weights)
        update_total = total.assign_add(reduce_sum(values))
        with control_dependencies([values]):
            update_count = count.assign_add(number)
        value = _div_no_nan(total.value(), maximum(count.value(), 0.0), "value")
        update_op = _div_no_nan(update_total, maximum(update_count, 0.0), "update_op")
    for collection, item in ((metrics_collections, value), (updates_collections, update_op)):
        for key in collection or ():
            add_to_collection(key, item)
    return value, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """``(accuracy, update_op)``: the (weighted) fraction of ``predictions`` equal to
    ``labels``; ValueError when their static shapes differ."""
    labels = convert_to_tensor(labels)
    predictions = convert_to_tensor(predictions)
    _check_shapes(labels, predictions, "accuracy")
    if predictions.dtype != labels.dtype:
        predictions = cast(predictions, labels.dtype)
    correct = cast(equal(predictions, labels), float32)
    return mean(correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """``(mean squared error, update_op)`` of ``predictions`` against ``labels``."""
    labels, predictions = _as_float_pair(labels, predictions, "mean_squared_error")
    return mean(squared_difference(labels, predictions), weights, metrics_collections,
                updates_collections, name or "mean_squared_error")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """``(mean absolute error, update_op)`` of ``predictions`` against ``labels``."""
    labels, predictions = _as_float_pair(labels, predictions, "mean_absolute_error")
    return mean(abs_(predictions - labels), weights, metrics_collections,
                updates_collections, name or "mean_absolute_error")


def _metric_variable(name: str) -> Variable:
    """A float32 scalar starting at 0, local to this process (TF1's metric variable)."""
    return Variable(np.float32(0.0), name=name, trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])


def _div_no_nan(total, count, name: str):
    nothing = equal(count, 0.0)
    return where(nothing, zeros_like(total), total / where(nothing, ones_like(count), count),
                 name=name)


def _check_shapes(labels, predictions, metric: str) -> None:
    if labels.shape.ndims is not None and predictions.shape.ndims is not None and \
            not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError(f"{metric}: predictions '{predictions.name}' {predictions.shape} and "
                         f"labels '{labels.name}' {labels.shape} must have the same shape.")


def _as_float_pair(labels, predictions, metric: str):
    predictions = cast(convert_to_tensor(predictions), float32)
    labels = cast(convert_to_tensor(labels), float32)
    _check_shapes(labels, predictions, metric)
    return labels, predictions


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("metrics", name)
