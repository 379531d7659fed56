"""tf.math.special's functions beyond the modified Bessel I's (``special.py``): TF's
BesselJ0, BesselJ1, BesselY0, BesselY1, BesselK0, BesselK0e, BesselK1, BesselK1e,
Dawsn, Expint, FresnelCos, FresnelSin and Spence ops, elementwise over floats.

Their kernel (``kernels/reference/math_special.py``: float64 numpy, rounded to the
input's dtype) runs on the host, and so are TF's edges: what each gives at 0, below 0
and at infinity is listed there.  The builders name nodes as TF's
(``tf.math.special.bessel_j0(x)`` is "bessel_j0/BesselJ0"), and the gradients are TF's
(``math_grad.py``): J0' = -J1, J1' = J0 - J1/x (1/2 at 0), Y0' = -Y1, Y1' = Y0 - Y1/x,
K0' = -K1, K0e' = K0e - K1e, K1' = -K0 - K1/x, K1e' = K1e (1 - 1/x) - K0e, dawsn' = 1 -
2 x dawsn, Ei' = exp(x)/x, C' = cos(pi/2 x^2), S' = sin(pi/2 x^2), spence' = log(x) /
(1 - x) (-1 at 1).
"""

from __future__ import annotations

import numpy as np

from ..graph import convert_to_tensor
from .elementwise import (_unary_float, cos, equal, exp, log, multiply, reciprocal, sin, square,
                          where)
from .registry import OpDef, register_gradient, register_op
from .special import _scoped_unary

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e",
           "bessel_k1", "bessel_k1e", "dawsn", "expint", "fresnel_cos", "fresnel_sin",
           "spence"]

_OPS = {"BesselJ0": "bessel_j0", "BesselJ1": "bessel_j1", "BesselY0": "bessel_y0",
        "BesselY1": "bessel_y1", "BesselK0": "bessel_k0", "BesselK0e": "bessel_k0e",
        "BesselK1": "bessel_k1", "BesselK1e": "bessel_k1e", "Dawsn": "dawsn",
        "Expint": "expint", "FresnelCos": "fresnel_cos", "FresnelSin": "fresnel_sin",
        "Spence": "spence"}

for _op_type in _OPS:
    register_op(OpDef(_op_type, _unary_float, 1))

bessel_j0 = _scoped_unary("BesselJ0", "bessel_j0")
bessel_j1 = _scoped_unary("BesselJ1", "bessel_j1")
bessel_y0 = _scoped_unary("BesselY0", "bessel_y0")
bessel_y1 = _scoped_unary("BesselY1", "bessel_y1")
bessel_k0 = _scoped_unary("BesselK0", "bessel_k0")
bessel_k0e = _scoped_unary("BesselK0e", "bessel_k0e")
bessel_k1 = _scoped_unary("BesselK1", "bessel_k1")
bessel_k1e = _scoped_unary("BesselK1e", "bessel_k1e")
dawsn = _scoped_unary("Dawsn", "dawsn")
expint = _scoped_unary("Expint", "expint")
fresnel_cos = _scoped_unary("FresnelCos", "fresnel_cos")
fresnel_sin = _scoped_unary("FresnelSin", "fresnel_sin")
spence = _scoped_unary("Spence", "spence")


def _constant(value, like):
    return convert_to_tensor(np.asarray(value, like.dtype.np), graph=like.graph)


def _except_at(x, point, value, derivative):
    """``derivative(safe_x)`` (a formula that divides by zero at ``point``), and
    ``value`` there, as TF's ``where(equal(x, point), value, ...)``."""
    at = equal(x, _constant(point, x))
    safe = where(at, _constant(point + 1, x), x)
    return where(at, _constant(value, x), derivative(safe))


def _gradient(op_type: str):
    def register(derivative):
        register_gradient(op_type)(
            lambda op, dy: [multiply(dy, derivative(op.inputs[0], op.outputs[0]))])
        return derivative
    return register


@_gradient("BesselJ0")
def _bessel_j0_grad(x, y):
    return -bessel_j1(x)


@_gradient("BesselJ1")
def _bessel_j1_grad(x, y):
    return _except_at(x, 0, 0.5, lambda safe: bessel_j0(x) - y / safe)


@_gradient("BesselY0")
def _bessel_y0_grad(x, y):
    return -bessel_y1(x)


@_gradient("BesselY1")
def _bessel_y1_grad(x, y):
    return bessel_y0(x) - y / x


@_gradient("BesselK0")
def _bessel_k0_grad(x, y):
    return -bessel_k1(x)


@_gradient("BesselK0e")
def _bessel_k0e_grad(x, y):
    return y - bessel_k1e(x)


@_gradient("BesselK1")
def _bessel_k1_grad(x, y):
    return -bessel_k0(x) - y / x


@_gradient("BesselK1e")
def _bessel_k1e_grad(x, y):
    return y * (1.0 - reciprocal(x)) - bessel_k0e(x)


@_gradient("Dawsn")
def _dawsn_grad(x, y):
    return 1.0 - 2.0 * x * y


@_gradient("Expint")
def _expint_grad(x, y):
    return exp(x) / x


@_gradient("FresnelCos")
def _fresnel_cos_grad(x, y):
    return cos((np.pi / 2.0) * square(x))


@_gradient("FresnelSin")
def _fresnel_sin_grad(x, y):
    return sin((np.pi / 2.0) * square(x))


@_gradient("Spence")
def _spence_grad(x, y):
    return _except_at(x, 1, -1.0, lambda safe: log(safe) / (1.0 - safe))
