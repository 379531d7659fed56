"""MatMul on the GPU: cuBLAS through ``cupy.matmul``; Diag, MatrixDeterminant, and the
inverses, solves and decompositions as the host's kernels on cupy (``cupy.linalg``:
cuSOLVER), see ``reference/linalg_solve.py`` and ``reference/linalg_factor.py``.

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

from ..checks import matmul_planner
from ..reference.linalg import determinant_kernel, diag_kernel
from ..reference import linalg_factor, linalg_solve
from ..registry import register_kernel
from .device import on_device

__all__ = ["build_matmul"]


@register_kernel(("MatMul", "SparseMatMul"), "GPU")   # SparseMatMul: sparsity hints only
def build_matmul(node):
    out_dtype = node.output_dtype
    plan = matmul_planner(node, cupy)

    def matmul(a, b):
        out_shape, k, a, b = plan(a, b)         # float16 widened to float32
        if k == 0 or 0 in out_shape:
            return cupy.zeros(out_shape, out_dtype)
        return cupy.matmul(a, b).astype(out_dtype, copy=False)
    return on_device(node, matmul)


# --- TF1 surface (branch tf1): Diag, MatrixDeterminant (the host's kernels, on cupy) -----

@register_kernel("Diag", "GPU")
def build_diag(node):
    return on_device(node, diag_kernel(cupy))


@register_kernel("MatrixDeterminant", "GPU")
def build_determinant(node):
    return on_device(node, determinant_kernel(node, cupy))


# --- inverses, solves and decompositions: the host's kernels on cupy (cuSOLVER) -------------

for _module in (linalg_solve, linalg_factor):
    for _op, _builder in _module.make_builders(cupy, on_device).items():
        register_kernel(_op, "GPU")(_builder)
