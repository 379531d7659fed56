"""TF1's ``tf.distributions.Dirichlet(concentration)``: points of the simplex over the
last axis (the event), samples normalised Gamma draws (differentiable through them),
and the Dirichlet-Dirichlet KL divergence."""

from __future__ import annotations

from ..graph import convert_to_tensor, name_scope
from ..ops.assertions import assert_positive
from ..ops.check_helpers import assert_near
from ..ops.array_fill import shape as shape_of
from ..ops.elementwise import cast, greater, log
from ..ops.special import digamma, lgamma
from ..ops.random_rates import random_gamma
from ..ops.reduce import reduce_all, reduce_sum
from ..tensor_shape import TensorShape
from .distribution import FULLY_REPARAMETERIZED, Distribution, VectorEvents, float_parameters
from .kullback_leibler import RegisterKL
from .statistics import checked, nan_or_raise

__all__ = ["Dirichlet"]


def _lbeta(c):
    """log of the multivariate Beta function over the last axis."""
    return reduce_sum(lgamma(c), -1) - lgamma(reduce_sum(c, -1))


class Dirichlet(VectorEvents, Distribution):
    """Density ``prod_k x_k^(c_k - 1) / B(c)`` on the simplex."""

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True,
                 name="Dirichlet"):
        parameters = dict(locals())
        with name_scope(name) as name:
            (self._concentration,) = float_parameters(validate_args, ("concentration",),
                                                      concentration=concentration)
            self._total_concentration = reduce_sum(self._concentration, -1)
        super().__init__(self._concentration.dtype, FULLY_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters, [self._concentration], name)

    concentration = property(lambda self: self._concentration)
    total_concentration = property(lambda self: self._total_concentration)

    def _batch_shape(self):
        shape = self._concentration.shape
        return TensorShape(None) if shape.ndims is None else TensorShape(shape.dims[:-1])

    def _batch_shape_tensor(self):
        return shape_of(self._total_concentration)

    _event_parameter = property(lambda self: self._concentration)

    def _event_size(self):
        return cast(shape_of(self._concentration)[-1], self._dtype)

    def _sample_n(self, n, seed=None):
        gamma = random_gamma([n], self._concentration, dtype=self._dtype, seed=seed)
        return gamma / reduce_sum(gamma, -1, keepdims=True)

    def _value(self, value):
        """A point of the simplex, checked when ``validate_args`` (TF's
        ``_maybe_assert_valid_sample``)."""
        x = super()._value(value)
        if not self._validate_args:
            return x
        one = convert_to_tensor(1.0, dtype=x.dtype)
        return checked(x, [assert_positive(x),
                           assert_near(one, reduce_sum(x, -1),
                                       message="sample last-dimension must sum to `1`")])

    def _log_prob(self, x):
        return reduce_sum((self._concentration - 1.0) * log(x), -1) - _lbeta(
            self._concentration)

    def _entropy(self):
        c, total = self._concentration, self._total_concentration
        return (_lbeta(c) + (total - self._event_size()) * digamma(total)
                - reduce_sum((c - 1.0) * digamma(c), -1))

    def _mean(self):
        return self._concentration / self._total_concentration[..., None]

    def _variance(self):
        mean = self._mean()
        return mean * (1.0 - mean) / (1.0 + self._total_concentration[..., None])

    def _covariance(self):
        mean = self._mean()
        outer = -mean[..., :, None] * mean[..., None, :]
        from ..ops.matrix import matrix_diag

        return (outer + matrix_diag(mean)) / (1.0 + self._total_concentration[..., None,
                                                                                None])

    def _mode(self):
        mode = (self._concentration - 1.0) / (
            self._total_concentration[..., None] - self._event_size())
        defined = reduce_all(greater(self._concentration, 1.0), -1, keepdims=True)
        return nan_or_raise(self, mode, defined,
                            "Mode undefined when any concentration <= 1",
                            above_one=[self._concentration])


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1, d2, name=None):
    """``lbeta(c2) - lbeta(c1) + sum_k (c1_k - c2_k)(digamma(c1_k) - digamma(c1_total))``."""
    with name_scope(name or "kl_dirichlet_dirichlet"):
        c1, c2 = d1.concentration, d2.concentration
        spread = digamma(c1) - digamma(d1.total_concentration)[..., None]
        return reduce_sum((c1 - c2) * spread, -1) + _lbeta(c2) - _lbeta(c1)
