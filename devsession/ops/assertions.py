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

    with ds.control_dependencies([ds.assert_positive(x)]):
        y = ds.log(x)
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..graph import Operation, constant_value, convert_to_tensor, name_scope
from .control_flow import Assert
from .elementwise import equal, greater, greater_equal, less, less_equal, not_equal
from .reduce import reduce_all

__all__ = ["assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive"]


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
