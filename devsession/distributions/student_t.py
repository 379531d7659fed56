"""TF1's ``tf.distributions.StudentT(df, loc, scale)``: samples ``loc + scale z /
sqrt(g / df)`` (``z`` normal, ``g`` Gamma(df/2, 1/2)), differentiable in all three
parameters.  Mean NaN for ``df <= 1``; variance inf for ``1 < df <= 2`` and NaN for
``df <= 1`` (or an error when ``allow_nan_stats`` is False), as TF's.  ``cdf`` is TF's:
half of ``betainc(df/2, 1/2, df / (y^2 + df))`` below the mean, one minus it above."""

from __future__ import annotations

import math

import numpy as np

from ..graph import convert_to_tensor, name_scope
from ..ops.array import identity
from ..ops.array_fill import ones_like
from ..ops.array_fill import shape as shape_of
from ..ops.elementwise import abs as abs_
from ..ops.betainc import betainc
from ..ops.elementwise import greater, less, log, log1p, rsqrt, square, where
from ..ops.special import digamma, lgamma
from ..ops.random import random_normal
from ..ops.random_rates import random_gamma
from .distribution import FULLY_REPARAMETERIZED, Distribution, float_parameters, static_batch
from .statistics import nan_or_raise

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True,
                 name="StudentT"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._df, self._loc, self._scale = float_parameters(
                validate_args, ("df",), df=df, loc=loc, scale=scale)
        super().__init__(self._scale.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._df, self._loc, self._scale],
                         name)

    df = property(lambda self: self._df)
    loc = property(lambda self: self._loc)
    scale = property(lambda self: self._scale)

    def _batch_shape(self):
        return static_batch(self._df, self._loc, self._scale)

    def _batch_shape_tensor(self):
        return shape_of(self._df + self._loc + self._scale)

    def _ones(self):
        return ones_like(self._df + self._loc + self._scale)

    def _sample_n(self, n, seed=None):
        normal = random_normal(self._draw_shape(n), dtype=self._dtype, seed=seed)
        df = self._df * self._ones()
        seed2 = None if seed is None else (seed * 7 + 13) % (2 ** 31)    # another stream
        gamma = random_gamma([n], 0.5 * df, beta=0.5, dtype=self._dtype, seed=seed2)
        return normal * rsqrt(gamma / df) * self._scale + self._loc

    def _cdf(self, x):
        y = (x - self._loc) / abs_(self._scale)
        tail = 0.5 * betainc(0.5 * self._df, 0.5, self._df / (square(y) + self._df))
        return where(less(y, 0.0), tail, 1.0 - tail)

    def _log_prob(self, x):
        y = (x - self._loc) / self._scale
        df = self._df
        log_unnormalized = -0.5 * (df + 1.0) * log1p(square(y) / df)
        log_normalization = (log(abs_(self._scale)) + 0.5 * log(df) + 0.5 * math.log(math.pi)
                             + lgamma(0.5 * df) - lgamma(0.5 * (df + 1.0)))
        return log_unnormalized - log_normalization

    def _entropy(self):
        v = self._df * self._ones()
        half_v = 0.5 * v
        log_beta = lgamma(half_v) + math.lgamma(0.5) - lgamma(0.5 + half_v)
        return (0.5 * (v + 1.0) * (digamma(0.5 * (v + 1.0)) - digamma(half_v))
                + 0.5 * log(v) + log_beta + log(abs_(self._scale)))

    def _mean(self):
        mean = self._loc * self._ones()
        return nan_or_raise(self, mean, greater(self._df * self._ones(), 1.0),
                            "mean not defined for components of df <= 1",
                            above_one=[self._df])

    def _variance(self):
        df = self._df * self._ones()
        variance = square(self._scale) * df / (df - 2.0)
        inf = convert_to_tensor(np.inf, dtype=self._dtype) * self._ones()
        variance = where(greater(df, 2.0), variance, inf)
        return nan_or_raise(self, variance, greater(df, 1.0),
                            "variance not defined for components of df <= 1",
                            above_one=[self._df])

    def _mode(self):
        """``loc`` itself, not broadcast to the batch (TF's ``identity(loc)``)."""
        return identity(self._loc)
