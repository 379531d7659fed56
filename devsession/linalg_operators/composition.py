"""``LinearOperatorComposition``: the product ``A1 A2 ... An`` of operators,
applied right to left (solves left to right), never formed; the determinant is
the factors' product.  The batch shape is the factors' broadcast."""

from __future__ import annotations

from . import tf_api as ds

from . import util
from .base import OperatorOfOperators, register_derived
from .hints import implied_by_all, is_aat_form


def _composition_must_be_self_adjoint(operators):
    if len(operators) == 1 and operators[0].is_self_adjoint:
        return True
    return is_aat_form(operators)


class LinearOperatorComposition(OperatorOfOperators):
    """``operators[0] @ operators[1] @ ...``."""

    _JOIN = "_o_"

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        """Raises ValueError for no operators or hints the composition
        contradicts, TypeError for operators of different dtypes."""
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        if isinstance(operators, (str, bytes)) or not hasattr(operators, "__iter__"):
            raise TypeError("Expected argument 'operators' to be iterable")
        operators = list(operators)
        if not operators:
            raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
        self._operators = operators
        dtype = operators[0].dtype
        for operator in operators:
            if operator.dtype != dtype:
                name_type = (str((o.name, o.dtype)) for o in operators)
                raise TypeError("Expected all operators to have the same dtype.  Found %s"
                                % "   ".join(name_type))
        is_non_singular = implied_by_all(
            operators, "is_non_singular", is_non_singular,
            "The composition of non-singular operators is always non-singular.")
        if _composition_must_be_self_adjoint(operators):
            if is_self_adjoint is False:
                raise ValueError(
                    "The composition was determined to be self-adjoint but user "
                    "provided incorrect `False` hint.")
            is_self_adjoint = True
        aat = is_aat_form(operators)
        if aat:
            if is_square is False:
                raise ValueError(
                    "The composition was determined have the form "
                    "A @ A.H, hence it must be square. The user "
                    "provided an incorrect `False` hint.")
            is_square = True
        if aat and is_non_singular:
            if is_positive_definite is False:
                raise ValueError(
                    "The composition was determined to be non-singular and have the "
                    "form A @ A.H, hence it must be positive-definite. The user "
                    "provided an incorrect `False` hint.")
            is_positive_definite = True
        self._init_from(operators, name, dtype, parameters,
                        is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                        is_positive_definite=is_positive_definite, is_square=is_square)

    def _shape(self):
        domain = self._operators[0].domain_dimension
        for operator in self._operators[1:]:
            util.check_dims_compatible(domain, operator.range_dimension)
            domain = operator.domain_dimension
        matrix = ds.TensorShape([self._operators[0].range_dimension,
                                 self._operators[-1].domain_dimension])
        batch = self._operators[0].batch_shape
        for operator in self._operators[1:]:
            batch = ds.broadcast_static_shape(batch, operator.batch_shape)
        return batch.concatenate(matrix)

    def _shape_tensor(self):
        matrix = ds.stack([self._operators[0].range_dimension_tensor(),
                           self._operators[-1].domain_dimension_tensor()])
        batch = self._operators[0].batch_shape_tensor()
        for operator in self._operators[1:]:
            batch = ds.broadcast_dynamic_shape(batch, operator.batch_shape_tensor())
        return ds.concat([batch, matrix], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self._operators if adjoint else list(reversed(self._operators))
        result = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            result = operator.matmul(result, adjoint=adjoint)
        return result

    def _determinant(self):
        result = self._operators[0].determinant()
        for operator in self._operators[1:]:
            result *= operator.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._operators[0].log_abs_determinant()
        for operator in self._operators[1:]:
            result += operator.log_abs_determinant()
        return result

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = list(reversed(self._operators)) if adjoint else self._operators
        solution = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            solution = operator.solve(solution, adjoint=adjoint)
        return solution

    def _assert_non_singular(self):
        if all(operator.is_square for operator in self._operators):
            return ds.group(*[operator.assert_non_singular()
                              for operator in self._operators])
        return super()._assert_non_singular()


register_derived("composition", LinearOperatorComposition)
