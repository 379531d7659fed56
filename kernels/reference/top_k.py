"""Reference kernels of the selection ops: TopKV2 and InTopKV2 (and the run-time checks
every device's kernels share).

* TopKV2 is a stable ascending sort of a key that reverses the order: ``-x`` for floats
  (numpy sorts NaN last, so a NaN ranks below every number; ``-0.0 == 0.0`` ties) and
  ``~x`` for integers (exact for every signed and unsigned width, where ``-x`` would
  wrap).  Stability keeps the lower index first among equal values, as TF.  The first
  ``k`` of each row are the result.
* InTopKV2 is TF's formula row by row: count the predictions strictly greater than the
  target's; True iff fewer than ``k``, the target in ``[0, classes)`` and every
  prediction of the row finite.
* ``check_top_k``/``check_in_top_k`` raise ``InvalidArgumentError`` naming the node with
  TF's messages (``k`` not a scalar, ``k < 0``, a scalar input, fewer than ``k``
  columns; ranks and batch sizes of InTopKV2).
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import register_kernel
from .array import on_host

__all__ = ["check_top_k", "check_in_top_k", "descending_key"]

DEVICE = "REF"


def _scalar_k(node, k) -> int:
    k = on_host(k)
    if k.ndim != 0:
        raise invalid_argument(node.name, node.op, f"k must be scalar, got shape "
                               f"{fmt_shape(k.shape)}")
    return int(k)


def check_top_k(node, shape: tuple, k) -> int:
    """The ``k`` of a TopKV2 node as an int, checked against the input's ``shape``."""
    k = _scalar_k(node, k)
    if k < 0:
        raise invalid_argument(node.name, node.op, f"Need k >= 0, got {k}")
    if len(shape) < 1:
        raise invalid_argument(node.name, node.op, f"input must be >= 1-D, got shape "
                               f"{fmt_shape(shape)}")
    if shape[-1] < k:
        raise invalid_argument(node.name, node.op, f"input must have at least k columns "
                               f"(k = {k}, input shape {fmt_shape(shape)})")
    return k


def check_in_top_k(node, predictions_shape: tuple, targets_shape: tuple, k) -> int:
    """The ``k`` of an InTopKV2 node as an int, the operands' shapes checked."""
    k = _scalar_k(node, k)
    if len(predictions_shape) != 2:
        raise invalid_argument(node.name, node.op, f"predictions must be 2-dimensional, got "
                               f"shape {fmt_shape(predictions_shape)}")
    if len(targets_shape) != 1:
        raise invalid_argument(node.name, node.op, f"targets must be 1-dimensional, got "
                               f"shape {fmt_shape(targets_shape)}")
    if predictions_shape[0] != targets_shape[0]:
        raise invalid_argument(node.name, node.op, f"First dimension of predictions "
                               f"{predictions_shape[0]} must match length of targets "
                               f"{targets_shape[0]}")
    return k


def descending_key(xp, x):
    """A key whose ascending (stable) order is ``x``'s descending order, NaN last."""
    return xp.negative(x) if x.dtype.kind == "f" else xp.invert(x)


@register_kernel("TopKV2", DEVICE)
def build_top_k(node):
    def top_k(x, k):
        k = check_top_k(node, x.shape, k)
        order = np.argsort(descending_key(np, x), axis=-1, kind="stable")[..., :k]
        return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)
    return top_k


@register_kernel("InTopKV2", DEVICE)
def build_in_top_k(node):
    def in_top_k(predictions, targets, k):
        k = check_in_top_k(node, predictions.shape, targets.shape, k)
        batch, classes = predictions.shape
        valid = (targets >= 0) & (targets < classes)
        if classes == 0:
            return valid            # no target is in range
        picked = predictions[np.arange(batch), np.where(valid, targets, 0)]
        greater = np.count_nonzero(predictions > picked[:, None], axis=1)
        return valid & np.isfinite(predictions).all(axis=1) & (greater < k)
    return in_top_k
