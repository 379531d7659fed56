"""The expression of every elementwise op, in the codegen's expression language, and
the program a device's elementwise kernel module compiles for a node.

Kept apart from the numba code so that the graph optimizer (which fuses regions of
these ops by substituting one op's expression into the next) and every device's
elementwise kernels share one table without importing numba or cupy.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ELEMENTWISE_OPS", "KERNEL_OPS", "expression_for", "elementwise_program"]

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
    # TF's spellings, for GraphDefs TensorFlow wrote
    "AddV2": (("x", "y"), "x + y"), "LogicalAnd": (("x", "y"), "x and y"),
    # gradients' broadcast (ops/shape_of.py): ``like`` only lends its shape
    "_BroadcastToShapeOf": (("x", "like"), "x"),
}


def expression_for(op_type: str, attrs) -> tuple[tuple[str, ...], str]:
    """(input names, expression) of an elementwise op, ``Cast`` included."""
    if op_type == "Cast":
        dst = attrs["DstT"]
        return ("x",), f"cast(x, {getattr(dst, 'name', str(dst))!r})"
    return ELEMENTWISE_OPS[op_type]


# Every op an elementwise kernel module registers: the table, Cast, and the regions the
# graph optimizer fused (``devsession/optimizer/fusion.py``).
KERNEL_OPS = tuple(ELEMENTWISE_OPS) + ("Cast", "_FusedElementwise")


def elementwise_program(node) -> "tuple[str, tuple, np.dtype, str] | None":
    """(expression, input names, output dtype, label) of the one generated kernel that
    runs ``node`` (an op of ``KERNEL_OPS``), or None for a Cast to the same dtype,
    which is a view."""
    if node.op == "_FusedElementwise":
        members = ", ".join(node.attrs.get("members", ()))
        return (node.attrs["expression"], tuple(node.attrs["input_names"]),
                node.output_dtype, f"_FusedElementwise({members})")
    if node.op == "Cast":
        dst = np.dtype(node.attrs["DstT"])
        if node.input_dtypes[0] == dst:
            return None
        return "x", ("x",), dst, node.op
    names, expr = ELEMENTWISE_OPS[node.op]
    return expr, names, node.output_dtype, node.op
