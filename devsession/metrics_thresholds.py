"""``ds.metrics``' metrics of scores in [0, 1] against bool labels at several thresholds:
the confusion counts at each threshold, the precision and recall they give, the
sensitivity at a specificity (and back), and the area under the ROC or PR curve.

A score counts as positive at threshold ``t`` when it is above ``t``.  Each count is a
float32 local variable of one entry per threshold, named as TF1's
(``<scope>/true_positives``, ``false_negatives``, ``true_negatives``,
``false_positives``, created in that order); ``update_op`` adds a batch's (weighted)
counts.  A score outside [0, 1] is TF1's InvalidArgumentError at run time
("predictions must be in [0, 1]") where TF checks it: its checks gate the casts of the
scores to float32 and of the labels to bool, so float32 scores with bool labels go
unchecked, as in TF 2.21.

    prec, prec_op = ds.metrics.precision_at_thresholds(labels, probabilities, [0.3, 0.5])
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .debugging import assert_greater_equal, assert_less_equal
from .dtypes import float32
from .graph import control_dependencies, convert_to_tensor
from .metrics_common import (broadcast_weights, collected, metric_variable,
                             remove_squeezable_dimensions)
from .ops import (abs as abs_, argmax, argmin, assign_add, cast, constant, div_no_nan, divide,
                  equal, gather, greater, identity, log, logical_and, logical_not, maximum,
                  minimum, ones_like, reduce_min, reduce_sum, reshape, where)
from .ops.reduce import cumsum
from .variable_scope import variable_scope

__all__ = ["true_positives_at_thresholds", "false_negatives_at_thresholds",
           "true_negatives_at_thresholds", "false_positives_at_thresholds",
           "precision_at_thresholds", "recall_at_thresholds", "sensitivity_at_specificity",
           "specificity_at_sensitivity", "auc"]

# (label is positive, score is above the threshold) of each count, in TF1's order
COUNTS = {"tp": ("true_positives", True, True), "fn": ("false_negatives", True, False),
          "tn": ("true_negatives", False, False), "fp": ("false_positives", False, True)}
EPSILON = 1e-7          # TF1's: keeps the ratios finite and the end thresholds outside [0, 1]


def confusion_at_thresholds(labels, predictions, thresholds, weights=None,
                            includes=("tp", "fn", "tn", "fp"), metric="metric"):
    """``(values, updates)``: dicts from each of ``includes`` to its variable's value and
    to the op adding this batch's counts (TF1's ``_confusion_matrix_at_thresholds``)."""
    for key in includes:
        if key not in COUNTS:
            raise ValueError(f"Invalid key: {key}")
    predictions = convert_to_tensor(predictions)
    in_range = [check(predictions, cast(convert_to_tensor(bound), predictions.dtype),
                      message="predictions must be in [0, 1]")
                for check, bound in ((assert_greater_equal, 0.0), (assert_less_equal, 1.0))]
    # TF's checks gate only the casts: float32 predictions and bool labels need none, so
    # then the range goes unchecked, as in TF (int labels or float64 scores check it)
    with control_dependencies(in_range):
        predictions = cast(predictions, float32)
        labels = cast(convert_to_tensor(labels), dtypes.bool_)
    predictions, labels, weights = remove_squeezable_dimensions(predictions, labels, weights,
                                                                metric)
    above = greater(reshape(predictions, [-1, 1]),
                    constant(np.asarray(thresholds, np.float32).reshape(1, -1)))
    positive = reshape(labels, [-1, 1])
    weight = None if weights is None else \
        reshape(broadcast_weights(cast(weights, float32), predictions), [-1, 1])
    values, updates = {}, {}
    for key in includes:
        name, label_true, above_true = COUNTS[key]
        hit = cast(logical_and(positive if label_true else logical_not(positive),
                               above if above_true else logical_not(above)), float32)
        if weight is not None:
            hit = hit * weight
        variable = metric_variable(name, [len(thresholds)])
        values[key] = variable.value()
        updates[key] = assign_add(variable, reduce_sum(hit, axis=0))
    return values, updates


def _count_at_thresholds(key: str):
    scope = COUNTS[key][0]
    public = f"{scope}_at_thresholds"

    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name=scope):
            values, updates = confusion_at_thresholds(labels, predictions, thresholds,
                                                      weights, (key,), public)
            value = identity(values[key])      # TF's _aggregate_variable
        return collected(value, updates[key], metrics_collections, updates_collections)
    metric.__name__ = metric.__qualname__ = public
    metric.__doc__ = (f"``({scope.replace('_', ' ')}, update_op)``: the (weighted) count of "
                      f"{scope.replace('_', ' ')} at each of ``thresholds``.")
    return metric


true_positives_at_thresholds = _count_at_thresholds("tp")
false_negatives_at_thresholds = _count_at_thresholds("fn")
true_negatives_at_thresholds = _count_at_thresholds("tn")
false_positives_at_thresholds = _count_at_thresholds("fp")


def _ratio_at_thresholds(public: str, other: str):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name=public):
            values, updates = confusion_at_thresholds(labels, predictions, thresholds,
                                                      weights, ("tp", other), public)
            stem = public.split("_")[0]
            value, update_op = (v["tp"] / (EPSILON + v["tp"] + v[other])
                                for v in (values, updates))
            value, update_op = (reshape(t, [len(thresholds)], name=f"{stem}_{suffix}")
                                for t, suffix in ((value, "value"), (update_op, "update_op")))
        return collected(value, update_op, metrics_collections, updates_collections)
    metric.__name__ = metric.__qualname__ = public
    metric.__doc__ = (f"``({public.split('_')[0]}, update_op)`` at each of ``thresholds``: "
                      f"``tp / (tp + {other} + 1e-7)``, as TF1's.")
    return metric


precision_at_thresholds = _ratio_at_thresholds("precision_at_thresholds", "fp")
recall_at_thresholds = _ratio_at_thresholds("recall_at_thresholds", "fn")


def _even_thresholds(num_thresholds: int, last: float) -> list:
    """TF1's ``num_thresholds`` thresholds: just below 0, evenly inside, then ``last``."""
    if num_thresholds < 2:
        raise ValueError(f"num_thresholds must be at least 2, got {num_thresholds}.")
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - EPSILON] + inner + [last]


def sensitivity_at_specificity(labels, predictions, specificity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """``(sensitivity, update_op)``: the recall at the threshold whose specificity
    (``tn / (tn + fp)``) is nearest ``specificity`` (the first such threshold)."""
    if specificity < 0 or specificity > 1:
        raise ValueError(f"`specificity` must be in the range [0, 1]. Currently, "
                         f"`specificity` got {specificity}.")
    with variable_scope(name, default_name="sensitivity_at_specificity"):
        values, updates = confusion_at_thresholds(
            labels, predictions, _even_thresholds(num_thresholds, 1.0 + EPSILON), weights,
            metric="sensitivity_at_specificity")

        def sensitivity(c):
            specificities = c["tn"] / (c["tn"] + c["fp"] + EPSILON)
            at = argmin(abs_(specificities - specificity), 0)
            tp = gather(c["tp"], at)
            return tp, tp + gather(c["fn"], at) + EPSILON
        value = divide(*sensitivity(values), name="value")
        update_op = divide(*sensitivity(updates), name="update_op")
    return collected(value, update_op, metrics_collections, updates_collections)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """``(specificity, update_op)``: the specificity at the threshold whose sensitivity
    (recall) is nearest ``sensitivity`` (the last such threshold, as TF1's; its last
    threshold is ``1 - 1e-7``, as TF1's, not ``1 + 1e-7``)."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError(f"`sensitivity` must be in the range [0, 1]. Currently, "
                         f"`sensitivity` is {sensitivity}.")
    with variable_scope(name, default_name="specificity_at_sensitivity"):
        values, updates = confusion_at_thresholds(
            labels, predictions, _even_thresholds(num_thresholds, 1.0 - EPSILON), weights,
            metric="specificity_at_sensitivity")

        def specificity(c):
            distance = abs_(c["tp"] / (c["tp"] + c["fn"] + EPSILON) - sensitivity)
            nearest = cast(equal(distance, reduce_min(distance)), dtypes.int64)
            at = argmax(cumsum(nearest), 0)          # the last nearest threshold
            tn = gather(c["tn"], at)
            return tn, tn + gather(c["fp"], at) + EPSILON
        value = divide(*specificity(values), name="value")
        update_op = divide(*specificity(updates), name="update_op")
    return collected(value, update_op, metrics_collections, updates_collections)


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """``(auc, update_op)``: the area under the ROC or PR curve, from the confusion
    counts of ``predictions`` (in [0, 1]) above each of TF1's thresholds, summed as TF1's
    ``tf.metrics.auc``: by the trapezoidal rule, each interval's lower or upper value
    ("minoring", "majoring"), or for a PR curve "careful_interpolation" (precision
    interpolated between thresholds, TF's closed form; the trapezoidal rule for ROC)."""
    if curve not in ("ROC", "PR"):          # TF's messages, what TF1 code matches
        raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
    if summation_method not in _SUMMATIONS:
        raise ValueError(f"Invalid summation_method: {summation_method} summation_method "
                         f"should be 'trapezoidal', 'careful_interpolation', 'minoring', or "
                         f"'majoring'.")
    if thresholds is None:
        if num_thresholds < 2:
            raise ValueError(f"auc: num_thresholds must be at least 2, got {num_thresholds}.")
        thresholds = _even_thresholds(num_thresholds, 1.0 + EPSILON)
    else:
        thresholds = [0.0 - EPSILON] + sorted(thresholds) + [1.0 + EPSILON]
    with variable_scope(name, default_name="auc"):
        values, updates = confusion_at_thresholds(labels, predictions, thresholds, weights,
                                                  metric="auc")
        value = _area(values, curve, "value", summation_method)
        update_op = _area(updates, curve, "update_op", summation_method)
    return collected(value, update_op, metrics_collections, updates_collections)


_SUMMATIONS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


def _area(counts: dict, curve: str, name: str, method: str = "trapezoidal"):
    """TF1's sum over the thresholds' (x, y) points (see ``auc``)."""
    eps = 1e-6
    tp, fp, tn, fn = (counts[k] for k in ("tp", "fp", "tn", "fn"))
    if curve == "PR" and method == "careful_interpolation":
        return _interpolated_pr_area(tp, fp, fn, name)
    rec = (tp + eps) / (tp + fn + eps)
    if curve == "ROC":
        x, y = fp / (fp + tn + eps), rec
    else:
        x, y = rec, (tp + eps) / (tp + fp + eps)
    width = x[:-1] - x[1:]
    if method == "minoring":
        return reduce_sum(width * minimum(y[:-1], y[1:]), name=name)
    if method == "majoring":
        return reduce_sum(width * maximum(y[:-1], y[1:]), name=name)
    return reduce_sum(width * (y[:-1] + y[1:]) / 2.0, name=name)


def _interpolated_pr_area(tp, fp, fn, name: str):
    """TF's ``interpolate_pr_auc`` (Davis and Goadrich's interpolation, in closed form):
    over each interval true positives and predicted positives P move linearly, so
    precision is ``(TP_A + slope (P - P_A)) / P`` and its integral over recall is
    ``slope (dTP + intercept log(P_A / P_B)) / (TP + FN)``."""
    dtp = tp[:-1] - tp[1:]
    p = tp + fp
    slope = div_no_nan(dtp, maximum(p[:-1] - p[1:], 0.0), name="prec_slope")
    intercept = tp[1:] - slope * p[1:]
    ratio = where(logical_and(p[:-1] > 0, p[1:] > 0),
                  div_no_nan(p[:-1], maximum(p[1:], 0.0), name="recall_relative_ratio"),
                  ones_like(p[1:]))
    return reduce_sum(div_no_nan(slope * (dtp + intercept * log(ratio)),
                                 maximum(tp[1:] + fn[1:], 0.0), name="pr_auc_increment"),
                      name=name)
