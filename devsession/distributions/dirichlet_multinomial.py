"""TF1's ``tf.distributions.DirichletMultinomial(total_count, concentration)``: counts of
``total_count`` draws over the last axis's classes whose probabilities are drawn from a
Dirichlet.  Built as TF's: the batch shape is the concentration's (less its last axis),
and ``mean``/``variance`` multiply ``total_count`` into ``[..., K]`` terms, so a batched
``total_count`` broadcasts against the classes axis there, as in TF.  Samples draw
Gamma-normalised probabilities, then ``total_count`` classes from them (``total_count``
a scalar, as TF's multinomial draw takes it)."""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from ..ops.array import reshape
from ..ops.array_fill import shape as shape_of
from ..ops.array_index import one_hot
from ..ops.assertions import assert_equal, assert_non_negative
from ..ops.elementwise import cast, log, round as round_, sqrt
from ..ops.random import categorical
from ..ops.random_rates import random_gamma
from ..ops.reduce import reduce_sum
from ..ops.special import lgamma
from .dirichlet import _lbeta
from .distribution import NOT_REPARAMETERIZED, Distribution, VectorEvents, float_parameters
from .statistics import checked, integer_counts

__all__ = ["DirichletMultinomial"]


class DirichletMultinomial(VectorEvents, Distribution):
    """Counts ``x`` (summing to ``total_count``) with probability
    ``n! / prod(x_k!) B(c + x) / B(c)``."""

    def __init__(self, total_count, concentration, validate_args=False,
                 allow_nan_stats=True, name="DirichletMultinomial"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._total_count, self._concentration = float_parameters(
                validate_args, ("concentration",), same_dtype=False,
                total_count=total_count, concentration=concentration)
            if validate_args:
                self._total_count = checked(self._total_count, [
                    assert_non_negative(self._total_count, message="x has negative components."),
                    assert_equal(self._total_count, round_(self._total_count),
                                 message="x has non-integer components.")])
            self._total_concentration = reduce_sum(self._concentration, -1)
        super().__init__(self._concentration.dtype, NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters,
                         [self._total_count, self._concentration], name)

    total_count = property(lambda self: self._total_count)
    concentration = property(lambda self: self._concentration)
    total_concentration = property(lambda self: self._total_concentration)

    def _batch_shape(self):
        return self._total_concentration.shape

    def _batch_shape_tensor(self):
        return shape_of(self._total_concentration)

    _event_parameter = property(lambda self: self._concentration)

    def _sample_n(self, n, seed=None):
        k = self._concentration.shape.dims[-1] if self._concentration.shape.ndims else None
        k = shape_of(self._concentration)[-1] if k is None else k
        gamma = random_gamma([n], self._concentration, dtype=self._dtype, seed=seed)
        seed2 = None if seed is None else (seed * 7 + 11) % (2 ** 31)     # another stream
        draws = categorical(reshape(log(gamma), [-1, k]),
                            cast(self._total_count, dtypes.int32), dtype=dtypes.int32,
                            seed=seed2)
        counts = reduce_sum(one_hot(draws, k, dtype=self._dtype), -2)
        return reshape(counts, self._draw_shape(n))

    def _value(self, value):
        counts = convert_to_tensor(value, dtype=self._dtype, name="value")
        return integer_counts(self, counts, self._total_count)

    def _log_prob(self, counts):
        log_combinations = lgamma(self._total_count + 1.0) - reduce_sum(
            lgamma(counts + 1.0), -1)
        return (_lbeta(self._concentration + counts) - _lbeta(self._concentration)
                + log_combinations)

    def _mean(self):
        return self._total_count * (self._concentration
                                    / self._total_concentration[..., None])

    def _variance_scale(self):
        c0 = self._total_concentration[..., None]
        return sqrt((1.0 + c0 / self._total_count) / (1.0 + c0))

    def _variance(self):
        scale = self._variance_scale()
        x = scale * self._mean()
        return x * (self._total_count * scale - x)

    def _covariance(self):
        from ..ops.diagonals import matrix_set_diag
        from ..ops.linalg import matmul

        x = self._variance_scale() * self._mean()
        return matrix_set_diag(-matmul(x[..., :, None], x[..., None, :]), self._variance())
