"""Inverses and linear solves over the last two axes, as TF1's ops: MatrixInverse
(``matrix_inverse``, ``tf.linalg.inv``), MatrixSolve (``matrix_solve``,
``tf.linalg.solve``), MatrixTriangularSolve (``matrix_triangular_solve``,
``tf.linalg.triangular_solve``), MatrixSolveLs (``matrix_solve_ls``,
``tf.linalg.lstsq``: a composite of Cholesky and triangular solves where TF builds one),
and ``cholesky_solve`` built as TF builds it (two triangular solves against a Cholesky
factor).

Shapes as TF1's shape functions: ``matrix`` is ``[..., M, M]`` (``[..., M, N]`` for
MatrixSolveLs), ``rhs`` ``[..., M, K]`` with the same batch dimensions (merged, not
broadcast), the output ``[..., M, K]`` (``[..., N, K]``).  ``adjoint`` solves with the
matrix's (conjugate) transpose; MatrixTriangularSolve reads only the ``lower`` (or
upper) triangle.  At run time a singular matrix is TF's InvalidArgumentError ("Input is
not invertible." for MatrixInverse, "Input matrix is not invertible." for the solves, a
zero on a triangular matrix's diagonal included).

Gradients: ``linalg_solve_grad.py``.  Kernels: ``kernels/reference/linalg_solve.py``
(numpy's LAPACK, the CPU's too) and ``kernels/cuda/linalg.py`` (cuSOLVER via cupy).

    x = ds.matrix_solve(a, b)                     # a @ x == b
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import graph_of, make_op
from .linalg_shapes import (batch_of, float_matrices, matrices, merge_batch, merge_dim,
                            square_matrices)
from .registry import InferError, OpDef, register_op

__all__ = ["matrix_inverse", "matrix_solve", "matrix_triangular_solve", "cholesky_solve",
           "matrix_solve_ls", "regularized_gramian_cholesky"]


def _inverse(inputs, attrs, node):
    (x,) = inputs
    float_matrices(x, node)
    parts = square_matrices(x, node)
    if parts is None:
        return x.dtype, TensorShape(None)
    batch, n = parts
    return x.dtype, batch_of(batch, n, n)


def _solve_shape(inputs, node, square: bool):
    """TF1's ``BatchMatrixSolveShapeFn``: ``[..., M, N]`` and ``[..., M, K]`` give
    ``[..., N, K]``."""
    matrix, rhs = inputs
    float_matrices(matrix, node, "matrix")
    float_matrices(rhs, node, "rhs")
    if rhs.dtype != matrix.dtype:
        raise TypeError(f"Op '{node}': rhs '{rhs.name}' is {rhs.dtype.name} but matrix "
                        f"'{matrix.name}' is {matrix.dtype.name}; they must match.")
    lhs = square_matrices(matrix, node) if square else matrices(matrix, node)
    right = matrices(rhs, node)
    if lhs is not None and square:
        lhs = (lhs[0], lhs[1], lhs[1])
    batch = merge_batch(lhs and lhs[0], right and right[0], node,
                        f"'{matrix.name}' and '{rhs.name}'")
    if lhs is None or right is None:
        if batch is None:
            return matrix.dtype, TensorShape(None)
        columns = right[2] if right is not None else None
        rows = lhs[2] if lhs is not None else right[1] if square and right else None
        return matrix.dtype, batch_of(batch, rows, columns)   # square: N is rhs's M
    merge_dim(lhs[1], right[1], node, f"the rows of '{matrix.name}' {matrix.shape} and "
                                      f"'{rhs.name}' {rhs.shape}")
    return matrix.dtype, batch_of(batch, lhs[2], right[2])


def _solve(inputs, attrs, node):
    return _solve_shape(inputs, node, square=True)


def _solve_ls(inputs, attrs, node):
    matrix, rhs, l2 = inputs
    if l2.dtype != dtypes.float64:
        raise TypeError(f"Op '{node}': l2_regularizer '{l2.name}' must be float64, not "
                        f"{l2.dtype.name}.")
    if l2.shape.ndims not in (None, 0):
        raise InferError(f"Op '{node}': Shape must be rank 0 but is rank {l2.shape.ndims}: "
                         f"l2_regularizer '{l2.name}' has shape {l2.shape}.")
    return _solve_shape([matrix, rhs], node, square=False)


register_op(OpDef("MatrixInverse", _inverse, 1, attr_defaults={"adjoint": False}))
register_op(OpDef("MatrixSolve", _solve, 2, attr_defaults={"adjoint": False}))
register_op(OpDef("MatrixTriangularSolve", _solve, 2,
                  attr_defaults={"lower": True, "adjoint": False}))
register_op(OpDef("MatrixSolveLs", _solve_ls, 3, attr_defaults={"fast": True},
                  host_inputs=(2,)))


def _matrix(value, name: str = "input", graph=None) -> Tensor:
    return convert_to_tensor(value, name=name, graph=graph)


def matrix_inverse(input, adjoint=False, name=None) -> Tensor:  # noqa: A002  (TF1's names)
    """The inverse of each square matrix in the last two axes of ``input`` (of its
    adjoint with ``adjoint``)."""
    x = _matrix(input, graph=graph_of(input))
    return make_op("MatrixInverse", [x], {"adjoint": bool(adjoint)}, name)


def _pair(matrix, rhs):
    graph = graph_of(matrix, rhs)
    a = _matrix(matrix, "matrix", graph)
    return a, convert_to_tensor(rhs, dtype_hint=a.dtype, name="rhs", graph=graph)


def matrix_solve(matrix, rhs, adjoint=False, name=None) -> Tensor:
    """``x`` with ``matrix @ x == rhs`` (``adjoint(matrix) @ x`` with ``adjoint``), for
    each matrix of the batch."""
    a, b = _pair(matrix, rhs)
    return make_op("MatrixSolve", [a, b], {"adjoint": bool(adjoint)}, name)


def _triangular_solve_op(a: Tensor, b: Tensor, lower: bool, adjoint: bool) -> Tensor:
    return make_op("MatrixTriangularSolve", [a, b],
                   {"lower": bool(lower), "adjoint": bool(adjoint)})


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None) -> Tensor:
    """``matrix_solve`` for triangular matrices: only the lower (``lower``) or upper
    triangle of ``matrix`` is read.  The op sits in a ``triangular_solve`` (or ``name``)
    scope, as TF's wrapper puts it: ``triangular_solve/MatrixTriangularSolve:0``."""
    with name_scope(name or "triangular_solve"):
        a, b = _pair(matrix, rhs)
        return _triangular_solve_op(a, b, lower, adjoint)


def cholesky_solve(chol, rhs, name=None) -> Tensor:
    """``x`` with ``A @ x == rhs`` given ``chol``, the Cholesky factor of ``A``: two
    triangular solves, as TF builds it (the ops themselves, in one ``cholesky_solve``
    scope)."""
    with name_scope(name or "cholesky_solve"):
        a, b = _pair(chol, rhs)
        y = _triangular_solve_op(a, b, lower=True, adjoint=False)
        return _triangular_solve_op(a, y, lower=True, adjoint=True)


def regularized_gramian_cholesky(a: Tensor, l2_regularizer, first_kind: bool) -> Tensor:
    """The Cholesky factor of ``AᵀA + λI`` (``AAᵀ + λI`` for the second kind), as TF's
    ``_RegularizedGramianCholesky``: no ``λI`` for a Python 0."""
    from .elementwise import add, cast, multiply
    from .linalg import matmul
    from .linalg_factor import cholesky
    from .linalg_parts import identity_like

    gramian = matmul(a, a, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2_regularizer, Tensor) or l2_regularizer != 0:
        l2 = cast(l2_regularizer, a.dtype) if isinstance(l2_regularizer, Tensor) else \
            convert_to_tensor(l2_regularizer, dtype=a.dtype, graph=a.graph)
        gramian = add(gramian, multiply(l2, identity_like(gramian)))
    return cholesky(gramian)


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None) -> Tensor:
    """The least-squares solution of ``matrix @ x = rhs`` (``[..., M, N]`` and
    ``[..., M, K]`` give ``[..., N, K]``).  With ``fast`` the regularised normal equations
    ``(AᵀA + λI) x = Aᵀb`` (``x = Aᵀ(AAᵀ + λI)⁻¹b`` when ``M < N``), solved by Cholesky;
    as TF, built from Cholesky, MatMul and triangular solves when the matrix size is
    known, else the MatrixSolveLs op.  Without ``fast``, MatrixSolveLs's minimum-norm
    solution (λ ignored)."""
    from .linalg import matmul

    a, b = _pair(matrix, rhs)
    m, n = a.shape.dims[-2:] if a.shape.ndims is not None and a.shape.ndims >= 2 else \
        (None, None)
    if fast and m is not None and n is not None:
        with name_scope(name or "matrix_solve_ls"):
            if m >= n:
                chol = regularized_gramian_cholesky(a, l2_regularizer, first_kind=True)
                return cholesky_solve(chol, matmul(a, b, adjoint_a=True))
            chol = regularized_gramian_cholesky(a, l2_regularizer, first_kind=False)
            return matmul(a, cholesky_solve(chol, b), adjoint_a=True)
    l2 = convert_to_tensor(l2_regularizer, dtype=dtypes.float64, name="l2_regularizer",
                           graph=a.graph)
    return make_op("MatrixSolveLs", [a, b, l2], {"fast": bool(fast)}, name)
