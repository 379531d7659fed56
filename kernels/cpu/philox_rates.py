"""TF's Gamma, Poisson and Binomial samplers compiled by numba: bit for bit the
reference's (``reference/stateless_random_rates.py``, which says how TF draws them), for
the CPU's ``StatelessRandomGammaV3``, ``StatelessRandomPoisson``, ``RandomGamma``,
``RandomPoissonV2``, ``StatelessRandomBinomial`` and ``StatefulRandomBinomial``.

Why: the reference draws one sample at a time in Python, about 80 us a sample (a
``[1000, 100]`` Gamma draw: 8 s, a ``[100000]`` Binomial one 8 s); here each output
reads its own part of the Philox stream (block ``256 i``; a Binomial drawn by inversion
``42 i``) in compiled code, the outputs in parallel, calling the same C library
functions (``log``, ``exp``, ``lgamma``, ``log1p``, ``pow``).  The Binomial's edges and
its choice of method per batch member (``reference.binomial_plan``, in the parameters'
dtype as TF's) are the reference's own, in numpy.  As in ``philox.py``, the first draw
checks a few samples of each kind against the reference's, and takes the reference's
way if any differs.
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np

from ..reference import stateless_random_rates as reference
from .numba_setup import numba
from .philox import philox_block, box_muller64, unit64, stream_words
from .reduce import INNER, JIT

__all__ = ["gamma_samples", "poisson_samples", "binomial_samples"]

njit, prange = numba.njit, numba.prange
_RESERVED = np.uint64(256)          # TF's kReservedSamplesPerOutput: blocks an output owns
_ONE = np.uint64(1)
_INVERSION_BLOCKS = np.uint64(42)   # blocks a binomial output drawn by inversion owns


@njit(**INNER)
def _gamma(alpha, k0, k1, low0, high0, start):
    """One Marsaglia-Tsang sample from the blocks at ``start``: normals (cos, then sin,
    of a block) and uniforms (a block's second double, then its first) from one stream."""
    offset = start
    if alpha == 1.0:
        w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, offset)
        return -math.log1p(-unit64(w2, w3))
    below_one = alpha < 1
    d = alpha + (2.0 / 3 if below_one else -1.0 / 3)
    c = 1.0 / 3 / math.sqrt(d)
    normals = uniforms = 0                       # values left in each buffer
    normal_last = normal_first = uniform_last = uniform_first = 0.0
    while True:
        if normals == 0:
            w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, offset)
            offset += _ONE
            normal_first, normal_last = box_muller64(w0, w1, w2, w3)
            normals = 2
        x = normal_last if normals == 2 else normal_first
        normals -= 1
        v = 1 + c * x
        if v <= 0:
            continue
        v = v * v * v
        u, offset, uniforms, uniform_first, uniform_last = _buffered_uniform(
            k0, k1, low0, high0, offset, uniforms, uniform_first, uniform_last)
        if u < 1 - 0.0331 * (x * x) * (x * x) or \
                math.log(u) < 0.5 * x * x + d * (1 - v + math.log(v)):
            sample = d * v
            if below_one:
                u = _buffered_uniform(k0, k1, low0, high0, offset, uniforms, uniform_first,
                                      uniform_last)[0]
                sample *= math.pow(u, 1 / alpha)
            return sample


@njit(**INNER)
def _buffered_uniform(k0, k1, low0, high0, offset, left, first, last):
    """TF's ``SampleBuffer`` of uniform doubles: the next one and the buffer after it
    (``offset``, values ``left``, ``first``, ``last``), refilled from the block at
    ``offset`` when empty (a block's second double, then its first)."""
    if left == 0:
        w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, offset)
        offset += _ONE
        first, last, left = unit64(w0, w1), unit64(w2, w3), 2
    return (last if left == 2 else first), offset, left - 1, first, last


@njit(**JIT, parallel=True)
def _fill_gamma(alphas, num_samples, k0, k1, low0, high0, out):
    """``out[sample, a]``: output ``a * num_samples + sample``; alphas above 0 only."""
    for i in prange(alphas.size * num_samples):
        a, sample = i // num_samples, i % num_samples
        out[sample, a] = _gamma(alphas[a], k0, k1, low0, high0, np.uint64(i) * _RESERVED)


@njit(**INNER)
def _uniform_pair(k0, k1, low0, high0, offset):
    """The two uniform doubles of the block at ``offset`` in the order they are taken:
    its second double, then its first."""
    w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, offset)
    return unit64(w2, w3), unit64(w0, w1)


@njit(**INNER)
def _knuth(rate, highest, k0, k1, low0, high0, start):
    exp_neg_rate = math.exp(-rate)
    product, x, offset = 1.0, 0.0, start
    while True:
        for u in _uniform_pair(k0, k1, low0, high0, offset):
            product *= u
            if product <= exp_neg_rate and x <= highest:
                return x
            x += 1.0
        offset += _ONE


@njit(**INNER)
def _hormann(rate, highest, k0, k1, low0, high0, start):
    log_rate = math.log(rate)
    b = 0.931 + 2.53 * math.sqrt(rate)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    offset = start
    while True:
        u, v = _uniform_pair(k0, k1, low0, high0, offset)
        offset += _ONE
        u = u - 0.5
        u_shifted = 0.5 - abs(u)
        k = np.floor((2.0 * a / u_shifted + b) * u + rate + 0.43)
        if k > highest:
            continue
        if u_shifted >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2.0):
            return k
        if k < 0 or (u_shifted < 0.013 and v > u_shifted):
            continue
        s = math.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -rate + k * log_rate - math.lgamma(k + 1.0)
        if s <= t:
            return k


@njit(**JIT, parallel=True)
def _fill_poisson(rates, num_samples, highest, k0, k1, low0, high0, out):
    """``out[sample, r]``: output ``r * num_samples + sample``; finite rates above 0."""
    for i in prange(rates.size * num_samples):
        r, sample = i // num_samples, i % num_samples
        start = np.uint64(i) * _RESERVED
        if rates[r] < 10.0:
            out[sample, r] = _knuth(rates[r], highest, k0, k1, low0, high0, start)
        else:
            out[sample, r] = _hormann(rates[r], highest, k0, k1, low0, high0, start)


@njit(**INNER)
def _binomial_inversion(count, p, k0, k1, low0, high0, start):
    """Geometric waits ``ceil(log u / log1p(-p))`` summed until past ``count``: how
    many there were."""
    log1p_minus_p = math.log1p(-p)
    geom_sum, num_geom, offset = 0.0, 0.0, start
    while True:
        for u in _uniform_pair(k0, k1, low0, high0, offset):
            geom_sum += np.ceil(math.log(u) / log1p_minus_p)
            if geom_sum > count:
                return num_geom
            num_geom += 1.0
        offset += _ONE


_TAILS = np.array(reference.STIRLING_TAILS)


@njit(**INNER)
def _stirling_tail(k):
    if k <= 9:
        return _TAILS[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


@njit(**INNER)
def _btrs(count, p, k0, k1, low0, high0, start):
    """Hormann's BTRS, as the reference's ``_btrs`` (TF's, with its missing log)."""
    stddev = math.sqrt(count * p * (1 - p))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = count * p + 0.5
    v_r = 0.92 - 4.2 / b
    r = p / (1 - p)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((count + 1) * p)
    offset = start
    while True:
        u, v = _uniform_pair(k0, k1, low0, high0, offset)
        offset += _ONE
        u = u - 0.5
        us = 0.5 - abs(u)
        k = np.floor((2 * a / us + b) * u + c)
        if us >= 0.07 and v <= v_r:
            return k
        if k < 0 or k > count:
            continue
        v = math.log(v * alpha / (a / (us * us) + b))
        upperbound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                      + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                      + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                      + _stirling_tail(m) + _stirling_tail(count - m)
                      - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= upperbound:
            return k


@njit(**JIT, parallel=True)
def _fill_binomial(batches, counts, qs, rare, flip, num_samples, k0, k1, low0, high0, out):
    """``out[sample, batches[d]]``: output ``batches[d] * num_samples + sample``, by
    inversion from block ``42 i`` where ``rare[d]``, else BTRS from block ``256 i``."""
    for j in prange(batches.size * num_samples):
        d, sample = j // num_samples, j % num_samples
        i = np.uint64(batches[d] * num_samples + sample)
        if rare[d]:
            drawn = _binomial_inversion(counts[d], qs[d], k0, k1, low0, high0,
                                        i * _INVERSION_BLOCKS)
        else:
            drawn = _btrs(counts[d], qs[d], k0, k1, low0, high0, i * _RESERVED)
        out[sample, batches[d]] = counts[d] - drawn if flip[d] else drawn


def gamma_samples(key, counter, alphas: np.ndarray, num_samples: int, dtype) -> np.ndarray:
    """``reference.gamma_samples``: ``[num_samples, *alphas.shape]`` of ``dtype``."""
    if not _agrees():
        return reference.gamma_samples(key, counter, alphas, num_samples, dtype)
    flat = alphas.reshape(-1).astype(np.float64)
    valid = flat > 0
    out = np.empty((num_samples, flat.size), np.float64)
    if num_samples and flat.size:
        _fill_gamma(np.where(valid, flat, 1.0), num_samples, *stream_words(key, counter), out)
    out[:, ~valid] = np.where(flat[~valid] == 0, 0.0, np.nan)   # the reference's edges
    return out.astype(dtype).reshape((num_samples,) + alphas.shape)


def poisson_samples(key, counter, rates: np.ndarray, num_samples: int, dtype) -> np.ndarray:
    """``reference.poisson_samples``: ``[num_samples, *rates.shape]`` of ``dtype``."""
    if not _agrees():
        return reference.poisson_samples(key, counter, rates, num_samples, dtype)
    flat = rates.reshape(-1).astype(np.float64)
    valid = (flat > 0) & (flat < np.inf)
    out = np.zeros((num_samples, flat.size), np.float64)
    if num_samples and flat.size:
        _fill_poisson(np.where(valid, flat, 1.0), num_samples,
                      reference.largest_value(dtype), *stream_words(key, counter), out)
    out[:, ~valid] = 0.0
    return out.astype(dtype).reshape((num_samples,) + rates.shape)


def binomial_samples(key, counter, counts: np.ndarray, probs: np.ndarray,
                     num_samples: int, dtype) -> np.ndarray:
    """``reference.binomial_samples``: ``[num_samples, *broadcast shape]`` of ``dtype``."""
    if not _agrees():
        return reference.binomial_samples(key, counter, counts, probs, num_samples, dtype)
    counts, probs = np.broadcast_arrays(counts, probs)
    answers, *plan = reference.binomial_plan(counts.reshape(-1), probs.reshape(-1))
    out = np.repeat(answers[None, :], num_samples, axis=0)
    if num_samples and plan[0].size:
        _fill_binomial(*plan, num_samples, *stream_words(key, counter), out)
    with np.errstate(invalid="ignore", over="ignore"):
        return out.astype(dtype).reshape((num_samples,) + counts.shape)


@functools.cache
def _agrees() -> bool:
    """Whether the compiled samplers equal the reference's on a few samples of each
    branch (alpha 1, below and above 1; Knuth's rates and Hormann's; the binomial's
    inversion and BTRS, p either side of 0.5)."""
    key, counter = (0x3C6EF372, 0xA54FF53A), (11, 0, 5, 0)
    alphas, rates = np.array([0.3, 1.0, 2.5, 40.0]), np.array([0.5, 7.0, 12.0, 3000.0])
    counts, probs = np.array([6.0, 6.0, 90.0, 90.0]), np.array([0.4, 0.8, 0.3, 0.85])
    out = np.empty((3, 4), np.float64)
    _fill_gamma(alphas, 3, *stream_words(key, counter), out)
    same = np.array_equal(out, reference.gamma_samples(key, counter, alphas, 3, np.float64))
    _fill_poisson(rates, 3, float(np.finfo(np.float64).max), *stream_words(key, counter), out)
    same &= np.array_equal(out, reference.poisson_samples(key, counter, rates, 3, np.float64))
    _fill_binomial(*reference.binomial_plan(counts, probs)[1:], 3, *stream_words(key, counter),
                   out)
    same &= np.array_equal(out, reference.binomial_samples(key, counter, counts, probs, 3,
                                                           np.float64))
    if not same:
        logging.getLogger("devsession").warning(
            "devsession: compiled Gamma/Poisson/Binomial samples differ from the C "
            "library's here; they take the slower exact way")
    return bool(same)
