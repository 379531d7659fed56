"""Reference kernels of the special functions: Lgamma, Digamma, Polygamma, Zeta,
Igamma, Igammac, IgammaGradA, BesselI0e, BesselI1e, BesselI0, BesselI1, Erfinv, Ndtri.

Each maps ``kernels/special_math.py``'s float64 scalar function over the (broadcast)
inputs with ``np.vectorize`` -- slow, but the most direct formulation -- and rounds
the float64 result to the input's compute dtype (float16 through float32, as the
generated loops do) and then to the output's.  Polygamma and BesselI0/I1 are built
from those as TF builds them (``codegen/expressions.py``'s block of the same name).
"""

from __future__ import annotations

import numpy as np

from .. import special_math
from ..registry import register_kernel
from .elementwise import BINARY, DEVICE, UNARY, build_elementwise

__all__ = ["SPECIAL_FUNCTIONS", "vectorized"]


def vectorized(fn):
    """``fn`` over arrays in float64, rounded to the first input's compute dtype."""
    apply = np.vectorize(lambda *values: fn(*[np.float64(v) for v in values]),
                         otypes=[np.float64])

    def kernel(*xs):
        dtype = np.result_type(*xs)
        if dtype.kind != "f":
            dtype = np.dtype(np.float64)
        shape = np.broadcast_shapes(*[x.shape for x in xs])
        if not np.prod(shape, dtype=np.int64):
            return np.zeros(shape, dtype)
        with np.errstate(all="ignore"):
            return apply(*[x.astype(np.float64) for x in xs]).astype(dtype)
    return kernel


# The primitive functions of the expression language (frontend instruction ops).
SPECIAL_FUNCTIONS = {name: vectorized(getattr(special_math, name))
                     for name in special_math.SCALAR_FUNCTIONS}
_F = SPECIAL_FUNCTIONS


def _polygamma(n, x):
    """TF's: NaN unless n is a whole number >= 0; digamma at 0; else
    (-1)^(n+1) n! zeta(n + 1, x)."""
    with np.errstate(all="ignore"):
        one = np.ones((), np.result_type(n, x))
        sign = 2 * (n - 2 * np.floor(0.5 * n)) - one
        value = sign * np.exp(_F["lgamma"](n + one)) * _F["zeta"](n + one, x)
        value = np.where(n == 0, _F["digamma"](np.broadcast_to(x, value.shape)), value)
        return np.where((n < 0) | (np.floor(n) != n), np.nan, value).astype(value.dtype)


def _scaled_back(scaled):
    return lambda x: (np.exp(np.abs(x)) * _F[scaled](x)).astype(x.dtype)


SPECIAL_UNARY = {"Lgamma": _F["lgamma"], "Digamma": _F["digamma"],
                 "BesselI0e": _F["bessel_i0e"], "BesselI1e": _F["bessel_i1e"],
                 "BesselI0": _scaled_back("bessel_i0e"), "BesselI1": _scaled_back("bessel_i1e"),
                 "Erfinv": _F["erfinv"], "Ndtri": _F["ndtri"]}
SPECIAL_BINARY = {"Polygamma": _polygamma, "Zeta": _F["zeta"], "Igamma": _F["igamma"],
                  "Igammac": _F["igammac"], "IgammaGradA": _F["igamma_grad_a"]}
UNARY.update(SPECIAL_UNARY)
BINARY.update(SPECIAL_BINARY)
register_kernel(tuple(SPECIAL_UNARY) + tuple(SPECIAL_BINARY), DEVICE)(build_elementwise)
