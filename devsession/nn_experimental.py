"""TF's ``tf.nn.experimental``: dropout whose noise is a stateless draw (the same mask for
the same seed, every run) or comes from the caller's sampler."""

from .ops.nn import dropout_with
from .ops.stateless_random import stateless_random_uniform

__all__ = ["stateless_dropout", "general_dropout"]


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """``dropout`` with its noise ``stateless_random_uniform(shape, seed, alg=rng_alg)``:
    ``seed`` a shape [2] int32/int64 tensor."""
    def sampler(shape, dtype):
        return stateless_random_uniform(shape, seed, dtype=dtype,
                                        alg=rng_alg if rng_alg is not None else "auto_select")
    return dropout_with(x, rate, noise_shape, sampler, name or "stateless_dropout")


def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """``dropout`` with its noise ``uniform_sampler(shape=, dtype=)``, values in [0, 1)."""
    return dropout_with(x, rate, noise_shape,
                        lambda shape, dtype: uniform_sampler(shape=shape, dtype=dtype),
                        name or "general_dropout")
