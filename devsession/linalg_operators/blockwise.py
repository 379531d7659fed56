"""Operators built from other operators' blocks: ``LinearOperatorBlockDiag`` (the
direct sum ``diag(A1, A2, ...)``: products, solves, determinants and diagonals
blockwise) and ``LinearOperatorKronecker`` (``A1 x A2 x ...``: determinants,
traces, diagonals and eigenvalues from the factors'; products and solves through
the dense Kronecker product, which agrees with TF's reshaping route to rounding).
Blocks' batch shapes broadcast against each other as TF's; the block diagonal also
takes lists of one tensor per block (``blockwise_args.py``)."""

from __future__ import annotations

from . import tf_api as ds

from . import util
from .base import OperatorOfOperators
from .blockwise_args import BlockwiseArguments
from .hints import combined_non_singular_hint, implied_by_all


def _check_same_dtype(operators, message):
    dtype = operators[0].dtype
    for operator in operators:
        if operator.dtype != dtype:
            name_type = (str((o.name, o.dtype)) for o in operators)
            raise TypeError(message(name_type))
    return dtype


def _dims_product(dims):
    value = 1
    for d in dims:
        if ds.dimension_value(d) is None:
            return None
        value *= ds.dimension_value(d)
    return value


def _dims_sum(dims):
    values = [ds.dimension_value(d) for d in dims]
    return None if None in values else sum(values)


def _broadcast_batch(operators):
    batch = operators[0].batch_shape
    for operator in operators[1:]:
        batch = ds.broadcast_static_shape(batch, operator.batch_shape)
    return batch


class _Blockwise(OperatorOfOperators):
    """Adjoints, inverses and Cholesky factors taken block by block (factor by
    factor), returning the same kind of operator, as TF's."""

    def _linop_adjoint(self):
        return type(self)([op.adjoint() for op in self._operators],
                          is_non_singular=self.is_non_singular,
                          is_self_adjoint=self.is_self_adjoint,
                          is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_inverse(self):
        return type(self)([op.inverse() for op in self._operators],
                          is_non_singular=self.is_non_singular,
                          is_self_adjoint=self.is_self_adjoint,
                          is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_cholesky(self):
        return type(self)([op.cholesky() for op in self._operators], is_non_singular=True,
                          is_self_adjoint=None, is_square=True)


class LinearOperatorBlockDiag(BlockwiseArguments, _Blockwise):
    """``diag(operators[0], operators[1], ...)``, square blocks."""

    _JOIN = "_ds_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        """Raises ValueError for no operators or contradicting hints, TypeError for
        mixed dtypes."""
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        operators = list(operators)
        if not operators:
            raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
        self._operators = operators
        dtype = _check_same_dtype(
            operators, lambda nt: "Expected all operators to have the same dtype.  "
                                  "Found %s" % "   ".join(nt))
        is_non_singular = implied_by_all(
            operators, "is_non_singular", is_non_singular,
            "The direct sum of non-singular operators is always non-singular.")
        is_self_adjoint = implied_by_all(
            operators, "is_self_adjoint", is_self_adjoint,
            "The direct sum of self-adjoint operators is always self-adjoint.")
        is_positive_definite = implied_by_all(
            operators, "is_positive_definite", is_positive_definite,
            "The direct sum of positive definite operators is always "
            "positive definite.")
        self._init_from(operators, name, dtype, parameters,
                        is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                        is_positive_definite=is_positive_definite, is_square=is_square)

    def _blockwise_operator(self, method, left, right):
        """The block diagonal of the blocks' products or solves (``method``); TF's
        ValueErrors when the blocks do not pair up."""
        if len(left.operators) != len(right.operators):
            raise ValueError("Can not efficiently multiply two `LinearOperatorBlockDiag`s "
                             "together when number of blocks differ.")
        for o1, o2 in zip(left.operators, right.operators):
            if not util.dims_compatible(o2.range_dimension, o1.domain_dimension):
                raise ValueError("Blocks are incompatible. Expected `x` to have dimension"
                                 " {} but got {}.".format(o1.domain_dimension,
                                                          o2.range_dimension))
        return LinearOperatorBlockDiag(
            [getattr(o1, method)(o2) for o1, o2 in zip(left.operators, right.operators)],
            is_non_singular=combined_non_singular_hint(left, right),
            is_self_adjoint=None, is_positive_definite=None, is_square=True)

    def _linop_matmul(self, left, right):
        if isinstance(left, LinearOperatorBlockDiag) and isinstance(
                right, LinearOperatorBlockDiag):
            return self._blockwise_operator("matmul", left, right)
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        if isinstance(left, LinearOperatorBlockDiag) and isinstance(
                right, LinearOperatorBlockDiag):
            return self._blockwise_operator("solve", left, right)
        return super()._linop_solve(left, right)

    def _shape(self):
        rows = _dims_sum([op.range_dimension for op in self._operators])
        cols = _dims_sum([op.domain_dimension for op in self._operators])
        return _broadcast_batch(self._operators).concatenate([rows, cols])

    def _shape_tensor(self):
        batch = self._operators[0].batch_shape_tensor()
        for op in self._operators[1:]:
            batch = ds.broadcast_dynamic_shape(batch, op.batch_shape_tensor())
        rows = ds.add_n([op.range_dimension_tensor() for op in self._operators])
        cols = ds.add_n([op.domain_dimension_tensor() for op in self._operators])
        return ds.concat([batch, ds.stack([rows, cols])], 0)

    def _diagonal_blocks(self):
        return self._operators

    def _matmul_blocks(self, blocks, adjoint):
        return [op.matmul(b, adjoint=adjoint) for op, b in zip(self._operators, blocks)]

    def _solve_blocks(self, blocks, adjoint):
        return [op.solve(b, adjoint=adjoint) for op, b in zip(self._operators, blocks)]

    def _determinant(self):
        result = self._operators[0].determinant()
        for op in self._operators[1:]:
            result *= op.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            result += op.log_abs_determinant()
        return result

    def _diag_part(self):
        parts = [op.diag_part() for op in self._operators]
        parts = [ds.squeeze(p, axis=[-1]) for p in util.broadcast_matrix_batch_dims(
            [ds.expand_dims(p, -1) for p in parts])]
        return ds.concat(parts, -1)

    def _trace(self):
        result = self._operators[0].trace()
        for op in self._operators[1:]:
            result += op.trace()
        return result

    def _to_dense(self):
        blocks = util.broadcast_matrix_batch_dims([op.to_dense() for op in self._operators])
        total = self.domain_dimension_tensor()
        rows, num_cols = [], 0
        for block in blocks:
            batch_rows = ds.shape(block)[:-1]
            before = ds.zeros(ds.concat([batch_rows, ds.reshape(num_cols, [1])], 0),
                              block.dtype)
            num_cols = num_cols + ds.shape(block)[-1]
            after = ds.zeros(ds.concat([batch_rows, ds.reshape(total - num_cols, [1])], 0),
                             block.dtype)
            rows.append(ds.concat([before, block, after], -1))
        return ds.concat(rows, -2)

    def _assert_non_singular(self):
        return ds.group(*[op.assert_non_singular() for op in self._operators])

    def _assert_self_adjoint(self):
        return ds.group(*[op.assert_self_adjoint() for op in self._operators])

    def _assert_positive_definite(self):
        return ds.group(*[op.assert_positive_definite() for op in self._operators])

    def _eigvals(self):
        parts = [op.eigvals() for op in self._operators]
        parts = [ds.squeeze(p, axis=[-1]) for p in util.broadcast_matrix_batch_dims(
            [ds.expand_dims(p, -1) for p in parts])]
        return ds.concat(parts, -1)


class LinearOperatorKronecker(_Blockwise):
    """``operators[0] x operators[1] x ...`` (Kronecker product)."""

    _JOIN = "_x_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        """Raises ValueError for no operators or contradicting hints, TypeError for
        mixed dtypes."""
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        operators = list(operators)
        if not operators:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. "
                             f"Received: {operators}.")
        self._operators = operators
        dtype = _check_same_dtype(
            operators, lambda nt: f"Expected every operation in argument `operators` to "
                                  f"have the same dtype. Received {list(nt)}.")
        is_non_singular = implied_by_all(
            operators, "is_non_singular", is_non_singular,
            f"The Kronecker product of non-singular operators is always "
            f"non-singular. Expected argument `is_non_singular` to be True. "
            f"Received: {is_non_singular}.")
        is_self_adjoint = implied_by_all(
            operators, "is_self_adjoint", is_self_adjoint,
            f"The Kronecker product of self-adjoint operators is always "
            f"self-adjoint. Expected argument `is_self_adjoint` to be True. "
            f"Received: {is_self_adjoint}.")
        is_positive_definite = implied_by_all(
            operators, "is_positive_definite", is_positive_definite,
            f"The Kronecker product of positive-definite operators is always "
            f"positive-definite. Expected argument `is_positive_definite` to "
            f"be True. Received: {is_positive_definite}.")
        self._init_from(operators, name, dtype, parameters,
                        is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                        is_positive_definite=is_positive_definite, is_square=is_square)

    def _shape(self):
        rows = _dims_product([op.range_dimension for op in self._operators])
        cols = _dims_product([op.domain_dimension for op in self._operators])
        return _broadcast_batch(self._operators).concatenate([rows, cols])

    def _shape_tensor(self):
        batch = self._operators[0].batch_shape_tensor()
        rows = self._operators[0].range_dimension_tensor()
        cols = self._operators[0].domain_dimension_tensor()
        for op in self._operators[1:]:
            batch = ds.broadcast_dynamic_shape(batch, op.batch_shape_tensor())
            rows = rows * op.range_dimension_tensor()
            cols = cols * op.domain_dimension_tensor()
        return ds.concat([batch, ds.stack([rows, cols])], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return util.matmul(self._to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        # (A1 x A2)^-1 = A1^-1 x A2^-1: the Kronecker product of the factors' inverses.
        inverses = [op.inverse().to_dense() for op in self._operators]
        return util.matmul(self._kron(inverses), rhs, adjoint_a=adjoint,
                           adjoint_b=adjoint_arg)

    def _determinant(self):
        total = self.domain_dimension_tensor()
        determinant = 1.
        for op in self._operators:
            power = ds.cast(ds.math.floordiv(total, op.domain_dimension_tensor()), op.dtype)
            determinant = determinant * op.determinant() ** power
        return determinant

    def _log_abs_determinant(self):
        total = self.domain_dimension_tensor()
        result = 0.
        for op in self._operators:
            power = ds.cast(ds.math.floordiv(total, op.domain_dimension_tensor()), op.dtype)
            result += op.log_abs_determinant() * power
        return result

    def _trace(self):
        trace = 1.
        for op in self._operators:
            trace = trace * op.trace()
        return trace

    @staticmethod
    def _outer_flat(a, b):
        """The flattened outer product of two [batch] vectors."""
        product = ds.expand_dims(a, -1) * ds.expand_dims(b, -2)
        return ds.reshape(product, ds.concat([ds.shape(product)[:-2], [-1]], 0))

    def _diag_part(self):
        diag = self._operators[0].diag_part()
        for op in self._operators[1:]:
            diag = self._outer_flat(diag, op.diag_part())
        return diag

    @staticmethod
    def _kron(matrices):
        product = matrices[0]
        for matrix in matrices[1:]:
            left = ds.expand_dims(ds.expand_dims(product, -2), -1)     # [B, R1, 1, C1, 1]
            right = ds.expand_dims(ds.expand_dims(matrix, -3), -2)     # [B, 1, R2, 1, C2]
            product = left * right
            shape = ds.shape(product)
            product = ds.reshape(product, ds.concat(
                [shape[:-4], ds.stack([shape[-4] * shape[-3], shape[-2] * shape[-1]])], 0))
        return product

    def _to_dense(self):
        dense = self._kron([op.to_dense() for op in self._operators])
        if self.shape.is_fully_defined():
            dense = ds.reshape(dense, self.shape.as_list())
        return dense

    def _eigvals(self):
        values = self._operators[0].eigvals()
        for op in self._operators[1:]:
            values = self._outer_flat(values, op.eigvals())
        return values

    def _assert_non_singular(self):
        if all(op.is_square for op in self._operators):
            return ds.group(*[op.assert_non_singular() for op in self._operators])
        raise ds.errors.InvalidArgumentError(
            "All Kronecker factors must be square for the product to be invertible. "
            "Expected hint `is_square` to be True for every operator in argument "
            "`operators`.")

    def _assert_self_adjoint(self):
        if all(op.is_square for op in self._operators):
            return ds.group(*[op.assert_self_adjoint() for op in self._operators])
        raise ds.errors.InvalidArgumentError(
            "All Kronecker factors must be square for the product to be invertible. "
            "Expected hint `is_square` to be True for every operator in argument "
            "`operators`.")
