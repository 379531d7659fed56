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
``mean_tensor(values, weights=None)``           the element-wise (weighted) mean
``mean_cosine_distance(labels, predictions,     ``1 - sum(labels * predictions, dim)``
dim)``                                          (unit vectors), averaged
``mean_relative_error(labels, predictions,      of ``|predictions - labels| /
normalizer)``                                   normalizer`` (0 where it is 0)
``percentage_below(values, threshold)``         the fraction of values below it
``mean_iou``, ``mean_per_class_accuracy``       over class ids (metrics_classes.py)
``*_at_thresholds``, ``auc``,                   of scores in [0, 1] at thresholds
``sensitivity_at_specificity``,                 (metrics_thresholds.py)
``specificity_at_sensitivity``
``precision_at_k``, ``recall_at_k``,            of the top k classes against sets of
``*_at_top_k``, ``average_precision_at_k``      labels (metrics_at_k.py)
==============================================  ======================================

The counting metrics keep one variable per count (``<name>/true_positives/count``...,
TF1's names); ``auc`` keeps four of ``num_thresholds`` counts each.  Every metric's
local variables have TF1's names, dtypes and shapes, so its checkpoints and programs
find them; the modules beside this one say which.

    acc, acc_op = ds.metrics.accuracy(labels=ds.argmax(y, 1), predictions=ds.argmax(logits, 1))
    sess.run(ds.local_variables_initializer())
    for batch in batches:
        sess.run(acc_op, {x: ..., y: ...})
    print(sess.run(acc))
"""

from __future__ import annotations

from . import dtypes
from .dtypes import float32
from .graph import control_dependencies, convert_to_tensor
from .metrics_at_k import (average_precision_at_k, precision_at_k, precision_at_top_k,
                           recall_at_k, recall_at_top_k, sparse_average_precision_at_k,
                           sparse_precision_at_k)
from .metrics_classes import mean_iou, mean_per_class_accuracy
from .metrics_common import (broadcast_weights, check_shapes, collected, div_no_nan,
                             metric_variable, remove_squeezable_dimensions)
from .metrics_thresholds import (auc, false_negatives_at_thresholds,
                                 false_positives_at_thresholds, precision_at_thresholds,
                                 recall_at_thresholds, sensitivity_at_specificity,
                                 specificity_at_sensitivity, true_negatives_at_thresholds,
                                 true_positives_at_thresholds)
from .ops import (assign_add, cast, equal, identity, less, logical_and, logical_not, maximum,
                  ones_like, reduce_sum, size, sqrt, subtract, where, zeros_like)
from .ops.elementwise import abs as abs_
from .ops.elementwise import squared_difference
from .variable_scope import variable_scope

__all__ = ["mean", "accuracy", "mean_squared_error", "mean_absolute_error",
           "root_mean_squared_error", "true_positives", "false_positives", "true_negatives",
           "false_negatives", "precision", "recall", "auc", "mean_tensor",
           "mean_cosine_distance", "mean_relative_error", "percentage_below", "mean_iou",
           "mean_per_class_accuracy", "true_positives_at_thresholds",
           "false_positives_at_thresholds", "true_negatives_at_thresholds",
           "false_negatives_at_thresholds", "precision_at_thresholds", "recall_at_thresholds",
           "sensitivity_at_specificity", "specificity_at_sensitivity", "precision_at_k",
           "recall_at_k", "precision_at_top_k", "recall_at_top_k", "sparse_precision_at_k",
           "average_precision_at_k", "sparse_average_precision_at_k"]


def mean(values, weights=None, metrics_collections=None, updates_collections=None,
         name=None):
    """``(mean, update_op)`` of ``values`` (weighted by ``weights``, which broadcast to
    them), over every batch ``update_op`` has seen."""
    with variable_scope(name, default_name="mean"):
        values = cast(convert_to_tensor(values), float32)
        total = metric_variable("total")
        count = metric_variable("count")
        if weights is None:
            number = cast(size(values), float32)
        else:                           # TF1's: [batch, 1] weights of [batch] values
            values, _, weights = remove_squeezable_dimensions(values, None, weights, "mean")
            weights = broadcast_weights(cast(weights, float32), values)
            values = values * weights
            number = reduce_sum(weights)
        update_total = assign_add(total, reduce_sum(values))
        # TF's count waits on the values; here on the total's update, which read them:
        # the values may be a fed placeholder, whose op a session would ask to be fed
        with control_dependencies([update_total]):
            update_count = assign_add(count, number)
        value = div_no_nan(total.value(), maximum(count.value(), 0.0), "value")
        update_op = div_no_nan(update_total, maximum(update_count, 0.0), "update_op")
    return collected(value, update_op, metrics_collections, updates_collections)


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """``(accuracy, update_op)``: the (weighted) fraction of ``predictions`` equal to
    ``labels``; ValueError when their static shapes differ."""
    labels = convert_to_tensor(labels)
    predictions = convert_to_tensor(predictions)
    check_shapes(labels, predictions, "accuracy")
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
    return collected(sqrt(value), sqrt(update_op), metrics_collections, updates_collections)


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None,
                name=None):
    """``(mean, update_op)``: the element-wise (weighted) mean of ``values`` over the
    batches, in TF1's ``<name>/total_tensor`` and ``count_tensor`` of ``values``' static
    shape (ValueError when it is not fully known)."""
    with variable_scope(name, default_name="mean"):
        values = cast(convert_to_tensor(values), float32)
        if not values.shape.is_fully_defined():
            raise ValueError(f"mean_tensor: values '{values.name}' need a fully defined "
                             f"static shape for their variables, got {values.shape}.")
        total = metric_variable("total_tensor", values.shape.as_list())
        count = metric_variable("count_tensor", values.shape.as_list())
        number = ones_like(values)
        if weights is not None:
            values, _, weights = remove_squeezable_dimensions(values, None, weights,
                                                              "mean_tensor")
            weights = broadcast_weights(cast(weights, float32), values)
            values, number = values * weights, number * weights
        update_total = assign_add(total, values)
        with control_dependencies([update_total]):        # as mean's
            update_count = assign_add(count, number)
        value = div_no_nan(total.value(), maximum(count.value(), 0.0), "value")
        update_op = div_no_nan(update_total, maximum(update_count, 0.0), "update_op")
    return collected(value, update_op, metrics_collections, updates_collections)


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """``(mean distance, update_op)``: the (weighted) mean of ``1 - sum(labels *
    predictions, dim)``, both unit vectors along ``dim`` (TF1 assumes it, as here)."""
    predictions, labels, weights = remove_squeezable_dimensions(
        predictions, labels, weights, "mean_cosine_distance")
    products = reduce_sum(predictions * labels, axis=[dim], keepdims=True)
    value, update_op = mean(products, weights, None, None, name or "mean_cosine_distance")
    return collected(subtract(1.0, value), subtract(1.0, update_op), metrics_collections,
                     updates_collections)


def mean_relative_error(labels, predictions, normalizer, weights=None,
                        metrics_collections=None, updates_collections=None, name=None):
    """``(mean relative error, update_op)``: the (weighted) mean of ``|predictions -
    labels| / normalizer``, 0 where ``normalizer`` is 0."""
    labels, predictions = _as_float_pair(labels, predictions, "mean_relative_error")
    predictions, labels, weights = remove_squeezable_dimensions(
        predictions, labels, weights, "mean_relative_error")
    normalizer = cast(convert_to_tensor(normalizer), float32)
    predictions, normalizer, _ = remove_squeezable_dimensions(
        predictions, normalizer, None, "mean_relative_error")
    errors = where(equal(normalizer, 0.0), zeros_like(labels),
                   abs_(labels - predictions) / normalizer)
    return mean(errors, weights, metrics_collections, updates_collections,
                name or "mean_relative_error")


def percentage_below(values, threshold, weights=None, metrics_collections=None,
                     updates_collections=None, name=None):
    """``(percentage, update_op)``: the (weighted) fraction of ``values`` below
    ``threshold`` (a fraction in [0, 1], as TF1's)."""
    below = cast(less(values, threshold), float32)
    return mean(below, weights, metrics_collections, updates_collections,
                name or "percentage_below_threshold")


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
        if weights is not None:             # TF1's: [batch, 1] weights of [batch] labels
            hits, _, weights = remove_squeezable_dimensions(hits, None, weights, kind)
            ranks = weights.shape.ndims, hits.shape.ndims
            if None not in ranks and ranks[0] not in (0, ranks[1]):
                raise ValueError(f"Tensor {weights.name} must have rank in (0, {ranks[1]}). "
                                 f"Received rank {ranks[0]}, shape {weights.shape}: {kind}'s "
                                 f"weights are a scalar or of the labels' rank.")
            hits = hits * cast(weights, float32)
        count = metric_variable("count")
        return identity(count), assign_add(count, reduce_sum(hits))   # TF's names


def _bool_pair(labels, predictions, metric: str):
    labels, predictions = convert_to_tensor(labels), convert_to_tensor(predictions)
    check_shapes(labels, predictions, metric)
    as_bool = [t if t.dtype == dtypes.bool_ else cast(t, dtypes.bool_)
               for t in (labels, predictions)]
    return as_bool[0], as_bool[1]


def _counting(kind: str):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        labels, predictions = _bool_pair(labels, predictions, kind)
        value, update_op = _count(kind, labels, predictions, weights, name)
        return collected(value, update_op, metrics_collections, updates_collections)
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
            value = div_no_nan(tp, tp + wrong, "value")
            update_op = div_no_nan(tp_update, tp_update + wrong_update, "update_op")
        return collected(value, update_op, metrics_collections, updates_collections)
    metric.__name__ = metric.__qualname__ = public
    metric.__doc__ = (f"``({public}, update_op)``: true positives over true positives plus "
                      f"{other.replace('_', ' ')}, 0 while that is 0.")
    return metric


precision = _ratio("precision", "false_positives")
recall = _ratio("recall", "false_negatives")


def _as_float_pair(labels, predictions, metric: str):
    predictions = cast(convert_to_tensor(predictions), float32)
    labels = cast(convert_to_tensor(labels), float32)
    check_shapes(labels, predictions, metric)
    return labels, predictions


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("metrics", name)
