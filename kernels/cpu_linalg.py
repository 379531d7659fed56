"""MatMul on the CPU: BLAS through ``np.matmul`` with a preallocated ``out``.

A hand-written numba loop would be an order of magnitude slower than a tuned BLAS
(sgemm/dgemm blocking, packing, SIMD, threads), so this is the one math kernel that is
not numba-compiled.  ``transpose_a``/``transpose_b`` swap the last two axes as views:
numpy hands transposed-contiguous operands to BLAS as ``'T'`` without copying.  Batch
dimensions broadcast like ``np.matmul``.  float16 is computed in float32 (numpy has no
half-precision BLAS; TF's CPU kernel does the same) and rounded once; integer matmul
uses numpy's own loops and wraps like TF's.
"""

from __future__ import annotations

import numpy as np

from ._checks import broadcast_shape, fmt_shape, invalid_argument, to_float16
from .registry import register_kernel

__all__ = ["build_matmul", "register"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def build_matmul(node):
    ta, tb = bool(node.attrs.get("transpose_a")), bool(node.attrs.get("transpose_b"))
    out_dtype = node.output_dtype
    widen = out_dtype == _F16
    compute_dtype = _F32 if widen else out_dtype
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
        batch = broadcast_shape(node.name, node.op, [a_shape[:-2], b_shape[:-2]])
        return batch + (m, n)

    def matmul(a, b):
        key = (a.shape, b.shape)
        out_shape = plans.get(key)
        if out_shape is None:
            out_shape = plans[key] = plan(a.shape, b.shape)
        if ta:
            a = np.swapaxes(a, -1, -2)
        if tb:
            b = np.swapaxes(b, -1, -2)
        if widen:
            a, b = a.astype(_F32), b.astype(_F32)
        out = np.empty(out_shape, compute_dtype)
        np.matmul(a, b, out=out)
        return to_float16(out) if widen else out
    return matmul


def register(device_type: str = "CPU") -> None:
    register_kernel("MatMul", device_type)(build_matmul)
