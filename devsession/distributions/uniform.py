"""TF1's ``tf.distributions.Uniform(low=0, high=1)``: samples ``low + (high - low) U``
are differentiable in both bounds; the density is ``1 / (high - low)`` on ``[low,
high)``, 0 outside, NaN at NaN."""

from __future__ import annotations

import math

from ..graph import name_scope
from ..ops.array_fill import ones_like, zeros_like
from ..ops.array_fill import shape as shape_of
from ..ops.elementwise import greater_equal, is_nan, less, log, logical_or, where
from ..ops.random import random_uniform
from .distribution import FULLY_REPARAMETERIZED, Distribution, float_parameters, static_batch

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``."""

    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True,
                 name="Uniform"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._low, self._high = float_parameters(False, low=low, high=high)
        super().__init__(self._low.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._low, self._high], name)

    low = property(lambda self: self._low)
    high = property(lambda self: self._high)

    def range(self, name="range"):
        with self._scope(name):
            return self._high - self._low

    def _batch_shape(self):
        return static_batch(self._low, self._high)

    def _batch_shape_tensor(self):
        return shape_of(self._low + self._high)

    def _sample_n(self, n, seed=None):
        draws = random_uniform(self._draw_shape(n), dtype=self._dtype, seed=seed)
        return self._low + (self._high - self._low) * draws

    def _prob(self, x):
        ones = ones_like(x) * ones_like(self._low + self._high)
        outside = logical_or(less(x, self._low), greater_equal(x, self._high))
        density = where(outside, zeros_like(ones), ones / (self._high - self._low))
        return where(is_nan(x * ones), x * ones, density)

    def _cdf(self, x):
        ones = ones_like(x) * ones_like(self._low + self._high)
        inside = (x - self._low) / (self._high - self._low) * ones
        return where(less(x * ones, self._low), zeros_like(ones),
                     where(greater_equal(x * ones, self._high), ones, inside))

    def _entropy(self):
        return log(self._high - self._low)

    def _mean(self):
        return (self._low + self._high) / 2.0

    def _variance(self):
        return (self._high - self._low) ** 2 / 12.0

    def _stddev(self):
        return (self._high - self._low) / math.sqrt(12.0)
