"""Gradients of TridiagonalSolve and TridiagonalMatMul (``linalg_tridiagonal.py``), TF's
formulas (``python/ops/linalg_grad.py``):

* TridiagonalMatMul ``y = A x``: each diagonal's gradient is the sum over columns of
  ``grad`` times ``x`` shifted by that diagonal's offset; ``x``'s is ``Aᴴ grad``
  (the diagonals' products with ``grad``, shifted back).
* TridiagonalSolve ``x = A⁻¹ b``: ``db = A⁻ᴴ grad`` (a solve with the transposed
  diagonals), and ``dA``'s three diagonals are those of ``-db xᴴ``, computed without
  forming the product.

The shifts concatenate a row of zeros where TF pads (the same values).  Checked against
finite differences in tests/test_linalg_more.py.
"""

from __future__ import annotations

from .array import concat, expand_dims, stack
from .array_fill import zeros_like
from .complex_math import conj
from .elementwise import negative
from .linalg_tridiagonal import tridiagonal_solve
from .matrix import matrix_transpose
from .reduce import reduce_sum
from .registry import register_gradient

__all__: list = []


def _left_shift(x):
    """Rows moved up by one (the second-to-last axis), a zero row last."""
    return concat([x[..., 1:, :], zeros_like(x[..., :1, :])], axis=-2)


def _right_shift(x):
    """Rows moved down by one, a zero row first."""
    return concat([zeros_like(x[..., :1, :]), x[..., :-1, :]], axis=-2)


def _conj(x):
    return conj(x) if x.dtype.is_complex else x


@register_gradient("TridiagonalMatMul")
def _tridiagonal_matmul_grad(op, grad):
    superdiag_conj = _conj(matrix_transpose(op.inputs[0]))
    maindiag_conj = _conj(matrix_transpose(op.inputs[1]))
    subdiag_conj = _conj(matrix_transpose(op.inputs[2]))
    rhs_conj = _conj(op.inputs[3])
    superdiag_grad = reduce_sum(_left_shift(rhs_conj) * grad, axis=-1)
    maindiag_grad = reduce_sum(rhs_conj * grad, axis=-1)
    subdiag_grad = reduce_sum(_right_shift(rhs_conj) * grad, axis=-1)
    rhs_grad = (_right_shift(superdiag_conj * grad) + maindiag_conj * grad
                + _left_shift(subdiag_conj * grad))
    return [expand_dims(superdiag_grad, -2), expand_dims(maindiag_grad, -2),
            expand_dims(subdiag_grad, -2), rhs_grad]


def _transposed_diagonals(diags):
    """The compact diagonals of the transposed matrices: the superdiagonal becomes the
    subdiagonal shifted right by one, and the other way round."""
    diag = diags[..., 1, :]
    superdiag = concat([diags[..., 2, 1:], zeros_like(diags[..., 2, :1])], axis=-1)
    subdiag = concat([zeros_like(diags[..., 0, :1]), diags[..., 0, :-1]], axis=-1)
    return stack([superdiag, diag, subdiag], axis=-2)


def _three_diagonals_of_product(x, y_tr):
    """The compact diagonals of ``x @ y_trᴴ`` ... as TF's
    ``_MatmulExtractingThreeDiagonals(x, y_tr)``: the row sums of ``x * y_tr`` with
    ``y_tr`` shifted by -1, 0 and 1 rows."""
    diag = reduce_sum(x * y_tr, axis=-1)
    superdiag = reduce_sum(x * _left_shift(y_tr), axis=-1)
    subdiag = reduce_sum(x * _right_shift(y_tr), axis=-1)
    return stack([superdiag, diag, subdiag], axis=-2)


@register_gradient("TridiagonalSolve")
def _tridiagonal_solve_grad(op, grad):
    diags = op.inputs[0]
    x = op.outputs[0]
    grad_rhs = tridiagonal_solve(_transposed_diagonals(diags), grad,
                                 partial_pivoting=op.attrs["partial_pivoting"],
                                 perturb_singular=op.attrs["perturb_singular"])
    return [negative(_three_diagonals_of_product(grad_rhs, x)), grad_rhs]
