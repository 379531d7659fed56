"""Kernels of TridiagonalSolve and TridiagonalMatMul (``ops/linalg_tridiagonal.py``) on
the host, TF's CPU algorithms vectorised over the batch (one step per row):

* with ``partial_pivoting``, Gaussian elimination as LAPACK's ``gtsv``: at row ``i`` the
  rows ``i`` and ``i + 1`` are swapped when the subdiagonal entry is larger in magnitude
  than the pivot; ``U`` then has two superdiagonals, and back substitution reads them.
* without, the Thomas algorithm.

A zero pivot makes that system's solution NaN (TF logs "The matrix is not invertible"
and fills NaN; the other systems of the batch are unaffected).  With
``perturb_singular``, TF's LAPACK ``xLAGTF``/``xLAGTS`` variant, one system at a time:
pivoting by scaled magnitudes, and tiny pivots perturbed by about ``eps * max|U|``
instead of failing (for inverse iteration on a singular ``T - λI``).  The batch dimensions of
the diagonals and the right-hand sides must be equal, as TF's kernel requires.
"""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["solve_kernel", "matmul_kernel", "solve_pivoting", "solve_thomas",
           "solve_perturbed"]


def solve_pivoting(sup, diag, sub, rhs):
    """``gtsv`` over a batch: ``sup, diag, sub`` ``[B, M]``, ``rhs`` ``[B, M, K]``; returns
    ``(x, singular [B])``."""
    b, n = diag.shape
    u = np.zeros((b, n, 3), dtype=np.result_type(diag, rhs))
    x = np.array(rhs, dtype=u.dtype, copy=True)
    singular = np.zeros(b, dtype=bool)
    u[:, 0, 0], u[:, 0, 1] = diag[:, 0], sup[:, 0]
    for i in range(n - 1):
        keep = np.abs(u[:, i, 0]) >= np.abs(sub[:, i + 1])
        singular |= keep & (u[:, i, 0] == 0)
        swap = ~keep
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(keep, sub[:, i + 1] / np.where(keep, u[:, i, 0], 1),
                         u[:, i, 0] / np.where(swap, sub[:, i + 1], 1))
        last = i == n - 2
        next_x = np.where(keep[:, None], rhs[:, i + 1] - f[:, None] * x[:, i],
                          x[:, i] - f[:, None] * rhs[:, i + 1])
        x[:, i] = np.where(keep[:, None], x[:, i], rhs[:, i + 1])
        x[:, i + 1] = next_x
        u_next0 = np.where(keep, diag[:, i + 1] - f * u[:, i, 1],
                           u[:, i, 1] - f * diag[:, i + 1])
        u[:, i, 0] = np.where(keep, u[:, i, 0], sub[:, i + 1])
        u[:, i, 1] = np.where(keep, u[:, i, 1], diag[:, i + 1])
        u[:, i + 1, 0] = u_next0
        if not last:
            u[:, i + 1, 1] = np.where(keep, sup[:, i + 1], -f * sup[:, i + 1])
            u[:, i, 2] = np.where(keep, 0, sup[:, i + 1])
    singular |= u[:, n - 1, 0] == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        x[:, n - 1] /= u[:, n - 1, 0, None]
        if n > 1:
            x[:, n - 2] = (x[:, n - 2] - u[:, n - 2, 1, None] * x[:, n - 1]) / \
                u[:, n - 2, 0, None]
        for i in range(n - 3, -1, -1):
            x[:, i] = (x[:, i] - u[:, i, 1, None] * x[:, i + 1]
                       - u[:, i, 2, None] * x[:, i + 2]) / u[:, i, 0, None]
    return x, singular


def solve_thomas(sup, diag, sub, rhs):
    """The Thomas algorithm over a batch (no pivoting); ``(x, singular [B])``."""
    b, n = diag.shape
    dtype = np.result_type(diag, rhs)
    u = np.zeros((b, n), dtype=dtype)
    x = np.zeros(rhs.shape, dtype=dtype)
    singular = diag[:, 0] == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        u[:, 0] = sup[:, 0] / diag[:, 0]
        x[:, 0] = rhs[:, 0] / diag[:, 0, None]
        for i in range(1, n):
            denom = diag[:, i] - sub[:, i] * u[:, i - 1]
            singular |= denom == 0
            u[:, i] = sup[:, i] / denom
            x[:, i] = (rhs[:, i] - sub[:, i, None] * x[:, i - 1]) / denom[:, None]
        for i in range(n - 2, -1, -1):
            x[:, i] -= u[:, i, None] * x[:, i + 1]
    return x, singular


def _perturbed_pivot(perturb, pivot, row, safemin):
    """TF's ``MaybePerturbPivot`` (from LAPACK's ``xLAGTS``): a pivot below one is moved
    away from zero by ``perturb`` (doubling) until neither ``row / pivot`` nor ``1 /
    pivot`` overflows, or scaled up with its row when it is tiny; ``(pivot, row)``."""
    abs_pivot = abs(pivot)
    if abs_pivot >= 1:
        return pivot, row
    perturb = np.copysign(max(abs(perturb), safemin), np.real(pivot))
    bignum = 1 / safemin
    max_factor = float(np.abs(row).max()) if row.size else 0.0
    while abs_pivot < 1:
        if abs_pivot < safemin:
            if abs_pivot == 0 or max_factor * safemin > abs_pivot:
                pivot, perturb = pivot + perturb, perturb * 2
            else:
                return pivot * bignum, row * bignum
        elif max_factor > abs_pivot * bignum:
            pivot, perturb = pivot + perturb, perturb * 2
        else:
            break
        abs_pivot = abs(pivot)
    return pivot, row


def solve_perturbed(sup, diag, sub, rhs):
    """One system by TF's ``SolveWithGaussianEliminationWithPivotingAndPerturbSingular``
    (LAPACK's ``xLAGTF`` + ``xLAGTS``): rows swapped by their scaled pivots, and the
    pivots of ``U`` perturbed on the scale of ``eps * max|U|`` instead of failing."""
    n = diag.shape[0]
    info = np.finfo(diag.dtype)
    eps, safemin = float(info.eps), float(info.tiny)
    x = np.array(rhs, copy=True)
    if n == 1:
        pivot, row = _perturbed_pivot(eps * abs(diag[0]), diag[0], x[0], safemin)
        return (row * (1 / pivot))[None]
    u = np.zeros((n, 3), dtype=diag.dtype)
    u[0, 0], u[0, 1] = diag[0], sup[0]
    max_abs_u = max(abs(u[0, 0]), abs(u[0, 1]))
    scale1 = abs(u[0, 0]) + abs(u[0, 1])
    for k in range(n - 1):
        u[k + 1, 0] = diag[k + 1]
        scale2 = abs(sub[k + 1]) + abs(u[k + 1, 0]) + (abs(sup[k + 1]) if k < n - 2 else 0)
        if sub[k + 1] == 0:
            scale1 = scale2
            u[k + 1, 1], u[k, 2] = sup[k + 1], 0
            x[k + 1] = rhs[k + 1]
        else:
            piv1 = 0.0 if u[k, 0] == 0 else abs(u[k, 0]) / scale1
            piv2 = abs(sub[k + 1]) / scale2
            if piv2 <= piv1:
                scale1 = scale2
                factor = sub[k + 1] / u[k, 0]
                u[k + 1, 0] = diag[k + 1] - factor * u[k, 1]
                u[k + 1, 1], u[k, 2] = sup[k + 1], 0
                x[k + 1] = rhs[k + 1] - factor * x[k]
            else:
                factor = u[k, 0] / sub[k + 1]
                u[k, 0] = sub[k + 1]
                u[k + 1, 0] = u[k, 1] - factor * diag[k + 1]
                u[k, 1] = diag[k + 1]
                if k < n - 2:
                    u[k, 2] = sup[k + 1]
                    u[k + 1, 1] = -factor * sup[k + 1]
                x[k + 1] = x[k] - factor * rhs[k + 1]
                x[k] = rhs[k + 1]
        if k < n - 2:
            max_abs_u = max(max_abs_u, *np.abs(u[k]))
    max_abs_u = max(max_abs_u, abs(u[n - 1, 0]))
    tol = eps * max_abs_u
    pivot, row = _perturbed_pivot(tol, u[n - 1, 0], x[n - 1], safemin)
    x[n - 1] = row * (1 / pivot)
    for k in range(n - 2, -1, -1):
        row = x[k] - u[k, 1] * x[k + 1] - (u[k, 2] * x[k + 2] if k < n - 2 else 0)
        pivot, row = _perturbed_pivot(np.copysign(tol, np.real(u[k, 0])), u[k, 0], row,
                                      safemin)
        x[k] = row * (1 / pivot)
    return x


def solve_kernel(node):
    pivoting = bool(node.attrs.get("partial_pivoting", True))
    perturb = bool(node.attrs.get("perturb_singular", False))
    out_dtype = node.output_dtype

    def tridiagonal_solve(diagonals, rhs):
        if diagonals.ndim < 2 or rhs.ndim < 2:
            raise invalid_argument(node.name, node.op, "Input must have rank >= 2, but got "
                                   f"{min(diagonals.ndim, rhs.ndim)}")
        if diagonals.shape[-2] != 3:
            raise invalid_argument(node.name, node.op, "Expected diagonals to be provided as "
                                   "a tensor of with 3 rows")
        if diagonals.shape[:-2] != rhs.shape[:-2]:
            raise invalid_argument(node.name, node.op, "Batch shapes of diagonals and rhs "
                                   "are incompatible")
        n = diagonals.shape[-1]
        if rhs.shape[-2] != n:
            raise invalid_argument(node.name, node.op, f"Expected {n} rows in rhs, got "
                                   f"{rhs.shape[-2]}")
        if rhs.size == 0 or n == 0:
            return np.zeros(rhs.shape, out_dtype)
        flat = diagonals.reshape((-1, 3, n))
        system = (flat[:, 0], flat[:, 1], flat[:, 2], rhs.reshape((-1, n, rhs.shape[-1])))
        if perturb:
            x = np.stack([solve_perturbed(*(part[b] for part in system))
                          for b in range(flat.shape[0])])
            return x.reshape(rhs.shape).astype(out_dtype, copy=False)
        x, singular = (solve_pivoting if pivoting else solve_thomas)(*system)
        x[singular] = np.nan
        return x.reshape(rhs.shape).astype(out_dtype, copy=False)
    return tridiagonal_solve


def matmul_kernel(node):
    out_dtype = node.output_dtype

    def tridiagonal_matmul(superdiag, maindiag, subdiag, rhs):
        n = rhs.shape[-2]
        for d in (superdiag, maindiag, subdiag):
            if d.shape[-1] != n:
                raise invalid_argument(node.name, node.op, f"Expected diagonals to have "
                                       f"{n} columns, got {d.shape[-1]}")
        out = maindiag[..., 0, :, None] * rhs
        if n > 1:
            out[..., :-1, :] += superdiag[..., 0, :-1, None] * rhs[..., 1:, :]
            out[..., 1:, :] += subdiag[..., 0, 1:, None] * rhs[..., :-1, :]
        return out.astype(out_dtype, copy=False)
    return tridiagonal_matmul


register_kernel("TridiagonalSolve", HOST)(solve_kernel)
register_kernel("TridiagonalMatMul", HOST)(matmul_kernel)
