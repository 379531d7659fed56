"""Reference kernel of MatMul: ``np.matmul`` with TF's transpose attributes; float16 is
computed in float32 and rounded once."""

from __future__ import annotations

import numpy as np

from ..checks import matmul_shape, transposes
from ..registry import register_kernel
from .elementwise import compute_dtype

DEVICE = "REF"


@register_kernel("MatMul", DEVICE)
def build_matmul(node):
    ta, tb = transposes(node)
    out_dtype = node.output_dtype

    def matmul(a, b):
        matmul_shape(node, a.shape, b.shape)
        a2 = np.swapaxes(a, -1, -2) if ta else a
        b2 = np.swapaxes(b, -1, -2) if tb else b
        with np.errstate(all="ignore"):
            result = np.matmul(compute_dtype(a2), compute_dtype(b2))
            return np.asarray(result).astype(out_dtype, copy=False)
    return matmul
