"""The expression of every elementwise op, in the codegen's expression language, and
their registration for a device.

Kept apart from the numba code so that the graph optimizer (which fuses regions of
these ops by substituting one op's expression into the next) and every device's
elementwise kernels share one table without importing numba or cupy.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ELEMENTWISE_OPS", "expression_for", "register_elementwise_kernels"]

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


def register_elementwise_kernels(device_type: str, build) -> None:
    """Register every elementwise op, ``Cast`` and the optimizer's ``_FusedElementwise``
    for ``device_type``: each is one generated kernel made by
    ``build(node, expression, input_names, output_dtype, op_label)``.  A Cast to the
    same dtype is a view."""
    from ._checks import get_attr
    from .registry import register_kernel

    def for_op(names, expr):
        return lambda node: build(node, expr, names, node.output_dtype, node.op)

    def cast(node):
        dst = np.dtype(get_attr(node, "DstT"))
        if node.input_dtypes[0] == dst:
            return lambda x: x.view()
        return build(node, "x", ("x",), dst, node.op)

    def fused(node):
        members = ", ".join(node.attrs.get("members", ()))
        return build(node, node.attrs["expression"], node.attrs["input_names"],
                     node.output_dtype, f"_FusedElementwise({members})")

    for op, (names, expr) in ELEMENTWISE_OPS.items():
        register_kernel(op, device_type)(for_op(names, expr))
    register_kernel("Cast", device_type)(cast)
    register_kernel("_FusedElementwise", device_type)(fused)
