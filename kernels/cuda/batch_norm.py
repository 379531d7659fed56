"""The fused batch norms on the GPU: the reference's formulas over cupy
(``reference/batch_norm.py``): cupy's reductions and elementwise kernels."""

from __future__ import annotations

import cupy

from ...ops.nn_batch_norm import FUSED_BATCH_NORM_OPS
from ...ops.nn_batch_norm_backprop import FUSED_BATCH_NORM_GRAD_OPS
from ..reference.batch_norm import make_fused_batch_norm, make_fused_batch_norm_grad
from ..registry import register_kernel
from .device import on_device

__all__ = ["build_fused_batch_norm", "build_fused_batch_norm_grad"]


@register_kernel(tuple(FUSED_BATCH_NORM_OPS), "GPU")
def build_fused_batch_norm(node):
    return on_device(node, make_fused_batch_norm(cupy, node))


@register_kernel(tuple(FUSED_BATCH_NORM_GRAD_OPS), "GPU")
def build_fused_batch_norm_grad(node):
    return on_device(node, make_fused_batch_norm_grad(cupy, node))
