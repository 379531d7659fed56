"""The TF1 names the operators are written with (``ds.<name>`` in this package), taken
from the modules that define them.  ``devsession`` itself imports ``linalg``, which
exports this package's classes, so the operators cannot import ``devsession``: this
module is the one-way stand-in (tests/test_import_graph.py keeps the graph acyclic)."""

from types import SimpleNamespace

from .. import debugging, errors, math, nn, signal
from ..compat import dimension_value
from ..dtypes import as_dtype, complex64, complex128, float32, float64, int32
from ..graph import convert_to_tensor, name_scope
from ..ops import (add_n, broadcast_to, constant, expand_dims, eye, fill, group,
                   matmul, matrix_band_part, matrix_determinant, matrix_transpose, no_op,
                   ones, range, reshape, reverse, shape, size, squeeze, unstack, zeros)
from ..ops.array import concat, identity, split, stack
from ..ops.array_composites import select as where       # TF1's where
from ..ops.array_fill import ones_like, zeros_like
from ..ops.array_order import roll
from ..ops.array_shapes import broadcast_dynamic_shape, broadcast_static_shape
from ..ops.complex_math import complex, conj, imag, real  # noqa: A004
from ..ops.diagonals import matrix_diag, matrix_diag_part, matrix_set_diag
from ..ops.elementwise import abs, cast, equal, exp, log, sqrt  # noqa: A004
from ..ops.gather_options import gather
from ..ops.linalg_factor import cholesky, self_adjoint_eigvals, slogdet, svd
from ..ops.linalg_solve import cholesky_solve, matrix_solve, matrix_triangular_solve
from ..ops.linalg_tridiagonal import tridiagonal_matmul, tridiagonal_solve
from ..ops.reduce import reduce_max, reduce_min, reduce_prod, reduce_sum
from ..tensor_shape import TensorShape
from ..tensor_util import get_static_value, is_tensor

__all__ = ["debugging", "errors", "math", "nn", "signal",
           "dimension_value", "as_dtype", "complex64", "complex128", "float32", "float64",
           "int32", "convert_to_tensor", "name_scope", "add_n", "broadcast_to", "constant",
           "expand_dims", "eye", "fill", "group", "matmul", "matrix_band_part",
           "matrix_determinant", "matrix_transpose", "no_op", "ones", "range", "reshape",
           "reverse", "shape", "size", "squeeze", "unstack", "zeros", "concat", "identity",
           "split", "stack", "where", "ones_like", "zeros_like", "roll",
           "broadcast_dynamic_shape", "broadcast_static_shape", "complex", "conj", "imag",
           "real", "matrix_diag", "matrix_diag_part", "matrix_set_diag", "abs", "cast",
           "equal", "exp", "log", "sqrt", "gather", "cholesky", "self_adjoint_eigvals",
           "slogdet", "svd", "cholesky_solve", "matrix_solve", "matrix_triangular_solve",
           "tridiagonal_matmul", "tridiagonal_solve", "reduce_max", "reduce_min",
           "reduce_prod", "reduce_sum", "TensorShape", "get_static_value", "is_tensor",
           "linalg"]

# ds.linalg's functions the operators call (the classes come from this package itself)
linalg = SimpleNamespace(slogdet=slogdet, tridiagonal_matmul=tridiagonal_matmul,
                         tridiagonal_solve=tridiagonal_solve)
