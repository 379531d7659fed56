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
    # --- nn family (ops/nn.py, ops/elementwise.py's last block): TF's kernel formulas.
    # "{alpha}" is filled in from the node's attr (``expression_for``).  Softplus is
    # max(x, 0) + log1p(exp(-|x|)) with log1p(e) computed as log(u) * e / (u - 1),
    # u = 1 + e (exact to a few ulp; e itself where u rounds to 1): no overflow, and
    # exp(x) for very negative x, as TF's.
    "LeakyRelu": (("x",), "x if x > 0 else x * {alpha}"),
    "Elu": (("x",), "exp(x) - 1 if x < 0 else x"),
    "Softplus": (("x",), "max(x, 0) + (exp(-abs(x)) if 1 + exp(-abs(x)) == 1 else "
                         "log(1 + exp(-abs(x))) * (exp(-abs(x)) / (1 + exp(-abs(x)) - 1)))"),
    "SquaredDifference": (("x", "y"), "(x - y) * (x - y)"),
    # Selu's constants are TF's scale and scale * alpha
    "Relu6": (("x",), "min(max(x, 0), 6)"),
    "Selu": (("x",), "1.0507009873554805 * x if x > 0 else 1.7580993408473766 * (exp(x) - 1)"),
    "Softsign": (("x",), "x / (abs(x) + 1)"),
}

# The attrs an expression's "{name}" fields take (formatted as float literals), with the
# op's defaults (TF's) for a node that does not set them.
_EXPRESSION_ATTRS = {"LeakyRelu": {"alpha": 0.2}}


def expression_for(op_type: str, attrs) -> tuple[tuple[str, ...], str]:
    """(input names, expression) of an elementwise op, ``Cast`` included."""
    if op_type == "Cast":
        dst = attrs["DstT"]
        return ("x",), f"cast(x, {getattr(dst, 'name', str(dst))!r})"
    names, expr = ELEMENTWISE_OPS[op_type]
    fields = _EXPRESSION_ATTRS.get(op_type)
    if fields:
        expr = expr.format(**{k: repr(float(attrs.get(k, default)))
                              for k, default in fields.items()})
    return names, expr




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
    names, expr = expression_for(node.op, node.attrs)
    return expr, names, node.output_dtype, node.op


# --- TF1 surface (branch tf1): integer division, rounding, logic ----------------------
# Semantics as TF's kernels: FloorDiv of floats is floor(x / y); FloorMod has the
# divisor's sign, TruncateMod the dividend's; Round is half to even (rint); Sign keeps
# 0, -0.0 and NaN as they are.  Integer division or modulo by zero is TF's CPU error
# (kernels/division_checks.py); a GPU kernel gives 0 there.
ELEMENTWISE_OPS.update({
    "AddV2": (("x", "y"), "x + y"),
    "FloorDiv": (("x", "y"), "floordiv(x, y)"), "FloorMod": (("x", "y"), "floormod(x, y)"),
    "TruncateDiv": (("x", "y"), "truncdiv(x, y)"),
    "TruncateMod": (("x", "y"), "truncmod(x, y)"),
    "NotEqual": (("x", "y"), "x != y"),
    "LogicalAnd": (("x", "y"), "x and y"), "LogicalOr": (("x", "y"), "x or y"),
    "LogicalNot": (("x",), "not x"),
    "Sign": (("x",), "1 if x > 0 else (-1 if x < 0 else x)"),
    "Floor": (("x",), "floor(x)"), "Ceil": (("x",), "ceil(x)"), "Round": (("x",), "rint(x)"),
    "Rsqrt": (("x",), "1 / sqrt(x)"), "Reciprocal": (("x",), "1 / x"),
    "Sin": (("x",), "sin(x)"), "Cos": (("x",), "cos(x)"),
})


# --- TF1 math (branch tf1-math): TF's kernels' formulas.  Xlogy is 0 where x is 0 (y
# NaN or 0 included) and DivNoNan 0 where y is 0 (x NaN included), as TF's; Atan2 takes
# (y, x) as TF's.  IsNan, IsInf and IsFinite give bools.
ELEMENTWISE_OPS.update({
    "Log1p": (("x",), "log1p(x)"), "Expm1": (("x",), "expm1(x)"),
    "Erf": (("x",), "erf(x)"), "Erfc": (("x",), "erfc(x)"),
    "Tan": (("x",), "tan(x)"), "Asin": (("x",), "asin(x)"), "Acos": (("x",), "acos(x)"),
    "Atan": (("x",), "atan(x)"), "Sinh": (("x",), "sinh(x)"), "Cosh": (("x",), "cosh(x)"),
    "IsNan": (("x",), "isnan(x)"), "IsInf": (("x",), "isinf(x)"),
    "IsFinite": (("x",), "isfinite(x)"),
    "Atan2": (("y", "x"), "atan2(y, x)"),
    "Xlogy": (("x", "y"), "0 if x == 0 else x * log(y)"),
    "DivNoNan": (("x", "y"), "0 if y == 0 else x / y"),
})


# --- special functions (ops/special.py): the functions of kernels/special_math.py, in
# float64 on every device.  Polygamma as TF's: NaN unless the order a is a whole number
# >= 0, digamma at 0, else (-1)^(a+1) a! zeta(a + 1, x) (the sign 2 (a mod 2) - 1 keeps
# a's dtype).  BesselI0/I1 are TF's exp(|x|) times the scaled ones.
ELEMENTWISE_OPS.update({
    "Lgamma": (("x",), "lgamma(x)"), "Digamma": (("x",), "digamma(x)"),
    "Polygamma": (("a", "x"), "nan if a < 0 or floor(a) != a else (digamma(x) if a == 0 "
                              "else (2 * (a - 2 * floor(0.5 * a)) - 1) * exp(lgamma(a + 1))"
                              " * zeta(a + 1, x))"),
    "Zeta": (("x", "q"), "zeta(x, q)"),
    "Igamma": (("a", "x"), "igamma(a, x)"), "Igammac": (("a", "x"), "igammac(a, x)"),
    "IgammaGradA": (("a", "x"), "igamma_grad_a(a, x)"),
    "BesselI0e": (("x",), "bessel_i0e(x)"), "BesselI1e": (("x",), "bessel_i1e(x)"),
    "BesselI0": (("x",), "exp(abs(x)) * bessel_i0e(x)"),
    "BesselI1": (("x",), "exp(abs(x)) * bessel_i1e(x)"),
    "Erfinv": (("x",), "erfinv(x)"), "Ndtri": (("x",), "ndtri(x)"),
})

# --- TF1 math names (branch tf1-math-names): TF's kernels' formulas.  Rint rounds half
# to even; Xdivy and Xlog1py are 0 where x is 0, MulNoNan 0 where y is 0 (a NaN or
# infinite other operand included), as TF's.  The bitwise ops take integers; a shift
# count outside [0, bits) is clamped into it first, as TF's LeftShift/RightShift.
ELEMENTWISE_OPS.update({
    "Acosh": (("x",), "acosh(x)"), "Asinh": (("x",), "asinh(x)"),
    "Atanh": (("x",), "atanh(x)"), "Rint": (("x",), "rint(x)"),
    "Xdivy": (("x", "y"), "0 if x == 0 else x / y"),
    "Xlog1py": (("x", "y"), "0 if x == 0 else x * log1p(y)"),
    "MulNoNan": (("x", "y"), "0 if y == 0 else x * y"),
    "BitwiseAnd": (("x", "y"), "bitand(x, y)"), "BitwiseOr": (("x", "y"), "bitor(x, y)"),
    "BitwiseXor": (("x", "y"), "bitxor(x, y)"), "Invert": (("x",), "invert(x)"),
    "LeftShift": (("x", "y"), "lshift(x, y)"), "RightShift": (("x", "y"), "rshift(x, y)"),
})

# --- TF's gradient ops (ops/backprops.py): TF's kernels' formulas.  The activations'
# take (g, features) or (g, outputs) and pass ``g * 0`` where TF multiplies by a zero
# mask (so a NaN or infinite gradient stays NaN there, as TF's); the math ops' take the
# forward output y first, then its gradient dy, and give 0 where dy is 0 (Sqrt's, Rsqrt's
# and Reciprocal's: no NaN from a zero or infinite y, as TF 2's kernels).  SeluGrad's
# constants are TF's scale and scale * alpha.
ELEMENTWISE_OPS.update({
    "ReluGrad": (("g", "f"), "g if f > 0 else g * 0"),
    "Relu6Grad": (("g", "f"), "g if f > 0 and f < 6 else g * 0"),
    "LeakyReluGrad": (("g", "f"), "g if f > 0 else g * {alpha}"),
    "EluGrad": (("g", "y"), "g * (y + 1) if y < 0 else g"),
    "SeluGrad": (("g", "y"), "g * (y + 1.7580993408473766) if y < 0 else "
                             "g * 1.0507009873554805"),
    "SoftplusGrad": (("g", "f"), "g / (exp(-f) + 1)"),
    "SoftsignGrad": (("g", "f"), "g / ((abs(f) + 1) * (abs(f) + 1))"),
    "SigmoidGrad": (("y", "dy"), "dy * y * (1 - y)"),
    "TanhGrad": (("y", "dy"), "dy * (1 - y * y)"),
    "RsqrtGrad": (("y", "dy"), "0 if dy == 0 else -0.5 * (dy * y) * (y * y)"),
    "SqrtGrad": (("y", "dy"), "0 if dy == 0 else 0.5 * dy / y"),
    "ReciprocalGrad": (("y", "dy"), "0 if dy == 0 else -dy * y * y"),
    "InvGrad": (("y", "dy"), "0 if dy == 0 else -dy * y * y"),
})
_EXPRESSION_ATTRS["LeakyReluGrad"] = {"alpha": 0.2}

# Every op an elementwise kernel module registers: the whole table (every update above),
# Cast, and the regions the graph optimizer fused (``devsession/optimizer/fusion.py``).
KERNEL_OPS = tuple(ELEMENTWISE_OPS) + ("Cast", "_FusedElementwise")
