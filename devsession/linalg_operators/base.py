"""``tf.linalg.LinearOperator``: the abstract base of TF's matrix-free operators.

An operator stands for a [batch of] ``M x N`` matrices ``A`` without necessarily
holding them: a subclass says what its shape is (``_shape`` and ``_shape_tensor``)
and how it multiplies (``_matmul``); everything else — ``to_dense``, ``diag_part``,
``determinant``, ``solve``, ``cholesky`` — has a dense default here (built from
the identity's product, then devsession's LAPACK-backed ops) that subclasses
replace where their structure gives a cheaper answer (a diagonal's determinant is
its product).  Nothing here is an op: every method adds ordinary devsession nodes,
under the name scope ``<operator name>/<method>`` as TF's, so gradients flow
through ``matmul`` and ``solve`` as through any composite.

The hints (``is_non_singular``, ``is_self_adjoint``, ``is_positive_definite``,
``is_square``) are promises the caller makes, checked for consistency only
(TF's ValueErrors); ``assert_*`` build run-time checks.  Example::

    op = ds.linalg.LinearOperatorDiag([1., 2.])
    op.matvec([3., 4.])          # [3., 8.]
    op.log_abs_determinant()     # log 2
"""

from __future__ import annotations

import contextlib

import numpy as np

from . import tf_api as ds

from . import util
from .hints import combined_non_singular_hint, is_square
from .slicing import batch_slice

# The operators base's algebra returns (products, views, a Cholesky factor) are defined
# in modules that import this one: each registers its class here when imported (the
# package imports them all), as TF's linear_operator_algebra registers its functions.
_DERIVED: dict = {}


def register_derived(kind: str, cls) -> None:
    """Make ``cls`` the operator base's ``kind`` of result ("composition", "adjoint",
    "inversion", "lower_triangular")."""
    _DERIVED[kind] = cls


class LinearOperator:
    """Base class of the operators; TF's constructor arguments and hint checks."""

    def __init__(self, dtype, graph_parents=None, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name=None, parameters=None):
        """Raises ValueError when the hints contradict each other, as TF's."""
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._is_square_set_or_implied_by_hints = is_square
        self._graph_parents = list(graph_parents or [])
        self._dtype = ds.as_dtype(dtype).base_dtype if dtype else dtype
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._parameters = dict(parameters or {})
        self._name = name or type(self).__name__

    # -- identity and hints ----------------------------------------------------------
    @contextlib.contextmanager
    def _name_scope(self, name=None):
        full_name = self.name if name is None else self.name + "/" + name
        with ds.name_scope(full_name) as scope:
            yield scope

    @property
    def parameters(self):
        return dict(self._parameters)

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def graph_parents(self):
        return self._graph_parents

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        """True/False where the hints or the static shape say; raises ValueError when
        ``is_square=False`` was promised for an operator that is square."""
        auto_square_check = self.domain_dimension == self.range_dimension
        if self._is_square_set_or_implied_by_hints is False and auto_square_check:
            raise ValueError(
                "User set is_square hint to False, but the operator was square.")
        if self._is_square_set_or_implied_by_hints is None:
            return auto_square_check
        return self._is_square_set_or_implied_by_hints

    def _can_use_cholesky(self):
        return self.is_self_adjoint and self.is_positive_definite

    # -- shapes ----------------------------------------------------------------------
    def _shape(self):
        raise NotImplementedError("_shape is not implemented.")

    def _shape_tensor(self):
        raise NotImplementedError("_shape_tensor is not implemented.")

    @property
    def shape(self):
        """The static ``TensorShape`` ``[B1, ..., Bb, M, N]``."""
        return self._shape()

    def shape_tensor(self, name="shape_tensor"):
        """The shape as an int32 tensor (a constant when it is known statically)."""
        with self._name_scope(name):
            if self.shape.is_fully_defined():
                return ds.constant(self.shape.as_list(), ds.int32, name="shape")
            return self._shape_tensor()

    @property
    def batch_shape(self):
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return ds.constant(self.batch_shape.as_list(), ds.int32, name="batch_shape")
            return self._shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        with self._name_scope(name):
            if self.tensor_rank is not None:
                return ds.constant(self.tensor_rank, ds.int32, name="tensor_rank")
            return ds.size(self._shape_tensor())

    def _dimension(self, index):
        shape = self.shape
        if shape.ndims is None:
            return None
        return shape[index]

    @property
    def domain_dimension(self):
        """N: a ``Dimension``, or None when unknown (devsession's unknown size)."""
        return self._dimension(-1)

    @property
    def range_dimension(self):
        """M: a ``Dimension`` or None."""
        return self._dimension(-2)

    def _dimension_tensor(self, index, name):
        with self._name_scope(name):
            value = ds.dimension_value(self._dimension(index))
            if value is not None:
                return ds.constant(value, ds.int32, name=name)
            return self._shape_tensor()[index]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        return self._dimension_tensor(-1, name)

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return self._dimension_tensor(-2, name)

    # -- argument checks -------------------------------------------------------------
    def _check_input_dtype(self, arg):
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError(
                "Expected argument to have dtype %s.  Found: %s in tensor %s"
                % (self.dtype, arg.dtype, arg))

    def _check_dimension(self, self_index, arg_dim):
        util.check_dims_compatible(self._dimension(self_index), arg_dim)

    # -- products --------------------------------------------------------------------
    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        raise NotImplementedError("_matmul is not implemented.")

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A x`` (``A^H`` with ``adjoint``, ``x^H`` with ``adjoint_arg``): a tensor
        ``[..., M, R]``, or a composed operator when ``x`` is one.  Raises TypeError
        for another dtype and ValueError for incompatible dimensions."""
        if isinstance(x, LinearOperator):
            left, right = self._operands(x, adjoint, adjoint_arg, "x")
            with self._name_scope(name):
                return self._linop_matmul(left, right)
        with self._name_scope(name):
            x = ds.convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self._check_dimension(-2 if adjoint else -1, x.shape[-1 if adjoint_arg else -2])
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _operands(self, other, adjoint: bool, adjoint_arg: bool, what: str):
        """(this operator, ``other``) of a product or solve of two operators, each
        adjoined as asked; ValueError (TF's) when their inner dimensions differ."""
        left = self.adjoint() if adjoint else self
        right = other.adjoint() if adjoint_arg else other
        if (ds.dimension_value(right.range_dimension) is not None
                and ds.dimension_value(left.domain_dimension) is not None
                and right.range_dimension != left.domain_dimension):
            raise ValueError(
                f"Operators are incompatible. Expected `{what}` to have dimension"
                f" {left.domain_dimension} but got {right.range_dimension}.")
        return left, right

    def _linop_matmul(self, left, right):
        LinearOperatorComposition = _DERIVED["composition"]

        if getattr(right, "_is_identity", False):
            return left
        if getattr(right, "_is_zeros", False):
            if not right.is_square or not left.is_square:
                raise ValueError(
                    "Matmul with non-square `LinearOperator`s or "
                    "non-square `LinearOperatorZeros` not supported at this time.")
            return right
        square = is_square(left, right)
        non_singular = self_adjoint = positive_definite = None
        if square:
            non_singular = combined_non_singular_hint(left, right)
        elif square is False:
            non_singular = self_adjoint = positive_definite = False
        return LinearOperatorComposition(
            operators=[left, right], is_non_singular=non_singular,
            is_self_adjoint=self_adjoint, is_positive_definite=positive_definite,
            is_square=square)

    def __matmul__(self, other):
        return self.matmul(other)

    def _parameter_ndims(self):
        """{parameter: how many of its trailing axes are matrix axes}: what batch
        slicing leaves whole (TF's _experimental_parameter_ndims_to_matrix_ndims)."""
        return {}

    def __getitem__(self, slices):
        """The operator of a slice of the batch axes (``slicing.py``)."""
        return batch_slice(self, slices)

    def _matvec(self, x, adjoint=False):
        y = self.matmul(ds.expand_dims(x, -1), adjoint=adjoint)
        return ds.squeeze(y, axis=[-1])

    def matvec(self, x, adjoint=False, name="matvec"):
        """``A x`` for [batch] vectors ``x`` ``[..., N]``."""
        with self._name_scope(name):
            x = ds.convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self._check_dimension(-2 if adjoint else -1, x.shape[-1])
            return self._matvec(x, adjoint=adjoint)

    # -- determinants ----------------------------------------------------------------
    def _check_square_for_determinant(self):
        if self.is_square is False:
            raise NotImplementedError(
                "Determinant not implemented for an operator that is expected to "
                "not be square.")

    def _determinant(self):
        if self._can_use_cholesky():
            return ds.exp(self.log_abs_determinant())
        return ds.matrix_determinant(self.to_dense())

    def determinant(self, name="det"):
        """``det(A)``, shape ``batch_shape``; NotImplementedError for non-square."""
        self._check_square_for_determinant()
        with self._name_scope(name):
            return self._determinant()

    def _log_abs_determinant(self):
        if self._can_use_cholesky():
            diag = ds.matrix_diag_part(ds.cholesky(self.to_dense()))
            return 2 * ds.reduce_sum(ds.log(diag), axis=[-1])
        return ds.linalg.slogdet(self.to_dense())[1]

    def log_abs_determinant(self, name="log_abs_det"):
        """``log|det(A)|``; NotImplementedError for non-square."""
        self._check_square_for_determinant()
        with self._name_scope(name):
            return self._log_abs_determinant()

    # -- solves ----------------------------------------------------------------------
    def _dense_solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self.is_square is False:
            raise NotImplementedError(
                "Solve is not yet implemented for non-square operators.")
        rhs = util.adjoint(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            chol, rhs = util.broadcast_matrix_batch_dims(
                [ds.cholesky(self.to_dense()), rhs])
            return ds.cholesky_solve(chol, rhs)
        return util.matrix_solve_with_broadcast(self.to_dense(), rhs, adjoint=adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _check_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to "
                "be singular.")
        if self.is_square is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to "
                "not be square.")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``A X = rhs`` (``A^H`` with ``adjoint``, ``rhs^H`` with
        ``adjoint_arg``), or the operator ``A^-1 rhs`` when ``rhs`` is one.
        NotImplementedError for operators hinted singular or non-square."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left, right = self._operands(rhs, adjoint, adjoint_arg, "rhs")
            with self._name_scope(name):
                return self._linop_solve(left, right)
        with self._name_scope(name):
            rhs = ds.convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self._check_dimension(-1 if adjoint else -2, rhs.shape[-1 if adjoint_arg else -2])
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_solve(self, left, right):
        LinearOperatorComposition = _DERIVED["composition"]
        LinearOperatorInversion = _DERIVED["inversion"]

        if getattr(right, "_is_identity", False):
            return left.inverse()
        square = is_square(left, right)
        non_singular = self_adjoint = positive_definite = None
        if square:
            non_singular = combined_non_singular_hint(left, right)
        elif square is False:
            non_singular = self_adjoint = positive_definite = False
        return LinearOperatorComposition(
            operators=[LinearOperatorInversion(left), right],
            is_non_singular=non_singular, is_self_adjoint=self_adjoint,
            is_positive_definite=positive_definite, is_square=square)

    def _solvevec(self, rhs, adjoint=False):
        x = self.solve(ds.expand_dims(rhs, -1), adjoint=adjoint)
        return ds.squeeze(x, axis=[-1])

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``x`` with ``A x = rhs`` for [batch] vectors."""
        with self._name_scope(name):
            rhs = ds.convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self._check_dimension(-1 if adjoint else -2, rhs.shape[-1])
            return self._solvevec(rhs, adjoint=adjoint)

    # -- derived operators -----------------------------------------------------------
    def adjoint(self, name="adjoint"):
        """``A^H``: this operator when hinted self-adjoint, else an adjoint view."""
        if self.is_self_adjoint is True:
            return self
        with self._name_scope(name):
            return self._linop_adjoint()

    H = property(adjoint, None)

    def _linop_adjoint(self):
        LinearOperatorAdjoint = _DERIVED["adjoint"]

        return LinearOperatorAdjoint(
            self, is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=self.is_square)

    def inverse(self, name="inverse"):
        """``A^-1``; ValueError for operators hinted non-square or singular."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents "
                             "a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents "
                             "a singular matrix.")
        with self._name_scope(name):
            return self._linop_inverse()

    def _linop_inverse(self):
        LinearOperatorInversion = _DERIVED["inversion"]

        return LinearOperatorInversion(
            self, is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=self.is_square)

    def cholesky(self, name="cholesky"):
        """The lower-triangular ``L`` with ``A = L L^H``; ValueError unless hinted
        self-adjoint and positive definite."""
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: "
                             "Not a positive definite self adjoint matrix.")
        with self._name_scope(name):
            return self._linop_cholesky()

    def _linop_cholesky(self):
        LinearOperatorLowerTriangular = _DERIVED["lower_triangular"]

        return LinearOperatorLowerTriangular(
            ds.cholesky(self.to_dense()), is_non_singular=True,
            is_self_adjoint=False, is_square=True)

    # -- dense views -----------------------------------------------------------------
    def _to_dense(self):
        if self.batch_shape.is_fully_defined():
            batch_shape = self.batch_shape.as_list()
        else:
            batch_shape = self.batch_shape_tensor()
        n = ds.dimension_value(self.domain_dimension)
        if n is None:
            n = self.domain_dimension_tensor()
        eye = util.eye(n, batch_shape, self.dtype)
        return self.matmul(eye)

    def to_dense(self, name="to_dense"):
        """The dense ``[..., M, N]`` matrix."""
        with self._name_scope(name):
            return self._to_dense()

    def _diag_part(self):
        return ds.matrix_diag_part(self.to_dense())

    def diag_part(self, name="diag_part"):
        """The main diagonal ``[..., min(M, N)]``."""
        with self._name_scope(name):
            return self._diag_part()

    def _trace(self):
        return ds.reduce_sum(self.diag_part(), axis=-1)

    def trace(self, name="trace"):
        with self._name_scope(name):
            return self._trace()

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def add_to_tensor(self, x, name="add_to_tensor"):
        """``A + x`` for a tensor ``x`` of this dtype."""
        with self._name_scope(name):
            x = ds.convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _eigvals(self):
        return ds.self_adjoint_eigvals(self.to_dense())

    def eigvals(self, name="eigvals"):
        """The eigenvalues; NotImplementedError unless hinted self-adjoint."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return self._eigvals()

    def _cond(self):
        if not self.is_self_adjoint:
            vals = ds.svd(self.to_dense(), compute_uv=False)
        else:
            vals = ds.abs(self._eigvals())
        return ds.reduce_max(vals, axis=-1) / ds.reduce_min(vals, axis=-1)

    def cond(self, name="cond"):
        """The condition number (largest over smallest singular value)."""
        with self._name_scope(name):
            return self._cond()

    # -- run-time assertions ---------------------------------------------------------
    def _max_condition_number_to_be_non_singular(self):
        with ds.name_scope("max_nonsingular_condition_number"):
            dtype_eps = np.finfo(self.dtype.as_numpy_dtype).eps
            eps = ds.cast(ds.reduce_max([
                100.,
                ds.cast(self.range_dimension_tensor(), self.dtype),
                ds.cast(self.domain_dimension_tensor(), self.dtype)]), self.dtype) * dtype_eps
            return 1. / eps

    def _assert_non_singular(self):
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        singular_values = ds.svd(self.to_dense(), compute_uv=False)
        cond = (ds.reduce_max(singular_values, axis=-1)
                / ds.reduce_min(singular_values, axis=-1))
        return ds.debugging.assert_less(
            cond, self._max_condition_number_to_be_non_singular(),
            message="Singular matrix up to precision epsilon.")

    def assert_non_singular(self, name="assert_non_singular"):
        """An op that raises InvalidArgumentError when run on a singular operator."""
        with self._name_scope(name):
            return self._assert_non_singular()

    def _assert_positive_definite(self):
        if self.is_self_adjoint:
            # TF asserts the Cholesky factor's diagonal is positive, its CPU kernel
            # filling NaNs for a matrix that is not; devsession's Cholesky raises its
            # own error instead, so the equivalent test on the eigenvalues keeps
            # TF's message.
            return ds.debugging.assert_positive(
                ds.self_adjoint_eigvals(self.to_dense()),
                message="Matrix was not positive definite.")
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        with self._name_scope(name):
            return self._assert_positive_definite()

    def _assert_self_adjoint(self):
        dense = self.to_dense()
        return ds.debugging.assert_equal(
            dense, util.adjoint(dense), message="Matrix was not equal to its adjoint.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        with self._name_scope(name):
            return self._assert_self_adjoint()

    def __repr__(self):
        return "<%s '%s' shape=%s dtype=%s>" % (
            type(self).__name__, self.name, self.shape, self.dtype)


class OperatorOfOperators(LinearOperator):
    """An operator made of a list of others (a product, a block diagonal, a Kronecker
    product): it keeps them, slices their batches whole, and is named after them,
    joined by ``_JOIN``."""

    _JOIN = "_"

    def _init_from(self, operators, name, dtype, parameters, **hints):
        """LinearOperator's constructor for ``operators`` (checked by the subclass)."""
        if name is None:
            name = self._JOIN.join(operator.name for operator in operators)
        with ds.name_scope(name):
            LinearOperator.__init__(self, dtype=dtype, parameters=parameters, name=name,
                                    **hints)

    def _parameter_ndims(self):
        return {"operators": [0] * len(self._operators)}

    @property
    def operators(self):
        return self._operators

