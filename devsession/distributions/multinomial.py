"""TF1's ``tf.distributions.Multinomial(total_count, logits=..., probs=...)``: counts of
``total_count`` draws over the last axis's classes (the event).  Samples draw
``max(total_count)`` classes per batch member and count those below its own total."""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from ..ops.array import reshape, transpose
from ..ops.array_fill import shape as shape_of
from ..ops.array_index import one_hot
from ..ops.elementwise import cast, less
from ..ops.special import lgamma
from ..ops.nn import log_softmax
from ..ops.random import categorical
from ..ops.reduce import reduce_max, reduce_sum
from ..ops.sequence import range as range_
from ..tensor_shape import TensorShape
from .bernoulli import logits_and_probs
from .distribution import NOT_REPARAMETERIZED, Distribution, VectorEvents, float_parameters
from .statistics import integer_counts

__all__ = ["Multinomial"]


class Multinomial(VectorEvents, Distribution):
    """Counts ``x`` (summing to ``total_count``) with probability
    ``n! / prod(x_k!) prod(p_k^x_k)``."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False,
                 allow_nan_stats=True, name="Multinomial"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._logits, self._probs = logits_and_probs(logits, probs, validate_args,
                                                         multidimensional=True)
            (self._total_count,) = float_parameters(dtype=self._probs.dtype,
                                                    total_count=total_count)
            self._mean_val = self._total_count[..., None] * self._probs
        super().__init__(self._probs.dtype, NOT_REPARAMETERIZED, validate_args,
                         allow_nan_stats, parameters,
                         [self._total_count, self._logits, self._probs], name)

    total_count = property(lambda self: self._total_count)
    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def _batch_shape(self):
        shape = self._mean_val.shape
        return TensorShape(None) if shape.ndims is None else TensorShape(shape.dims[:-1])

    def _batch_shape_tensor(self):
        return shape_of(self._mean_val)[:-1]

    _event_parameter = property(lambda self: self._logits)

    def _sample_n(self, n, seed=None):
        k = self._logits.shape.dims[-1] if self._logits.shape.ndims else None
        k = shape_of(self._logits)[-1] if k is None else k
        logits = self._logits + 0.0 * self._total_count[..., None]    # the batch's shape
        counts = reshape(self._total_count + 0.0 * reduce_sum(self._probs, -1), [-1])  # [B]
        most = cast(reduce_max(counts), dtypes.int32)
        flat = reshape(logits, [-1, k])                                          # [B, k]
        # [B, n * most] classes, as [B, n, most]; a draw counts below its row's total
        draws = reshape(categorical(flat, n * most, dtype=dtypes.int32, seed=seed),
                        [-1, n, most])
        kept = cast(less(cast(range_(most), counts.dtype), counts[:, None]),
                    self._dtype)                                                 # [B, most]
        tally = reduce_sum(one_hot(draws, k, dtype=self._dtype) * kept[:, None, :, None],
                           2)                                                    # [B, n, k]
        return reshape(transpose(tally, [1, 0, 2]), self._draw_shape(n))

    def _value(self, value):
        counts = convert_to_tensor(value, dtype=self._dtype, name="value")
        return integer_counts(self, counts, self._total_count)

    def _log_prob(self, counts):
        log_norm = lgamma(self._total_count + 1.0) - reduce_sum(lgamma(counts + 1.0), -1)
        return log_norm + reduce_sum(counts * log_softmax(self._logits), -1)

    def _mean(self):
        return self._mean_val + 0.0

    def _variance(self):
        return self._mean_val * (1.0 - self._probs)


