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
``root_mean_squared_error``                     the square root of the former
``true_positives``, ``false_positives``,         counts (weighted) of bool
``true_negatives``, ``false_negatives``          ``predictions`` against bool ``labels``
``precision``, ``recall``                        ``tp / (tp + fp)``, ``tp / (tp + fn)``
                                                (0 before any positive)
``auc(labels, predictions, num_thresholds=200,   the area under the ROC (or PR) curve
curve="ROC")``                                  from confusion counts at TF1's
                                                thresholds, trapezoidal, as TF1's
==============================================  ======================================

The counting metrics keep one variable per count (``<name>/true_positives/count``...,
TF1's names); ``auc`` keeps four of ``num_thresholds`` counts each.

    acc, acc_op = ds.metrics.accuracy(labels=ds.argmax(y, 1), predictions=ds.argmax(logits, 1))
    sess.run(ds.local_variables_initializer())
    for batch in batches:
        sess.run(acc_op, {x: ..., y: ...})
    print(sess.run(acc))
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .dtypes import float32
from .graph import control_dependencies, convert_to_tensor
from .graph_keys import GraphKeys, add_to_collection
from .ops import (cast, constant, equal, greater, logical_and, logical_not, maximum,
                  ones_like, reduce_sum, reshape, size, sqrt, where, zeros_like)
from .ops.elementwise import abs as abs_
from .ops.elementwise import squared_difference
from .variable_scope import variable_scope
from .variables import Variable

__all__ = ["mean", "accuracy", "mean_squared_error", "mean_absolute_error",
           "root_mean_squared_error", "true_positives", "false_positives", "true_negatives",
           "false_negatives", "precision", "recall", "auc"]


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
    return _collected(value, update_op, metrics_collections, updates_collections)


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


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """``(root mean squared error, update_op)``."""
    value, update_op = mean_squared_error(labels, predictions, weights, None, None,
                                          name or "root_mean_squared_error")
    return _collected(sqrt(value), sqrt(update_op), metrics_collections, updates_collections)


# --- confusion counts ------------------------------------------------------------------------

_CONDITIONS = {  # (label is positive, prediction is positive) of each count
    "true_positives": (True, True), "false_positives": (False, True),
    "true_negatives": (False, False), "false_negatives": (True, False)}


def _count(kind: str, labels, predictions, weights, name=None):
    """``(count, update_op)`` of the ``kind`` outcomes (a ``<kind>/count`` variable)."""
    label_true, prediction_true = _CONDITIONS[kind]
    with variable_scope(name, default_name=kind):
        hit = logical_and(labels if label_true else logical_not(labels),
                          predictions if prediction_true else logical_not(predictions))
        hits = cast(hit, float32)
        if weights is not None:
            hits = hits * cast(convert_to_tensor(weights), float32)
        count = _metric_variable("count")
        return count.value(), count.assign_add(reduce_sum(hits))


def _bool_pair(labels, predictions, metric: str):
    labels, predictions = convert_to_tensor(labels), convert_to_tensor(predictions)
    _check_shapes(labels, predictions, metric)
    as_bool = [t if t.dtype == dtypes.bool_ else cast(t, dtypes.bool_)
               for t in (labels, predictions)]
    return as_bool[0], as_bool[1]


def _counting(kind: str):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        labels, predictions = _bool_pair(labels, predictions, kind)
        value, update_op = _count(kind, labels, predictions, weights, name)
        return _collected(value, update_op, metrics_collections, updates_collections)
    metric.__name__ = metric.__qualname__ = kind
    metric.__doc__ = (f"``({kind.replace('_', ' ')}, update_op)``: the (weighted) count of "
                      f"{kind.replace('_', ' ')} of bool ``predictions`` against ``labels``.")
    return metric


true_positives = _counting("true_positives")
false_positives = _counting("false_positives")
true_negatives = _counting("true_negatives")
false_negatives = _counting("false_negatives")


def _ratio(public: str, other: str):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        labels, predictions = _bool_pair(labels, predictions, public)
        with variable_scope(name, default_name=public):
            tp, tp_update = _count("true_positives", labels, predictions, weights)
            wrong, wrong_update = _count(other, labels, predictions, weights)
            value = _div_no_nan(tp, tp + wrong, "value")
            update_op = _div_no_nan(tp_update, tp_update + wrong_update, "update_op")
        return _collected(value, update_op, metrics_collections, updates_collections)
    metric.__name__ = metric.__qualname__ = public
    metric.__doc__ = (f"``({public}, update_op)``: true positives over true positives plus "
                      f"{other.replace('_', ' ')}, 0 while that is 0.")
    return metric


precision = _ratio("precision", "false_positives")
recall = _ratio("recall", "false_negatives")


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """``(auc, update_op)``: the area under the ROC or PR curve, from the confusion
    counts of ``predictions`` (in [0, 1]) above each of TF1's thresholds, summed with
    the trapezoidal rule as TF1's ``tf.metrics.auc``."""
    if curve not in ("ROC", "PR"):
        raise ValueError(f"auc: curve must be 'ROC' or 'PR', got {curve!r}.")
    if summation_method != "trapezoidal":
        raise ValueError(f"auc: devsession sums with the trapezoidal rule only, got "
                         f"{summation_method!r}.")
    if thresholds is None:
        if num_thresholds < 2:
            raise ValueError(f"auc: num_thresholds must be at least 2, got {num_thresholds}.")
        inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [-1e-7] + inner + [1.0 + 1e-7]
    labels = cast(convert_to_tensor(labels), dtypes.bool_)
    predictions = cast(convert_to_tensor(predictions), float32)
    _check_shapes(labels, predictions, "auc")
    with variable_scope(name, default_name="auc"):
        above = greater(reshape(predictions, [-1, 1]),
                        constant(np.asarray(thresholds, np.float32).reshape(1, -1)))
        truth = reshape(labels, [-1, 1])
        weight = None if weights is None else \
            reshape(cast(convert_to_tensor(weights), float32) * ones_like(predictions),
                    [-1, 1])
        counts, updates = {}, {}
        for kind, (label_true, prediction_true) in _CONDITIONS.items():
            hit = cast(logical_and(truth if label_true else logical_not(truth),
                                   above if prediction_true else logical_not(above)), float32)
            if weight is not None:
                hit = hit * weight
            variable = _metric_variable(kind, len(thresholds))
            counts[kind] = variable.value()
            updates[kind] = variable.assign_add(reduce_sum(hit, axis=0))
        value = _area(counts, curve, "value")
        update_op = _area(updates, curve, "update_op")
    return _collected(value, update_op, metrics_collections, updates_collections)


def _area(counts: dict, curve: str, name: str):
    """TF1's trapezoidal sum over the thresholds' (x, y) points."""
    eps = 1e-6
    tp, fp = counts["true_positives"], counts["false_positives"]
    tn, fn = counts["true_negatives"], counts["false_negatives"]
    rec = (tp + eps) / (tp + fn + eps)
    if curve == "ROC":
        x, y = fp / (fp + tn + eps), rec
    else:
        x, y = rec, (tp + eps) / (tp + fp + eps)
    return reduce_sum((x[:-1] - x[1:]) * (y[:-1] + y[1:]) / 2.0, name=name)


def _collected(value, update_op, metrics_collections, updates_collections):
    for collection, item in ((metrics_collections, value), (updates_collections, update_op)):
        for key in collection or ():
            add_to_collection(key, item)
    return value, update_op


def _metric_variable(name: str, size: int | None = None) -> Variable:
    """Float32 zeros (a scalar, or ``size`` of them), local to this process (TF1's
    metric variable)."""
    initial = np.float32(0.0) if size is None else np.zeros(size, np.float32)
    return Variable(initial, name=name, trainable=False,
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
