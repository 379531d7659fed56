"""TF1's ``tf.linalg`` spellings: products, norms and the matrix helpers of
``devsession/ops/matrix.py`` (``transpose`` is ``matrix_transpose``, as TF's
``tf.linalg.transpose``: the last two axes; ``diag`` builds matrices from their diagonals,
``tensor_diag`` is ``tf.diag``).  The decompositions and solvers (``svd``, ``qr``,
``cholesky``, ``inv``, ``solve``...) raise ``UnsupportedTF1Error`` naming them."""

from .ops.clipping import global_norm
from .ops.einsum import einsum
from .ops.linalg import diag as tensor_diag
from .ops.linalg import matmul, matrix_determinant as det, tensordot
from .ops.matrix import eye, matrix_band_part as band_part, matrix_diag as diag
from .ops.matrix import matrix_diag_part as diag_part, matrix_transpose, trace
from .ops.nn import l2_normalize
from .ops.norms import norm

transpose = matrix_transpose

__all__ = ["matmul", "norm", "eye", "trace", "transpose", "matrix_transpose", "band_part",
           "tensordot", "einsum", "det", "l2_normalize", "global_norm", "diag", "diag_part",
           "tensor_diag"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("linalg", name)
