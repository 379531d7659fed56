"""Kernels of Cholesky, Qr, Svd, SelfAdjointEigV2 and LogMatrixDeterminant, written
once over an array module ``xp``: numpy here (LAPACK: registered for the reference
device and the CPU, ``HOST``), cupy in ``cuda/linalg.py`` (cuSOLVER).  Each calls
``xp.linalg`` on the whole batch, with TF's conventions around it:

* Cholesky and SelfAdjointEigV2 read the lower triangle only (the matrix is rebuilt
  symmetric from it, so that no library's choice of triangle matters).  Cholesky of a
  matrix that is not positive definite is TF's InvalidArgumentError (numpy raises
  ``LinAlgError``; cuSOLVER's factor is checked instead, ``factored``); so is an eigen
  decomposition of a matrix with NaN or infinities.
* Svd returns ``(s, u, v)`` with ``v`` = numpy's ``vh`` adjointed; a matrix with a NaN
  or an infinity gives NaN outputs, as TF's kernel; without ``compute_uv``, ``u`` and
  ``v`` are empty vectors (the op's static shape ``[0]``).
* Complex matrices (TF's ``T`` lists complex64 and complex128): Cholesky and
  SelfAdjointEigV2 read a Hermitian matrix from the lower triangle; the eigenvalues,
  singular values and log-determinant are real numbers in the complex dtype, as TF's
  outputs; eigen- and singular vectors are LAPACK's, each column's phase free (as TF
  says, not unique: Eigen may choose another).
* Empty inputs give TF's empty (or identity, for a full ``q``, ``u`` or ``v``) results
  without calling the library.  float16 is computed in float32 and rounded once.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..checks import invalid_argument
from ..linalg_checks import check_matrices, check_square, failing
from ..registry import HOST, register_kernel
from .array import _as_is
from .elementwise import compute_dtype

__all__ = ["cholesky_kernel", "qr_kernel", "svd_kernel", "eig_kernel", "slogdet_kernel",
           "factored", "over", "make_builders"]

CHOLESKY_FAILED = ("Cholesky decomposition was not successful. The input might not be "
                   "valid.")
EIG_FAILED = ("Self-adjoint eigen decomposition was not successful. The input might not "
              "be valid.")


def symmetric_from_lower(xp, a):
    """The symmetric (complex: Hermitian, the diagonal's real part) matrices whose lower
    triangles are ``a``'s."""
    if a.dtype.kind != "c":
        return xp.tril(a) + xp.swapaxes(xp.tril(a, -1), -1, -2)
    strict = xp.tril(a, -1)
    diagonal = xp.real(xp.diagonal(a, axis1=-2, axis2=-1))
    return strict + xp.conj(xp.swapaxes(strict, -1, -2)) + \
        diagonal[..., None] * xp.eye(a.shape[-1], dtype=a.dtype)


def _identities(xp, batch: tuple, rows: int, columns: int, dtype):
    return xp.broadcast_to(xp.eye(rows, columns, dtype=dtype),
                           batch + (rows, columns)).copy()


def cholesky_kernel(node, xp):
    out_dtype = node.output_dtype

    def cholesky(x):
        check_square(node, x.shape)
        if x.size == 0:
            return xp.zeros(x.shape, out_dtype)
        a = symmetric_from_lower(xp, compute_dtype(x))
        with failing(node, CHOLESKY_FAILED):
            factor = xp.linalg.cholesky(a)
        if xp is not np and not factored(xp, a, factor):
            raise invalid_argument(node.name, node.op, CHOLESKY_FAILED)
        return factor.astype(out_dtype, copy=False)
    return cholesky


def factored(xp, a, factor) -> bool:
    """Whether cuSOLVER's ``factor`` is a Cholesky factor of ``a`` (it reports a failure
    only in an info array cupy does not check by default): a positive diagonal, and each
    row's squared norm ``a``'s diagonal element, as ``L Lᵀ = A`` requires."""
    if not bool((xp.real(xp.diagonal(factor, axis1=-2, axis2=-1)) > 0).all()):
        return False
    rows = xp.sum(xp.abs(factor) ** 2, axis=-1)
    diagonal = xp.real(xp.diagonal(a, axis1=-2, axis2=-1))
    tolerance = 1e-3 if a.dtype in (np.float32, np.complex64) else 1e-8
    return bool((xp.abs(rows - diagonal) <= tolerance * xp.abs(diagonal)).all())


def qr_kernel(node, xp):
    out_dtype = node.output_dtype
    full = bool(node.attrs.get("full_matrices", False))

    def qr(x):
        check_matrices(node, x.shape)
        batch, (m, n) = x.shape[:-2], x.shape[-2:]
        if x.size == 0:
            q_columns = m if full else min(m, n)
            return (_identities(xp, batch, m, q_columns, out_dtype),
                    xp.zeros(batch + (m if full else min(m, n), n), out_dtype))
        q, r = xp.linalg.qr(compute_dtype(x), mode="complete" if full else "reduced")
        return q.astype(out_dtype, copy=False), r.astype(out_dtype, copy=False)
    return qr


def svd_kernel(node, xp):
    out_dtype = node.output_dtype
    full = bool(node.attrs.get("full_matrices", False))
    compute_uv = bool(node.attrs.get("compute_uv", True))

    def svd(x):
        check_matrices(node, x.shape)
        batch, (m, n) = x.shape[:-2], x.shape[-2:]
        p = min(m, n)
        if x.size == 0:
            s = xp.zeros(batch + (p,), out_dtype)
            if not compute_uv:
                return s, xp.zeros((0,), out_dtype), xp.zeros((0,), out_dtype)
            return (s, _identities(xp, batch, m, m if full else p, out_dtype),
                    _identities(xp, batch, n, n if full else p, out_dtype))
        a = compute_dtype(x)
        finite = xp.isfinite(a).all(axis=(-2, -1))
        everywhere = bool(finite.all())
        if not everywhere:                  # LAPACK would not converge: NaN, as TF
            a = xp.where(finite[..., None, None], a, xp.zeros((), a.dtype))
        if not compute_uv:
            s = xp.linalg.svd(a, compute_uv=False)
            s = s if everywhere else xp.where(finite[..., None], s, xp.nan)
            return (s.astype(out_dtype, copy=False), xp.zeros((0,), out_dtype),
                    xp.zeros((0,), out_dtype))
        u, s, vh = xp.linalg.svd(a, full_matrices=full)
        v = xp.swapaxes(vh, -1, -2)
        v = xp.conj(v) if v.dtype.kind == "c" else v            # vh is vᴴ
        if not everywhere:
            s = xp.where(finite[..., None], s, xp.nan)
            u = xp.where(finite[..., None, None], u, xp.nan)
            v = xp.where(finite[..., None, None], v, xp.nan)
        return tuple(xp.ascontiguousarray(t).astype(out_dtype, copy=False)
                     for t in (s, u, v))
    return svd


def eig_kernel(node, xp):
    out_dtype = node.output_dtype
    compute_v = bool(node.attrs.get("compute_v", True))

    def eig(x):
        check_square(node, x.shape)
        empty_v = xp.zeros((0,), out_dtype)
        if x.size == 0:
            e = xp.zeros(x.shape[:-1], out_dtype)
            return e, (xp.zeros(x.shape, out_dtype) if compute_v else empty_v)
        a = symmetric_from_lower(xp, compute_dtype(x))
        if not bool(xp.isfinite(a).all()):
            raise invalid_argument(node.name, node.op, EIG_FAILED)
        with failing(node, EIG_FAILED):
            if not compute_v:
                return xp.linalg.eigvalsh(a).astype(out_dtype, copy=False), empty_v
            e, v = xp.linalg.eigh(a)
        return e.astype(out_dtype, copy=False), v.astype(out_dtype, copy=False)
    return eig


def slogdet_kernel(node, xp):
    out_dtype = node.output_dtype

    def slogdet(x):
        check_square(node, x.shape)
        batch = x.shape[:-2]
        if x.size == 0:                    # 0 x 0 matrices: determinant 1
            return xp.ones(batch, out_dtype), xp.zeros(batch, out_dtype)
        with np.errstate(invalid="ignore"):
            sign, log_abs = xp.linalg.slogdet(compute_dtype(x))
        # TF's sign is the product of the pivots' signs: NaN with a NaN pivot, where
        # LAPACK's slogdet keeps 1 beside its NaN log|det|
        sign = xp.where(xp.isnan(log_abs), xp.asarray(np.nan, sign.dtype), sign)
        return (xp.asarray(sign).astype(out_dtype, copy=False),
                xp.asarray(log_abs).astype(out_dtype, copy=False))
    return slogdet


def over(xp, wrap: Callable, kernel: Callable) -> Callable:
    """A builder of ``kernel(node, xp)``, wrapped by ``wrap(node, fn)``."""
    return lambda node: wrap(node, kernel(node, xp))


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The builders over array module ``xp`` (numpy here, cupy in ``cuda/linalg.py``);
    ``wrap(node, fn)`` wraps each kernel (the GPU's ``on_device``)."""
    kernels = {"Cholesky": cholesky_kernel, "Qr": qr_kernel, "Svd": svd_kernel,
               "SelfAdjointEigV2": eig_kernel, "LogMatrixDeterminant": slogdet_kernel}
    return {op: over(xp, wrap, kernel) for op, kernel in kernels.items()}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
