"""Plain-numpy reference kernels: device type "REF", the oracle every other device is
tested against.

Each kernel is the most direct numpy formulation of the op's semantics, written for
clarity rather than speed.  The semantics they pin down (and that the CPU and GPU
kernels must match):

* float16 is computed in float32 and rounded back once per op (like numpy's float16
  loops and TF's CPU kernels).
* Integer arithmetic wraps around in the input dtype (``np.int32`` overflow wraps).
  ``Pow`` on integers with a negative exponent gives the truncated real result
  (1 for base 1, +-1 for base -1, else 0) instead of numpy's ValueError.
* ``RealDiv`` of integers is numpy true division: float64.  Division by zero gives
  inf/nan, never an exception or a warning (``np.errstate``).
* ``Sigmoid`` uses ``exp(-|x|)``, which never overflows.
* ``Mean`` of integers truncates toward zero like TF (``-7 / 2 == -3``) and is taken
  of the wrapped integer sum; an integer Mean, a Max, a Min or an ArgMax over zero
  elements raises ``InvalidArgumentError`` (a float Mean over nothing is NaN, a Sum 0).
* Max/Min/Maximum/Minimum/ArgMax propagate NaN like numpy (ArgMax: first NaN wins;
  ties: first occurrence).
* ``Softmax`` subtracts the max first, so huge finite inputs give no inf/nan.

Data-movement ops come from ``movement.py`` (shared with CPU: numpy is the reference
for copying).  Importing this module never imports numba.
"""

from __future__ import annotations

import numpy as np

from . import movement
from ._checks import broadcast_shape, check_axes, get_attr
from .matmul_shapes import matmul_shape, transposes
from .reduce_checks import check_argmax, check_reduction, reduction_attrs
from .registry import register_kernel

DEVICE = "REF"
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _compute(x: np.ndarray) -> np.ndarray:
    return x.astype(_F32) if x.dtype == _F16 else x


def _sigmoid(x):
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _relu(x):
    return np.maximum(x, np.zeros((), x.dtype))


def _pow(x, y):
    if x.dtype.kind == "f":
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
    "Maximum": np.maximum, "Minimum": np.minimum, "RealDiv": np.true_divide,
    "Equal": np.equal, "Less": np.less, "LessEqual": np.less_equal,
    "Greater": np.greater, "GreaterEqual": np.greater_equal,
}


def _elementwise_builder(fn):
    def build(node):
        out_dtype = node.output_dtype

        def kernel(*xs):
            broadcast_shape(node.name, node.op, [x.shape for x in xs])
            with np.errstate(all="ignore"):   # inf/nan results and float16 overflow
                result = fn(*[_compute(x) for x in xs])
                return np.asarray(result).astype(out_dtype, copy=False)
        return kernel
    return build


def build_select(node):
    out_dtype = node.output_dtype

    def select(cond, x, y):
        broadcast_shape(node.name, node.op, [cond.shape, x.shape, y.shape])
        return np.asarray(np.where(cond, x, y)).astype(out_dtype, copy=False)
    return select


def build_cast(node):
    dst = np.dtype(get_attr(node, "DstT"))

    def cast(x):
        with np.errstate(all="ignore"):
            return x.astype(dst)
    return cast


def build_matmul(node):
    ta, tb = transposes(node)
    out_dtype = node.output_dtype

    def matmul(a, b):
        matmul_shape(node, a.shape, b.shape)
        a2 = np.swapaxes(a, -1, -2) if ta else a
        b2 = np.swapaxes(b, -1, -2) if tb else b
        with np.errstate(all="ignore"):
            result = np.matmul(_compute(a2), _compute(b2))
            return np.asarray(result).astype(out_dtype, copy=False)
    return matmul


def _reduction_builder(kind):
    def build(node):
        axes, keepdims = reduction_attrs(node)
        out_dtype = node.output_dtype

        def reduce(x):
            count = check_reduction(node, kind, x, axes)
            xc = _compute(x)
            with np.errstate(all="ignore"):
                if kind == "max":
                    r = np.max(xc, axis=axes, keepdims=keepdims)
                elif kind == "min":
                    r = np.min(xc, axis=axes, keepdims=keepdims)
                else:
                    r = np.sum(xc, axis=axes, keepdims=keepdims, dtype=xc.dtype)
                    if kind == "mean" and axes:
                        r = r / count if xc.dtype.kind == "f" else _trunc_div(r, count)
                return np.asarray(r).astype(out_dtype, copy=False)
        return reduce
    return build


def _trunc_div(s, n):
    q = s // n
    return q + ((q < 0) & (q * n != s)).astype(q.dtype)   # floor -> toward zero


def build_argmax(node):
    axis = int(get_attr(node, "axis"))

    def argmax(x):
        check_argmax(node, x.shape, axis)
        return np.asarray(np.argmax(x, axis=axis)).astype(node.output_dtype)
    return argmax


def build_softmax(node):
    axis = int(get_attr(node, "axis"))
    out_dtype = node.output_dtype

    def softmax(x):
        check_axes(node.name, node.op, x.shape, (axis,))
        if x.size == 0:
            return np.empty(x.shape, out_dtype)
        xc = _compute(x)
        with np.errstate(all="ignore"):
            e = np.exp(xc - np.max(xc, axis=axis, keepdims=True))
            return (e / np.sum(e, axis=axis, keepdims=True)).astype(out_dtype, copy=False)
    return softmax


def _register_all():
    for op, fn in {**UNARY, **BINARY}.items():
        register_kernel(op, DEVICE)(_elementwise_builder(fn))
    for kind in ("sum", "mean", "max", "min"):
        register_kernel(kind.capitalize(), DEVICE)(_reduction_builder(kind))
    for op, builder in {
        "SelectV2": build_select, "Cast": build_cast, "MatMul": build_matmul,
        "ArgMax": build_argmax, "Softmax": build_softmax, **movement.BUILDERS,
    }.items():
        register_kernel(op, DEVICE)(builder)


_register_all()
