"""TF1's ``tf.distributions.Normal(loc, scale)`` and its KL divergence to another Normal;
samples ``loc + scale * N(0, 1)`` are differentiable in both parameters."""

from __future__ import annotations

import math

from ..graph import name_scope
from ..ops.array_fill import ones_like
from ..ops.elementwise import erfc, log, square
from ..ops.random import random_normal
from ..ops.special import ndtri
from .kullback_leibler import RegisterKL
from .location_scale import LocationScale

__all__ = ["Normal"]

_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


def ndtr(z):
    """The standard normal CDF, ``erfc(-z / sqrt 2) / 2`` (accurate in both tails' left)."""
    return 0.5 * erfc(z * (-1.0 / math.sqrt(2.0)))


class Normal(LocationScale):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, dict(locals()), name)

    def _sample_n(self, n, seed=None):
        draws = random_normal(self._draw_shape(n), dtype=self._dtype, seed=seed)
        return draws * self._scale + self._loc

    def _log_prob(self, x):
        return -0.5 * square(self._z(x)) - _HALF_LOG_TWO_PI - log(self._scale)

    def _cdf(self, x):
        return ndtr(self._z(x))

    def _log_cdf(self, x):
        return log(ndtr(self._z(x)))

    def _survival_function(self, x):
        return ndtr(-self._z(x))

    def _log_survival_function(self, x):
        return log(ndtr(-self._z(x)))

    def _quantile(self, p):
        return self._loc + self._scale * ndtri(p)

    def _entropy(self):
        return (0.5 + _HALF_LOG_TWO_PI) + log(self._scale) * ones_like(self._loc)

    def _stddev(self):
        return self._scale * ones_like(self._loc)

    _mode = LocationScale._mean


@RegisterKL(Normal, Normal)
def _kl_normal_normal(n_a, n_b, name=None):
    """``(mu_a - mu_b)^2 / (2 s_b^2) + (r - 1 - log r) / 2``, ``r = s_a^2 / s_b^2``."""
    with name_scope(name or "kl_normal_normal"):
        var_a, var_b = square(n_a.scale), square(n_b.scale)
        ratio = var_a / var_b
        return (square(n_a.loc - n_b.loc) / (2.0 * var_b)
                + 0.5 * (ratio - 1.0 - log(ratio)))
