"""Run-time checks of the dense linear-algebra kernels (inverses, solves,
decompositions), shared by every device's kernels, worded as TF's ``LinearAlgebraOp``
words them: each operand is a batch of matrices (rank >= 2), a solver's operands have
the same rank and batch dimensions, square where the op needs it, and the same number
of rows.  Each failure is an ``InvalidArgumentError`` naming the node.

``failing(node, message)`` turns LAPACK's ``LinAlgError`` (numpy's, which cupy shares)
into TF's InvalidArgumentError for a matrix the op cannot factor.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .checks import invalid_argument

__all__ = ["check_matrices", "check_square", "check_solver", "failing"]


def check_matrices(node, shape: tuple, index: int = 0) -> None:
    if len(shape) < 2:
        raise invalid_argument(node.name, node.op, f"Input tensor {index} must have rank "
                                                   f">= 2, got {len(shape)}")


def check_square(node, shape: tuple) -> None:
    check_matrices(node, shape)
    if shape[-1] != shape[-2]:
        raise invalid_argument(node.name, node.op, "Input matrix must be square.")


def check_solver(node, matrix: tuple, rhs: tuple, square: bool = True) -> None:
    """A solver's ``matrix`` ``[..., M, N]`` (square when ``square``) and ``rhs``
    ``[..., M, K]``."""
    check_matrices(node, matrix)
    if len(rhs) != len(matrix):
        raise invalid_argument(node.name, node.op, "All input tensors must have the same "
                                                   "rank.")
    if rhs[:-2] != matrix[:-2]:
        raise invalid_argument(node.name, node.op, "All input tensors must have the same "
                                                   "outer dimensions.")
    if square and matrix[-1] != matrix[-2]:
        raise invalid_argument(node.name, node.op, "Input matrix must be square.")
    if matrix[-2] != rhs[-2]:
        raise invalid_argument(node.name, node.op, "Input matrix and rhs are incompatible.")


@contextlib.contextmanager
def failing(node, message: str):
    """LAPACK's refusal (``LinAlgError``) inside as TF's InvalidArgumentError."""
    try:
        yield
    except np.linalg.LinAlgError:
        raise invalid_argument(node.name, node.op, message) from None
