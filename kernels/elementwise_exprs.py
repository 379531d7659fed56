"""The expression of every elementwise op, in the codegen's expression language.

Kept apart from the numba code so that the graph optimizer (which fuses regions of
these ops by substituting one op's expression into the next) and every device's
elementwise kernels share one table without importing numba or cupy.
"""

from __future__ import annotations

__all__ = ["ELEMENTWISE_OPS", "expression_for"]

ELEMENTWISE_OPS: dict[str, tuple[tuple[str, ...], str]] = {
    "Neg": (("x",), "-x"), "Abs": (("x",), "abs(x)"), "Square": (("x",), "x * x"),
    "Relu": (("x",), "relu(x)"), "Exp": (("x",), "exp(x)"), "Log": (("x",), "log(x)"),
    "Sqrt": (("x",), "sqrt(x)"), "Tanh": (("x",), "tanh(x)"),
    "Sigmoid": (("x",), "sigmoid(x)"),
    "Add": (("x", "y"), "x + y"), "Sub": (("x", "y"), "x - y"),
    "Mul": (("x", "y"), "x * y"), "Pow": (("x", "y"), "x ** y"),
    "Maximum": (("x", "y"), "max(x, y)"), "Minimum": (("x", "y"), "min(x, y)"),
    "RealDiv": (("x", "y"), "x / y"),
    "Equal": (("x", "y"), "x == y"), "Less": (("x", "y"), "x < y"),
    "LessEqual": (("x", "y"), "x <= y"), "Greater": (("x", "y"), "x > y"),
    "GreaterEqual": (("x", "y"), "x >= y"),
    "SelectV2": (("c", "x", "y"), "x if c else y"),
}


def expression_for(op_type: str, attrs) -> tuple[tuple[str, ...], str]:
    """(input names, expression) of an elementwise op, ``Cast`` included."""
    if op_type == "Cast":
        dst = attrs["DstT"]
        return ("x",), f"cast(x, {getattr(dst, 'name', str(dst))!r})"
    return ELEMENTWISE_OPS[op_type]
