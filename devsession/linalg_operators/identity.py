"""The operators that hold no matrix: ``LinearOperatorIdentity`` (``I``, with an
optional batch shape its products broadcast to), ``LinearOperatorScaledIdentity``
(``c I`` for a [batch] scalar ``c``) and ``LinearOperatorZeros`` (``0``, possibly
non-square).  Their sizes are shape arguments (``num_rows``, ``batch_shape``) whose
static values give the static shape; TF's ValueErrors and TypeErrors for sizes that
are not non-negative integer scalars and for hints these matrices contradict."""

from __future__ import annotations

import numpy as np

from . import tf_api as ds

from . import util
from .base import LinearOperator
from .hints import combined_commuting_positive_definite_hint
from .hints import combined_commuting_self_adjoint_hint, combined_non_singular_hint


def _shape_argument(value, name):
    """(tensor, static value or None) of a size argument, as TF's ``shape_tensor``:
    an int32 tensor unless it already is an integer tensor."""
    if ds.is_tensor(value):
        tensor = value
    else:
        array = np.asarray(value)
        dtype = ds.int32 if array.dtype.kind in "iu" else None
        tensor = ds.convert_to_tensor(value, dtype=dtype, name=name)
    return tensor, ds.get_static_value(tensor)


def _check_size(tensor, static, arg):
    if not tensor.dtype.is_integer:
        raise TypeError("Argument %s must be integer type.  Found: %s" % (arg, tensor))
    if static is not None:
        if np.ndim(static) != 0:
            raise ValueError("Argument %s must be a 0-D Tensor.  Found: %s" % (arg, static))
        if static < 0:
            raise ValueError("Argument %s must be non-negative.  Found: %s" % (arg, static))


def _check_batch_shape(tensor, static):
    if not tensor.dtype.is_integer:
        raise TypeError("Argument batch_shape must be integer type.  Found: %s" % tensor)
    if static is not None:
        if np.ndim(static) != 1:
            raise ValueError("Argument batch_shape must be a 1-D Tensor.  Found: %s"
                             % static)
        if np.any(np.asarray(static) < 0):
            raise ValueError("Argument batch_shape must be non-negative.  Found:%s"
                             % static)


class _ShapedWithoutMatrix(LinearOperator):
    """Shape bookkeeping of the operators given by sizes: ``_num_rows``,
    ``_num_columns`` and an optional ``_batch_shape_arg``."""

    def _set_sizes(self, num_rows, num_columns, batch_shape):
        self._num_rows, self._num_rows_static = _shape_argument(num_rows, "num_rows")
        _check_size(self._num_rows, self._num_rows_static, "num_rows")
        if num_columns is None:
            self._num_columns, self._num_columns_static = (self._num_rows,
                                                           self._num_rows_static)
        else:
            self._num_columns, self._num_columns_static = _shape_argument(
                num_columns, "num_columns")
            _check_size(self._num_columns, self._num_columns_static, "num_columns")
        if batch_shape is None:
            self._batch_shape_arg = self._batch_shape_static = None
        else:
            self._batch_shape_arg, self._batch_shape_static = _shape_argument(
                batch_shape, "batch_shape")
            _check_batch_shape(self._batch_shape_arg, self._batch_shape_static)

    def _static_int(self, value):
        return None if value is None else int(value)

    def _shape(self):
        matrix = ds.TensorShape([self._static_int(self._num_rows_static),
                                 self._static_int(self._num_columns_static)])
        if self._batch_shape_arg is None:
            return matrix
        if self._batch_shape_static is None:
            # TF's constant_value_as_shape: the rank from the argument's length.
            length = self._batch_shape_arg.shape
            rank = ds.dimension_value(length[0]) if length.ndims == 1 else None
            batch = ds.TensorShape(None if rank is None else [None] * rank)
            return batch.concatenate(matrix)
        return ds.TensorShape([int(b) for b in self._batch_shape_static]).concatenate(matrix)

    def _shape_tensor(self):
        matrix = ds.stack([ds.cast(self._num_rows, ds.int32),
                           ds.cast(self._num_columns, ds.int32)])
        if self._batch_shape_arg is None:
            return matrix
        return ds.concat([ds.cast(self._batch_shape_arg, ds.int32), matrix], 0)

    def _batch_shape_value(self):
        if self.batch_shape.is_fully_defined():
            return self.batch_shape.as_list()
        return self.batch_shape_tensor()

    def _min_matrix_dim(self):
        rows = ds.dimension_value(self.range_dimension)
        cols = ds.dimension_value(self.domain_dimension)
        if rows is None or cols is None:
            return None
        return min(rows, cols)

    def _diag_of(self, value):
        """A [batch] diagonal filled with ``value``."""
        n = self._min_matrix_dim()
        if self.shape.is_fully_defined():
            shape = self.batch_shape.concatenate([n]).as_list()
        else:
            shape = ds.concat([self.batch_shape_tensor(),
                               [ds.reduce_min(self._shape_tensor()[-2:])]], 0)
        return ds.fill(shape, ds.constant(value, self.dtype))

    def _slice_batch_shape(self, slices):
        """Identities' and zeros' batch slicing: the same operator with the sliced
        batch shape (sizes as TF's proxy of ones gives them)."""
        from .slicing import _static_batch, sliced_batch_shape

        batch = sliced_batch_shape(_static_batch(self.batch_shape, self.name), slices)
        return type(self)(**dict(self.parameters, batch_shape=batch))

    def _possibly_broadcast_batch_shape(self, x):
        """``x`` broadcast against the batch shape, when the operator has one."""
        if self._batch_shape_arg is None:
            return x
        special = self.batch_shape.concatenate([1, 1])
        if special.is_fully_defined():
            if ds.broadcast_static_shape(x.shape, special) == x.shape:
                return x
            return x + ds.zeros(special.as_list(), self.dtype)
        special = ds.concat([self.batch_shape_tensor(), [1, 1]], 0)
        return x + ds.zeros(special, self.dtype)


class LinearOperatorIdentity(_ShapedWithoutMatrix):
    """``I`` of size ``num_rows``, with an optional ``batch_shape``."""

    _is_identity = True

    def __getitem__(self, slices):
        return self._slice_batch_shape(slices)

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        """Raises ValueError for hints an identity contradicts or bad sizes,
        TypeError for non-integer sizes."""
        parameters = dict(num_rows=num_rows, batch_shape=batch_shape, dtype=dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = dtype or ds.float32
        self._assert_proper_shapes = assert_proper_shapes
        with ds.name_scope(name):
            dtype = ds.as_dtype(dtype)
            if not is_self_adjoint:
                raise ValueError("An identity operator is always self adjoint.")
            if not is_non_singular:
                raise ValueError("An identity operator is always non-singular.")
            if not is_positive_definite:
                raise ValueError("An identity operator is always positive-definite.")
            if not is_square:
                raise ValueError("An identity operator is always square.")
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)
            self._set_sizes(num_rows, None, batch_shape)

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _linop_cholesky(self):
        return self

    def _linop_matmul(self, left, right):
        if getattr(left, "_is_identity", False):
            return right
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        if getattr(left, "_is_identity", False):
            return right
        return super()._linop_solve(left, right)

    def _assert_non_singular(self):
        return ds.no_op(name="assert_non_singular")

    def _assert_positive_definite(self):
        return ds.no_op(name="assert_positive_definite")

    def _assert_self_adjoint(self):
        return ds.no_op(name="assert_self_adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = util.adjoint(x) if adjoint_arg else x
        return self._possibly_broadcast_batch_shape(x)

    def _to_dense(self):
        n = ds.dimension_value(self.domain_dimension)
        if n is None:
            n = self._num_rows
        return util.eye(n, self._batch_shape_value(), self.dtype)

    def _determinant(self):
        return ds.ones(self._batch_shape_value(), self.dtype)

    def _log_abs_determinant(self):
        return ds.zeros(self._batch_shape_value(), self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _trace(self):
        ones = ds.ones(self._batch_shape_value(), self.dtype)
        n = self._min_matrix_dim()
        if n is None:
            return ds.cast(ds.reduce_min(self._shape_tensor()[-2:]), self.dtype) * ones
        return n * ones

    def _diag_part(self):
        return self._diag_of(1)

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``I + mat``."""
        with self._name_scope(name):
            mat = ds.convert_to_tensor(mat, name="mat")
            return ds.matrix_set_diag(mat, 1 + ds.matrix_diag_part(mat))

    def _eigvals(self):
        return self._diag_of(1)

    def _cond(self):
        return ds.ones(self._batch_shape_value(), self.dtype)


class LinearOperatorScaledIdentity(_ShapedWithoutMatrix):
    """``c I`` for a [batch] scalar ``multiplier`` ``c``: the batch shape is c's."""

    _is_scaled_identity = True

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        """Raises ValueError for a real multiplier hinted not self-adjoint, for
        ``is_square=False`` and bad sizes."""
        parameters = dict(num_rows=num_rows, multiplier=multiplier,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        self._assert_proper_shapes = assert_proper_shapes
        with ds.name_scope(name):
            self._multiplier = ds.convert_to_tensor(multiplier, name="multiplier")
            if not self._multiplier.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                is_self_adjoint = True
            if not is_square:
                raise ValueError("A ScaledIdentity operator is always square.")
            super().__init__(dtype=self._multiplier.dtype.base_dtype,
                             is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)
            self._set_sizes(num_rows, None, None)
            self._num_rows_cast_to_dtype = ds.cast(self._num_rows, self.dtype)
            self._num_rows_cast_to_real_dtype = ds.cast(self._num_rows,
                                                        self.dtype.real_dtype)

    def _parameter_ndims(self):
        return {"multiplier": 0}

    @property
    def multiplier(self):
        return self._multiplier

    def _shape(self):
        n = self._static_int(self._num_rows_static)
        return self._multiplier.shape.concatenate([n, n])

    def _shape_tensor(self):
        n = ds.cast(self._num_rows, ds.int32)
        return ds.concat([ds.shape(self._multiplier), ds.stack([n, n])], 0)

    def _multiplier_matrix(self, conjugate=False):
        m = ds.expand_dims(ds.expand_dims(self._multiplier, -1), -1)
        return util.conj(m) if conjugate else m

    def _linop_adjoint(self):
        return LinearOperatorScaledIdentity(
            self._num_rows, util.conj(self._multiplier),
            is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorScaledIdentity(
            self._num_rows, ds.sqrt(self._multiplier), is_non_singular=True,
            is_self_adjoint=True, is_positive_definite=True, is_square=True)

    def _linop_inverse(self):
        return LinearOperatorScaledIdentity(
            self._num_rows, 1. / self._multiplier, is_non_singular=self.is_non_singular,
            is_self_adjoint=True, is_positive_definite=self.is_positive_definite,
            is_square=True)

    def _product_with(self, left, right, value_fn):
        """``left`` (this operator) times or solving ``right`` as one operator where
        both are scaled identities or ``right`` is diagonal, as TF's."""
        from .basic import LinearOperatorDiag

        hints = dict(
            is_non_singular=combined_non_singular_hint(left, right),
            is_self_adjoint=combined_commuting_self_adjoint_hint(left, right),
            is_positive_definite=combined_commuting_positive_definite_hint(left, right),
            is_square=True)
        if isinstance(right, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                left.domain_dimension_tensor(),
                value_fn(left.multiplier, right.multiplier), **hints)
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(value_fn(left.multiplier, right.diag), **hints)
        return None

    def _linop_matmul(self, left, right):
        if isinstance(left, LinearOperatorScaledIdentity):
            result = self._product_with(left, right, lambda m, r: m * r)
            if result is not None:
                return result
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        if isinstance(left, LinearOperatorScaledIdentity):
            result = self._product_with(left, right, lambda m, r: r / m)
            if result is not None:
                return result
        return super()._linop_solve(left, right)

    def _assert_non_singular(self):
        return ds.debugging.assert_positive(ds.abs(self._multiplier),
                                            message="LinearOperator was singular")

    def _assert_positive_definite(self):
        return ds.debugging.assert_positive(
            ds.real(self._multiplier), message="LinearOperator was not positive definite.")

    def _assert_self_adjoint(self):
        imag = ds.imag(self._multiplier)
        return ds.debugging.assert_equal(ds.zeros_like(imag), imag,
                                         message="LinearOperator was not self-adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = util.adjoint(x) if adjoint_arg else x
        return x * self._multiplier_matrix(conjugate=adjoint)

    def _determinant(self):
        return self._multiplier ** self._num_rows_cast_to_dtype

    def _log_abs_determinant(self):
        return self._num_rows_cast_to_real_dtype * ds.log(ds.abs(self._multiplier))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = util.adjoint(rhs) if adjoint_arg else rhs
        return rhs / self._multiplier_matrix(conjugate=adjoint)

    def _trace(self):
        ones = ds.ones(self._batch_shape_value(), self.dtype)
        n = self._min_matrix_dim()
        if n is None:
            n = ds.cast(self._num_rows, self.dtype)
        return self._multiplier * n * ones

    def _diag_part(self):
        return self._diag_of(1) * ds.expand_dims(self._multiplier, -1)

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``c I + mat``."""
        with self._name_scope(name):
            mat = ds.convert_to_tensor(mat, name="mat")
            new_diag = ds.expand_dims(self._multiplier, -1) + ds.matrix_diag_part(mat)
            return ds.matrix_set_diag(mat, new_diag)

    def _eigvals(self):
        return self._diag_of(1) * ds.expand_dims(self._multiplier, -1)

    def _cond(self):
        return ds.where(ds.equal(self._multiplier, 0.),
                        ds.fill(ds.shape(self._multiplier), ds.constant(np.nan, self.dtype)),
                        ds.ones_like(self._multiplier))


class LinearOperatorZeros(_ShapedWithoutMatrix):
    """The ``num_rows x num_columns`` zero matrix, with an optional batch shape."""

    _is_zeros = True

    def __getitem__(self, slices):
        return self._slice_batch_shape(slices)

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        """Raises ValueError for hints a zero matrix contradicts and for
        ``is_square`` with unequal sizes."""
        parameters = dict(num_rows=num_rows, num_columns=num_columns,
                          batch_shape=batch_shape, dtype=dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = dtype or ds.float32
        self._assert_proper_shapes = assert_proper_shapes
        with ds.name_scope(name):
            dtype = ds.as_dtype(dtype)
            if not is_self_adjoint and is_square:
                raise ValueError("A zero operator is always self adjoint.")
            if is_non_singular:
                raise ValueError("A zero operator is always singular.")
            if is_positive_definite:
                raise ValueError("A zero operator is always not positive-definite.")
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)
            self._set_sizes(num_rows, num_columns, batch_shape)
            rows, cols = self._num_rows_static, self._num_columns_static
            if rows is not None and cols is not None and is_square and rows != cols:
                raise ValueError(
                    "LinearOperatorZeros initialized as is_square=True, but got "
                    "num_rows({}) != num_columns({})".format(rows, cols))

    def _assert_non_singular(self):
        raise ds.errors.InvalidArgumentError("Zero operators are always non-invertible.")

    def _assert_positive_definite(self):
        raise ds.errors.InvalidArgumentError(
            "Zero operators are always non-positive definite.")

    def _assert_self_adjoint(self):
        return ds.no_op(name="assert_self_adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x_shape = ds.shape(x)
        if self.is_square:
            if adjoint_arg:
                shape = ds.concat([x_shape[:-2], ds.stack([x_shape[-1], x_shape[-2]])], 0)
            else:
                shape = x_shape
        else:
            n = ds.cast(self._num_columns if adjoint else self._num_rows, ds.int32)
            m = x_shape[-2] if adjoint_arg else x_shape[-1]
            shape = ds.concat([x_shape[:-2], ds.stack([n, m])], 0)
        return self._possibly_broadcast_batch_shape(ds.zeros(shape, x.dtype))

    def _linop_matmul(self, left, right):
        if getattr(left, "_is_zeros", False):
            if not left.is_square or not right.is_square:
                raise ValueError(
                    "Matmul with non-square `LinearOperator`s or non-square "
                    "`LinearOperatorZeros` not supported at this time.")
            return left
        return super()._linop_matmul(left, right)

    def _to_dense(self):
        return ds.zeros(self._shape_value(), self.dtype)

    def _shape_value(self):
        if self.shape.is_fully_defined():
            return self.shape.as_list()
        return self._shape_tensor()

    def _determinant(self):
        return ds.zeros(self._batch_shape_value(), self.dtype)

    def _trace(self):
        return ds.zeros(self._batch_shape_value(), self.dtype)

    def _diag_part(self):
        return self._diag_of(0)

    def add_to_tensor(self, mat, name="add_to_tensor"):
        """``0 + mat``, broadcast to the batch shape."""
        return self._possibly_broadcast_batch_shape(ds.convert_to_tensor(mat))
