"""TF1's ``tf.distributions.Bernoulli(logits=..., probs=...)`` (exactly one given; the
other derived: ``probs = sigmoid(logits)``, ``logits = log(p) - log1p(-p)``), integer
outcomes of ``dtype`` (int32), and its KL divergence to another Bernoulli."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..ops.array import identity
from ..ops.assertions import assert_less_equal, assert_non_negative
from ..ops.check_helpers import assert_near
from ..ops.reduce import reduce_sum
from ..ops.array_fill import shape as shape_of
from ..ops.elementwise import cast, greater, less, log, log1p, negative, sigmoid
from ..ops.nn import sigmoid_cross_entropy_with_logits, softplus
from ..ops.random import random_uniform
from .distribution import NOT_REPARAMETERIZED, Distribution
from .statistics import checked

__all__ = ["Bernoulli"]


def _floating(value, name: str) -> Tensor:
    """TF's ``get_logits_and_probs`` conversion: the value's own dtype (a Python int is
    int32), a TypeError unless floating."""
    tensor = convert_to_tensor(value)
    if not tensor.dtype.is_floating:
        raise TypeError(f"{name} must having floating type.")
    return identity(tensor, name=name)


def logits_and_probs(logits, probs, validate_args, multidimensional=False):
    """(logits, probs) from the one given, as TF's ``get_logits_and_probs``."""
    if (logits is None) == (probs is None):
        raise ValueError("Must pass probs or logits, but not both.")
    if probs is None:
        logits = _floating(logits, "logits")
        if multidimensional:
            from ..ops.nn import softmax

            return logits, identity(softmax(logits), name="probs")
        return logits, identity(sigmoid(logits), name="probs")
    probs = _floating(probs, "probs")
    if validate_args:
        one = convert_to_tensor(1.0, dtype=probs.dtype)
        checks = [assert_non_negative(probs, message="probs has components less than 0."),
                  assert_less_equal(probs, one,
                                    message="probs has components greater than 1.")]
        if multidimensional:
            checks.append(assert_near(one, reduce_sum(probs, -1),
                                      message="probs does not sum to 1."))
        probs = checked(probs, checks)
    if multidimensional:
        return identity(log(probs), name="logits"), probs
    return identity(log(probs) - log1p(negative(probs)), name="logits"), probs


class Bernoulli(Distribution):
    """Outcomes 1 with probability ``probs`` (``sigmoid(logits)``), else 0."""

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False,
                 allow_nan_stats=True, name="Bernoulli"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._logits, self._probs = logits_and_probs(logits, probs, validate_args)
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._logits, self._probs], name)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def _batch_shape(self):
        return self._logits.shape

    def _batch_shape_tensor(self):
        return shape_of(self._logits)

    def _sample_n(self, n, seed=None):
        uniform = random_uniform(self._draw_shape(n), dtype=self._probs.dtype, seed=seed)
        return cast(less(uniform, self._probs), self._dtype)

    def _value(self, value):
        return cast(convert_to_tensor(value, name="value"), self._logits.dtype)

    def _log_prob(self, x):
        logits = self._logits
        x_b, logits_b = x + 0.0 * logits, logits + 0.0 * x      # broadcast both, as TF
        return negative(sigmoid_cross_entropy_with_logits(labels=x_b, logits=logits_b))

    def _entropy(self):
        return (negative(self._logits) * (sigmoid(self._logits) - 1.0)
                + softplus(negative(self._logits)))

    def _mean(self):
        return identity(self._probs)

    def _variance(self):
        return self._probs * (1.0 - self._probs)

    def _mode(self):
        return cast(greater(self._probs, 0.5), self._dtype)


def _register_kl():
    from .kullback_leibler import RegisterKL

    @RegisterKL(Bernoulli, Bernoulli)
    def _kl_bernoulli_bernoulli(a, b, name=None):
        """TF's: ``sigmoid(la) (sp(-lb) - sp(-la)) + sigmoid(-la) (sp(lb) - sp(la))``."""
        with name_scope(name or "kl_bernoulli_bernoulli"):
            delta0 = softplus(negative(b.logits)) - softplus(negative(a.logits))
            delta1 = softplus(b.logits) - softplus(a.logits)
            return sigmoid(a.logits) * delta0 + sigmoid(negative(a.logits)) * delta1


_register_kl()
