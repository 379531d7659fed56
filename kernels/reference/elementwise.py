"""Reference kernels of the elementwise ops (unary, binary, SelectV2, Cast): the most
direct numpy formulation of each, the oracle the CPU and GPU kernels are tested against.

* float16 is computed in float32 and rounded back once per op (like numpy's float16
  loops and TF's CPU kernels).
* Integer arithmetic wraps around in the input dtype (``np.int32`` overflow wraps).
  ``Pow`` on integers with a negative exponent is TF's CPU error
  (``division_checks.py``); ``_pow`` itself gives the truncated real result there
  (1 for base 1, +-1 for base -1, else 0: the GPU kernels' rule) instead of numpy's
  ValueError.
* ``RealDiv`` of integers into float64 (a kernel node's own) is numpy true division;
  TF's, into integers, has no kernel (``division_checks.py``).  Division by zero gives
  inf/nan, never an exception or a warning (``np.errstate``).
* An integer FloorDiv, FloorMod, TruncateDiv or TruncateMod by zero raises TF's error
  for it (``division_checks.py``).
* ``Sigmoid`` uses ``exp(-|x|)``, which never overflows.
* Maximum/Minimum propagate NaN like numpy.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..checks import broadcast_shape, get_attr
from ..division_checks import (check_divisor, divides_integers, no_real_div_kernel,
                               real_div_of_integers)
from ..registry import register_kernel

DEVICE = "REF"
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def compute_dtype(x: np.ndarray) -> np.ndarray:
    """float16 inputs widened to float32 (the one rounding happens at the end)."""
    return x.astype(_F32) if x.dtype == _F16 else x


def _sigmoid(x):
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))          # TF's (Eigen's) formula for complex values
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _relu(x):
    return np.maximum(x, np.zeros((), x.dtype))


def _divide(x, y):
    """numpy's true division; a complex value over 0 is nan+nanj, as TF's CPU kernel
    (x * conj(y) / |y|^2) makes it, where numpy gives infinities."""
    q = np.true_divide(x, y)
    if q.dtype.kind == "c" and np.any(y == 0):
        q = np.where(y == 0, np.array(complex(np.nan, np.nan), q.dtype), q)
    return q


def _pow(x, y):
    if x.dtype.kind in "fc":
        return np.power(x, y)
    r = np.power(x, np.maximum(y, 0))   # numpy int power wraps like TF's
    negative = y < 0
    if np.any(negative):
        odd = (y % 2) != 0
        inverse = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0))
        r = np.where(negative, inverse, r)
    return r


UNARY = {
    "Neg": np.negative, "Abs": np.abs, "Square": np.square, "Relu": _relu,
    "Exp": np.exp, "Log": np.log, "Sqrt": np.sqrt, "Tanh": np.tanh, "Sigmoid": _sigmoid,
}
BINARY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Pow": _pow,
    "Maximum": np.maximum, "Minimum": np.minimum, "RealDiv": _divide,
    "Equal": np.equal, "Less": np.less, "LessEqual": np.less_equal,
    "Greater": np.greater, "GreaterEqual": np.greater_equal,
}


@register_kernel(tuple(UNARY) + tuple(BINARY), DEVICE)
def build_elementwise(node):
    if real_div_of_integers(node):
        return no_real_div_kernel(node)
    fn = {**UNARY, **BINARY}[node.op]
    out_dtype = node.output_dtype
    divides = divides_integers(node.op, node.input_dtypes)

    def kernel(*xs):
        shape = broadcast_shape(node.name, node.op, [x.shape for x in xs])
        if divides:
            check_divisor(node.name, node.op, xs[1], math.prod(shape))
        with np.errstate(all="ignore"):   # inf/nan results and float16 overflow
            result = fn(*[compute_dtype(x) for x in xs])
            return np.asarray(result).astype(out_dtype, copy=False)
    return kernel


@register_kernel("SelectV2", DEVICE)
def build_select(node):
    out_dtype = node.output_dtype

    def select(cond, x, y):
        broadcast_shape(node.name, node.op, [cond.shape, x.shape, y.shape])
        return np.asarray(np.where(cond, x, y)).astype(out_dtype, copy=False)
    return select


@register_kernel("Cast", DEVICE)
def build_cast(node):
    dst = np.dtype(get_attr(node, "DstT"))

    def cast(x):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # TF: the real part
            return x.astype(dst)
    return cast


# --- TF1 surface (branch tf1): integer division, rounding, logic ----------------------
# (semantics: kernels/codegen/expressions.py's block of the same name).  Equal and
# NotEqual also compare strings (object arrays of bytes), which only this module's
# kernels can hold.

def _truncate_div(x, y):
    if x.dtype.kind == "f":
        return np.trunc(x / y)
    q = np.floor_divide(x, y)
    return q + ((np.mod(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)


def _sign(x):
    if x.dtype.kind == "c":                  # x / |x|, 0 at 0 (TF's)
        size = np.abs(x)
        return np.where(size == 0, x, x / np.where(size == 0, 1, size)).astype(x.dtype)
    one = np.ones((), x.dtype)
    return np.where(x > 0, one, np.where(x < 0, -one, x))


def _floor_div(x, y):
    return np.floor(x / y) if x.dtype.kind == "f" else np.floor_divide(x, y)


def _rounding(fn):
    """An integer is already whole: TF returns its value as is (numpy would go through
    float64, which loses int64's low bits), in a new array as every kernel's output is
    (the input may be a feed or a variable's storage, which a fetch must not share)."""
    return lambda x: x.copy() if x.dtype.kind in "iu" else fn(x)


TF1_UNARY = {
    "LogicalNot": np.logical_not, "Sign": _sign, "Floor": _rounding(np.floor),
    "Ceil": _rounding(np.ceil), "Round": _rounding(np.rint),
    "Rsqrt": lambda x: 1 / np.sqrt(x), "Reciprocal": lambda x: 1 / x,
    "Sin": np.sin, "Cos": np.cos,
}
TF1_BINARY = {
    "AddV2": np.add, "FloorDiv": _floor_div, "FloorMod": np.mod, "TruncateDiv": _truncate_div,
    "TruncateMod": np.fmod, "NotEqual": np.not_equal, "LogicalAnd": np.logical_and,
    "LogicalOr": np.logical_or,
}
UNARY.update(TF1_UNARY)
BINARY.update(TF1_BINARY)
register_kernel(tuple(TF1_UNARY) + tuple(TF1_BINARY), DEVICE)(build_elementwise)


# --- nn family's math op (SquaredDifference, for moments) ----------------------------------
def _squared_difference(x, y):
    """``(x - y)^2``; of complex values ``|x - y|^2`` (TF's, a real part only)."""
    d = x - y
    return d * np.conj(d) if d.dtype.kind == "c" else np.square(d)


BINARY["SquaredDifference"] = _squared_difference
register_kernel("SquaredDifference", DEVICE)(build_elementwise)


# --- TF1 math (branch tf1-math): libm functions, predicates, Atan2, Xlogy, DivNoNan ----
# (semantics: kernels/codegen/expressions.py's block of the same name).  erf and erfc
# are Python's ``math`` ones (numpy has none), element by element.

def _vectorized(fn):
    return lambda x: np.vectorize(fn, otypes=[x.dtype])(x) if x.size else x.copy()


def _xlogy(x, y):
    return np.where(x == 0, np.zeros((), x.dtype), x * np.log(y))


def _div_no_nan(x, y):
    return np.where(y == 0, np.zeros((), x.dtype), x / np.where(y == 0, np.ones((), y.dtype), y))


MATH_UNARY = {
    "Log1p": np.log1p, "Expm1": np.expm1, "Erf": _vectorized(math.erf),
    "Erfc": _vectorized(math.erfc), "Tan": np.tan, "Asin": np.arcsin, "Acos": np.arccos,
    "Atan": np.arctan, "Sinh": np.sinh, "Cosh": np.cosh, "IsNan": np.isnan,
    "IsInf": np.isinf, "IsFinite": np.isfinite,
}
MATH_BINARY = {"Atan2": np.arctan2, "Xlogy": _xlogy, "DivNoNan": _div_no_nan}
UNARY.update(MATH_UNARY)
BINARY.update(MATH_BINARY)
register_kernel(tuple(MATH_UNARY) + tuple(MATH_BINARY), DEVICE)(build_elementwise)


# --- TF1 math names (branch tf1-math-names): inverse hyperbolics, Rint, Xdivy, Xlog1py,
# MulNoNan and the bitwise ops (semantics: kernels/codegen/expressions.py's block of the
# same name).  A shift count is clamped into [0, bits - 1] as TF's; a left shift wraps
# (computed unsigned), a right shift of a signed value is arithmetic.

def _xdivy(x, y):
    return np.where(x == 0, np.zeros((), x.dtype), _divide(x, y))


def _xlog1py(x, y):
    return np.where(x == 0, np.zeros((), x.dtype), x * np.log1p(y))


def _mul_no_nan(x, y):
    return np.where(y == 0, np.zeros((), x.dtype), x * y)


def _shift_count(y):
    return np.clip(y, 0, y.dtype.itemsize * 8 - 1)


def _left_shift(x, y):
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    return np.left_shift(x.astype(unsigned), _shift_count(y).astype(unsigned)).astype(x.dtype)


NAMES_UNARY = {"Acosh": np.arccosh, "Asinh": np.arcsinh, "Atanh": np.arctanh,
               "Rint": np.rint, "Invert": np.invert}
NAMES_BINARY = {"Xdivy": _xdivy, "Xlog1py": _xlog1py, "MulNoNan": _mul_no_nan,
                "BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or,
                "BitwiseXor": np.bitwise_xor, "LeftShift": _left_shift,
                "RightShift": lambda x, y: np.right_shift(x, _shift_count(y))}
UNARY.update(NAMES_UNARY)
BINARY.update(NAMES_BINARY)
register_kernel(tuple(NAMES_UNARY) + tuple(NAMES_BINARY), DEVICE)(build_elementwise)
