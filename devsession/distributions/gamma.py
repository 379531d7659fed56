"""TF1's ``tf.distributions.Gamma(concentration, rate)`` and ``Exponential(rate)`` (a
Gamma of concentration 1), and the Gamma-Gamma KL divergence.  Gamma samples come from
``RandomGamma``, differentiable in both parameters (its implicit gradient); Exponential's
from ``-log(U) / rate``, as TF's.  Exponential's mode is Gamma's, so NaN (or an error
without ``allow_nan_stats``): its concentration 1 is not above 1, as in TF."""

from __future__ import annotations

import numpy as np

from ..graph import name_scope
from ..ops.array_fill import ones
from ..ops.array_fill import shape as shape_of
from ..ops.elementwise import greater, log, negative, sqrt
from ..ops.special import digamma, igamma, lgamma
from ..ops.random import random_uniform
from ..ops.random_rates import random_gamma
from .distribution import FULLY_REPARAMETERIZED, Distribution, float_parameters, static_batch
from .kullback_leibler import RegisterKL
from .statistics import nan_or_raise

__all__ = ["Gamma", "Exponential"]


class Gamma(Distribution):
    """Density ``rate^c x^(c - 1) exp(-rate x) / Gamma(c)`` for ``x > 0``."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True,
                 name="Gamma"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._concentration, self._rate = float_parameters(
                validate_args, ("concentration", "rate"), concentration=concentration,
                rate=rate)
        super().__init__(self._rate.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._concentration, self._rate], name)

    concentration = property(lambda self: self._concentration)
    rate = property(lambda self: self._rate)

    def _batch_shape(self):
        return static_batch(self._concentration, self._rate)

    def _batch_shape_tensor(self):
        return shape_of(self._concentration + self._rate)

    def _sample_n(self, n, seed=None):
        return random_gamma([n], self._concentration, beta=self._rate, dtype=self._dtype,
                            seed=seed)

    def _log_prob(self, x):
        c, rate = self._concentration, self._rate
        return (c - 1.0) * log(x) - rate * x - lgamma(c) + c * log(rate)

    def _cdf(self, x):
        return igamma(self._concentration, self._rate * x)

    def _entropy(self):
        c = self._concentration
        return c - log(self._rate) + lgamma(c) + (1.0 - c) * digamma(c)

    def _mean(self):
        return self._concentration / self._rate

    def _variance(self):
        return self._concentration / (self._rate * self._rate)

    def _stddev(self):
        return sqrt(self._concentration) / self._rate

    def _mode(self):
        mode = (self._concentration - 1.0) / self._rate
        return nan_or_raise(self, mode, greater(self._concentration, 1.0),
                            "mode not defined when any concentration <= 1",
                            above_one=[self._concentration])


class Exponential(Gamma):
    """Density ``rate exp(-rate x)`` for ``x >= 0``."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        with name_scope(name) as name:
            (self._rate,) = float_parameters(validate_args, ("rate",), same_dtype=True,
                                             rate=rate)      # TF's Gamma checks it
            # a scalar 1, as TF's: a constant, so a check on it folds while building
            self._concentration = ones([], dtype=self._rate.dtype, name="concentration")
        Distribution.__init__(self, self._rate.dtype, FULLY_REPARAMETERIZED, validate_args,
                              allow_nan_stats, parameters, [self._rate], name)

    def _batch_shape(self):
        return self._rate.shape

    def _batch_shape_tensor(self):
        return shape_of(self._rate)

    def _sample_n(self, n, seed=None):
        tiny = float(np.finfo(self._dtype.np).tiny)
        u = random_uniform(self._draw_shape(n), minval=tiny, maxval=1.0, dtype=self._dtype,
                           seed=seed)
        return negative(log(u)) / self._rate

    def _log_prob(self, x):
        return log(self._rate) - self._rate * x



@RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0, g1, name=None):
    """TF's closed form of ``KL[Gamma(c0, r0) || Gamma(c1, r1)]``."""
    with name_scope(name or "kl_gamma_gamma"):
        c0, r0, c1, r1 = g0.concentration, g0.rate, g1.concentration, g1.rate
        return ((c0 - c1) * digamma(c0) + lgamma(c1) - lgamma(c0) + c1 * log(r0)
                - c1 * log(r1) + c0 * (r1 / r0 - 1.0))


