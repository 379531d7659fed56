"""TF1's ``tf.distributions.Beta(concentration1, concentration0)`` on (0, 1), samples
``g1 / (g1 + g0)`` of two Gamma draws (differentiable through them), and the Beta-Beta
KL divergence.  ``cdf`` is ``betainc(concentration1, concentration0, x)``, as TF's (whose
Betainc takes x of the batch's shape, or a scalar)."""

from __future__ import annotations

from ..graph import convert_to_tensor, name_scope
from ..ops.assertions import assert_less, assert_positive
from ..ops.array_fill import ones_like
from ..ops.betainc import betainc
from ..ops.array_fill import shape as shape_of
from ..ops.elementwise import greater, log, log1p, logical_and, negative
from ..ops.special import digamma, lgamma
from ..ops.random_rates import random_gamma
from .distribution import FULLY_REPARAMETERIZED, Distribution, float_parameters, static_batch
from .kullback_leibler import RegisterKL
from .statistics import checked, nan_or_raise

__all__ = ["Beta"]


def _lbeta(a, b):
    return lgamma(a) + lgamma(b) - lgamma(a + b)


class Beta(Distribution):
    """Density ``x^(c1 - 1) (1 - x)^(c0 - 1) / B(c1, c0)``."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False,
                 allow_nan_stats=True, name="Beta"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._concentration1, self._concentration0 = float_parameters(
                validate_args, ("concentration1", "concentration0"),
                concentration1=concentration1, concentration0=concentration0)
            self._total_concentration = self._concentration1 + self._concentration0
        super().__init__(self._total_concentration.dtype, FULLY_REPARAMETERIZED,
                         validate_args, allow_nan_stats, parameters,
                         [self._concentration1, self._concentration0], name)

    concentration1 = property(lambda self: self._concentration1)
    concentration0 = property(lambda self: self._concentration0)
    total_concentration = property(lambda self: self._total_concentration)

    def _batch_shape(self):
        return static_batch(self._concentration1, self._concentration0)

    def _batch_shape_tensor(self):
        return shape_of(self._total_concentration)

    def _sample_n(self, n, seed=None):
        ones = ones_like(self._total_concentration)
        gamma1 = random_gamma([n], self._concentration1 * ones, dtype=self._dtype, seed=seed)
        seed2 = None if seed is None else (seed * 7 + 11) % (2 ** 31)   # another stream
        gamma0 = random_gamma([n], self._concentration0 * ones, dtype=self._dtype,
                              seed=seed2)
        return gamma1 / (gamma1 + gamma0)

    def _value(self, value):
        """A point of (0, 1), checked when ``validate_args`` (TF's
        ``_maybe_assert_valid_sample``)."""
        x = super()._value(value)
        if not self._validate_args:
            return x
        return checked(x, [assert_positive(x, message="sample must be positive"),
                           assert_less(x, convert_to_tensor(1.0, dtype=x.dtype),
                                       message="sample must be less than `1`.")])

    def _log_prob(self, x):
        c1, c0 = self._concentration1, self._concentration0
        return (c1 - 1.0) * log(x) + (c0 - 1.0) * log1p(negative(x)) - _lbeta(c1, c0)

    def _cdf(self, x):
        return betainc(self._concentration1, self._concentration0, x)

    def _entropy(self):
        c1, c0, total = self._concentration1, self._concentration0, self._total_concentration
        return (_lbeta(c1, c0) - (c1 - 1.0) * digamma(c1) - (c0 - 1.0) * digamma(c0)
                + (total - 2.0) * digamma(total))

    def _mean(self):
        return self._concentration1 / self._total_concentration

    def _variance(self):
        mean = self._mean()
        return mean * (1.0 - mean) / (1.0 + self._total_concentration)

    def _mode(self):
        mode = (self._concentration1 - 1.0) / (self._total_concentration - 2.0)
        defined = logical_and(greater(self._concentration1, 1.0),
                              greater(self._concentration0, 1.0))
        return nan_or_raise(self, mode, defined,
                            "Mode undefined for concentration1 <= 1 or concentration0 <= 1.",
                            above_one=[self._concentration1, self._concentration0])


@RegisterKL(Beta, Beta)
def _kl_beta_beta(d1, d2, name=None):
    """``lbeta(b) - lbeta(a) + sum_i (a_i - b_i) (digamma(a_i) - digamma(a_total))``."""
    with name_scope(name or "kl_beta_beta"):
        total = d1.total_concentration
        return (_lbeta(d2.concentration1, d2.concentration0)
                - _lbeta(d1.concentration1, d1.concentration0)
                + (d1.concentration1 - d2.concentration1) * digamma(d1.concentration1)
                + (d1.concentration0 - d2.concentration0) * digamma(d1.concentration0)
                + (d2.total_concentration - total) * digamma(total))
