"""Operators that view another one: ``LinearOperatorAdjoint`` (``A^H``: products
and solves of A with ``adjoint`` flipped) and ``LinearOperatorInversion``
(``A^-1``: its products are A's solves and its solves A's products).  Their hints
are the wrapped operator's, and a caller's hint that contradicts it is TF's
ValueError."""

from __future__ import annotations

from . import tf_api as ds

from . import util
from .base import LinearOperator, register_derived
from .hints import use_operator_or_provided_hint_unless_contradicting as _combine


# the four hints a view shares with its operator, and how TF's messages name them
_HINTS = (("is_square", "square"), ("is_non_singular", "non-singular"),
          ("is_self_adjoint", "self-adjoint"), ("is_positive_definite", "positive-definite"))


class _OperatorView(LinearOperator):
    """An operator made of one other (its adjoint, its inverse): the four hints are that
    operator's, a given one that contradicts it TF's ValueError naming the view
    (``_VIEW``); the name is the operator's plus ``_SUFFIX``; the assertions are its."""

    _VIEW = _SUFFIX = ""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        given = dict(is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                     is_positive_definite=is_positive_definite, is_square=is_square)
        parameters = dict(operator=operator, **given, name=name)
        self._operator = operator
        hints = {key: _combine(operator, key, given[key],
                               f"An operator is {what} if and only if its {self._VIEW} is "
                               f"{what}.") for key, what in _HINTS}
        if name is None:
            name = operator.name + self._SUFFIX
        with ds.name_scope(name):
            super().__init__(dtype=operator.dtype, **hints, parameters=parameters, name=name)

    def _parameter_ndims(self):
        return {"operator": 0}

    @property
    def operator(self):
        return self._operator

    def _assert_non_singular(self):
        return self._operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self._operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self._operator.assert_self_adjoint()


class LinearOperatorAdjoint(_OperatorView):
    """``A^H`` of ``operator`` ``A``."""

    _VIEW, _SUFFIX = "adjoint", "_adjoint"

    def _linop_adjoint(self):
        return self._operator

    def _shape(self):
        shape = self._operator.shape
        return shape[:-2].concatenate([shape[-1], shape[-2]])

    def _shape_tensor(self):
        shape = self._operator.shape_tensor()
        return ds.concat([shape[:-2], ds.stack([shape[-1], shape[-2]])], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self._operator.matvec(x, adjoint=not adjoint)

    def _determinant(self):
        if self.is_self_adjoint:
            return self._operator.determinant()
        return util.conj(self._operator.determinant())

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _trace(self):
        if self.is_self_adjoint:
            return self._operator.trace()
        return util.conj(self._operator.trace())

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self):
        if self.is_self_adjoint:
            return self._operator.to_dense()
        return util.adjoint(self._operator.to_dense())

    def _eigvals(self):
        eigvals = self._operator.eigvals()
        if not self._operator.is_self_adjoint:
            eigvals = util.conj(eigvals)
        return eigvals

    def _cond(self):
        return self._operator.cond()


class LinearOperatorInversion(_OperatorView):
    """``A^-1`` of a square, non-singular ``operator`` ``A``."""

    _VIEW, _SUFFIX = "inverse", "_inv"

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        """Raises ValueError when ``operator`` or the hints say singular or
        non-square, or contradict the operator's hints."""
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                f"Argument `is_non_singular` or argument `operator` must have "
                f"supplied hint `is_non_singular` equal to `True` or `None`. "
                f"Found `operator.is_non_singular`: {operator.is_non_singular}, "
                f"`is_non_singular`: {is_non_singular}.")
        if operator.is_square is False or is_square is False:
            raise ValueError(
                f"Argument `is_square` or argument `operator` must have supplied "
                f"hint `is_square` equal to `True` or `None`. Found "
                f"`operator.is_square`: {operator.is_square}, "
                f"`is_square`: {is_square}.")
        super().__init__(operator, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name)

    def _linop_inverse(self):
        return self._operator

    def _linop_solve(self, left, right):
        if isinstance(left, LinearOperatorInversion):
            return left.operator.matmul(right)
        return super()._linop_solve(left, right)

    def _shape(self):
        return self._operator.shape

    def _shape_tensor(self):
        return self._operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1. / self._operator.determinant()

    def _log_abs_determinant(self):
        return -1. * self._operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _eigvals(self):
        return 1. / self._operator.eigvals()

    def _cond(self):
        return self._operator.cond()


register_derived("adjoint", LinearOperatorAdjoint)
register_derived("inversion", LinearOperatorInversion)
