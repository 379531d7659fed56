"""The fused batch norms on the GPU: the reference's formulas over cupy
(``reference/batch_norm.py``): cupy's reductions and elementwise kernels."""

from __future__ import annotations

import cupy

from ...ops.nn_batch_norm import FUSED_BATCH_NORM_OPS
from ..reference.batch_norm import make_fused_batch_norm
from ..registry import register_kernel
from .device import on_device

__all__ = ["build_fused_batch_norm"]


@register_kernel(tuple(FUSED_BATCH_NORM_OPS), "GPU")
def build_fused_batch_norm(node):
    return on_device(node, make_fused_batch_norm(cupy, node))
