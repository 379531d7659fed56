"""TF1's ``tf.linalg`` spellings: products, norms and the matrix helpers of
``devsession/ops/matrix.py`` (``transpose`` is ``matrix_transpose``, as TF's
``tf.linalg.transpose``: the last two axes; ``diag`` builds matrices from their diagonals,
``tensor_diag`` is ``tf.diag``); the inverses and solves of ``ops/linalg_solve.py``
(``inv``, ``solve``, ``triangular_solve``, ``cholesky_solve``, ``lstsq``) and the
decompositions of ``ops/linalg_factor.py`` (``cholesky``, ``qr``, ``svd``, ``eigh``,
``eigvalsh``, ``slogdet``, ``logdet``); ``lu`` and TF's compositions over it
(``lu_solve``, ``lu_reconstruct``, ``lu_matrix_inverse``) of ``ops/linalg_lu.py``;
``sqrtm`` and ``logm`` (``ops/linalg_sqrtm.py``), and ``pinv``, ``matrix_rank`` and
``expm`` as TF's compositions (``ops/linalg_functions.py``); ``tridiagonal_solve`` and
``tridiagonal_matmul``, ``eigh_tridiagonal`` (``ops/linalg_tridiagonal.py``);
TF's ``LinearOperator`` classes (``linalg_operators/``: pure Python over these ops,
imported when one is first asked for).
Other TF1 names raise ``UnsupportedTF1Error`` naming them."""

from .graph import name_scope
from .ops.clipping import global_norm
from .ops.einsum import einsum
from .ops.linalg import diag as tensor_diag
from .ops.linalg import matmul, matrix_determinant as det, tensordot
from .ops.linalg_factor import cholesky, logdet, qr, self_adjoint_eig as eigh
from .ops.linalg_factor import self_adjoint_eigvals as eigvalsh, slogdet, svd
from .ops.linalg_functions import matrix_exponential as expm, matrix_rank, pinv
from .ops.linalg_lu import lu, lu_matrix_inverse, lu_reconstruct, lu_solve
from .ops.linalg_solve import cholesky_solve, matrix_inverse as inv, matrix_solve as solve
from .ops.linalg_solve import matrix_solve_ls as lstsq
from .ops.linalg_solve import matrix_triangular_solve as triangular_solve
from .ops.linalg_sqrtm import matrix_logarithm as logm, matrix_square_root as sqrtm
from .ops.linalg_tridiagonal import eigh_tridiagonal, tridiagonal_matmul, tridiagonal_solve
from .ops.matrix import eye, matrix_band_part as band_part, matrix_transpose, trace
from .ops.diagonals import matrix_diag as diag, matrix_diag_part as diag_part
from .ops.nn import l2_normalize
from .ops.norms import norm
from .ops.diagonals import diag_part as tensor_diag_part, matrix_set_diag as set_diag
from .ops.vectors import cross, matvec, normalize
transpose = matrix_transpose


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two axes (TF's ``tf.linalg.adjoint``): a
    ``matrix_transpose`` with ``conjugate`` inside an ``adjoint`` scope, as TF builds it
    (``adjoint/matrix_transpose/transpose:0``)."""
    with name_scope(name or "adjoint"):
        return matrix_transpose(matrix, conjugate=True)


__all__ = ["matmul", "norm", "eye", "trace", "transpose", "matrix_transpose", "band_part",
           "tensordot", "einsum", "det", "l2_normalize", "global_norm", "diag", "diag_part",
           "tensor_diag", "inv", "solve", "triangular_solve", "cholesky", "cholesky_solve",
           "qr", "svd", "eigh", "eigvalsh", "slogdet", "logdet", "lstsq", "adjoint",
           "tensor_diag_part", "set_diag", "cross", "matvec", "normalize", "lu", "lu_solve",
           "lu_reconstruct", "lu_matrix_inverse", "pinv", "matrix_rank", "expm", "sqrtm",
           "logm", "tridiagonal_solve", "tridiagonal_matmul",
           "eigh_tridiagonal", "LinearOperator", "LinearOperatorAdjoint",
           "LinearOperatorComposition", "LinearOperatorDiag", "LinearOperatorFullMatrix",
           "LinearOperatorIdentity", "LinearOperatorInversion",
           "LinearOperatorLowerTriangular", "LinearOperatorScaledIdentity",
           "LinearOperatorZeros", "LinearOperatorBlockDiag", "LinearOperatorHouseholder",
           "LinearOperatorKronecker", "LinearOperatorLowRankUpdate",
           "LinearOperatorPermutation", "LinearOperatorToeplitz", "LinearOperatorTridiag",
           "LinearOperatorCirculant", "LinearOperatorCirculant2D", "LinearOperatorCirculant3D",
           "LinearOperatorBlockLowerTriangular"]


def __getattr__(name: str):
    """The LinearOperator classes, imported when first asked for (a dozen modules most
    programs never use: importing devsession stays quick); anything else is missing."""
    if name.startswith("LinearOperator"):
        from . import linalg_operators

        if name in linalg_operators.__all__:
            return getattr(linalg_operators, name)
    from .unsupported import missing

    raise missing("linalg", name)
