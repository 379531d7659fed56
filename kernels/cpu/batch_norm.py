"""The fused batch norms on the CPU: the reference's numpy formulas
(``reference/batch_norm.py``); a few passes over the input at memory speed, no numba."""

from __future__ import annotations

import numpy as np

from ...ops.nn_batch_norm import FUSED_BATCH_NORM_OPS
from ..reference.batch_norm import make_fused_batch_norm
from ..registry import register_kernel

__all__ = ["build_fused_batch_norm"]


@register_kernel(tuple(FUSED_BATCH_NORM_OPS), "CPU")
def build_fused_batch_norm(node):
    return make_fused_batch_norm(np, node)
