"""Betainc (``devsession/ops/betainc.py``) on the host: I_x(a, b) by the continued
fraction of the incomplete beta function (modified Lentz, in float64), taken at x or,
past the mean, at 1 - x by the symmetry I_x(a, b) = 1 - I_{1-x}(b, a)."""

from __future__ import annotations

import numpy as np

from ..registry import HOST, register_kernel
from ..special_math import lgamma

_TINY = 1e-300           # keeps Lentz's denominators off zero
_EPS = 1e-16
_MAX_TERMS = 10000       # terms grow as sqrt(max(a, b)); 1e6 converges in ~3000

_lgamma = np.vectorize(lgamma, otypes=[np.float64])      # +inf where it overflows


def _nonzero(v):
    return np.where(np.abs(v) < _TINY, _TINY, v)


def _continued_fraction(a, b, x):
    """The continued fraction of I_x(a, b) (x below the mean), every element at once
    until each term changes the product by less than an ulp."""
    sum_ab, a_plus, a_minus = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 / _nonzero(1.0 - sum_ab * x / a_plus)
    h = d.copy()
    for m in range(1, _MAX_TERMS):
        m2 = 2.0 * m
        for term in (m * (b - m) * x / ((a_minus + m2) * (a + m2)),
                     -(a + m) * (sum_ab + m) * x / ((a + m2) * (a_plus + m2))):
            d = 1.0 / _nonzero(1.0 + term * d)
            c = _nonzero(1.0 + term / c)
            h *= d * c
        if np.all(np.abs(d * c - 1.0) < _EPS):
            break
    return h


def betainc(a, b, x) -> np.ndarray:
    """I_x(a, b) over float64 arrays (broadcast): NaN outside a, b > 0, 0 <= x <= 1."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    out = np.full(x.shape, np.nan)
    valid = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    out[valid & (x == 0)] = 0.0
    out[valid & (x == 1)] = 1.0
    inner = valid & (x > 0) & (x < 1)
    if inner.any():
        ai, bi, xi = a[inner], b[inner], x[inner]
        swap = xi > (ai + 1.0) / (ai + bi + 2.0)
        pa, pb = np.where(swap, bi, ai), np.where(swap, ai, bi)
        px = np.where(swap, 1.0 - xi, xi)
        log_front = (pa * np.log(px) + pb * np.log1p(-px) - _lgamma(pa) - _lgamma(pb) +
                     _lgamma(pa + pb))
        value = np.exp(log_front) * _continued_fraction(pa, pb, px) / pa
        out[inner] = np.where(swap, 1.0 - value, value)
    return out


@register_kernel("Betainc", HOST)
def build_betainc(node):
    def kernel(a, b, x):
        dtype = np.asarray(x).dtype
        with np.errstate(all="ignore"):
            return betainc(a, b, x).astype(dtype)
    return kernel
