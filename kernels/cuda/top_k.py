"""Selection GPU kernels: TopKV2 and InTopKV2, with cupy's routines.

* TopKV2: ``cupy.argsort`` (a stable sort, NaN last, as numpy's) of the reference's
  descending key (``-x``, ``~x`` for integers), the first ``k`` of each row, and the
  values gathered with ``take_along_axis``.  float16 is sorted as float32 (exact).
  Empty results never reach cupy's sort.
* InTopKV2: the target's prediction gathered per row, the predictions strictly greater
  counted, and the rows with a non-finite prediction or an out-of-range target masked
  to False: the reference's formula as device array operations.

``k`` is a host input (``OpDef.host_inputs``); the run-time checks are the reference's
(``reference.top_k``), so every device raises the same ``InvalidArgumentError``.
"""

from __future__ import annotations

import cupy
import numpy as np

from ..reference.top_k import check_in_top_k, check_top_k, descending_key
from ..registry import register_kernel
from .device import on_device

__all__ = ["build_top_k", "build_in_top_k"]

_F16, _F32, _I32 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.int32)


@register_kernel("TopKV2", "GPU")
def build_top_k(node):
    def top_k(x, k):
        k = check_top_k(node, x.shape, k)
        shape = x.shape[:-1] + (k,)
        if k == 0 or x.size == 0:
            return cupy.empty(shape, x.dtype), cupy.empty(shape, _I32)
        key = descending_key(cupy, x.astype(_F32) if x.dtype == _F16 else x)
        order = cupy.argsort(key, axis=-1, kind="stable")[..., :k]
        return cupy.take_along_axis(x, order, axis=-1), order.astype(_I32)
    return on_device(node, top_k)


@register_kernel("InTopKV2", "GPU")
def build_in_top_k(node):
    def in_top_k(predictions, targets, k):
        k = check_in_top_k(node, predictions.shape, targets.shape, k)
        batch, classes = predictions.shape
        if classes == 0 or batch == 0:
            return cupy.zeros((batch,), np.bool_)
        valid = (targets >= 0) & (targets < classes)
        picked = cupy.take_along_axis(predictions, cupy.where(valid, targets, 0)[:, None],
                                      axis=1)
        greater = cupy.count_nonzero(predictions > picked, axis=1)
        return valid & cupy.isfinite(predictions).all(axis=1) & (greater < k)
    return on_device(node, in_top_k)
