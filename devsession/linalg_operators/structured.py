"""Structured square operators given by a few vectors: ``LinearOperatorPermutation``
(``A x = x[perm]``), ``LinearOperatorHouseholder`` (the reflection ``I - 2 v v^H``
of a unit ``v``: its own adjoint and inverse), ``LinearOperatorToeplitz`` (constant
diagonals from the first column and row) and ``LinearOperatorTridiag`` (TF's three
diagonal formats, through TridiagonalMatMul and TridiagonalSolve).

Permutation and Toeplitz products go through their dense matrices: a one-hot
permutation's product is exact, and TF's FFT route for Toeplitz agrees to rounding
(devsession's values match TF's to 1e-10 in float64)."""

from __future__ import annotations

import numpy as np

from . import tf_api as ds

from . import util
from .base import LinearOperator


def _check_vector(tensor, message):
    if tensor.shape.ndims is not None and tensor.shape.ndims < 1:
        raise ValueError(message % tensor)


def _vector_operator_shape(vector_shape):
    return vector_shape.concatenate(vector_shape[-1:])


def _vector_operator_shape_tensor(vector):
    shape = ds.shape(vector)
    return ds.concat([shape, shape[-1:]], 0)


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix with ``A[i, perm[i]] = 1`` (``dtype`` float32 unless
    given)."""

    def __init__(self, perm, dtype=ds.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorPermutation"):
        """Raises TypeError for a non-integer ``perm``, ValueError for a scalar one,
        a static one that is not a permutation, or hints a permutation
        contradicts."""
        parameters = dict(perm=perm, dtype=dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        with ds.name_scope(name):
            self._perm = ds.convert_to_tensor(perm, name="perm")
            self._check_perm(self._perm)
            if is_non_singular is False:
                raise ValueError(f"A Permutation operator is always non-singular. "
                                 f"Expected argument `is_non_singular` to be True. "
                                 f"Received: {is_non_singular}.")
            if is_square is False:
                raise ValueError(f"A Permutation operator is always square. "
                                 f"Expected argument `is_square` to be True. "
                                 f"Received: {is_square}.")
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=True, parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"perm": 1}

    def _check_perm(self, perm):
        if perm.shape.ndims is not None and perm.shape.ndims < 1:
            raise ValueError(f"Argument `perm` must have at least 1 dimension. "
                             f"Received: {perm}.")
        if not perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {perm}.")
        static = ds.get_static_value(perm)
        if static is not None:
            static = np.asarray(static)
            if np.any(np.sort(static, axis=-1) != np.arange(0, static.shape[-1])):
                raise ValueError(f"Argument `perm` must be a vector of unique integers "
                                 f"from 0 to {static.shape[-1] - 1}.")

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        return _vector_operator_shape(self._perm.shape)

    def _shape_tensor(self):
        return _vector_operator_shape_tensor(self._perm)

    def _assert_non_singular(self):
        return ds.no_op(name="assert_non_singular")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return util.matmul(self._to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self):
        # The sign of the permutation: det of the one-hot matrix (exactly +-1).
        return ds.matrix_determinant(self._to_dense())

    def _log_abs_determinant(self):
        return ds.zeros(self.batch_shape_tensor(), self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        n = ds.shape(self._perm)[-1]
        return ds.cast(ds.equal(ds.range(0, n), ds.expand_dims(self._perm, -1)),
                       self.dtype)

    def _diag_part(self):
        n = ds.shape(self._perm)[-1]
        return ds.cast(ds.equal(ds.range(0, n), self._perm), self.dtype)

    def _cond(self):
        return ds.ones(self.batch_shape_tensor(), self.dtype)


class LinearOperatorHouseholder(LinearOperator):
    """``I - 2 v v^H / |v|^2`` for ``reflection_axis`` ``v``: self-adjoint,
    orthogonal, determinant -1."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorHouseholder"):
        """Raises ValueError for a scalar axis or hints a reflection contradicts."""
        parameters = dict(reflection_axis=reflection_axis, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        with ds.name_scope(name):
            self._reflection_axis = ds.convert_to_tensor(reflection_axis,
                                                         name="reflection_axis")
            _check_vector(self._reflection_axis, "Argument reflection_axis must have at "
                                                 "least 1 dimension.  Found: %s")
            if is_self_adjoint is False:
                raise ValueError("A Householder operator is always self adjoint.")
            if is_positive_definite is True:
                raise ValueError("A Householder operator is always non-positive definite.")
            if is_square is False:
                raise ValueError("A Householder operator is always square.")
            super().__init__(dtype=self._reflection_axis.dtype,
                             is_non_singular=is_non_singular, is_self_adjoint=True,
                             is_positive_definite=False, is_square=True,
                             parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"reflection_axis": 1}

    @property
    def reflection_axis(self):
        return self._reflection_axis

    def _shape(self):
        return _vector_operator_shape(self._reflection_axis.shape)

    def _shape_tensor(self):
        return _vector_operator_shape_tensor(self._reflection_axis)

    def _assert_non_singular(self):
        return ds.no_op(name="assert_non_singular")

    def _assert_positive_definite(self):
        raise ds.errors.InvalidArgumentError(
            "Householder operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return ds.no_op(name="assert_self_adjoint")

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _unit_column(self):
        return ds.expand_dims(ds.nn.l2_normalize(self._reflection_axis, axis=-1), -1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = util.adjoint(x) if adjoint_arg else x
        mat = self._unit_column()
        return x - 2 * mat * util.matmul(mat, x, adjoint_a=True)

    def _trace(self):
        n = ds.cast(self.domain_dimension_tensor(), self.dtype)
        return (n - 2) * ds.ones(self.batch_shape_tensor(), self.dtype)

    def _determinant(self):
        return -ds.ones(self.batch_shape_tensor(), self.dtype)

    def _log_abs_determinant(self):
        return ds.zeros(self.batch_shape_tensor(), self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        mat = self._unit_column()
        matrix = -2 * util.matmul(mat, mat, adjoint_b=True)
        return ds.matrix_set_diag(matrix, 1. + ds.matrix_diag_part(matrix))

    def _diag_part(self):
        v = ds.nn.l2_normalize(self._reflection_axis, axis=-1)
        return 1. - 2 * v * util.conj(v)

    def _eigvals(self):
        shape = ds.shape(self._reflection_axis)
        n = shape[-1]
        ones = ds.ones(ds.concat([shape[:-1], ds.reshape(n - 1, [1])], 0), self.dtype)
        neg = -ds.ones(ds.concat([shape[:-1], [1]], 0), self.dtype)
        return ds.concat([neg, ones], -1)

    def _cond(self):
        return ds.ones(self.batch_shape_tensor(), self.dtype)


class LinearOperatorToeplitz(LinearOperator):
    """The square Toeplitz matrix with first column ``col`` and first row ``row``
    (``row[0]`` is ignored: the diagonal is ``col[0]``)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        """Raises ValueError for scalars, mismatched lengths or ``is_square=False``."""
        parameters = dict(col=col, row=row, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        with ds.name_scope(name):
            self._row = ds.convert_to_tensor(row, name="row")
            self._col = ds.convert_to_tensor(col, name="col")
            for arg, tensor in (("row", self._row), ("col", self._col)):
                if tensor.shape.ndims is not None and tensor.shape.ndims < 1:
                    raise ValueError("Argument {} must have at least 1 dimension.  "
                                     "Found: {}".format(arg, tensor))
            r, c = self._row.shape, self._col.shape
            r = ds.dimension_value(r[-1]) if r.ndims else None
            c = ds.dimension_value(c[-1]) if c.ndims else None
            if r is not None and c is not None and r != c:
                raise ValueError("Expected square matrix, got row and col with "
                                 "mismatched dimensions.")
            if is_square is False:
                raise ValueError("Only square Toeplitz operators currently supported.")
            super().__init__(dtype=self._row.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=True, parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"row": 1, "col": 1}

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        v = ds.broadcast_static_shape(self._row.shape, self._col.shape)
        return v.concatenate(v[-1:])

    def _shape_tensor(self):
        v = ds.broadcast_dynamic_shape(ds.shape(self._row), ds.shape(self._col))
        return ds.concat([v, v[-1:]], 0)

    def _assert_self_adjoint(self):
        return ds.debugging.assert_equal(
            self._row, self._col,
            message="row and col are not the same, and so this operator is not "
                    "self-adjoint.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return util.matmul(self._to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _trace(self):
        return ds.cast(self.domain_dimension_tensor(), self.dtype) * self._col[..., 0]

    def _diag_part(self):
        return self._col[..., 0:1] * ds.ones(
            ds.reshape(self.domain_dimension_tensor(), [1]), self.dtype)

    def _to_dense(self):
        total = ds.broadcast_dynamic_shape(ds.shape(self._row), ds.shape(self._col))
        n = ds.shape(self._row)[-1]
        row = ds.broadcast_to(self._row, total)
        col = ds.broadcast_to(self._col, total)
        elements = ds.concat([ds.reverse(col, axis=[-1]), row[..., 1:]], -1)
        indices = ds.math.floormod(
            ds.range(0, n) + ds.expand_dims(ds.range(n - 1, -1, -1), -1), 2 * n - 1)
        return ds.gather(elements, indices, axis=-1)


_FORMATS = ("compact", "matrix", "sequence")


class LinearOperatorTridiag(LinearOperator):
    """A square tridiagonal matrix from its diagonals in TF's formats: ``compact``
    (``[..., 3, N]``: super, main, sub; the superdiagonal's last and the
    subdiagonal's first entries ignored), ``sequence`` (three ``[..., N]``) or
    ``matrix`` (``[..., N, N]``)."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        """Raises ValueError for an unknown format."""
        parameters = dict(diagonals=diagonals, diagonals_format=diagonals_format,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with ds.name_scope(name):
            if diagonals_format not in _FORMATS:
                raise ValueError(
                    f"Argument `diagonals_format` must be one of compact, matrix, or "
                    f"sequence. Received : {diagonals_format}.")
            if diagonals_format == "sequence":
                self._diagonals = [ds.convert_to_tensor(d, name="diag_{}".format(i))
                                   for i, d in enumerate(diagonals)]
                dtype = self._diagonals[0].dtype
            else:
                self._diagonals = ds.convert_to_tensor(diagonals, name="diagonals")
                dtype = self._diagonals.dtype
            self._diagonals_format = diagonals_format
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"diagonals": [1, 1, 1] if self._diagonals_format == "sequence" else 2}

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._diagonals_format

    def _shape(self):
        if self._diagonals_format == "matrix":
            return self._diagonals.shape
        if self._diagonals_format == "compact":
            d = self._diagonals.shape[:-2].concatenate(self._diagonals.shape[-1:])
        else:
            batch = ds.broadcast_static_shape(self._diagonals[0].shape[:-1],
                                              self._diagonals[1].shape[:-1])
            batch = ds.broadcast_static_shape(batch, self._diagonals[2].shape[:-1])
            d = batch.concatenate(self._diagonals[1].shape[-1:])
        return d.concatenate(d[-1:])

    def _shape_tensor(self):
        if self._diagonals_format == "matrix":
            return ds.shape(self._diagonals)
        if self._diagonals_format == "compact":
            d = ds.shape(self._diagonals[..., 0, :])
        else:
            shapes = [ds.shape(x) for x in self._diagonals]
            batch = ds.broadcast_dynamic_shape(shapes[0][:-1], shapes[1][:-1])
            batch = ds.broadcast_dynamic_shape(batch, shapes[2][:-1])
            d = ds.concat([batch, shapes[1][-1:]], 0)
        return ds.concat([d, d[-1:]], 0)

    def _adjoint_diagonals(self):
        diagonals = self._diagonals
        if self._diagonals_format == "sequence":
            diagonals = [util.conj(d) for d in reversed(diagonals)]
            diagonals[0] = ds.roll(diagonals[0], shift=-1, axis=-1)
            diagonals[2] = ds.roll(diagonals[2], shift=1, axis=-1)
            return diagonals
        if self._diagonals_format == "matrix":
            return util.adjoint(diagonals)
        superdiag, diag, subdiag = ds.unstack(util.conj(diagonals), num=3, axis=-2)
        return ds.stack([ds.roll(subdiag, shift=-1, axis=-1), diag,
                         ds.roll(superdiag, shift=1, axis=-1)], axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diagonals = self._adjoint_diagonals() if adjoint else self._diagonals
        x = util.adjoint(x) if adjoint_arg else x
        return ds.linalg.tridiagonal_matmul(diagonals, x,
                                            diagonals_format=self._diagonals_format)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diagonals = self._adjoint_diagonals() if adjoint else self._diagonals
        rhs = util.adjoint(rhs) if adjoint_arg else rhs
        rhs_shape = ds.shape(rhs)
        k = self.shape_tensor()[-1]
        batch = ds.broadcast_dynamic_shape(self.shape_tensor()[:-2], rhs_shape[:-2])
        rhs = ds.broadcast_to(rhs, ds.concat([batch, rhs_shape[-2:]], 0))
        if self._diagonals_format == "matrix":
            diagonals = ds.broadcast_to(diagonals, ds.concat([batch, ds.stack([k, k])], 0))
        elif self._diagonals_format == "compact":
            diagonals = ds.broadcast_to(diagonals, ds.concat([batch, ds.stack([3, k])], 0))
        else:
            diagonals = [ds.broadcast_to(d, ds.concat([batch, ds.reshape(k, [1])], 0))
                         for d in diagonals]
        return ds.linalg.tridiagonal_solve(diagonals, rhs,
                                           diagonals_format=self._diagonals_format)

    def _diag_part(self):
        if self._diagonals_format == "matrix":
            return ds.matrix_diag_part(self._diagonals)
        if self._diagonals_format == "sequence":
            return ds.broadcast_to(self._diagonals[1], self.shape_tensor()[:-1])
        return self._diagonals[..., 1, :]

    def _to_dense(self):
        if self._diagonals_format == "matrix":
            return self._diagonals
        diagonals = self._diagonals
        if self._diagonals_format == "sequence":
            diagonals = ds.stack([ds.convert_to_tensor(d) for d in diagonals], axis=-2)
        return ds.matrix_diag(diagonals, k=(-1, 1), align="LEFT_RIGHT")
