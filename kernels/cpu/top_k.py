"""Selection CPU kernels: TopKV2 and InTopKV2, in numpy (value-dependent selection, not a
hot path: numpy's introselect and sorts are the fast formulation, and no numba function
is compiled for them).

The algorithms differ from the reference kernels' (which sort whole rows and count),
so the conformance tests compare two formulations:

* TopKV2 selects before it sorts.  ``np.partition`` finds each row's k-th best key
  (``reference.top_k.descending_key``: ``-x`` or ``~x``; NaN last), the keys strictly
  better are taken, and the first ``k - better`` keys equal to it in index order (the
  ties TF resolves to the lower index); only those ``k`` are then sorted, stably, so
  ties keep index order.  O(n + k log k) per row; ``k == n`` sorts the row.
* InTopKV2: the target is in the top k iff its prediction is at least the row's k-th
  largest (``np.partition``), which is TF's "fewer than k strictly greater" for finite
  rows; a target out of range or a row with a non-finite prediction gives False.
"""

from __future__ import annotations

import numpy as np

from ..reference.top_k import check_in_top_k, check_top_k, descending_key
from ..registry import register_kernel

__all__ = ["build_top_k", "build_in_top_k"]


def _selected(key: np.ndarray, k: int) -> np.ndarray:
    """Per row of ``key`` (rows x n, 0 < k < n), the column indices of the ``k`` best
    (smallest; NaN worst; ties to the lower index), in ascending index order."""
    kth = np.partition(key, k - 1, axis=1)[:, k - 1:k]
    if key.dtype.kind == "f":
        key_nan, kth_nan = np.isnan(key), np.isnan(kth)
        better = (key < kth) | (kth_nan & ~key_nan)
        tie = (key == kth) | (kth_nan & key_nan)
    else:
        better, tie = key < kth, key == kth
    need = k - np.count_nonzero(better, axis=1, keepdims=True)
    chosen = better | (tie & (np.cumsum(tie, axis=1) <= need))
    return np.nonzero(chosen)[1].reshape(-1, k)


@register_kernel("TopKV2", "CPU")
def build_top_k(node):
    def top_k(x, k):
        k = check_top_k(node, x.shape, k)
        shape = x.shape[:-1] + (k,)
        if k == 0 or x.size == 0:
            return np.empty(shape, x.dtype), np.empty(shape, np.int32)
        n = x.shape[-1]
        rows = x.reshape(-1, n)
        key = descending_key(np, rows)
        picked = _selected(key, k) if k < n else np.broadcast_to(np.arange(n), rows.shape)
        ranked = np.argsort(np.take_along_axis(key, picked, axis=1), axis=1, kind="stable")
        order = np.take_along_axis(picked, ranked, axis=1)
        values = np.take_along_axis(rows, order, axis=1)
        return values.reshape(shape), order.astype(np.int32).reshape(shape)
    return top_k


@register_kernel("InTopKV2", "CPU")
def build_in_top_k(node):
    def in_top_k(predictions, targets, k):
        k = check_in_top_k(node, predictions.shape, targets.shape, k)
        batch, classes = predictions.shape
        valid = (targets >= 0) & (targets < classes)
        if classes == 0 or k <= 0:          # nothing in range, or a top-nothing
            return np.zeros(batch, np.bool_)
        valid &= np.isfinite(predictions).all(axis=1)
        if k >= classes:
            return valid
        picked = predictions[np.arange(batch), np.where(valid, targets, 0)]
        kth_largest = np.partition(predictions, classes - k, axis=1)[:, classes - k]
        return valid & (picked >= kth_largest)
    return in_top_k
