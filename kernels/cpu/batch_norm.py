"""The fused batch norms on the CPU: the reference's numpy formulas
(``reference/batch_norm.py``); a few passes over the input at memory speed, no numba."""

from __future__ import annotations

import numpy as np

from ...ops.nn_batch_norm import FUSED_BATCH_NORM_OPS
from ...ops.nn_batch_norm_backprop import FUSED_BATCH_NORM_GRAD_OPS
from ..reference.batch_norm import make_fused_batch_norm, make_fused_batch_norm_grad
from ..registry import register_kernel

__all__ = ["build_fused_batch_norm", "build_fused_batch_norm_grad"]


@register_kernel(tuple(FUSED_BATCH_NORM_OPS), "CPU")
def build_fused_batch_norm(node):
    return make_fused_batch_norm(np, node)


@register_kernel(tuple(FUSED_BATCH_NORM_GRAD_OPS), "CPU")
def build_fused_batch_norm_grad(node):
    return make_fused_batch_norm_grad(np, node)
