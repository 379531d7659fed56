"""Reference kernels of MatMul (``np.matmul`` with TF's transpose attributes; float16 is
computed in float32 and rounded once), Diag and MatrixDeterminant; the inverses and
solves (``linalg_solve.py``) and decompositions (``linalg_factor.py``) have modules of
their own."""

from __future__ import annotations

import numpy as np

from ..checks import check_square_matrices, matmul_shape, transposes
from ..registry import HOST, register_kernel
from .elementwise import compute_dtype

DEVICE = "REF"


@register_kernel(("MatMul", "SparseMatMul"), DEVICE)   # SparseMatMul: sparsity hints only
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


# --- TF1 surface (branch tf1): Diag, MatrixDeterminant ---------------------------------
# numpy serves the CPU too (``HOST``): Diag only moves values; the determinant is LAPACK's
# LU (numpy's), float16 computed in float32.

def diag_kernel(xp):
    """Diag on array module ``xp`` (numpy here, cupy in ``cuda/linalg.py``): ``x``'s
    values on the diagonal of a ``shape + shape`` array of zeros."""
    def diag(x):
        n = x.size
        out = xp.zeros((n, n), x.dtype)
        out[xp.arange(n), xp.arange(n)] = x.reshape(-1)
        return out.reshape(x.shape + x.shape)
    return diag


def determinant_kernel(node, xp):
    """MatrixDeterminant on array module ``xp`` (LU: LAPACK's or cuSOLVER's, which have
    no float16); a NaN in a matrix gives its NaN, without numpy's warning."""
    out_dtype = node.output_dtype

    def determinant(x):
        check_square_matrices(node, x.shape)
        with np.errstate(invalid="ignore"):
            out = xp.linalg.det(compute_dtype(x))
        return xp.asarray(out).astype(out_dtype, copy=False)
    return determinant


@register_kernel("Diag", HOST)
def build_diag(node):
    return diag_kernel(np)


@register_kernel("MatrixDeterminant", HOST)
def build_determinant(node):
    return determinant_kernel(node, np)
