"""MatMul on the GPU: cuBLAS through ``cupy.matmul``.

``transpose_a``/``transpose_b`` swap the last two axes as views; cupy hands transposed
operands to cuBLAS with the transpose flag instead of copying them.  Batch dimensions
broadcast like ``np.matmul``.  float32 runs in full float32 (cupy uses TF32 only when
``CUPY_TF32=1`` is set, which would change the results).  float16 is computed in
float32 and rounded once, as the CPU and REF kernels do, so the three devices agree;
integer matmul uses cupy's own kernel and wraps like numpy.  An empty inner dimension
gives zeros without calling cuBLAS.
"""

from __future__ import annotations

import cupy
import numpy as np

from ._checks import broadcast_shape, fmt_shape, invalid_argument
from .cuda_device import on_device
from .registry import register_kernel

__all__ = ["build_matmul", "register"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def build_matmul(node):
    ta, tb = bool(node.attrs.get("transpose_a")), bool(node.attrs.get("transpose_b"))
    out_dtype = node.output_dtype
    widen = out_dtype == _F16
    plans: dict[tuple, tuple] = {}

    def plan(a_shape, b_shape):
        if len(a_shape) < 2 or len(b_shape) < 2:
            raise invalid_argument(node.name, node.op, f"inputs must have rank >= 2, got "
                                   f"shapes {fmt_shape(a_shape)} and {fmt_shape(b_shape)}")
        m, k = (a_shape[-1], a_shape[-2]) if ta else (a_shape[-2], a_shape[-1])
        k2, n = (b_shape[-1], b_shape[-2]) if tb else (b_shape[-2], b_shape[-1])
        if k != k2:
            raise invalid_argument(
                node.name, node.op, f"matrix size-incompatible: In[0]: {fmt_shape(a_shape)}, "
                f"In[1]: {fmt_shape(b_shape)} (transpose_a={ta}, transpose_b={tb})")
        batch = tuple(broadcast_shape(node.name, node.op, [a_shape[:-2], b_shape[:-2]]))
        return batch + (m, n), k

    def matmul(a, b):
        key = (a.shape, b.shape)
        planned = plans.get(key)
        if planned is None:
            planned = plans[key] = plan(a.shape, b.shape)
        out_shape, k = planned
        if k == 0 or 0 in out_shape:
            return cupy.zeros(out_shape, out_dtype)
        if ta:
            a = cupy.swapaxes(a, -1, -2)
        if tb:
            b = cupy.swapaxes(b, -1, -2)
        if widen:
            return cupy.matmul(a.astype(_F32), b.astype(_F32)).astype(_F16)
        return cupy.matmul(a, b)
    return on_device(node, matmul)


def register(device_type: str = "GPU") -> None:
    register_kernel("MatMul", device_type)(build_matmul)
