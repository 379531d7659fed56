"""The kernel of TF's ``StatelessRandomPoisson`` (``devsession/ops/stateless_random_rates.py``),
for the reference device and the CPU (``HOST``): TensorFlow's values bit for bit, as
its CPU ``PoissonFunctor`` (``random_poisson_op.cc``) draws them from the seed's Philox
stream (``philox.py``).

Output ``i`` (rate ``i // samples``, sample ``i % samples``; stored at ``sample * rates +
rate``, the rates' shape last) reads its own part of the stream, from block ``256 * i``:
each block is two uniform doubles, taken second first.  All arithmetic is in double, with
the C library's ``exp``, ``log`` and ``lgamma`` (``libm.py``) as TF calls them:

* rate < 10, Knuth: multiply uniforms until the product is at most ``exp(-rate)``; the
  count of factors before that is the sample;
* otherwise Hormann's transformed rejection: from a pair ``u - 0.5, v``, ``k = floor((2a /
  (0.5 - |u|) + b) u + rate + 0.43)``, accepted in the inner rectangle, rejected when
  negative or in the tails, else accepted when ``log(v inv_alpha / (a / us^2 + b)) <=
  -rate + k log(rate) - lgamma(k + 1)``.

Samples are Python floats, one output at a time (the draws are sequential); TF's CPU
kernel shards the outputs across threads, each reading its own outputs' parts, so every
size gives the same values.
"""

from __future__ import annotations

import math

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from . import libm
from .philox import blocks_at, seed_key_counter
from .random import drawn_shape
from .stateless_random import _unit_float64

__all__ = ["poisson_samples"]

_RESERVED_BLOCKS = 256        # TF's kReservedSamplesPerOutput
_CHUNK = 8                    # blocks read at once for one output


class _Uniforms:
    """The uniform doubles of one output's part of the stream, in TF's order."""

    def __init__(self, key, counter, start: int):
        self._key, self._counter, self._next_block = key, counter, start
        self._pending: list = []

    def __call__(self) -> float:
        if not self._pending:
            offsets = np.arange(self._next_block, self._next_block + _CHUNK, dtype=np.uint64)
            b = blocks_at(self._key, self._counter, offsets)
            self._next_block += _CHUNK
            pairs = np.stack([_unit_float64(b[:, 0], b[:, 1]),
                              _unit_float64(b[:, 2], b[:, 3])], axis=1)
            # each block's second double first (TF's UNIFORM macro counts down)
            self._pending = pairs[:, ::-1].reshape(-1).tolist()[::-1]
        return self._pending.pop()


def _c(function: str, x: float) -> float:
    return float(getattr(libm, function)(np.array([x], np.float64))[0])


def _knuth(rate: float, uniform, highest: float) -> float:
    exp_neg_rate = _c("exp", -rate)
    product, x = 1.0, 0.0
    while True:
        product *= uniform()
        if product <= exp_neg_rate and x <= highest:
            return x
        x += 1.0


def _hormann(rate: float, uniform, highest: float) -> float:
    log_rate = _c("log", rate)
    b = 0.931 + 2.53 * math.sqrt(rate)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    while True:
        u = uniform() - 0.5
        v = uniform()
        u_shifted = 0.5 - abs(u)
        k = math.floor((2.0 * a / u_shifted + b) * u + rate + 0.43)
        if k > highest:
            continue
        if u_shifted >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2.0):
            return float(k)
        if k < 0 or (u_shifted < 0.013 and v > u_shifted):
            continue
        s = _c("log", v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -rate + k * log_rate - _c("lgamma", k + 1.0)
        if s <= t:
            return float(k)


def poisson_samples(key, counter, rates: np.ndarray, num_samples: int, dtype) -> np.ndarray:
    """``[num_samples, *rates.shape]`` Poisson samples of ``dtype``, as TF draws them."""
    dtype = np.dtype(dtype)
    highest = float(np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max)
    flat = rates.reshape(-1).astype(np.float64)
    out = np.zeros((num_samples, flat.size), np.float64)
    for rate_index, rate in enumerate(flat.tolist()):
        draw = _knuth if rate < 10.0 else _hormann
        for sample in range(num_samples):
            block = _RESERVED_BLOCKS * (rate_index * num_samples + sample)
            out[sample, rate_index] = draw(rate, _Uniforms(key, counter, block), highest)
    return out.astype(dtype).reshape((num_samples,) + rates.shape)


@register_kernel("StatelessRandomPoisson", HOST)
def build_stateless_poisson(node):
    dtype = node.output_dtype

    def stateless_poisson(shape, seed, lam):
        dims = drawn_shape(node, shape)
        seed = np.asarray(seed)
        if seed.shape != (2,):
            raise invalid_argument(node.name, node.op, f"seed must have shape [2], not "
                                   f"{fmt_shape(seed.shape)}")
        key, counter = seed_key_counter(int(seed[0]), int(seed[1]))
        lam = np.asarray(lam)
        if lam.ndim > len(dims) or tuple(dims[len(dims) - lam.ndim:]) != lam.shape:
            raise invalid_argument(node.name, node.op, "Shape passed in must end with "
                                   "broadcasted shape.")
        count = int(np.prod(dims, dtype=np.int64))
        if count == 0:
            return np.zeros(dims, dtype)
        samples = poisson_samples(key, counter, lam, count // max(lam.size, 1), dtype)
        return samples.reshape(dims)
    return stateless_poisson
