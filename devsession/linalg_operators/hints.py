"""TF's ``property_hint_util``: what the hints of two operators say about their
product (``is_square``) or their combined non-singularity."""

from . import tf_api as ds


def combined_non_singular_hint(*operators):
    """False if any is hinted singular, True if all are non-singular, else None."""
    if any(op.is_non_singular is False for op in operators):
        return False
    return all(op.is_non_singular for op in operators) or None


def combined_commuting_self_adjoint_hint(a, b):
    """For commuting ``a`` and ``b``: self-adjoint when both are."""
    if a.is_self_adjoint and b.is_self_adjoint:
        return True
    if ((a.is_self_adjoint is True and b.is_self_adjoint is False)
            or (a.is_self_adjoint is False and b.is_self_adjoint is True)):
        return False
    return None


def combined_commuting_positive_definite_hint(a, b):
    if (a.is_positive_definite and a.is_self_adjoint
            and b.is_positive_definite and b.is_self_adjoint):
        return True
    return None


def is_square(a, b):
    """Whether ``a @ b`` is square: known when the outer dimensions are."""
    if a.is_square and b.is_square:
        return True
    if a.is_square is False and b.is_square is False:
        m, n = ds.dimension_value(a.range_dimension), ds.dimension_value(b.domain_dimension)
        if m is not None and n is not None:
            return m == n
    if (a.is_square and b.is_square is False) or (a.is_square is False and b.is_square):
        return False
    return None


def use_operator_or_provided_hint_unless_contradicting(operator, hint_attr_name,
                                                       provided_hint_value, message):
    """The hint a view (adjoint, inverse) of ``operator`` has: the operator's or the
    caller's; ValueError(``message``) when they disagree."""
    op_hint = getattr(operator, hint_attr_name)
    if op_hint is False and provided_hint_value:
        raise ValueError(message)
    if op_hint and provided_hint_value is False:
        raise ValueError(message)
    if op_hint or provided_hint_value:
        return True
    if op_hint is False or provided_hint_value is False:
        return False
    return None


def is_adjoint_pair(x, y):
    """Whether ``x`` and ``y`` are adjoints of each other, by identity."""
    if x is y:
        if x.is_self_adjoint is False:
            return False
        if x.is_self_adjoint:
            return True
    return x.H is y or y.H is x


def is_aat_form(operators):
    """Whether ``operators`` compose as ``A @ A^H`` (possibly nested)."""
    operators = list(operators)
    if not operators:
        raise ValueError("AAT form is undefined for empty operators")
    if len(operators) % 2:
        return False
    return all(is_adjoint_pair(operators[i], operators[-1 - i])
               for i in range(len(operators) // 2))


def implied_by_all(operators, key: str, given, message: str):
    """The ``key`` hint of an operator made of ``operators``: True when every one of them
    has it, where a given ``False`` contradicts them (ValueError, TF's ``message``);
    else ``given``."""
    if all(getattr(operator, key) for operator in operators):
        if given is False:
            raise ValueError(message)
        return True
    return given

