"""The operators that hold their matrix (or its diagonal) as a tensor:
``LinearOperatorFullMatrix`` (any ``[..., M, N]``), ``LinearOperatorDiag``
(``diag(d)``, products and solves elementwise) and ``LinearOperatorLowerTriangular``
(the lower triangle of ``tril``; solves by MatrixTriangularSolve, the determinant
the diagonal's product)."""

from __future__ import annotations

from . import tf_api as ds

from . import util
from .base import LinearOperator, register_derived

_MATRIX_DTYPES = ("float16", "float32", "float64", "complex64", "complex128")


class LinearOperatorFullMatrix(LinearOperator):
    """``A`` given as a dense ``[..., M, N]`` tensor."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorFullMatrix"):
        """Raises TypeError for a non-float matrix, ValueError below rank 2."""
        parameters = dict(matrix=matrix, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        with ds.name_scope(name):
            self._matrix = ds.convert_to_tensor(matrix, name="matrix")
            self._check_matrix(self._matrix)
            super().__init__(dtype=self._matrix.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"matrix": 2}

    def _check_matrix(self, matrix):
        allowed = [ds.as_dtype(d) for d in _MATRIX_DTYPES]
        if matrix.dtype not in allowed:
            raise TypeError(f"Argument `matrix` must have dtype in {allowed}. "
                            f"Received: {matrix.dtype}.")
        if matrix.shape.ndims is not None and matrix.shape.ndims < 2:
            raise ValueError(f"Argument `matrix` must have at least 2 dimensions. "
                             f"Received: {matrix}.")

    @property
    def matrix(self):
        return self._matrix

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return ds.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return util.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """``diag(d)`` for ``d`` of shape ``[..., N]``: always square, and self-adjoint
    when real."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorDiag"):
        """Raises ValueError for a scalar ``diag`` and for hints a diagonal
        contradicts (a real one not self-adjoint, one not square)."""
        parameters = dict(diag=diag, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        with ds.name_scope(name):
            self._diag = ds.convert_to_tensor(diag, name="diag")
            if self._diag.shape.ndims is not None and self._diag.shape.ndims < 1:
                raise ValueError("Argument diag must have at least 1 dimension.  "
                                 "Found: %s" % self._diag)
            if not self._diag.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                is_self_adjoint = True
            if is_square is False:
                raise ValueError("Only square diagonal operators currently supported.")
            super().__init__(dtype=self._diag.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=True, parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"diag": 1}

    @property
    def diag(self):
        return self._diag

    def _shape(self):
        d = self._diag.shape
        return d.concatenate(d[-1:])

    def _shape_tensor(self):
        d = ds.shape(self._diag)
        return ds.concat([d, d[-1:]], 0)

    def _linop_inverse(self):
        return LinearOperatorDiag(
            1. / self._diag, is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_adjoint(self):
        return LinearOperatorDiag(
            util.conj(self._diag), is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorDiag(ds.sqrt(self._diag), is_non_singular=True,
                                  is_self_adjoint=True, is_positive_definite=True,
                                  is_square=True)

    def _linop_matmul(self, left, right):
        if isinstance(left, LinearOperatorDiag) and isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(left.diag * right.diag, is_square=True)
        return super()._linop_matmul(left, right)

    def _assert_non_singular(self):
        return util.assert_no_entries_with_modulus_zero(
            self._diag, message="Singular operator:  Diagonal contained zero values.")

    def _assert_positive_definite(self):
        if self.dtype.is_complex:
            message = ("Diagonal operator had diagonal entries with non-positive real "
                       "part, thus was not positive definite.")
        else:
            message = ("Real diagonal operator had non-positive diagonal entries, "
                       "thus was not positive definite.")
        return ds.debugging.assert_positive(ds.real(self._diag), message=message)

    def _assert_self_adjoint(self):
        return util.assert_zero_imag_part(
            self._diag, message=("This diagonal operator contained non-zero imaginary "
                                 "values.   Thus it was not self-adjoint."))

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        d = util.conj(self._diag) if adjoint else self._diag
        x = util.adjoint(x) if adjoint_arg else x
        return ds.expand_dims(d, -1) * x

    def _matvec(self, x, adjoint=False):
        return (util.conj(self._diag) if adjoint else self._diag) * x

    def _determinant(self):
        return ds.reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        log_det = ds.reduce_sum(ds.log(ds.abs(self._diag)), axis=[-1])
        if self.dtype.is_complex:
            log_det = ds.cast(log_det, self.dtype)
        return log_det

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        d = util.conj(self._diag) if adjoint else self._diag
        rhs = util.adjoint(rhs) if adjoint_arg else rhs
        return rhs * ds.expand_dims(1. / d, -1)

    def _to_dense(self):
        return ds.matrix_diag(self._diag)

    def _diag_part(self):
        return self._diag

    def _add_to_tensor(self, x):
        return ds.matrix_set_diag(x, self._diag + ds.matrix_diag_part(x))

    def _eigvals(self):
        return ds.identity(self._diag)

    def _cond(self):
        a = ds.abs(self._diag)
        return ds.reduce_max(a, axis=-1) / ds.reduce_min(a, axis=-1)


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle (diagonal included) of ``tril``; the upper part of the
    tensor is ignored, as TF's."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        """Raises ValueError for ``is_square=False`` or ``tril`` below rank 2."""
        parameters = dict(tril=tril, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        if is_square is False:
            raise ValueError(
                "Only square lower triangular operators supported at this time.")
        with ds.name_scope(name):
            self._tril = ds.convert_to_tensor(tril, name="tril")
            if self._tril.shape.ndims is not None and self._tril.shape.ndims < 2:
                raise ValueError("Argument tril must have at least 2 dimensions.  "
                                 "Found: %s" % self._tril)
            super().__init__(dtype=self._tril.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=True, parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"tril": 2}

    @property
    def tril(self):
        return self._tril

    def _get_tril(self):
        return ds.matrix_band_part(self._tril, -1, 0)

    def _get_diag(self):
        return ds.matrix_diag_part(self._tril)

    def _shape(self):
        return self._tril.shape

    def _shape_tensor(self):
        return ds.shape(self._tril)

    def _assert_non_singular(self):
        return util.assert_no_entries_with_modulus_zero(
            self._get_diag(),
            message="Singular operator:  Diagonal contained zero values.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return util.matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self):
        return ds.reduce_prod(self._get_diag(), axis=[-1])

    def _log_abs_determinant(self):
        return ds.reduce_sum(ds.log(ds.abs(self._get_diag())), axis=[-1])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = util.adjoint(rhs) if adjoint_arg else rhs
        return util.triangular_solve_with_broadcast(self._get_tril(), rhs, lower=True,
                                                    adjoint=adjoint)

    def _to_dense(self):
        return self._get_tril()

    def _eigvals(self):
        return self._get_diag()


register_derived("lower_triangular", LinearOperatorLowerTriangular)
