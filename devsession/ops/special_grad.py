"""Gradients of the special functions (TF's ``math_grad.py`` formulas):

* lgamma' = digamma; digamma' = polygamma(1, x); polygamma(n, x)' = polygamma(n + 1, x)
  in x (none in n, as TF); zeta(x, q)' = -x zeta(x + 1, q) in q (none in x);
* igamma in a: IgammaGradA(a, x); in x: exp(-x + (a - 1) log x - lgamma(a)) (the
  density, in log space); igammac's are their negatives; IgammaGradA has none;
* bessel_i0e' = i1e - sign(x) i0e; bessel_i1e' = i0e - i1e (sign(x) + 1/x), 1/2 for
  |x| <= epsilon (as TF); bessel_i0' = i1; bessel_i1' = i0 - i1 / x, 1/2 for |x| <=
  epsilon too (TF writes 1 at 0, which is not the derivative: I1(x) = x/2 + O(x^3));
* erfinv' = sqrt(pi)/2 exp(erfinv(x)^2); ndtri' = sqrt(2 pi) exp(ndtri(x)^2 / 2).

Binary ops broadcast, so each input's gradient is summed down to its shape.
"""

from __future__ import annotations

import numpy as np

from ..graph import convert_to_tensor
from .elementwise import abs as abs_
from .elementwise import exp, less_equal, log, multiply, negative, reciprocal, sign, square, where
from .registry import not_differentiable, register_gradient
from .shape_of import reduce_to_shape_of
from .special import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, digamma, igamma_grad_a,
                      lgamma, polygamma, zeta)

not_differentiable("IgammaGradA")


def _constant(value, like):
    return convert_to_tensor(np.asarray(value, like.dtype.np), graph=like.graph)


def _chain(derivative):
    """The gradient ``dy * derivative(op)`` of a unary op."""
    return lambda op, dy: [multiply(dy, derivative(op))]


register_gradient("Lgamma")(_chain(lambda op: digamma(op.inputs[0])))
register_gradient("Digamma")(_chain(
    lambda op: polygamma(_constant(1, op.inputs[0]), op.inputs[0])))
register_gradient("Erfinv")(_chain(
    lambda op: multiply(np.sqrt(np.pi) / 2, exp(square(op.outputs[0])))))
register_gradient("Ndtri")(_chain(
    lambda op: multiply(np.sqrt(2 * np.pi), exp(square(op.outputs[0]) / 2.0))))
register_gradient("BesselI0e")(_chain(
    lambda op: bessel_i1e(op.inputs[0]) - sign(op.inputs[0]) * op.outputs[0]))
register_gradient("BesselI0")(_chain(lambda op: bessel_i1(op.inputs[0])))


def _near_zero_half(x, derivative):
    """``derivative(safe_x)`` (a formula dividing by x) where ``|x|`` exceeds the
    dtype's epsilon, and there its limit 1/2, as TF's BesselI1e gradient: below, 1/x
    overflows (a float32 subnormal) or I1(x) rounds to nothing."""
    tiny = less_equal(abs_(x), _constant(np.finfo(x.dtype.np).eps, x))
    safe = where(tiny, _constant(1, x), x)
    return where(tiny, _constant(0.5, x), derivative(safe))


@register_gradient("BesselI1e")
def _bessel_i1e_grad(op, dy):
    x, y = op.inputs[0], op.outputs[0]
    return [multiply(dy, _near_zero_half(
        x, lambda safe: bessel_i0e(x) - y * (sign(x) + reciprocal(safe))))]


@register_gradient("BesselI1")
def _bessel_i1_grad(op, dy):
    x, y = op.inputs[0], op.outputs[0]
    return [multiply(dy, _near_zero_half(x, lambda safe: bessel_i0(x) - y / safe))]


@register_gradient("Polygamma")
def _polygamma_grad(op, dy):
    n, x = op.inputs
    partial_x = polygamma(n + 1, x)
    return [None, reduce_to_shape_of(multiply(partial_x, dy), x, peers=(n,))]


@register_gradient("Zeta")
def _zeta_grad(op, dy):
    x, q = op.inputs
    partial_q = negative(x) * zeta(x + 1, q)
    return [None, reduce_to_shape_of(multiply(partial_q, dy), q, peers=(x,))]


def _igamma_partials(op, dy):
    a, x = op.inputs
    partial_a = igamma_grad_a(a, x)
    # in log space: Gamma(a) and x^(a-1) can overflow where their ratio does not
    partial_x = exp(negative(x) + (a - 1) * log(x) - lgamma(a))
    return (reduce_to_shape_of(multiply(partial_a, dy), a, peers=(x,)),
            reduce_to_shape_of(multiply(partial_x, dy), x, peers=(a,)))


@register_gradient("Igamma")
def _igamma_grad(op, dy):
    return list(_igamma_partials(op, dy))


@register_gradient("Igammac")
def _igammac_grad(op, dy):
    return [negative(g) for g in _igamma_partials(op, dy)]
