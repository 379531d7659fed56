"""``tf.math.special``: the Bessel functions (I, J, Y and K, the exponentially scaled
I's and K's), Dawson's integral, the exponential integral, the Fresnel integrals and
Spence's function (``ops/math_special.py``, ``ops/special.py``)."""

from .ops.math_special import (bessel_j0, bessel_j1, bessel_k0, bessel_k0e, bessel_k1,
                               bessel_k1e, bessel_y0, bessel_y1, dawsn, expint, fresnel_cos,
                               fresnel_sin, spence)
from .ops.special import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1",
           "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1",
           "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence"]
