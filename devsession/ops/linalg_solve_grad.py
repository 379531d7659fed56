"""Gradients of the inverses and solves (``linalg_solve.py``), TF's formulas
(``python/ops/linalg_grad.py``), with adjoints (conjugate transposes: for real matrices
the transposes, written ``ᵀ`` below):

* MatrixInverse ``Y = A⁻¹``: ``dA = -Yᵀ dY Yᵀ``; with ``adjoint`` (``Y = A⁻ᵀ``)
  ``-Y dYᵀ Y``, the values TF 2.21 computes.
* MatrixSolve ``C = A⁻¹B``: ``dB = A⁻ᵀ dC`` (a solve with the other ``adjoint``) and
  ``dA = -dB Cᵀ`` (``-C dBᵀ`` with ``adjoint``).
* MatrixTriangularSolve: the same, ``dA`` kept to the triangle the solve read.
* MatrixSolveLs: TF's normal-equation formulas (overdetermined ``M >= N`` and
  underdetermined), through ``cholesky_solve``; ``fast=False`` has no gradient in TF
  either (ValueError), and the ``l2_regularizer`` gets none.

Checked against finite differences in tests/test_linalg_ops.py.
"""

from __future__ import annotations

from .elementwise import add, negative, subtract
from .linalg import matmul
from .linalg_parts import adjointed
from .linalg_solve import (cholesky_solve, matrix_solve, matrix_triangular_solve,
                           regularized_gramian_cholesky)
from .matrix import matrix_band_part
from .registry import register_gradient

__all__: list = []


@register_gradient("MatrixInverse")
def _matrix_inverse_grad(op, grad):
    y = op.outputs[0]
    if op.attrs["adjoint"]:
        return [negative(matmul(y, matmul(grad, y, adjoint_a=True)))]
    return [negative(matmul(y, matmul(grad, y, adjoint_b=True), adjoint_a=True))]


def _solve_grads(op, grad, solve_again):
    a = op.inputs[0]
    c = op.outputs[0]
    adjoint = op.attrs["adjoint"]
    grad_b = solve_again(a, grad, not adjoint)
    if adjoint:
        grad_a = negative(matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = negative(matmul(grad_b, c, adjoint_b=True))
    return grad_a, grad_b


@register_gradient("MatrixSolve")
def _matrix_solve_grad(op, grad):
    return list(_solve_grads(op, grad, lambda a, g, adj: matrix_solve(a, g, adjoint=adj)))


@register_gradient("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op, grad):
    lower = op.attrs["lower"]
    grad_a, grad_b = _solve_grads(
        op, grad, lambda a, g, adj: matrix_triangular_solve(a, g, lower=lower, adjoint=adj))
    grad_a = matrix_band_part(grad_a, -1, 0) if lower else matrix_band_part(grad_a, 0, -1)
    return [grad_a, grad_b]


@register_gradient("MatrixSolveLs")
def _matrix_solve_ls_grad(op, grad):
    if not op.attrs["fast"]:
        raise ValueError("Gradient not defined for fast=False")
    a, b, l2 = op.inputs
    m, n = a.shape.dims[-2:] if a.shape.ndims is not None else (None, None)
    if m is None or n is None:
        raise ValueError(f"The gradient of MatrixSolveLs '{op.name}' needs the matrix's "
                         f"rows and columns known when the graph is built.")
    if m >= n:                        # X = (AᵀA + λI)⁻¹ Aᵀ B
        x = op.outputs[0]
        chol = regularized_gramian_cholesky(a, l2, first_kind=True)
        z = cholesky_solve(chol, grad)
        xzt = matmul(x, z, adjoint_b=True)
        zx_sym = add(xzt, adjointed(xzt))
        grad_a = add(negative(matmul(a, zx_sym)), matmul(b, z, adjoint_b=True))
        return [grad_a, matmul(a, z), None]
    chol = regularized_gramian_cholesky(a, l2, first_kind=False)   # X = Aᵀ(AAᵀ + λI)⁻¹B
    grad_b = cholesky_solve(chol, matmul(a, grad))
    tmp = cholesky_solve(chol, b)
    a1 = negative(matmul(grad_b, matmul(tmp, a, adjoint_a=True)))
    a2 = matmul(tmp, subtract(grad, matmul(a, grad_b, adjoint_a=True)), adjoint_b=True)
    return [add(a1, a2), grad_b, None]
