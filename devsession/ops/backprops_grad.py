"""Gradients of TensorFlow's gradient ops (``backprops.py``): the second derivatives TF's
``nn_grad.py`` and ``math_grad.py`` define, written with the same backprop ops, so a
TF-written training graph differentiates again as in TF.

``SoftsignGrad`` has no gradient in TF (a LookupError there and here, which
tests/test_gradients.py lists); ``BroadcastGradientArgs`` and ``ConcatOffset`` compute
shapes and offsets, not differentiable; ``PreventGradient`` raises TF's LookupError.
"""

from __future__ import annotations

from .array_fill import zeros_like
from .common import make_op
from .complex_math import conj
from .elementwise import exp, less, multiply, negative, square, where
from .registry import not_differentiable, register_gradient

__all__: list = []

not_differentiable("BroadcastGradientArgs", "ConcatOffset")


def _backprop(op_type: str, a, b, attrs=None):
    return make_op(op_type, [a, b], attrs)


def _activation_grad_grad(op_type: str, keep: str):
    """ReluGrad, Relu6Grad, LeakyReluGrad: the backprop of ``grad`` through the same
    features, and nothing for the features (``keep`` names the attrs carried over)."""
    def grad(op, g):
        x = op.inputs[1]
        attrs = {k: op.attrs[k] for k in keep.split() if k in op.attrs}
        return [_backprop(op_type, g, x, attrs), zeros_like(x)]
    return grad


for _op_type, _keep in (("ReluGrad", ""), ("Relu6Grad", ""), ("LeakyReluGrad", "alpha")):
    register_gradient(_op_type)(_activation_grad_grad(_op_type, _keep))


def _exponential_grad_grad(op_type: str):
    """EluGrad, SeluGrad (of the outputs y): TF's ``where(y < 0, g * dy, 0)``."""
    def grad(op, g):
        dy, y = op.inputs
        return [_backprop(op_type, g, y), where(less(y, 0), multiply(g, dy), zeros_like(y))]
    return grad


for _op_type in ("EluGrad", "SeluGrad"):
    register_gradient(_op_type)(_exponential_grad_grad(_op_type))


@register_gradient("SoftplusGrad")
def _softplus_grad_grad(op, g):
    dy, x = op.inputs
    d2x = g * dy / (exp(negative(x)) + 2.0 + exp(x))
    return [_backprop("SoftplusGrad", g, x), d2x]


def _c(t):
    """``t``, conjugated when complex (TF's second derivatives of the math ops' backprops
    conjugate their operands)."""
    return conj(t) if t.dtype.is_complex else t


@register_gradient("SigmoidGrad")
def _sigmoid_grad_grad(op, g):
    y, dy = map(_c, op.inputs)
    gb = multiply(g, dy)
    return [gb - 2.0 * gb * y, _backprop("SigmoidGrad", y, g)]


@register_gradient("TanhGrad")
def _tanh_grad_grad(op, g):
    y, dy = map(_c, op.inputs)
    return [g * -2.0 * dy * y, _backprop("TanhGrad", y, g)]


@register_gradient("RsqrtGrad")
def _rsqrt_grad_grad(op, g):
    y, dy = op.inputs
    return [-1.5 * _c(g) * dy * square(_c(y)), _backprop("RsqrtGrad", _c(y), g)]


@register_gradient("SqrtGrad")
def _sqrt_grad_grad(op, g):
    y, out = op.inputs[0], op.outputs[0]
    ga = g / y
    return [negative(_c(ga)) * out, 0.5 * ga]


def _reciprocal_grad_grad(op_type: str):
    def grad(op, g):
        y, dy = op.inputs
        return [_c(g) * -2.0 * dy * _c(y), _backprop(op_type, _c(y), g)]
    return grad


for _op_type in ("ReciprocalGrad", "InvGrad"):
    register_gradient(_op_type)(_reciprocal_grad_grad(_op_type))


@register_gradient("PreventGradient")
def _prevent_gradient_grad(op, g):
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.attrs.get('message', '')}")
