"""RandomGamma's and RandomPoissonV2's kernels (``devsession/ops/random_rates.py``: TF1's
``random_gamma`` and ``random_poisson``), for the reference device (the CPU registers the
same builders with its compiled samplers: ``cpu/random.py``; ``cuda/random.py`` runs the
CPU's for the GPU and uploads).

TF's values: the stateless samplers' (``stateless_random_rates.py``: Marsaglia and
Tsang, Knuth and Hormann, each output from its own part of the Philox stream) where the
node's seeded stream stands, which moves ``256`` blocks an output on, as TF's
``ReserveRandomOutputs(samples * parameters, 256)``.  ``shape + params.shape`` values,
the samples of parameter ``j`` at ``[..., j]``.  The edges as the stateless ops': alpha 0
gives 0, a negative or NaN alpha NaN; a rate of 0 or below, infinite or NaN samples 0; a
finite rate beyond the output dtype is InvalidArgumentError (TF's sampler never returns).
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import register_kernel
from . import stateless_random_rates
from .random import drawn_shape

__all__ = ["build_random_gamma", "build_random_poisson", "BUILDERS"]


def _params_kernel(node, sample):
    """A kernel returning ``sample(key, counter, params, samples, dtype)`` reshaped to
    ``shape + params.shape``, at the node's stream, moved on under its lock."""
    a = node.attrs
    stream = node.context.resources.random_stream(node.name, a["seed"], a["seed2"])
    dtype = node.output_dtype

    def kernel(shape, params):
        dims = drawn_shape(node, shape)
        params = np.asarray(params)
        samples = math.prod(dims)
        if samples * params.size == 0:
            return np.zeros(dims + params.shape, dtype)
        with stream.lock:
            key, counter = stream.reserve(256 * samples * params.size)
        return sample(key, counter, params, samples, dtype).reshape(dims + params.shape)
    return kernel


def build_random_gamma(node, samplers=stateless_random_rates):
    """``samplers``: the module whose ``gamma_samples`` draws (the reference's, or the
    CPU's compiled ``cpu/philox_rates.py``)."""
    return _params_kernel(node, samplers.gamma_samples)


def build_random_poisson(node, samplers=stateless_random_rates):
    def sample(key, counter, rates, samples, dtype):
        stateless_random_rates.check_rates_fit(node, rates, dtype)
        return samplers.poisson_samples(key, counter, rates, samples, dtype)
    return _params_kernel(node, sample)


BUILDERS = {"RandomGamma": build_random_gamma, "RandomPoissonV2": build_random_poisson}
register_kernel(tuple(BUILDERS), "REF")(lambda node: BUILDERS[node.op](node))
