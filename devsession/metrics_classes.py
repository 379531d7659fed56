"""``ds.metrics``' metrics over class ids: the mean intersection-over-union of a
segmentation (``mean_iou``) and the mean of the per-class accuracies
(``mean_per_class_accuracy``).

``mean_iou`` keeps TF1's float64 ``<scope>/total_confusion_matrix`` (rows are labels,
columns predictions, weighted); its ``update_op`` gives that matrix, as TF1's does, and
its value is the mean over the classes seen (in labels or predictions) of
``tp / (tp + fp + fn)``.  ``mean_per_class_accuracy`` keeps two float32 vectors of
``num_classes`` (TF1's ``total``: the weight of each label's examples, and ``count``: of
those predicted right); its ``update_op`` gives the per-class accuracies, its value their
mean.  Both flatten labels and predictions of rank > 1; a class id outside
``[0, num_classes)`` is an InvalidArgumentError at run time.

    miou, confusion_op = ds.metrics.mean_iou(labels, ds.argmax(logits, -1), num_classes=21)
"""

from __future__ import annotations

from . import dtypes
from .confusion_matrix import confusion_matrix
from .dtypes import float32, float64
from .graph import convert_to_tensor
from .metrics_common import collected, div_no_nan, metric_variable
from .ops import (assign_add, cast, equal, greater, maximum, not_equal, ones_like, reduce_mean,
                  reduce_sum, reshape)
from .ops.array_composites import select          # TF1's where: mean_iou/Select_1:0
from .ops.matrix import matrix_diag_part
from .ops.state_scatter import scatter_add
from .variable_scope import variable_scope

__all__ = ["mean_iou", "mean_per_class_accuracy"]


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """``(mean_iou, update_op)``: the mean intersection-over-union of the classes seen;
    ``update_op`` adds the batch to the confusion matrix and gives it."""
    labels, predictions = convert_to_tensor(labels), convert_to_tensor(predictions)
    if not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError(f"mean_iou: predictions '{predictions.name}' {predictions.shape} "
                         f"and labels '{labels.name}' {labels.shape} must have the same "
                         f"shape.")
    with variable_scope(name, default_name="mean_iou"):
        matrix = metric_variable("total_confusion_matrix", [num_classes, num_classes],
                                 float64)
        update_op = assign_add(matrix,        # TF's mean_iou/AssignAdd
                               _confusion_matrix(labels, predictions, num_classes, weights))
        value = _mean_iou(matrix.value())
    return collected(value, update_op, metrics_collections, updates_collections)


def _confusion_matrix(labels, predictions, num_classes: int, weights):
    """The float64 ``[num_classes, num_classes]`` (weighted) counts of each (label,
    prediction) pair of the flattened ids, as TF1's mean_iou counts them."""
    labels = reshape(labels, [-1])
    predictions = reshape(predictions, [-1])
    if weights is not None:
        weights = reshape(cast(convert_to_tensor(weights), float64), [-1]) * \
            ones_like(predictions, dtype=float64)
    return confusion_matrix(labels, predictions, num_classes, float64, weights=weights)


def _mean_iou(matrix):
    """TF1's: the mean of ``diag / (row sum + column sum - diag)`` over the classes whose
    denominator is not 0, 0 when none is."""
    rows = cast(reduce_sum(matrix, 0), float32)
    columns = cast(reduce_sum(matrix, 1), float32)
    diagonal = cast(matrix_diag_part(matrix), float32)
    denominator = rows + columns - diagonal
    valid = reduce_sum(cast(not_equal(denominator, 0), float32))
    denominator = select(greater(denominator, 0), denominator, ones_like(denominator))
    iou = diagonal / denominator
    return select(greater(valid, 0), reduce_sum(iou, name="mean_iou") / valid, 0.0)


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """``(mean_accuracy, update_op)``: the mean over classes of the (weighted) fraction of
    each label's examples predicted right; ``update_op`` gives the per-class fractions."""
    with variable_scope(name, default_name="mean_accuracy"):
        labels = reshape(cast(convert_to_tensor(labels), dtypes.int64), [-1])
        predictions = reshape(convert_to_tensor(predictions), [-1])
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError(f"mean_per_class_accuracy: predictions {predictions.shape} and "
                             f"labels {labels.shape} must have the same size.")
        total = metric_variable("total", [num_classes])
        count = metric_variable("count", [num_classes])
        ones = ones_like(labels, dtype=float32)
        if predictions.dtype != labels.dtype:
            predictions = cast(predictions, labels.dtype)
        correct = cast(equal(predictions, labels), float32)
        if weights is not None:
            weights = reshape(cast(convert_to_tensor(weights), float32), [-1])
            correct, ones = correct * weights, ones * weights
        update_total = scatter_add(total, labels, ones)
        update_count = scatter_add(count, labels, correct)
        value = reduce_mean(div_no_nan(count.value(), maximum(total.value(), 0.0)),
                            name="mean_accuracy")
        update_op = div_no_nan(update_count, maximum(update_total, 0.0), name="update_op")
    return collected(value, update_op, metrics_collections, updates_collections)
