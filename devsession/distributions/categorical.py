"""TF1's ``tf.distributions.Categorical(logits=..., probs=...)``: classes ``0..K-1`` over
the last axis (the batch is the leading axes), integer outcomes of ``dtype`` (int32),
drawn with ``Multinomial``; and its KL divergence to another Categorical."""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from ..ops.array import concat, reshape, transpose
from ..ops.array_fill import shape as shape_of
from ..ops.array_fill import zeros_like
from ..ops.elementwise import cast, less, multiply, negative, where
from ..ops.sequence import range as range_
from ..ops.nn import log_softmax, softmax, sparse_softmax_cross_entropy_with_logits
from ..ops.random import categorical
from ..ops.reduce import argmax, reduce_sum
from ..tensor_shape import TensorShape
from .bernoulli import logits_and_probs
from .distribution import NOT_REPARAMETERIZED, Distribution
from .kullback_leibler import RegisterKL

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Class ``k`` with probability ``softmax(logits)[..., k]`` (or ``probs[..., k]``)."""

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False,
                 allow_nan_stats=True, name="Categorical"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._logits, self._probs = logits_and_probs(logits, probs, validate_args,
                                                         multidimensional=True)
            if self._logits.shape.ndims == 0:
                raise ValueError("Logits must have rank at least 1.")
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, [self._logits, self._probs], name)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    @property
    def event_size(self):
        size = self._logits.shape.dims[-1] if self._logits.shape.ndims else None
        return size if size is not None else shape_of(self._logits)[-1]

    def _batch_shape(self):
        shape = self._logits.shape
        return TensorShape(None) if shape.ndims is None else TensorShape(shape.dims[:-1])

    def _batch_shape_tensor(self):
        return shape_of(self._logits)[:-1]

    def _sample_n(self, n, seed=None):
        flat = reshape(self._logits, [-1, self.event_size])
        draws = transpose(categorical(flat, n, dtype=dtypes.int32, seed=seed))  # [n, B]
        shape = self._draw_shape(n)
        if not isinstance(shape, list):
            shape = concat([shape_of(draws)[:1], self.batch_shape_tensor()], 0)
        return cast(reshape(draws, shape), self._dtype)

    def _value(self, value):
        return convert_to_tensor(value, name="value")

    def _log_prob(self, k):
        k = cast(k, dtypes.int32)
        logits = self._logits
        if k.shape != self.batch_shape or not k.shape.is_fully_defined():
            # k and the batch broadcast against each other, as TF's
            k = k + cast(logits[..., 0] * 0.0, dtypes.int32)
            logits = logits + cast(k, logits.dtype)[..., None] * 0.0
        return negative(sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits))

    def _cdf(self, k):
        """``P[X < k]``: the probabilities of the classes below ``k`` summed, as TF's
        (its ``sequence_mask`` of ``k``), ``k`` and the batch broadcast together."""
        k = cast(k, dtypes.int32)
        probs = self._probs
        if k.shape != self.batch_shape or not k.shape.is_fully_defined():
            k = k + cast(probs[..., 0] * 0.0, dtypes.int32)
            probs = probs + cast(k, probs.dtype)[..., None] * 0.0
        below = less(range_(self.event_size), k[..., None])
        return reduce_sum(where(below, probs, zeros_like(probs)), -1)

    def _entropy(self):
        return negative(reduce_sum(multiply(softmax(self._logits),
                                            log_softmax(self._logits)), -1))

    def _mode(self):
        return cast(argmax(self._logits, -1), self._dtype)


@RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    """``sum_k p_a(k) (log p_a(k) - log p_b(k))``."""
    with name_scope(name or "kl_categorical_categorical"):
        return reduce_sum(softmax(a.logits) * (log_softmax(a.logits) - log_softmax(b.logits)),
                          -1)
