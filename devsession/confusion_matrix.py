"""TF1's ``tf.confusion_matrix`` (``tf.math.confusion_matrix``): the ``[n, n]`` counts of
each (label, prediction) pair, rows the labels, columns the predictions, each pair
weighted by its ``weights`` entry (1 without).  ``n`` is ``num_classes`` (ids outside
``[0, n)`` are an InvalidArgumentError at run time, as TF's asserts), else the largest id
seen plus one.  Built as TF builds it from existing ops: a segment sum over
``label * n + prediction`` (TF scatters into the matrix; the sums are the same).

    matrix = ds.confusion_matrix(labels, ds.argmax(logits, 1), num_classes=10)
"""

from __future__ import annotations

from . import dtypes
from .debugging import assert_less, assert_non_negative
from .graph import control_dependencies, convert_to_tensor, name_scope
from .ops import cast, maximum, ones_like, reshape, stack
from .ops.array_index import unsorted_segment_sum
from .ops.reduce import reduce_max

__all__ = ["confusion_matrix"]


def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None,
                     weights=None):
    """See the module docstring; ``labels`` and ``predictions`` are vectors of ids."""
    with name_scope(name or "confusion_matrix"):
        labels = cast(convert_to_tensor(labels, name="labels"), dtypes.int64)
        predictions = cast(convert_to_tensor(predictions, name="predictions"), dtypes.int64)
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
        with control_dependencies(checks):
            cells = labels * count + predictions
        values = ones_like(cells, dtype=dtype) if weights is None else \
            cast(convert_to_tensor(weights, name="weights"), dtype) * ones_like(cells, dtype)
        return reshape(unsorted_segment_sum(values, cells, count * count),
                       stack([count, count]))
