"""TF's ``tf.linalg.LinearOperator`` family, as pure-Python classes composed from
devsession's ops (TF's own are Python over its ops too): the abstract base
(``base.py``), the operators that hold a matrix or diagonal (``basic.py``), those
given by sizes alone (``identity.py``), views of another operator (``views.py``)
and products (``composition.py``), the structured ones of ``structured.py``,
``blockwise.py``, ``block_lower_triangular.py``, ``low_rank_update.py`` and
``circulant.py``; ``slicing.py`` gives them TF's batch slicing (``op[1:, 0]``) and
``blockwise_args.py`` the block operators' lists of blocks.  ``devsession.linalg``
exports them under TF's names.  Batch shapes broadcast as TF's; float32, float64,
complex64 and complex128 throughout: dense complex operators solve, invert, take
determinants, Cholesky factors, eigenvalues and condition numbers through the complex
MatrixSolve, MatrixTriangularSolve, MatrixDeterminant, Cholesky, SelfAdjointEigV2 and Svd,
and their adjoints (``.H``) conjugate."""

from .base import LinearOperator
from .block_lower_triangular import LinearOperatorBlockLowerTriangular
from .blockwise import LinearOperatorBlockDiag, LinearOperatorKronecker
from .circulant import LinearOperatorCirculant, LinearOperatorCirculant2D
from .circulant import LinearOperatorCirculant3D
from .basic import LinearOperatorDiag, LinearOperatorFullMatrix
from .basic import LinearOperatorLowerTriangular
from .composition import LinearOperatorComposition
from .identity import LinearOperatorIdentity, LinearOperatorScaledIdentity
from .identity import LinearOperatorZeros
from .low_rank_update import LinearOperatorLowRankUpdate
from .structured import LinearOperatorHouseholder, LinearOperatorPermutation
from .structured import LinearOperatorToeplitz, LinearOperatorTridiag
from .views import LinearOperatorAdjoint, LinearOperatorInversion

__all__ = ["LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorDiag",
           "LinearOperatorLowerTriangular", "LinearOperatorIdentity",
           "LinearOperatorScaledIdentity", "LinearOperatorZeros",
           "LinearOperatorComposition", "LinearOperatorAdjoint",
           "LinearOperatorInversion", "LinearOperatorBlockDiag", "LinearOperatorKronecker",
           "LinearOperatorLowRankUpdate", "LinearOperatorHouseholder",
           "LinearOperatorPermutation", "LinearOperatorToeplitz", "LinearOperatorTridiag",
           "LinearOperatorCirculant", "LinearOperatorCirculant2D",
           "LinearOperatorCirculant3D", "LinearOperatorBlockLowerTriangular"]
