"""``LinearOperatorBlockLowerTriangular``: a square block lower-triangular matrix
given row by row (``operators[i]`` holds the ``i + 1`` blocks of row ``i``, the
last on the diagonal).  Products are row sums of block products; solves are
blockwise forward substitution (backward for the adjoint) through the diagonal
blocks' solves; determinants and diagonals are the diagonal blocks'.  Arguments
are tensors or, as TF's, lists of one tensor per block (``blockwise_args.py``)."""

from __future__ import annotations

from . import tf_api as ds

from . import util
from .basic import LinearOperatorFullMatrix
from .blockwise_args import BlockwiseArguments


class LinearOperatorBlockLowerTriangular(BlockwiseArguments):
    """``[[A11], [A21, A22], ...]`` as a block lower-triangular operator."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorBlockLowerTriangular"):
        """Raises ValueError for no rows, rows of the wrong length, blocks whose
        dimensions do not line up, non-square diagonal blocks or contradicting
        hints; TypeError for mixed dtypes."""
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        operators = [list(row) for row in operators]
        if not operators:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. "
                             f"Received: {operators}.")
        self._operators = operators
        self._diagonal_operators = [row[-1] for row in operators]
        dtype = operators[0][0].dtype
        for i, row in enumerate(operators):
            for operator in row:
                if operator.dtype != dtype:
                    name_type = (str((o.name, o.dtype)) for o in row)
                    raise TypeError("Expected all operators to have the same dtype.  "
                                    "Found {} in row {} and {} in row 0.".format(
                                        name_type, i, str(dtype)))
        is_non_singular = self._validate_non_singular(is_non_singular)
        for i, row in enumerate(operators):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` "
                                 f"blocks. Received: {len(row)} blocks.")
        self._validate_operator_dimensions()
        is_square = self._validate_square(is_square)
        with ds.name_scope(name):
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite,
                             is_square=is_square, parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"operators": [[0] * len(row) for row in self._operators]}

    def _validate_non_singular(self, is_non_singular):
        if all(op.is_non_singular for op in self._diagonal_operators):
            if is_non_singular is False:
                raise ValueError(
                    f"A blockwise lower-triangular operator with non-singular "
                    f"operators on the main diagonal is always non-singular. "
                    f"Expected argument `is_non_singular` to be True. "
                    f"Received: {is_non_singular}.")
            return True
        if any(op.is_non_singular is False for op in self._diagonal_operators):
            if is_non_singular is True:
                raise ValueError(
                    f"A blockwise lower-triangular operator with a singular operator "
                    f"on the main diagonal is always singular. Expected argument "
                    f"`is_non_singular` to be True. Received: {is_non_singular}.")
            return False
        return None

    def _validate_operator_dimensions(self):
        ops = self._operators
        for i in range(1, len(ops)):
            for j in range(i):
                op, above, right = ops[i][j], ops[i - 1][j], ops[i][j + 1]
                d = ds.dimension_value(op.domain_dimension)
                da = ds.dimension_value(above.domain_dimension)
                if d is not None and da is not None and d != da:
                    raise ValueError(f"Argument `operators[{i}][{j}].domain_dimension` "
                                     f"({d}) must be the same as "
                                     f"`operators[{i-1}][{j}].domain_dimension` ({da}).")
                r = ds.dimension_value(op.range_dimension)
                rr = ds.dimension_value(right.range_dimension)
                if r is not None and rr is not None and r != rr:
                    raise ValueError(f"Argument `operators[{i}][{j}].range_dimension` "
                                     f"({r}) must be the same as "
                                     f"`operators[{i}][{j + 1}].range_dimension` ({rr}).")

    def _validate_square(self, is_square):
        if is_square is False:
            raise ValueError(f"`LinearOperatorBlockLowerTriangular` must be square. "
                             f"Expected argument `is_square` to be True. "
                             f"Received: {is_square}.")
        for i, op in enumerate(self._diagonal_operators):
            if op.is_square is False:
                raise ValueError(
                    f"Matrices on the diagonal (the final elements of each "
                    f"row-partition in the `operators` list) must be square. Expected "
                    f"argument `operators[{i}][-1].is_square` to be True. "
                    f"Received: {op.is_square}.")
        return True

    @property
    def operators(self):
        return self._operators

    def _diagonal_blocks(self):
        return self._diagonal_operators

    def _shape(self):
        dims = self._block_sizes()
        n = None if None in dims else sum(dims)
        batch = self._operators[0][0].batch_shape
        for row in self._operators:
            for op in row:
                batch = ds.broadcast_static_shape(batch, op.batch_shape)
        return batch.concatenate([n, n])

    def _shape_tensor(self):
        n = ds.add_n([op.domain_dimension_tensor() for op in self._diagonal_operators])
        batch = self._operators[0][0].batch_shape_tensor()
        for row in self._operators:
            for op in row:
                batch = ds.broadcast_dynamic_shape(batch, op.batch_shape_tensor())
        return ds.concat([batch, ds.stack([n, n])], 0)

    def _matmul_blocks(self, parts, adjoint):
        ops, results = self._operators, []
        if adjoint:
            for i in range(len(ops)):
                result = ops[i][i].matmul(parts[i], adjoint=True)
                for j in range(i + 1, len(ops)):
                    result += ops[j][i].matmul(parts[j], adjoint=True)
                results.append(result)
        else:
            for row in ops:
                result = row[0].matmul(parts[0])
                for j, op in enumerate(row[1:]):
                    result += op.matmul(parts[j + 1])
                results.append(result)
        return results

    def _solve_blocks(self, parts, adjoint):
        ops, n = self._operators, len(self._operators)
        solution = [None] * n
        order = reversed(range(n)) if adjoint else range(n)
        for i in order:
            y = parts[i]
            others = range(i + 1, n) if adjoint else range(i)
            for j in others:
                block = ops[j][i] if adjoint else ops[i][j]
                y = y - block.matmul(solution[j], adjoint=adjoint)
            solution[i] = self._diagonal_operators[i].solve(y, adjoint=adjoint)
        return solution

    def _determinant(self):
        if all(op.is_positive_definite for op in self._diagonal_operators):
            return ds.exp(self._log_abs_determinant())
        result = self._diagonal_operators[0].determinant()
        for op in self._diagonal_operators[1:]:
            result *= op.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._diagonal_operators[0].log_abs_determinant()
        for op in self._diagonal_operators[1:]:
            result += op.log_abs_determinant()
        return result

    def _stacked_vectors(self, vectors):
        parts = util.broadcast_matrix_batch_dims([ds.expand_dims(v, -1) for v in vectors])
        return ds.squeeze(ds.concat(parts, -2), axis=[-1])

    def _diag_part(self):
        return self._stacked_vectors([op.diag_part() for op in self._diagonal_operators])

    def _eigvals(self):
        return self._stacked_vectors([op.eigvals() for op in self._diagonal_operators])

    def _trace(self):
        result = self._diagonal_operators[0].trace()
        for op in self._diagonal_operators[1:]:
            result += op.trace()
        return result

    def _to_dense(self):
        flat = util.broadcast_matrix_batch_dims(
            [op.to_dense() for row in self._operators for op in row])
        total = self.domain_dimension_tensor()
        rows, num_cols = [], 0
        for i in range(len(self._operators)):
            blocks = flat[i * (i + 1) // 2:(i + 1) * (i + 2) // 2]
            batch_rows = ds.shape(blocks[0])[:-1]
            num_cols = num_cols + ds.shape(blocks[-1])[-1]
            pad = ds.zeros(ds.concat([batch_rows, ds.reshape(total - num_cols, [1])], 0),
                           self.dtype)
            rows.append(ds.concat(blocks + [pad], -1))
        return ds.concat(rows, -2)

    def _assert_non_singular(self):
        return ds.group(*[op.assert_non_singular() for op in self._diagonal_operators])

    def _linop_inverse(self):
        """Block forward substitution on operators: the inverse's row ``n`` is
        ``-D^-1 (sum_j B_j U^-1[j][i])`` beside ``D^-1``, as TF's (the sums are
        FullMatrix operators here)."""
        hints = dict(is_non_singular=self.is_non_singular,
                     is_self_adjoint=self.is_self_adjoint,
                     is_positive_definite=self.is_positive_definite, is_square=True)
        if len(self._operators) == 1:
            return LinearOperatorBlockLowerTriangular(
                [[self._operators[0][0].inverse()]], **hints)
        n = len(self._operators)
        upper_left = LinearOperatorBlockLowerTriangular(self._operators[:-1]).inverse()
        bottom = self._operators[-1]
        bottom_right_inverse = bottom[-1].inverse()
        inverse_bottom = []
        for i in range(n - 1):
            total = None
            for j in range(i, n - 1):
                term = bottom[j].matmul(upper_left.operators[j][i]).to_dense()
                total = term if total is None else total + term
            block = bottom_right_inverse.matmul(LinearOperatorFullMatrix(total)).to_dense()
            inverse_bottom.append(LinearOperatorFullMatrix(-block))
        inverse_bottom.append(bottom_right_inverse)
        return LinearOperatorBlockLowerTriangular(upper_left.operators + [inverse_bottom],
                                                  **hints)
