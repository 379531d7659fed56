"""Kernels of MatrixInverse, MatrixSolve, MatrixTriangularSolve and MatrixSolveLs,
written once over an array module ``xp``: numpy here (LAPACK: registered for the
reference device and the CPU, ``HOST``, since numba would only call LAPACK too), cupy in
``cuda/linalg.py`` (cuSOLVER).

* Inverse and solve are LU with partial pivoting (``xp.linalg.inv``/``solve`` over the
  whole batch); ``adjoint`` takes the matrix's conjugate transpose first.  Complex
  matrices as real ones (TF's ``T`` lists complex64 and complex128).
* The triangular solve reads the chosen triangle only (``tril``/``triu``) and solves it
  with ``xp.linalg.solve``; a zero on its diagonal is TF1's "not invertible" error.  A
  triangle with a NaN or inf is solved by substitution on the host, as TF's (Eigen's).
* MatrixSolveLs is TF's kernel: with ``fast``, the normal equations ``(AᵀA + λI) x =
  Aᵀb`` (``x = Aᵀ (AAᵀ + λI)⁻¹ b`` when M < N), refused as TF when their Cholesky fails;
  without, ``lstsq``'s minimum-norm solution, matrix by matrix.
* float16 is computed in float32 and rounded once.  Empty matrices give empty (or zero)
  results without calling the library.  numpy raises ``LinAlgError`` for an exactly
  singular matrix; cuSOLVER returns infinities or NaN, so a non-finite result from a
  finite input is the same error there (``_check_finite``).  On the host a matrix with a
  NaN or inf gets TF's (Eigen's) verdict too (``_check_pivots``): numpy's LAPACK would
  return NaN where TF refuses a NaN first pivot.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..checks import invalid_argument
from ..linalg_checks import check_solver, check_square, failing
from ..registry import HOST, register_kernel
from .array import _as_is, on_host
from .elementwise import compute_dtype
from .linalg_factor import factored, over
from .linalg_lu import lu_factor, pivots_fail

__all__ = ["inverse_kernel", "solve_kernel", "triangular_solve_kernel", "solve_ls_kernel",
           "make_builders"]

NOT_INVERTIBLE = "Input matrix is not invertible."


def adjoint(xp, a):
    """The conjugate transpose of the last two axes (of real matrices, the transpose)."""
    swapped = xp.swapaxes(a, -1, -2)
    return xp.conj(swapped) if swapped.dtype.kind == "c" else swapped


def _check_finite(node, xp, inputs, out, message: str) -> None:
    """cuSOLVER's sign of a singular matrix: finite inputs, a non-finite result."""
    if xp is not np and out.size and not bool(xp.isfinite(out).all()) \
            and all(bool(xp.isfinite(x).all()) for x in inputs):
        raise invalid_argument(node.name, node.op, message)


def _check_pivots(node, xp, a, message: str) -> None:
    """TF's refusal of a host matrix batch ``a`` with NaN or inf entries, as Eigen's
    ``PartialPivLU`` pivots it (``linalg_lu.pivots_fail``); finite matrices are left to
    LAPACK's ``LinAlgError``."""
    if xp is not np or a.size == 0 or bool(np.isfinite(a).all()):
        return
    n = a.shape[-1]
    with np.errstate(invalid="ignore"):
        factors, _ = lu_factor(a.reshape((-1, n, n)))
    if pivots_fail(factors):
        raise invalid_argument(node.name, node.op, message)


def inverse_kernel(node, xp):
    out_dtype = node.output_dtype
    transpose = bool(node.attrs.get("adjoint", False))

    def inverse(x):
        check_square(node, x.shape)
        if x.size == 0:
            return xp.zeros(x.shape, out_dtype)
        a = compute_dtype(x)
        a = adjoint(xp, a) if transpose else a
        _check_pivots(node, xp, a, "Input is not invertible.")
        with failing(node, "Input is not invertible."):
            out = xp.linalg.inv(a)
        _check_finite(node, xp, (a,), out, "Input is not invertible.")
        return out.astype(out_dtype, copy=False)
    return inverse


def _solve_with(node, xp, a, b):
    """``xp.linalg.solve`` of a batch, TF's error for a singular matrix."""
    if a.shape[-1] == 0 or b.size == 0:
        return xp.zeros(b.shape, b.dtype)
    with failing(node, NOT_INVERTIBLE):
        out = xp.linalg.solve(a, b)
    _check_finite(node, xp, (a, b), out, NOT_INVERTIBLE)
    return out


def solve_kernel(node, xp):
    out_dtype = node.output_dtype
    transpose = bool(node.attrs.get("adjoint", False))

    def solve(matrix, rhs):
        check_solver(node, matrix.shape, rhs.shape)
        a, b = compute_dtype(matrix), compute_dtype(rhs)
        a = adjoint(xp, a) if transpose else a
        _check_pivots(node, xp, a, NOT_INVERTIBLE)
        return _solve_with(node, xp, a, b).astype(out_dtype, copy=False)
    return solve


def triangular_solve_kernel(node, xp):
    out_dtype = node.output_dtype
    lower = bool(node.attrs.get("lower", True))
    transpose = bool(node.attrs.get("adjoint", False))

    def triangular_solve(matrix, rhs):
        check_solver(node, matrix.shape, rhs.shape)
        a, b = compute_dtype(matrix), compute_dtype(rhs)
        if b.size == 0 or a.shape[-1] == 0:
            return xp.zeros(b.shape, out_dtype)
        triangle = xp.tril(a) if lower else xp.triu(a)
        diagonal = xp.diagonal(triangle, axis1=-2, axis2=-1)
        if not bool((diagonal != 0).all()):
            raise invalid_argument(node.name, node.op, NOT_INVERTIBLE)
        triangle = adjoint(xp, triangle) if transpose else triangle
        if xp is np and not bool(np.isfinite(triangle).all()):
            return _substitute(triangle, b, lower != transpose).astype(out_dtype, copy=False)
        return _solve_with(node, xp, triangle, b).astype(out_dtype, copy=False)
    return triangular_solve


def _substitute(triangle, b, lower: bool):
    """Forward (``lower``) or back substitution, row by row over the batch, as Eigen's
    triangular solve computes it: a NaN or inf in the triangle reaches only the rows that
    read it (``xp.linalg.solve`` pivots and would spread it, or hide it)."""
    n = triangle.shape[-1]
    x = np.zeros(np.broadcast_shapes(triangle.shape[:-2], b.shape[:-2]) + b.shape[-2:],
                 np.result_type(triangle, b))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for i in (range(n) if lower else range(n - 1, -1, -1)):
            done = slice(0, i) if lower else slice(i + 1, n)
            known = np.matmul(triangle[..., i:i + 1, done], x[..., done, :])
            x[..., i, :] = (b[..., i, :] - known[..., 0, :]) / triangle[..., i, i, None]
    return x


def solve_ls_kernel(node, xp):
    out_dtype = node.output_dtype
    fast = bool(node.attrs.get("fast", True))

    def solve_ls(matrix, rhs, l2_regularizer):
        check_solver(node, matrix.shape, rhs.shape, square=False)
        l2 = on_host(l2_regularizer)
        if l2.ndim != 0:
            raise invalid_argument(node.name, node.op, f"l2_regularizer must be scalar, got "
                                                       f"shape {list(l2.shape)}")
        l2 = float(l2)
        if not l2 >= 0:
            raise invalid_argument(node.name, node.op, "l2_regularizer must be >= 0.")
        a, b = compute_dtype(matrix), compute_dtype(rhs)
        m, n = a.shape[-2:]
        out_shape = a.shape[:-2] + (n, b.shape[-1])
        if 0 in (m, n) or b.size == 0:
            return xp.zeros(out_shape, out_dtype)
        if fast:
            return _normal_equations(node, xp, a, b, l2).astype(out_dtype, copy=False)
        out = xp.empty(out_shape, a.dtype)
        flat_a, flat_b = a.reshape((-1, m, n)), b.reshape((-1, m, b.shape[-1]))
        flat_out = out.reshape((-1, n, b.shape[-1]))
        for i in range(flat_a.shape[0]):
            flat_out[i] = xp.linalg.lstsq(flat_a[i], flat_b[i], rcond=None)[0]
        return out.astype(out_dtype, copy=False)
    return solve_ls


def _normal_equations(node, xp, a, b, l2: float):
    """TF's fast path: the regularised Gram matrix, its Cholesky factor (TF's error
    when it fails), then the solve."""
    m, n = a.shape[-2:]
    over = m >= n
    at = adjoint(xp, a)
    gram = xp.matmul(at, a) if over else xp.matmul(a, at)
    if l2 > 0:
        gram = gram + l2 * xp.eye(gram.shape[-1], dtype=gram.dtype)
    hint = "Try setting fast=False or provide a larger l2_regularizer > 0." if over else \
        "Try setting fast=False or provide an l2_regularizer > 0."
    message = f"Input matrix was rank deficient or ill-conditioned. {hint}"
    with failing(node, message):
        factor = xp.linalg.cholesky(gram)
    if xp is not np and not factored(xp, gram, factor):      # cuSOLVER's failed factor
        raise invalid_argument(node.name, node.op, message)
    if over:
        return xp.linalg.solve(gram, xp.matmul(at, b))
    return xp.matmul(at, xp.linalg.solve(gram, b))


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The builders over array module ``xp`` (numpy here, cupy in ``cuda/linalg.py``);
    ``wrap(node, fn)`` wraps each kernel (the GPU's ``on_device``)."""
    kernels = {"MatrixInverse": inverse_kernel, "MatrixSolve": solve_kernel,
               "MatrixTriangularSolve": triangular_solve_kernel,
               "MatrixSolveLs": solve_ls_kernel}
    return {op: over(xp, wrap, kernel) for op, kernel in kernels.items()}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
