"""``ds.metrics``' ranking metrics: how the top ``k`` predicted classes of each example
compare with its set of labels (precision, recall and average precision at k).

Labels are class ids, ``[D1, ... DN, num_labels]`` or ``[D1, ... DN]`` (one label each);
predictions are scores ``[D1, ... DN, num_classes]`` (``*_at_k``, ranked with
``nn.top_k``) or the top indices themselves ``[D1, ... DN, k]`` (``*_at_top_k``).  As
TF1's dense sets, each row's labels and indices are sets (repeats count once) and every
value counts: a label outside ``[0, num_classes)``, -1 included, is never predicted, so
it is a false negative.  With ``class_id``, only that class counts: a row is a true
positive when it is among both, a false positive when only predicted, a false negative
when only a label.

The counts are float64 local variables named as TF1's (``precision_at_5/
true_positive_at_5``, ``.../false_positive_at_5``; ``recall_at_5/false_negative_at_5``;
``_class<id>`` appended with a ``class_id``); ``weights`` (broadcast to ``[D1, ... DN]``)
weight each row's counts.  Precision and recall are plain quotients, NaN before anything
counts, as TF1's.  ``average_precision_at_k`` keeps ``<scope>/max_1`` (the weight seen;
TF1's name, its scope's ``max`` taken by an op) and ``<scope>/total``.  SparseTensor
labels are not supported yet.

    prec, prec_op = ds.metrics.precision_at_k(labels, logits, k=5)
"""

from __future__ import annotations

from . import dtypes
from .dtypes import float64
from .graph import convert_to_tensor, name_scope
from .metrics_common import broadcast_weights, collected, div_no_nan, metric_variable
from .nn import top_k
from .ops import (assign_add, cast, concat, divide, equal, expand_dims, greater_equal, less,
                  logical_and, logical_not, minimum, ones_like, reduce_sum, reshape, shape,
                  size, where)
from .ops.reduce import cumsum, reduce_any
from .ops.sequence import range as range_
from .sparse_tensor import SparseTensor

__all__ = ["precision_at_k", "recall_at_k", "precision_at_top_k", "recall_at_top_k",
           "sparse_precision_at_k", "average_precision_at_k", "sparse_average_precision_at_k"]


def _at_k_name(name: str, k=None, class_id=None) -> str:
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def precision_at_k(labels, predictions, k, class_id=None, weights=None,
                   metrics_collections=None, updates_collections=None, name=None):
    """``(precision, update_op)`` of the ``k`` highest-scored classes: the (weighted)
    fraction of them among the labels."""
    with name_scope(name or _at_k_name("precision", k, class_id)) as scope:
        _, top = top_k(predictions, k)
        return precision_at_top_k(labels, top, k, class_id, weights, metrics_collections,
                                  updates_collections, scope)


def recall_at_k(labels, predictions, k, class_id=None, weights=None,
                metrics_collections=None, updates_collections=None, name=None):
    """``(recall, update_op)``: the (weighted) fraction of the labels among the ``k``
    highest-scored classes."""
    with name_scope(name or _at_k_name("recall", k, class_id)) as scope:
        _, top = top_k(predictions, k)
        return recall_at_top_k(labels, top, k, class_id, weights, metrics_collections,
                               updates_collections, scope)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                       metrics_collections=None, updates_collections=None, name=None):
    """``precision_at_k`` of top indices already chosen (``k`` only names it)."""
    return _ratio_at_top_k("precision", "false_positive", labels, predictions_idx, k,
                           class_id, weights, metrics_collections, updates_collections, name)


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                    metrics_collections=None, updates_collections=None, name=None):
    """``recall_at_k`` of top indices already chosen (``k`` only names it)."""
    return _ratio_at_top_k("recall", "false_negative", labels, predictions_idx, k, class_id,
                           weights, metrics_collections, updates_collections, name)


def sparse_precision_at_k(labels, predictions, k, class_id=None, weights=None,
                          metrics_collections=None, updates_collections=None, name=None):
    """TF1's older name of ``precision_at_k``."""
    return precision_at_k(labels, predictions, k, class_id, weights, metrics_collections,
                          updates_collections, name)


def _ratio_at_top_k(metric: str, wrong: str, labels, predictions_idx, k, class_id, weights,
                    metrics_collections, updates_collections, name):
    """``tp / (tp + <wrong>)`` over float64 counts of each row's sets."""
    with name_scope(name or _at_k_name(metric, k, class_id)) as scope:
        predictions_idx = cast(convert_to_tensor(predictions_idx), dtypes.int64)
        labels = _expanded_labels(labels, predictions_idx)
        counts = _row_counts(labels, predictions_idx, class_id)
        totals, updates = [], []
        for kind in ("true_positive", wrong):
            per_row = counts[kind]
            if weights is not None:
                per_row = per_row * broadcast_weights(cast(weights, float64), per_row)
            with name_scope(_at_k_name(kind, k, class_id)) as count_scope:   # TF's names
                variable = metric_variable(count_scope, (), float64)
                totals.append(variable.value())
                updates.append(assign_add(variable, reduce_sum(per_row), name="update"))
        value = divide(totals[0], totals[0] + totals[1], name=scope)   # TF's: the scope's name
        update_op = divide(updates[0], updates[0] + updates[1], name="update")
    return collected(value, update_op, metrics_collections, updates_collections)


def _expanded_labels(labels, predictions_idx):
    """``labels`` as int64 of the indices' rank (TF1's ``_maybe_expand_labels``): one
    label each gains a last dimension of 1."""
    if isinstance(labels, SparseTensor):
        raise NotImplementedError("SparseTensor labels of the metrics at k are not supported "
                                  "by devsession yet: pass dense labels.")
    labels = cast(convert_to_tensor(labels), dtypes.int64)
    rank, wanted = labels.shape.ndims, predictions_idx.shape.ndims
    if rank is not None and wanted is not None:
        if wanted == rank:
            return labels
        if wanted == rank + 1:
            return expand_dims(labels, -1)
        raise ValueError(f"Unexpected labels shape {labels.shape} for predictions shape "
                         f"{predictions_idx.shape}. Predictions rank should be the same rank "
                         f"as labels rank or labels rank plus one .")
    return reshape(labels, concat([shape(predictions_idx)[:-1], [-1]], 0))


def _row_counts(labels, predictions_idx, class_id) -> dict:
    """Each row's float64 count of true positives, false positives and false negatives
    (TF1's set sizes of the intersection and the two differences)."""
    if class_id is not None:
        labelled = reduce_any(equal(labels, class_id), -1)
        predicted = reduce_any(equal(predictions_idx, class_id), -1)
        kinds = {"true_positive": logical_and(labelled, predicted),
                 "false_positive": logical_and(predicted, logical_not(labelled)),
                 "false_negative": logical_and(labelled, logical_not(predicted))}
        return {kind: cast(hit, float64) for kind, hit in kinds.items()}
    match = equal(expand_dims(predictions_idx, -1), expand_dims(labels, -2))   # [..., k, L]
    predicted_first = _first_occurrences(predictions_idx)
    label_first = _first_occurrences(labels)
    in_labels = reduce_any(match, -1)
    in_predictions = reduce_any(match, -2)
    kinds = {"true_positive": logical_and(predicted_first, in_labels),
             "false_positive": logical_and(predicted_first, logical_not(in_labels)),
             "false_negative": logical_and(label_first, logical_not(in_predictions))}
    return {kind: reduce_sum(cast(hit, float64), -1) for kind, hit in kinds.items()}


def _first_occurrences(ids):
    """True where a value appears for the first time along the last axis of ``ids``."""
    positions = range_(shape(ids)[-1])
    earlier = less(expand_dims(positions, 0), expand_dims(positions, 1))      # [j, i]: i < j
    same = equal(expand_dims(ids, -1), expand_dims(ids, -2))
    return logical_not(reduce_any(logical_and(same, earlier), -1))


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """``(mean average precision, update_op)``: of each row, the mean over the ranks
    ``j <= k`` whose class is a label of the precision at ``j``, over
    ``min(number of labels in range, k)`` (NaN for a row without one, as TF1's); then
    the (weighted) mean over rows.  Labels ``>= num_classes`` are out of range."""
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    with name_scope(name or _at_k_name("average_precision", k)) as scope:
        predictions = convert_to_tensor(predictions)
        _, top = top_k(predictions, k)
        top = cast(top, dtypes.int64)
        labels = cast(convert_to_tensor(labels), dtypes.int64)
        num_classes = cast(shape(predictions)[-1], dtypes.int64)
        labels = where(greater_equal(labels, num_classes), -ones_like(labels), labels)
        precision = _average_precision(_expanded_labels(labels, top), top, k)
        if weights is None:
            seen = cast(size(precision), float64)
        else:
            weights = broadcast_weights(cast(weights, float64), precision)
            precision = precision * weights
            seen = reduce_sum(weights)
        max_seen = metric_variable("max_1", (), float64)     # TF1's name: see the docstring
        total = metric_variable("total", (), float64)
        max_update = max_seen.assign_add(seen, name="update")
        total_update = total.assign_add(reduce_sum(precision), name="update")
        value = div_no_nan(total.value(), max_seen.value(), name="mean")
        update_op = div_no_nan(total_update, max_update, name=scope)
    return collected(value, update_op, metrics_collections, updates_collections)


def sparse_average_precision_at_k(labels, predictions, k, weights=None,
                                  metrics_collections=None, updates_collections=None,
                                  name=None):
    """TF1's older name of ``average_precision_at_k``."""
    return average_precision_at_k(labels, predictions, k, weights, metrics_collections,
                                  updates_collections, name)


def _average_precision(labels, top, k: int):
    """Each row's average precision of its top indices ``top`` (TF1's
    ``_sparse_average_precision_at_top_k``)."""
    relevant = cast(reduce_any(equal(expand_dims(top, -1), expand_dims(labels, -2)), -1),
                    float64)                                               # [..., k]
    retrieved = cumsum(ones_like(relevant), axis=-1)
    precision_sum = reduce_sum(cumsum(relevant, axis=-1) / retrieved * relevant, -1)
    labelled = reduce_sum(cast(greater_equal(labels, 0), dtypes.int64), -1)
    return precision_sum / cast(minimum(labelled, k), float64)
