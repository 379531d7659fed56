"""Kernels of MatrixSquareRoot and MatrixLogarithm (``ops/linalg_sqrtm.py``) on the
host.  TF's kernels call Eigen's Schur-based ``sqrt()`` and ``log()``; numpy has no
Schur decomposition, so these diagonalise instead, matrix by matrix: ``A = V diag(w)
V⁻¹`` and ``f(A) = V diag(f(w)) V⁻¹`` with the principal branches (``sqrt`` and ``log``
of ``w`` as complex numbers).  That is the same matrix for every diagonalisable input.
Where ``V`` is ill-conditioned (near a Jordan block) the square root comes from the
Denman-Beavers iteration and the logarithm from inverse scaling and squaring, which
need no eigenvectors (but no eigenvalue on the closed negative real axis: a defective
matrix with one there stays with the eigenvectors, less accurately than Eigen).

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

__all__ = ["sqrtm_kernel", "logm_kernel", "apply_to_eigenvalues", "sqrtm_iterative",
           "logm_iterative"]


# Eigenvector matrices worse conditioned than this (a matrix near a Jordan block) are
# not trusted: the iterations below are used instead where they apply.
_ILL_CONDITIONED = 1e6


def _on_negative_axis(w) -> bool:
    return bool(((np.abs(w.imag) <= 1e-12 * np.abs(w)) & (w.real <= 0)).any())


def sqrtm_iterative(a: np.ndarray) -> np.ndarray:
    """The principal square root by the Denman-Beavers iteration (product form,
    Higham's "Functions of Matrices" (6.17)): for matrices without eigenvalues on the
    closed negative real axis, defective ones included."""
    eye = np.eye(a.shape[-1], dtype=a.dtype)
    x, m = a.astype(a.dtype, copy=True), a.astype(a.dtype, copy=True)
    for _ in range(100):
        m_inv = np.linalg.inv(m)
        x = x @ (eye + m_inv) / 2
        m = (eye + (m + m_inv) / 2) / 2
        if np.abs(m - eye).max() <= 4 * np.finfo(a.dtype).eps:
            break
    return x


def logm_iterative(a: np.ndarray) -> np.ndarray:
    """The principal logarithm by inverse scaling and squaring: square roots until
    ``‖A - I‖ <= 1/4``, then the series of ``log(I + X)``, times ``2**k``."""
    eye = np.eye(a.shape[-1], dtype=a.dtype)
    k = 0
    while np.abs(a - eye).sum(axis=0).max() > 0.25 and k < 64:
        a, k = sqrtm_iterative(a), k + 1
    x = a - eye
    total, term = np.zeros_like(a), eye
    for j in range(1, 200):
        term = term @ x
        step = term * ((-1) ** (j + 1) / j)
        total = total + step
        if np.abs(step).max() <= np.finfo(a.dtype).eps * max(np.abs(total).max(), 1e-300):
            break
    return total * 2.0 ** k


def apply_to_eigenvalues(a: np.ndarray, f, nan_when, iterative) -> np.ndarray:
    """``V f(w) V⁻¹`` for one square matrix ``a`` (all NaN when ``nan_when(w)``), or
    ``iterative(a)`` when ``V`` is ill-conditioned and no eigenvalue lies on the closed
    negative real axis (where the iterations do not converge)."""
    w, v = np.linalg.eig(a)
    if not np.isfinite(w).all() or nan_when(w):
        return np.full(a.shape, np.nan, dtype=np.result_type(a.dtype, np.complex64))
    if np.linalg.cond(v) > _ILL_CONDITIONED and not _on_negative_axis(w):
        return iterative(a.astype(np.result_type(a.dtype, np.complex64)))
    return (v * f(w.astype(complex))[None, :]) @ np.linalg.inv(v)


def _sqrt_nan(real: bool):
    def nan_when(w):
        negative = real and bool(((w.imag == 0) & (w.real < 0)).any())
        return negative or int((w == 0).sum()) > 1
    return nan_when


def _kernel(node, f, nan_when_of, iterative):
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
        out = np.stack([apply_to_eigenvalues(m, f, nan_when_of(real), iterative)
                        for m in flat])
        out = out.real if real else out
        return out.reshape(x.shape).astype(out_dtype, copy=False)
    return matrix_function


def sqrtm_kernel(node):
    return _kernel(node, np.sqrt, _sqrt_nan, sqrtm_iterative)


def logm_kernel(node):
    return _kernel(node, np.log, lambda real: lambda w: bool((w == 0).any()),
                   logm_iterative)


register_kernel("MatrixSquareRoot", HOST)(sqrtm_kernel)
register_kernel("MatrixLogarithm", HOST)(logm_kernel)
