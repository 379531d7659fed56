"""TF1's ``tf.distributions.Laplace(loc, scale)``: density ``exp(-|x - loc| / scale) /
(2 scale)``; samples ``loc - scale sign(u) log1p(-|u|)`` (``u`` uniform in (-1, 1)) are
differentiable in both parameters."""

from __future__ import annotations

import math

import numpy as np

from ..ops.array_fill import ones_like
from ..ops.elementwise import abs as abs_
from ..ops.elementwise import expm1, log, log1p, negative, sign
from ..ops.random import random_uniform
from .location_scale import LocationScale

__all__ = ["Laplace"]


class Laplace(LocationScale):
    """The Laplace (double exponential) distribution around ``loc``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True,
                 name="Laplace"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, dict(locals()), name)

    def _sample_n(self, n, seed=None):
        low = float(np.nextafter(self._dtype.np.type(-1.0), self._dtype.np.type(0.0)))
        u = random_uniform(self._draw_shape(n), minval=low, maxval=1.0, dtype=self._dtype,
                           seed=seed)
        return self._loc - self._scale * sign(u) * log1p(negative(abs_(u)))

    def _log_prob(self, x):
        return -math.log(2.0) - log(self._scale) - abs_(self._z(x))

    def _cdf(self, x):
        z = self._z(x)
        return 0.5 - 0.5 * sign(z) * expm1(negative(abs_(z)))

    def _log_survival_function(self, x):
        z = self._z(x)
        return log(0.5 - 0.5 * sign(negative(z)) * expm1(negative(abs_(z))))

    def _entropy(self):
        return (math.log(2.0) + 1.0) + log(self._scale) * ones_like(self._loc)

    def _stddev(self):
        return math.sqrt(2.0) * self._scale * ones_like(self._loc)

    _mode = LocationScale._mean
    _median = LocationScale._mean

