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

from ..checks import check_square_matrices, matmul_planner, transposes
from ..registry import register_kernel
from .device import on_device

__all__ = ["build_matmul"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


@register_kernel("MatMul", "GPU")
def build_matmul(node):
    ta, tb = transposes(node)
    out_dtype = node.output_dtype
    widen = out_dtype == _F16
    plan = matmul_planner(node)

    def matmul(a, b):
        out_shape, k = plan(a.shape, b.shape)
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


# --- TF1 surface (branch tf1): Diag, MatrixDeterminant ---------------------------------

@register_kernel("Diag", "GPU")
def build_diag(node):
    def diag(x):
        n = x.size
        out = cupy.zeros((n, n), x.dtype)
        out[cupy.arange(n), cupy.arange(n)] = x.reshape(-1)
        return out.reshape(x.shape + x.shape)
    return on_device(node, diag)


@register_kernel("MatrixDeterminant", "GPU")
def build_determinant(node):
    out_dtype = node.output_dtype

    def determinant(x):
        check_square_matrices(node, x.shape)
        x = x.astype(_F32) if x.dtype == _F16 else x       # as the host kernel
        return cupy.linalg.det(x).astype(out_dtype, copy=False)
    return on_device(node, determinant)
