"""TF1's ``tf.confusion_matrix`` (``tf.math.confusion_matrix``): the ``[n, n]`` counts of
each (label, prediction) pair, rows the labels, columns the predictions, each pair
weighted by its ``weights`` entry (1 without).  ``n`` is ``num_classes`` (ids outside
``[0, n)`` are an InvalidArgumentError at run time, as TF's asserts), else the largest id
seen plus one.  Built as TF builds it: a ``ScatterNd`` of the weights at the
``[label, prediction]`` pairs (duplicates summed), so the result is TF's
``confusion_matrix/ScatterNd:0``; its static shape is ``(n, n)`` wherever the graph
alone determines ``n`` (a Python int, a constant, constant ids), as TF's shape inference.

    matrix = ds.confusion_matrix(labels, ds.argmax(logits, 1), num_classes=10)
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .debugging import assert_less, assert_non_negative
from .graph import constant_value, control_dependencies, convert_to_tensor, name_scope
from .metrics_common import squeezed_ids
from .ops import cast, identity, maximum, ones_like, stack
from .ops.gather_nd import scatter_nd
from .ops.reduce import reduce_max

__all__ = ["confusion_matrix"]


def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None,
                     weights=None):
    """See the module docstring; ``labels`` and ``predictions`` are vectors of ids (a
    trailing dimension of 1 that only one of them has is squeezed, as TF's).  ValueError
    for other shapes, or ``weights`` of a shape other than the predictions'."""
    with name_scope(name or "confusion_matrix"):
        labels, predictions = squeezed_ids(convert_to_tensor(labels, name="labels"),
                                        convert_to_tensor(predictions, name="predictions"))
        static_count = _static_count(labels, predictions, num_classes)
        labels, predictions = cast(labels, dtypes.int64), cast(predictions, dtypes.int64)
        for t, what in ((labels, "labels"), (predictions, "predictions")):
            if t.shape.ndims not in (None, 1):
                raise ValueError(f"confusion_matrix: {what} must be a vector, got shape "
                                 f"{t.shape}.")
        if not labels.shape.is_compatible_with(predictions.shape):
            raise ValueError(f"confusion_matrix: labels {labels.shape} and predictions "
                             f"{predictions.shape} differ in length.")
        checks = [assert_non_negative(labels, message="`labels` contains negative values"),
                  assert_non_negative(predictions,
                                      message="`predictions` contains negative values")]
        if num_classes is None:
            count = maximum(reduce_max(predictions), reduce_max(labels)) + 1
        else:
            count = cast(convert_to_tensor(num_classes), dtypes.int64)
            checks += [assert_less(labels, count, message="`labels` out of bound"),
                       assert_less(predictions, count, message="`predictions` out of bound")]
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            if not predictions.shape.is_compatible_with(weights.shape):
                raise ValueError(f"Shapes {predictions.shape} and {weights.shape} are "
                                 f"incompatible")
            weights = cast(weights, dtype)
        with control_dependencies(checks):      # TF's with_dependencies
            labels, predictions = identity(labels), identity(predictions)
        indices = stack([labels, predictions], axis=1)
        values = ones_like(predictions, dtype) if weights is None else weights
        matrix = scatter_nd(indices, values, cast(stack([count, count]), dtypes.int64))
        if static_count is not None:
            matrix.set_shape([static_count, static_count])
        return matrix


def _static_count(labels, predictions, num_classes):
    """``n`` when the graph alone determines it, else None."""
    if num_classes is None:
        ids = [constant_value(labels), constant_value(predictions)]
        if any(v is None for v in ids) or not all(np.size(v) for v in ids):
            return None
        return int(max(np.max(v) for v in ids)) + 1
    count = constant_value(convert_to_tensor(num_classes)) \
        if not isinstance(num_classes, (int, np.integer)) else num_classes
    return None if count is None else int(count)
