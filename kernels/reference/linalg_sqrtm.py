"""Kernels of MatrixSquareRoot and MatrixLogarithm (``ops/linalg_sqrtm.py``) on the
host.  TF's kernels call Eigen's Schur-based ``sqrt()`` and ``log()``; numpy has no
Schur decomposition, so these diagonalise instead, matrix by matrix: ``A = V diag(w)
V⁻¹`` and ``f(A) = V diag(f(w)) V⁻¹`` with the principal branches (``sqrt`` and ``log``
of ``w`` as complex numbers).  That is the same matrix for every diagonalisable input;
a defective one (a Jordan block) is computed less accurately than Eigen does.

Where Eigen's triangular recurrences give NaN, the result is NaN everywhere, as TF's:
a real input with a negative real eigenvalue (no real square root), and a repeated zero
eigenvalue (0 / 0 in the recurrence; the logarithm: any zero eigenvalue).  A real input
gets the real part of the product (its imaginary part is rounding).  Empty inputs give
empty outputs; float16 has no kernel in TF.
"""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..linalg_checks import check_square
from ..registry import HOST, register_kernel

__all__ = ["sqrtm_kernel", "logm_kernel", "apply_to_eigenvalues"]


def apply_to_eigenvalues(a: np.ndarray, f, nan_when) -> np.ndarray:
    """``V f(w) V⁻¹`` for one square matrix ``a``; all NaN when ``nan_when(w)``."""
    w, v = np.linalg.eig(a)
    if not np.isfinite(w).all() or nan_when(w):
        return np.full(a.shape, np.nan, dtype=np.result_type(a.dtype, np.complex64))
    return (v * f(w.astype(complex))[None, :]) @ np.linalg.inv(v)


def _sqrt_nan(real: bool):
    def nan_when(w):
        negative = real and bool(((w.imag == 0) & (w.real < 0)).any())
        return negative or int((w == 0).sum()) > 1
    return nan_when


def _kernel(node, f, nan_when_of):
    out_dtype = node.output_dtype

    def matrix_function(x):
        check_square(node, x.shape)
        if x.dtype == np.float16:
            raise invalid_argument(node.name, node.op, (
                f"No OpKernel was registered to support Op '{node.op}' used by {{{{node "
                f"{node.name}}}}} with these attrs: [T=DT_HALF]"))
        if x.size == 0:
            return np.zeros(x.shape, out_dtype)
        n = x.shape[-1]
        real = x.dtype.kind == "f"
        flat = x.reshape((-1, n, n))   # a real matrix's real eigenvalues: exactly real
        out = np.stack([apply_to_eigenvalues(m, f, nan_when_of(real)) for m in flat])
        out = out.real if real else out
        return out.reshape(x.shape).astype(out_dtype, copy=False)
    return matrix_function


def sqrtm_kernel(node):
    return _kernel(node, np.sqrt, _sqrt_nan)


def logm_kernel(node):
    return _kernel(node, np.log, lambda real: lambda w: bool((w == 0).any()))


register_kernel("MatrixSquareRoot", HOST)(sqrtm_kernel)
register_kernel("MatrixLogarithm", HOST)(logm_kernel)
