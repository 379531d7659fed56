"""``ds.losses``: TF1's ``tf.losses``: per-example losses weighted and reduced to the
number a training script minimizes, and the graph's collection of them.

=============================================  ==========================================
``sparse_softmax_cross_entropy(labels, logits)``  class indices
``softmax_cross_entropy(onehot_labels, logits)``  distributions; ``label_smoothing``
``sigmoid_cross_entropy(multi_class_labels, logits)``  independent classes
``mean_squared_error(labels, predictions)``    squared differences
``absolute_difference``, ``huber_loss``,       absolute differences; quadratic within
``log_loss``, ``hinge_loss``,                  ``delta``; binary log loss; hinge on
``cosine_distance``                            {0, 1} labels; ``1 - cos`` along ``axis``
``mean_pairwise_squared_error``                of the differences between pairs of each
                                               example's errors (no ``reduction``)
``compute_weighted_loss(losses, weights)``     the weighting and reduction they share
``get_losses``, ``get_regularization_loss``,   the collections: every loss made here
``get_total_loss``, ``add_loss``               joins ``"losses"``
=============================================  ==========================================

As TF1: ``weights`` (a scalar, or a tensor of the losses' rank whose every dimension is 1
or the losses', else ValueError, or InvalidArgumentError where only the run decides)
multiply the per-example losses, and ``reduction`` (``Reduction.SUM_BY_NONZERO_WEIGHTS``
by default: the sum over the number of non-zero weights, so the mean with ``weights=1``)
makes them one number; a reduction over nothing, or over weights that are all 0, is 0, not NaN.
"""

from __future__ import annotations

from . import nn
from .graph import control_dependencies, convert_to_tensor, name_scope
from .graph_keys import GraphKeys, add_to_collection, get_collection
from .ops import (add_n, cast, constant, div_no_nan, equal, multiply, not_equal, ones_like,
                  reduce_sum, size, squeeze, stop_gradient, where, zeros_like)
from .dtypes import float32
from .metrics_common import assert_broadcastable, broadcast_weights
from .ops import log, maximum, minimum, rank, relu, shape
from .ops.common import one_spelling
from .ops.sequence import range as range_
from .ops.elementwise import abs as abs_
from .ops.elementwise import squared_difference

__all__ = ["Reduction", "compute_weighted_loss", "sparse_softmax_cross_entropy",
           "softmax_cross_entropy", "sigmoid_cross_entropy", "mean_squared_error",
           "absolute_difference", "huber_loss", "log_loss", "hinge_loss", "cosine_distance",
           "mean_pairwise_squared_error",
           "add_loss", "get_losses", "get_regularization_losses", "get_regularization_loss",
           "get_total_loss"]

LOSSES = GraphKeys.LOSSES


class Reduction:
    """How ``compute_weighted_loss`` reduces the weighted losses (TF1's values)."""
    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple:
        """TF1's tuple: its order, and the nonzero-weights key under both its names."""
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key) -> None:
        """ValueError unless ``key`` is one of ``all()``."""
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of "
                             f"{cls.all()}.")


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``losses * weights`` reduced by ``reduction``; added to ``loss_collection``.  As
    TF1's, the losses (of any numeric dtype) are weighted and reduced in float32 and the
    result cast back to their dtype."""
    Reduction.validate(reduction)
    with name_scope(scope or "weighted_loss") as scope:
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype          # TF1's: reduced in float32, then cast back
        losses = cast(losses, float32)
        weights = convert_to_tensor(weights, dtype_hint=float32)
        check = assert_broadcastable(weights, losses)
        weights = cast(weights, float32)
        with control_dependencies([check] if check is not None else []):
            weighted = multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = div_no_nan(loss, reduce_sum(multiply(ones_like(losses), weights)),
                                  name="value")
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = div_no_nan(loss, cast(size(weighted), losses.dtype), name="value")
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                present = cast(not_equal(multiply(ones_like(losses), weights), 0), losses.dtype)
                loss = div_no_nan(loss, reduce_sum(present), name="value")
        loss = cast(loss, input_dtype)
    add_loss(loss, loss_collection)
    return loss


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """The softmax cross entropy of ``logits`` against class indices ``labels``."""
    _not_none(labels=labels, logits=logits)
    with name_scope(scope or "sparse_softmax_cross_entropy_loss") as scope:
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights)
        losses = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                             name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """The softmax cross entropy of ``logits`` against distributions ``onehot_labels``,
    smoothed toward uniform by ``label_smoothing``; no gradient reaches the labels."""
    _not_none(onehot_labels=onehot_labels, logits=logits)
    with name_scope(scope or "softmax_cross_entropy_loss") as scope:
        logits = convert_to_tensor(logits)
        labels = cast(convert_to_tensor(onehot_labels, dtype_hint=logits.dtype), logits.dtype)
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError(f"Shapes {logits.shape} and {labels.shape} are incompatible: "
                             f"softmax_cross_entropy: logits '{logits.name}' and onehot_labels "
                             f"'{labels.name}' must have the same shape.")
        if label_smoothing > 0:           # TF1's test: a negative smoothing is none
            classes = labels.shape.dims[-1] if labels.shape.ndims else None
            if classes is None:           # counted at run time, as TF1's
                classes = cast(shape(labels)[-1], logits.dtype)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / classes
        losses = nn.softmax_cross_entropy_with_logits_v2(labels=stop_gradient(labels),
                                                         logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """The sigmoid cross entropy of each logit against its label in [0, 1], smoothed
    toward 1/2 by ``label_smoothing``."""
    _not_none(multi_class_labels=multi_class_labels, logits=logits)
    with name_scope(scope or "sigmoid_cross_entropy_loss") as scope:
        logits = convert_to_tensor(logits)
        labels = cast(convert_to_tensor(multi_class_labels, dtype_hint=logits.dtype),
                      logits.dtype)
        if label_smoothing > 0:
            labels = labels * (1.0 - label_smoothing) + 0.5 * label_smoothing
        losses = nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``(predictions - labels) ** 2``, weighted and reduced."""
    _not_none(labels=labels, predictions=predictions)
    with name_scope(scope or "mean_squared_error") as scope:
        predictions, labels = _paired(predictions, labels, "mean_squared_error")
        losses = squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``|predictions - labels|``, weighted and reduced."""
    _not_none(labels=labels, predictions=predictions)
    with name_scope(scope or "absolute_difference") as scope:
        predictions, labels = _paired(predictions, labels, "absolute_difference")
        losses = abs_(predictions - labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``0.5 * e**2`` where ``|e| <= delta``, else ``delta * (|e| - 0.5 * delta)``
    (``e = predictions - labels``), written as TF1's: ``0.5 * q**2 + delta * (|e| - q)``
    with ``q = min(|e|, delta)``."""
    _not_none(labels=labels, predictions=predictions)
    with name_scope(scope or "huber_loss") as scope:
        predictions, labels = _paired(predictions, labels, "huber_loss")
        error = abs_(predictions - labels)
        quadratic = minimum(error, delta)
        losses = 0.5 * quadratic * quadratic + delta * (error - quadratic)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``-z log(p + eps) - (1 - z) log(1 - p + eps)`` for probabilities ``p``."""
    _not_none(labels=labels, predictions=predictions)
    with name_scope(scope or "log_loss") as scope:
        p, z = _paired(predictions, labels, "log_loss")
        losses = -z * log(p + epsilon) - (1.0 - z) * log(1.0 - p + epsilon)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``max(0, 1 - (2z - 1) * logits)`` for labels ``z`` in {0, 1}."""
    _not_none(labels=labels, logits=logits)
    with name_scope(scope or "hinge_loss") as scope:
        logits, z = _paired(logits, labels, "hinge_loss")
        losses = relu(1.0 - (2.0 * z - 1.0) * logits)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
                    dim=None):
    """``1 - sum(labels * predictions, axis)`` (both unit-normalized along ``axis``, as
    TF1 assumes), the axis kept; ``dim`` is TF1's older name for ``axis`` (both given is
    ValueError, as TF1's)."""
    axis = one_spelling(axis, dim, "axis", "dim")
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _not_none(labels=labels, predictions=predictions)
    with name_scope(scope or "cosine_distance_loss") as scope:
        predictions, labels = _paired(predictions, labels, "cosine_distance")
        losses = 1.0 - reduce_sum(predictions * labels, axis=(int(axis),), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=LOSSES):
    """Of each example (the first axis), the mean over pairs of its elements of
    ``((p_i - l_i) - (p_j - l_j)) ** 2``, counting the elements whose weight is not 0,
    times its weight, summed over the batch, as TF1's (which takes no ``reduction``).
    ``weights`` (a scalar, or broadcastable with the same rank as ``labels``) else
    ValueError."""
    _not_none(labels=labels, predictions=predictions)
    with name_scope(scope or "mean_pairwise_squared_error"):
        weights = cast(convert_to_tensor(weights, dtype_hint=float32), float32)
        labels = cast(convert_to_tensor(labels, dtype_hint=float32), float32)
        predictions, labels = _paired(predictions, labels, "mean_pairwise_squared_error")
        present = broadcast_weights(where(equal(weights, 0.0), zeros_like(weights),
                                          ones_like(weights)), labels)
        diffs = predictions - labels
        axis = range_(1, rank(diffs))
        per_example = reduce_sum(present, axis=axis, keepdims=True)
        sum_squares = reduce_sum(diffs * diffs, axis=axis, keepdims=True)
        term1 = 2.0 * div_no_nan(sum_squares, maximum(per_example - 1.0, 0.0), name="value")
        sum_diff = reduce_sum(diffs, axis=axis, keepdims=True)
        term2 = 2.0 * div_no_nan(sum_diff * sum_diff,      # TF1's names: value, value_1
                                 maximum(per_example * (per_example - 1.0), 0.0), name="value")
        loss = reduce_sum((term1 - term2) * weights)
        loss = where(reduce_sum(per_example) > 0, loss, zeros_like(loss), name="value")
    add_loss(loss, loss_collection)
    return loss


def _not_none(**arguments) -> None:
    """ValueError for the first of a loss's tensor arguments that is None, as TF1's."""
    for name, value in arguments.items():
        if value is None:
            raise ValueError(f"Argument `{name}` must not be None.")


def _remove_squeezable_dimensions(labels, logits, weights):
    """TF1's ``_remove_squeezable_dimensions(expected_rank_diff=1)`` on static ranks, so
    ``[batch, 1]`` labels and weights (a common way to feed them) mean ``[batch]``: labels
    of the logits' rank lose a trailing dimension of 1 (logits two ranks above lose theirs),
    then weights one rank above the labels lose their last dimension."""
    logits, labels = convert_to_tensor(logits), convert_to_tensor(labels)
    p, q = logits.shape, labels.shape
    if p.ndims is not None and q.ndims is not None:
        with name_scope("remove_squeezable_dimensions"):
            if p.ndims - q.ndims == 2 and p.dims[-1] in (None, 1):
                logits = squeeze(logits, [-1])
            elif p.ndims == q.ndims and q.dims[-1] in (None, 1):
                labels = squeeze(labels, [-1])
    weights = convert_to_tensor(weights, dtype_hint=logits.dtype)
    if labels.shape.ndims is not None and weights.shape.ndims == labels.shape.ndims + 1:
        weights = squeeze(weights, [-1])
    return labels, logits, weights


def _paired(predictions, labels, loss: str):
    """``predictions`` and ``labels`` cast to float32 whatever their dtype (TF1's: integer
    predictions of 0/1, or float64 ones, make a float32 loss), of compatible shapes (else
    ValueError, as TF1's)."""
    predictions = cast(convert_to_tensor(predictions, dtype_hint=float32), float32)
    labels = cast(convert_to_tensor(labels, dtype_hint=float32), float32)
    if predictions.shape.ndims is not None and labels.shape.ndims is not None and \
            not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError(f"Shapes {predictions.shape} and {labels.shape} are incompatible: "
                         f"{loss}: predictions '{predictions.name}' {predictions.shape} and "
                         f"labels '{labels.name}' {labels.shape} must have the same shape.")
    return predictions, labels


# --- the collections ------------------------------------------------------------------------

def add_loss(loss, loss_collection=LOSSES) -> None:
    """Add ``loss`` to ``loss_collection`` (none when it is None)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=LOSSES) -> list:
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None) -> list:
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (layers' ``kernel_regularizer``...), or 0 (an
    unnamed constant, as TF1's: ``name`` names only the sum)."""
    losses = get_regularization_losses(scope)
    return add_n(losses, name=name) if losses else constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of ``get_losses()`` and, by default, the regularization losses."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses to sum: build one with ds.losses first.")
    return add_n(losses, name=name)


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("losses", name)
