"""Reference kernels of TensorFlow's gradient ops (``ops/backprops.py``): the elementwise
backprops as numpy formulas (TF's kernels'; the CPU and GPU run the expression table's,
``codegen/expressions.py``), and the host ops TF's gradients compute shapes with:
BroadcastGradientArgs, ConcatOffset; PreventGradient passes its input through.

SqrtGrad, RsqrtGrad, ReciprocalGrad and InvGrad give 0 where dy is 0, as TF 2's kernels
(so the gradient of ``tf.sqrt`` at 0 is 0, not NaN, where no gradient flows into it: the
masked distances of metric-learning losses).  Complex values (the math ops' backprops,
which TF defines on them): those four conjugate y as TF's kernels do;
SigmoidGrad and TanhGrad do not conjugate (TF's gradients pass them ``conj(y)``).  The CPU
and GPU kernels run these numpy formulas on the host for complex values.

float16 is computed in float32 and rounded once, as the other elementwise kernels.  The
backprops take two operands of one shape (TF's kernels: InvalidArgumentError naming the
node otherwise).
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .elementwise import _divide, compute_dtype

DEVICE = "REF"
SELU_SCALE, SELU_SCALE_ALPHA = 1.0507009873554805, 1.7580993408473766   # TF's


def _masked(g, keep):
    """``g`` where ``keep``, else ``g * 0`` (NaN for a NaN or infinite g, as TF's)."""
    return np.where(keep, g, g * 0)


def _zero_for_zero(formula):
    """``formula(y, dy)``, and 0 where dy is 0, as TF's kernels (no NaN from an infinite or
    zero y).  ``np.conj`` is the identity on real values."""
    def backprop(y, dy):
        grad = formula(y, dy)
        return np.where(dy == 0, np.zeros((), grad.dtype), grad)
    return backprop


BACKPROPS = {
    "ReluGrad": lambda node: lambda g, f: _masked(g, f > 0),
    "Relu6Grad": lambda node: lambda g, f: _masked(g, (f > 0) & (f < 6)),
    "LeakyReluGrad": lambda node: (lambda alpha: lambda g, f: np.where(
        f > 0, g, g * g.dtype.type(alpha)))(float(node.attrs.get("alpha", 0.2))),
    "EluGrad": lambda node: lambda g, y: np.where(y < 0, g * (y + 1), g),
    "SeluGrad": lambda node: lambda g, y: np.where(
        y < 0, g * (y + y.dtype.type(SELU_SCALE_ALPHA)), g * g.dtype.type(SELU_SCALE)),
    "SoftplusGrad": lambda node: lambda g, f: g / (np.exp(-f) + 1),
    "SoftsignGrad": lambda node: lambda g, f: g / np.square(np.abs(f) + 1),
    "SigmoidGrad": lambda node: lambda y, dy: dy * y * (1 - y),
    "TanhGrad": lambda node: lambda y, dy: dy * (1 - y * y),
    "RsqrtGrad": lambda node: _zero_for_zero(
        lambda y, dy: y.dtype.type(-0.5) * (dy * np.conj(y)) * np.conj(y * y)),
    "SqrtGrad": lambda node: _zero_for_zero(
        lambda y, dy: _divide(y.dtype.type(0.5) * dy, np.conj(y))),
    "ReciprocalGrad": lambda node: _zero_for_zero(lambda y, dy: -dy * np.conj(y * y)),
    "InvGrad": lambda node: _zero_for_zero(lambda y, dy: -dy * np.conj(y * y)),
}


@register_kernel(tuple(BACKPROPS), DEVICE)
def build_backprop(node):
    fn = BACKPROPS[node.op](node)
    out_dtype = node.output_dtype

    def backprop(a, b):
        if a.shape != b.shape:
            raise invalid_argument(node.name, node.op, f"inputs must have the same shape, "
                                   f"got {fmt_shape(a.shape)} and {fmt_shape(b.shape)}")
        with np.errstate(all="ignore"):
            return np.asarray(fn(compute_dtype(a), compute_dtype(b))).astype(out_dtype,
                                                                              copy=False)
    return backprop


# --- shapes and offsets, on the host -----------------------------------------------------

def broadcast_gradient_args(name: str, op: str, s0: np.ndarray, s1: np.ndarray):
    """TF's ``BCast`` reduction indices: the axes (of the broadcast result) that each
    shape was broadcast along, in increasing order.  Equal shapes reduce along nothing;
    otherwise an axis where both are 1 is in both lists, as TF's; shapes that do not
    broadcast are InvalidArgumentError."""
    a, b = [int(d) for d in s0], [int(d) for d in s1]
    if a == b:
        return np.zeros(0, s0.dtype), np.zeros(0, s1.dtype)
    rank = max(len(a), len(b))
    a, b = [1] * (rank - len(a)) + a, [1] * (rank - len(b)) + b
    r0, r1 = [], []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            if x == 1:
                r0.append(i)
                r1.append(i)
        elif x == 1:
            r0.append(i)
        elif y == 1:
            r1.append(i)
        else:
            raise invalid_argument(name, op, f"Incompatible shapes: {fmt_shape(tuple(s0))} "
                                   f"vs. {fmt_shape(tuple(s1))}")
    return np.array(r0, s0.dtype), np.array(r1, s1.dtype)


@register_kernel("BroadcastGradientArgs", HOST)
def build_broadcast_gradient_args(node):
    def run(s0, s1):
        for what, s in (("s0", s0), ("s1", s1)):
            if s.ndim != 1:
                raise invalid_argument(node.name, node.op, f"{what} must be a vector, got "
                                       f"shape {fmt_shape(s.shape)}")
        return broadcast_gradient_args(node.name, node.op, s0, s1)
    return run


@register_kernel("ConcatOffset", HOST)
def build_concat_offset(node):
    def run(concat_dim, *shapes):
        first = shapes[0]
        rank = first.shape[0] if first.ndim == 1 else -1
        axis = int(concat_dim)
        if not -rank <= axis < rank:
            raise invalid_argument(node.name, node.op, f"Concat dim is out of range: {axis} "
                                   f"vs. {rank}")
        axis %= rank
        offsets, start = [], 0
        for i, shape in enumerate(shapes):
            if shape.shape != first.shape:
                raise invalid_argument(node.name, node.op, f"input {i} should contain "
                                       f"{rank} elements, but got {shape.size}")
            if any(d != axis and shape[d] != first[d] for d in range(rank)):
                raise invalid_argument(
                    node.name, node.op, f"All dimensions except {axis} must match. Input {i} "
                    f"has shape {_tf_list(shape)} and doesn't match input 0 with shape "
                    f"{_tf_list(first)}.")
            offset = np.zeros(rank, shape.dtype)
            offset[axis] = start
            offsets.append(offset)
            start += int(shape[axis])
        return tuple(offsets)
    return run


def _tf_list(shape) -> str:
    return "[" + " ".join(str(int(d)) for d in shape) + "]"


@register_kernel("PreventGradient", HOST)
def build_prevent_gradient(node):
    def prevent_gradient(x):
        return x.copy()
    return prevent_gradient
