"""TF1's element-wise assertions (``tf.assert_equal``, ``tf.assert_less``,
``tf.assert_positive``...), built as TF1's ``check_ops.py`` builds them: an ``Assert`` of
``reduce_all(x <op> y)`` whose data are the message, "Condition x < y did not hold
element-wise:", and x and y with their names.  The returned op fails the step with
``InvalidArgumentError`` ("assertion failed: [...] [Condition x < y did not hold
element-wise:] [x (a:0) = ] [1 2]..."); run it as a target or through
``control_dependencies``.

When both operands are constants the graph already knows the answer: a false condition
is an ``InvalidArgumentError`` at build time, as in TF1, whose message is the data, one
per line.

The static assertions (``assert_rank``, ``assert_rank_at_least``, ``assert_type``,
``assert_integer``, ``assert_scalar``) decide from the graph's static dtype and shape
when they can, with TF's ValueError/TypeError texts, returning a NoOp (``assert_scalar``:
the tensor); a rank given as a constant tensor counts as known, as TF's
``constant_value`` makes it.  ``assert_rank`` of a tensor of unknown rank, or against a
rank only the run computes, is an ``Assert`` at run time.

    with ds.control_dependencies([ds.assert_positive(x)]):
        y = ds.log(x)
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..graph import Operation, Tensor, constant_value, convert_to_tensor, name_scope
from .array_fill import rank as rank_of
from .array_fill import shape as shape_of
from .control_flow import Assert
from .elementwise import cast, equal, greater, greater_equal, less, less_equal, not_equal
from .reduce import reduce_all
from .state import no_op

__all__ = ["assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_rank", "assert_rank_at_least",
           "assert_type", "assert_integer", "assert_scalar"]


def _static_failure(data) -> InvalidArgumentError:
    lines = []
    for d in data:
        value = constant_value(d) if hasattr(d, "op") else d
        lines.append(str(value) if value is not None else str(d))
    return InvalidArgumentError("\n".join(lines))


def _binary_assert(symbol: str, default_name: str, compare, numpy_compare):
    def build(x, y, data=None, summarize=None, message=None, name=None) -> Operation:
        with name_scope(name or default_name):
            x = convert_to_tensor(x, name="x")
            y = convert_to_tensor(y, name="y", dtype_hint=x.dtype)
            if data is None:
                data = [f"Condition x {symbol} y did not hold element-wise:",
                        f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
            if message is not None:
                data = [message] + list(data)
            x_static, y_static = constant_value(x), constant_value(y)
            if x_static is not None and y_static is not None \
                    and not np.all(numpy_compare(x_static, y_static)):
                raise _static_failure(data)
            return Assert(reduce_all(compare(x, y)), data, summarize=summarize)
    build.__name__ = build.__qualname__ = default_name
    build.__doc__ = (f"An ``Assert`` that ``x {symbol} y`` holds for every element "
                     f"(broadcasting); see the module docstring.")
    return build


assert_equal = _binary_assert("==", "assert_equal", equal, np.equal)
assert_none_equal = _binary_assert("!=", "assert_none_equal", not_equal, np.not_equal)
assert_less = _binary_assert("<", "assert_less", less, np.less)
assert_less_equal = _binary_assert("<=", "assert_less_equal", less_equal, np.less_equal)
assert_greater = _binary_assert(">", "assert_greater", greater, np.greater)
assert_greater_equal = _binary_assert(">=", "assert_greater_equal", greater_equal,
                                      np.greater_equal)


def _sign_assert(symbol: str, default_name: str, check, zero_first: bool):
    def build(x, data=None, summarize=None, message=None, name=None) -> Operation:
        with name_scope(name or default_name):
            x = convert_to_tensor(x, name="x")
            if data is None:
                data = [f"Condition x {symbol} 0 did not hold element-wise:",
                        f"x ({x.name}) = ", x]
            if message is not None:
                data = [message] + list(data)
            zero = convert_to_tensor(np.zeros((), x.dtype.np), name="zero")
            operands = (zero, x) if zero_first else (x, zero)
            return check(*operands, data=data, summarize=summarize)
    build.__name__ = build.__qualname__ = default_name
    build.__doc__ = f"An ``Assert`` that ``x {symbol} 0`` for every element."
    return build


assert_positive = _sign_assert(">", "assert_positive", assert_less, True)
assert_negative = _sign_assert("<", "assert_negative", assert_less, False)
assert_non_negative = _sign_assert(">=", "assert_non_negative", assert_less_equal, True)
assert_non_positive = _sign_assert("<=", "assert_non_positive", assert_less_equal, False)


# --- static assertions -------------------------------------------------------------------------

def _rank_assert(default_name: str, wording: str, holds, compare):
    def build(x, rank, data=None, summarize=None, message=None, name=None) -> Operation:
        with name_scope(name or default_name):
            x = convert_to_tensor(x)
            static_rank = _static_rank(rank)
            if static_rank is not None and x.shape.ndims is not None:
                if not holds(x.shape.ndims, static_rank):
                    prefix = f"{message}.  " if message else ""
                    raise ValueError(f"{prefix}Tensor {x.name} must have {wording} "
                                     f"{static_rank}.  Received rank {x.shape.ndims}, "
                                     f"shape {x.shape}")
                return no_op(name="static_checks_determined_all_ok")
            wanted = convert_to_tensor(rank)
            if wanted.dtype != dtypes.int32:              # Rank gives int32
                wanted = cast(wanted, dtypes.int32)
            if data is None:
                data = [message or "", f"Tensor {x.name} must have {wording}", wanted,
                        "Received shape: ", shape_of(x)]
            return Assert(compare(rank_of(x), wanted), data, summarize=summarize)
    build.__name__ = build.__qualname__ = default_name
    build.__doc__ = (f"That ``x`` has {wording} ``rank`` (an int, or a tensor): a NoOp or "
                     f"a ValueError now when the static rank of ``x`` and the value of "
                     f"``rank`` decide, else an ``Assert`` at run time.")
    return build


def _static_rank(rank) -> int | None:
    """``rank`` as an int when the graph knows it: a Python or numpy integer, or a tensor
    whose value is a constant integer scalar (TF's ``constant_value``)."""
    if isinstance(rank, (int, np.integer)):
        return int(rank)
    if isinstance(rank, Tensor):
        value = constant_value(rank)
        if value is not None and np.ndim(value) == 0 \
                and np.issubdtype(np.asarray(value).dtype, np.integer):
            return int(value)
    return None


assert_rank = _rank_assert("assert_rank", "rank", int.__eq__, equal)
assert_rank_at_least = _rank_assert("assert_rank_at_least", "rank at least", int.__ge__,
                                    greater_equal)


def assert_type(tensor, tf_type, message=None, name=None) -> Operation:
    """TypeError unless ``tensor``'s dtype is ``tf_type``; a NoOp otherwise."""
    with name_scope(name or "assert_type"):
        tensor = convert_to_tensor(tensor)
        want = dtypes.as_dtype(tf_type)
        if tensor.dtype != want:
            prefix = f"{message}.  " if message else ""
            raise TypeError(f"{prefix}{tensor.name} must be of type tf.{want.name}; got "
                            f"tf.{tensor.dtype.name}")
        return no_op(name="statically_determined_correct_type")


def assert_integer(x, message=None, name=None) -> Operation:
    """TypeError unless ``x`` has an integer dtype; a NoOp otherwise."""
    with name_scope(name or "assert_integer"):
        x = convert_to_tensor(x)
        if not x.dtype.is_integer:
            prefix = f"{message}.  " if message else ""
            raise TypeError(f'{prefix}Expected "x" to be integer type.  Found: {x.name} of '
                            f"dtype <dtype: '{x.dtype.name}'>")
        return no_op(name="statically_determined_was_integer")


def assert_scalar(tensor, name=None, message=None) -> Tensor:
    """``tensor`` itself; ValueError unless its static shape is a scalar's."""
    with name_scope(name or "assert_scalar"):
        tensor = convert_to_tensor(tensor)
        if tensor.shape.ndims != 0:
            prefix = f"{message}.  " if message else ""
            raise ValueError(f"{prefix}Expected scalar shape for {tensor.name}, saw shape: "
                             f"{tensor.shape}.")
        return tensor
