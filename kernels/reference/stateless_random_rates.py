"""The kernels of TF's ``StatelessRandomPoisson``, ``StatelessRandomGammaV3``,
``StatelessRandomBinomial`` and ``StatelessParameterizedTruncatedNormal``
(``devsession/ops/stateless_random_rates.py``), for the reference device (the CPU runs
them with the samplers compiled: ``cpu/philox_rates.py``, ``cpu/philox_truncated.py``):
TensorFlow's values bit for bit, as its CPU ``PoissonFunctor`` (``random_poisson_op.cc``),
``StatelessRandomGammaFunctor`` (``stateless_random_gamma_op.cc``) and
``RandomBinomialFunctor`` (``random_binomial_op.cc``) draw them from the seed's Philox
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

Edges, answered without drawing as TF's kernels answer: a rate of 0 or below, or
infinite, samples 0 (and so does NaN, for which TF's sampler never returns); alpha 0
gives 0, a negative or NaN alpha NaN.  A finite rate beyond what the output dtype holds is
InvalidArgumentError: TF's sampler redraws every sample out of range, for ever.

Gamma (Marsaglia and Tsang) reads its output's part the same way, through two buffers
that refill from the one stream: normals (Box-Muller, ``cos`` then ``sin`` of a block)
and uniforms (a block's second double, then its first).  Alpha 1 is ``-log1p(-u)`` of the
first block's second uniform; else ``d = alpha - 1/3`` (``+ 2/3`` below 1), ``c = 1 / 3 /
sqrt(d)``, and from a normal ``x`` with ``v = (1 + c x)^3 > 0`` and a uniform ``u``, the
sample ``d v`` when ``u < 1 - 0.0331 x^4`` or ``log u < x^2 / 2 + d (1 - v + log v)``
(times ``uniform^(1 / alpha)`` below 1).

Binomial (counts and probs broadcast; ``p`` above 0.5 draws the failures with ``1 - p``):
0 for a count or ``p`` at most 0, the count for ``p`` at least 1, NaN for a NaN ``p`` or
count, infinity for an infinite count; else, when ``count * p``
(in the parameters' dtype) is below 10, inversion from block ``42 i`` (geometric
``ceil(log u / log1p(-p))`` summed until past the count: the number of them), or
Hormann's BTRS from block ``256 i``.

Parameterized truncated normals (``StatelessParameterizedTruncatedNormal``; means,
stddevs, minvals and maxvals broadcast) read ONE stream in output order, in the
parameters' dtype with the C library's ``exp``/``log``: per batch member, normal draws
kept within the bounds when a bound is 1.3 standard deviations beyond the mean and the
other not (normal blocks: float 4 values, double 2), uniform proposals when the bounds
are close (a block of ``z`` then a block of acceptance uniforms), else an exponential
proposal (uniforms in pairs); a thousand blocks in a row kept nothing (NaN parameters):
TF's InternalError, as its sampler gives up.  TF's CPU kernel splits large outputs into
shards that each skip ahead by their first output; below TF's sharding threshold (a few
dozen values) it is one shard, whose values these are.

Samples are Python floats, one output at a time (the draws are sequential); TF's CPU
kernel shards the outputs across threads, each reading its own outputs' parts, so every
size gives the same values.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from devsession.errors import InternalError

from ..checks import fmt_shape, invalid_argument
from ..registry import register_kernel
from . import libm
from .philox import blocks_at, seed_key_counter
from .random import drawn_shape
from .stateless_random import (_box_muller64, _normal_pairs, _unit_float16, _unit_float32,
                               _unit_float64, _v2_words)

__all__ = ["poisson_samples", "gamma_samples", "binomial_samples", "binomial_plan",
           "binomial_dims", "truncated_normal_samples", "check_rates_fit", "largest_value",
           "STIRLING_TAILS"]

_RESERVED_BLOCKS = 256        # TF's kReservedSamplesPerOutput
_CHUNK = 8                    # blocks read at once for one output


class _Stream:
    """One output's part of the stream: its blocks in order, read a few at a time."""

    def __init__(self, key, counter, start: int):
        self._key, self._counter, self._next_block = key, counter, start
        self._read: list = []

    def block(self) -> np.ndarray:
        if not self._read:
            offsets = np.arange(self._next_block, self._next_block + _CHUNK, dtype=np.uint64)
            self._read = list(blocks_at(self._key, self._counter, offsets)[::-1])
            self._next_block += _CHUNK
        return self._read.pop()


def _uniform_pair(block: np.ndarray) -> list:
    return [float(_unit_float64(block[0:1], block[1:2])[0]),
            float(_unit_float64(block[2:3], block[3:4])[0])]


def _normal_pair(block: np.ndarray) -> list:
    """TF's ``BoxMullerDouble`` of one block: ``[sin, cos] * sqrt(-2 log u1)``."""
    return _box_muller64(*(block[i:i + 1] for i in range(4)))[0].tolist()


class _Buffer:
    """TF's ``SampleBuffer``: a block's two values, handed out last first, refilled from
    the stream when empty (``_Uniforms`` is one over uniform pairs)."""

    def __init__(self, stream: _Stream, pair):
        self._stream, self._pair, self._pending = stream, pair, []

    def __call__(self) -> float:
        if not self._pending:
            self._pending = self._pair(self._stream.block())
        return self._pending.pop()


def _Uniforms(key, counter, start: int) -> _Buffer:     # noqa: N802  (a buffer's maker)
    """The uniform doubles of one output's part of the stream, in TF's order."""
    return _Buffer(_Stream(key, counter, start), _uniform_pair)


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
    highest = largest_value(dtype)
    flat = rates.reshape(-1).astype(np.float64)
    out = np.zeros((num_samples, flat.size), np.float64)
    for rate_index, rate in enumerate(flat.tolist()):
        if not 0.0 < rate < math.inf:     # 0 below, infinite or NaN (TF's: 0 for inf)
            continue
        draw = _knuth if rate < 10.0 else _hormann
        for sample in range(num_samples):
            block = _RESERVED_BLOCKS * (rate_index * num_samples + sample)
            out[sample, rate_index] = draw(rate, _Uniforms(key, counter, block), highest)
    return out.astype(dtype).reshape((num_samples,) + rates.shape)


def _gamma(alpha: float, stream: _Stream) -> float:
    uniform = _Buffer(stream, _uniform_pair)
    if alpha == 1.0:
        return -math.log1p(-_uniform_pair(stream.block())[1])
    normal = _Buffer(stream, _normal_pair)
    below_one = alpha < 1
    d = alpha + (2.0 / 3 if below_one else -1.0 / 3)
    c = 1.0 / 3 / math.sqrt(d)
    while True:
        x = normal()
        v = 1 + c * x
        if v <= 0:
            continue
        v = v * v * v
        u = uniform()
        if u < 1 - 0.0331 * (x * x) * (x * x) or \
                math.log(u) < 0.5 * x * x + d * (1 - v + math.log(v)):
            sample = d * v
            if below_one:
                sample *= math.pow(uniform(), 1 / alpha)
            return sample


def gamma_samples(key, counter, alphas: np.ndarray, num_samples: int, dtype) -> np.ndarray:
    """``[num_samples, *alphas.shape]`` Gamma(alpha, 1) samples of ``dtype``, as TF
    draws them."""
    flat = alphas.reshape(-1).astype(np.float64)
    out = np.zeros((num_samples, flat.size), np.float64)
    for alpha_index, alpha in enumerate(flat.tolist()):
        if not alpha > 0:                 # TF's kernel: 0 for alpha 0, NaN below or NaN
            out[:, alpha_index] = 0.0 if alpha == 0 else math.nan
            continue
        for sample in range(num_samples):
            block = _RESERVED_BLOCKS * (alpha_index * num_samples + sample)
            out[sample, alpha_index] = _gamma(alpha, _Stream(key, counter, block))
    return out.astype(dtype).reshape((num_samples,) + alphas.shape)


def _binomial_inversion(count: float, p: float, uniform) -> float:
    geom_sum, num_geom = 0.0, 0
    while True:     # (a float ceil: an infinite wait, for p near 1e-308, ends the sum)
        geom_sum += float(np.ceil(math.log(uniform()) / math.log1p(-p)))
        if geom_sum > count:
            return float(num_geom)
        num_geom += 1


# TF's ``stirling_approx_tail`` of 0...9: the tail of Stirling's series for log k!
STIRLING_TAILS = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                  0.00833056343336287)


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return STIRLING_TAILS[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _btrs(count: float, p: float, uniform) -> float:
    """Hormann's BTRS, as TF's ``btrs`` (with its missing log)."""
    stddev = math.sqrt(count * p * (1 - p))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = count * p + 0.5
    v_r = 0.92 - 4.2 / b
    r = p / (1 - p)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * p)
    while True:
        u = uniform()
        v = uniform()
        u = u - 0.5
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if us >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or k > count:
            continue
        v = math.log(v * alpha / (a / (us * us) + b))
        upperbound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                      + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                      + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                      + _stirling_tail(m) + _stirling_tail(count - m)
                      - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= upperbound:
            return float(k)


def binomial_plan(counts: np.ndarray, probs: np.ndarray) -> tuple:
    """What TF's sampler does for each batch member (``counts`` and ``probs`` flat, of
    one dtype): ``(answers, batches, count, q, rare, flip)``: float64 ``answers`` where it
    draws nothing (0 for a count or ``p`` at most 0, the count for ``p`` at least 1, NaN
    for NaN, infinity for an infinite count); the ``batches`` it draws for, with their
    count (float64), ``q`` (``p``, or ``1 - p`` where ``flip``: ``p`` above 0.5, computed
    in the parameters' dtype as TF's ``T``, then float64) and whether ``rare``
    (``count * q`` below 10 in that dtype: inversion, else BTRS)."""
    count = counts.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        zero = (count <= 0.0) | (probs <= 0)
        whole = ~zero & (probs >= 1)
        nan = ~zero & ~whole & (np.isnan(probs) | np.isnan(count))
        drawn = ~(zero | whole | nan) & (count != math.inf)
        answers = np.select([zero, whole, nan], [0.0, count, math.nan], math.inf)
        p = probs[drawn]
        flip = p > 0.5
        q = np.where(flip, probs.dtype.type(1) - p, p)
        rare = counts[drawn] * q < probs.dtype.type(10)
    return answers, np.flatnonzero(drawn), count[drawn], q.astype(np.float64), rare, flip


def binomial_samples(key, counter, counts: np.ndarray, probs: np.ndarray,
                     num_samples: int, dtype) -> np.ndarray:
    """``[num_samples, *broadcast shape]`` Binomial(counts, probs) samples of ``dtype``."""
    counts, probs = np.broadcast_arrays(counts, probs)
    answers, *plan = binomial_plan(counts.reshape(-1), probs.reshape(-1))
    out = np.repeat(answers[None, :], num_samples, axis=0)
    for batch, count, q, rare, flip in zip(*(column.tolist() for column in plan)):
        for sample in range(num_samples):
            index = batch * num_samples + sample
            if rare:
                drawn = _binomial_inversion(count, q, _Uniforms(key, counter, 42 * index))
            else:
                drawn = _btrs(count, q, _Uniforms(key, counter, _RESERVED_BLOCKS * index))
            out[sample, batch] = count - drawn if flip else drawn
    with np.errstate(invalid="ignore", over="ignore"):   # (NaN, inf; beyond float16: inf)
        return out.astype(dtype).reshape((num_samples,) + counts.shape)


def _rates_of(node, rates: np.ndarray, dims: tuple, what: str) -> int:
    """TF's checks of the rates (or alphas) against the output shape: its last
    dimensions, not empty; the number of samples of each."""
    if rates.ndim > len(dims) or tuple(dims[len(dims) - rates.ndim:]) != rates.shape:
        raise invalid_argument(node.name, node.op, "Shape passed in must end with "
                               "broadcasted shape.")
    if rates.size == 0:
        raise invalid_argument(node.name, node.op, f"Input {what} should have non-zero "
                               f"element count, got: 0")
    return int(np.prod(dims, dtype=np.int64)) // rates.size


def largest_value(dtype) -> float:
    """The largest value ``dtype`` (a float or an int) holds: a Poisson sample's bound."""
    dtype = np.dtype(dtype)
    return float(np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max)


def check_rates_fit(node, rates: np.ndarray, dtype) -> None:
    """InvalidArgumentError for a finite rate above what ``dtype`` holds: TF's sampler
    redraws every sample beyond the dtype's range, so it never returns for one."""
    dtype = np.dtype(dtype)
    highest = largest_value(dtype)
    rates = rates.astype(np.float64)
    too_big = np.isfinite(rates) & (rates > highest)
    if too_big.any():
        raise invalid_argument(node.name, node.op, f"the rate {rates[too_big][0]:g} is "
                               f"beyond what {dtype.name} holds ({highest:g}): its samples "
                               f"cannot be {dtype.name}; ask for a wider dtype")


@register_kernel("StatelessRandomGammaV3", "REF")
def build_stateless_gamma(node, samplers=sys.modules[__name__]):
    """``samplers``: the module whose ``gamma_samples`` draws (this one, or the CPU's
    compiled ``cpu/philox_rates.py``)."""
    dtype = node.output_dtype

    def stateless_gamma(shape, key, counter, alg, alpha):
        words = _v2_words(node, np.asarray(key), np.asarray(counter), np.asarray(alg))
        dims = drawn_shape(node, shape)
        if int(np.prod(dims, dtype=np.int64)) == 0:
            return np.zeros(dims, dtype)
        count = _rates_of(node, np.asarray(alpha), dims, "alpha")
        return samplers.gamma_samples(*words, np.asarray(alpha), count, dtype).reshape(dims)
    return stateless_gamma


@register_kernel("StatelessRandomPoisson", "REF")
def build_stateless_poisson(node, samplers=sys.modules[__name__]):
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
        check_rates_fit(node, lam, dtype)
        samples = samplers.poisson_samples(key, counter, lam, count // max(lam.size, 1),
                                           dtype)
        return samples.reshape(dims)
    return stateless_poisson


def binomial_dims(node, shape, counts: np.ndarray, probs: np.ndarray) -> tuple:
    """(the output's dims, the counts' and probs' broadcast batch shape), checked as TF's
    binomial kernels check them: the batch shape must end the output's."""
    try:
        batch = np.broadcast_shapes(counts.shape, probs.shape)
    except ValueError:
        raise invalid_argument(node.name, node.op, f"counts and probs must have "
                               f"compatible batch dimensions: {fmt_shape(counts.shape)} "
                               f"vs. {fmt_shape(probs.shape)}") from None
    dims = drawn_shape(node, shape)
    if len(batch) > len(dims) or tuple(dims[len(dims) - len(batch):]) != batch:
        raise invalid_argument(node.name, node.op, "Shape passed in must end with "
                               "broadcasted shape.")
    return dims, batch


@register_kernel("StatelessRandomBinomial", "REF")
def build_stateless_binomial(node, samplers=sys.modules[__name__]):
    """``samplers``: the module whose ``binomial_samples`` draws (this one, or the CPU's
    compiled ``cpu/philox_rates.py``)."""
    dtype = node.output_dtype

    def stateless_binomial(shape, seed, counts, probs):
        seed = np.asarray(seed)
        if seed.shape != (2,):
            raise invalid_argument(node.name, node.op, f"seed must have shape [2], not "
                                   f"{fmt_shape(seed.shape)}")
        counts, probs = np.asarray(counts), np.asarray(probs)
        dims, batch = binomial_dims(node, shape, counts, probs)
        count = int(np.prod(dims, dtype=np.int64))
        if count == 0:
            return np.zeros(dims, dtype)
        key, counter = seed_key_counter(int(seed[0]), int(seed[1]))
        samples = samplers.binomial_samples(
            key, counter, counts, probs, count // max(int(np.prod(batch, dtype=np.int64)), 1),
            dtype)
        return samples.reshape(dims)
    return stateless_binomial


def _uniform_block(block: np.ndarray, dtype: np.dtype) -> list:
    if dtype == np.float64:
        return _uniform_pair(block)
    unit = _unit_float16 if dtype == np.float16 else _unit_float32
    return list(unit(block))


def _normal_block(block: np.ndarray, dtype: np.dtype) -> list:
    return list(_normal_pairs(block[None, :], dtype).reshape(-1).astype(dtype))


def _in_dtype(function: str, x, dtype: np.dtype):
    """``exp``/``log`` as TF's kernel calls them for ``dtype`` (half through float)."""
    compute = np.float32 if dtype == np.float16 else dtype
    return dtype.type(getattr(libm, function)(np.array([x], compute))[0])


def truncated_normal_samples(key, counter, params, num_samples: int, dtype) -> np.ndarray:
    """``[num_samples, *batch shape]`` samples of TF's ``TruncatedNormalFunctorV2`` run
    as one shard; ``params`` the broadcast (means, stddevs, minvals, maxvals)."""
    dtype = np.dtype(dtype)
    t = dtype.type
    stream = _Stream(key, counter, 0)
    flat = [np.asarray(p, dtype).reshape(-1) for p in params]
    out = np.zeros((num_samples, flat[0].size), dtype)
    for batch in range(flat[0].size):
        mean, stddev, minval, maxval = (p[batch] for p in flat)
        if not (stddev > 0 and minval < maxval and (np.isfinite(minval)
                                                    or np.isfinite(maxval))):
            return None
        if (np.isinf(minval) and minval < 0) or maxval < mean:
            minval, maxval, stddev = maxval, minval, -stddev
        with np.errstate(all="ignore"):
            norm_min, norm_max = (minval - mean) / stddev, (maxval - mean) / stddev
            sqrt_factor = np.sqrt(norm_min * norm_min + t(4))
            cutoff = t(2) * _in_dtype("exp", t(0.5) + (norm_min * (norm_min - sqrt_factor))
                                      / t(4), dtype) / (norm_min + sqrt_factor)
            diff = norm_max - norm_min
        with np.errstate(all="ignore"):          # (an infinite mean: inf - inf, as TF's)
            samples = _truncated_batch(stream, dtype, norm_min, norm_max, cutoff, diff,
                                       num_samples)
            out[:, batch] = [z * stddev + mean for z in samples]
    return out


class NoSampleAccepted(RuntimeError):
    """A truncated normal's rejection sampler drew ``MAX_REJECTED_BLOCKS`` blocks in a row
    without keeping a value (NaN parameters): TF's gives up too, with an InternalError."""


MAX_REJECTED_BLOCKS = 1000


def _blocks_until_kept(stream, kept: list):
    """``stream``'s blocks, one at a time, while each run of them adds to ``kept`` within
    ``MAX_REJECTED_BLOCKS`` blocks."""
    rejected, had = 0, len(kept)
    while True:
        yield stream.block()
        rejected, had = (0, len(kept)) if len(kept) > had else (rejected + 1, had)
        if rejected >= MAX_REJECTED_BLOCKS:
            raise NoSampleAccepted


def _truncated_batch(stream, dtype, norm_min, norm_max, cutoff, diff, count) -> list:
    """``count`` normalized samples of one batch member, in TF's order."""
    t, kept = dtype.type, []
    inside = t(1.3)
    blocks = _blocks_until_kept(stream, kept)
    if (norm_min < -inside and norm_max >= 0) or (norm_max > inside and norm_min <= 0):
        while len(kept) < count:
            for x in _normal_block(next(blocks), dtype):
                if norm_min <= x <= norm_max:
                    kept.append(x)
                    if len(kept) == count:
                        break
        return kept
    if diff < cutoff:
        plus = t(0) if norm_min < 0 else norm_min * norm_min
        while len(kept) < count:
            z = [r * diff + norm_min for r in _uniform_block(next(blocks), dtype)]
            u = _uniform_block(next(blocks), dtype)
            for zi, ui in zip(z, u):
                if ui <= _in_dtype("exp", (plus - zi * zi) / t(2.0), dtype):
                    kept.append(zi)
                    if len(kept) == count:
                        break
        return kept
    alpha = (norm_min + np.sqrt(norm_min * norm_min + t(4))) / t(2)
    while len(kept) < count:
        rand = _uniform_block(next(blocks), dtype)
        for i in range(0, len(rand), 2):
            z = -_in_dtype("log", rand[i], dtype) / alpha + norm_min
            x = alpha - z if norm_min < alpha else norm_min - alpha
            g = _in_dtype("exp", -x * x / t(2.0), dtype)
            if rand[i + 1] <= g and z < norm_max:
                kept.append(z)
                if len(kept) == count:
                    break
    return kept


@register_kernel("StatelessParameterizedTruncatedNormal", "REF")
def build_stateless_parameterized_truncated_normal(node, samplers=sys.modules[__name__]):
    """``samplers``: the module whose ``truncated_normal_samples`` draws (this one, or the
    CPU's compiled ``cpu/philox_truncated.py``)."""
    dtype = node.output_dtype

    def stateless_truncated_normal(shape, seed, means, stddevs, minvals, maxvals):
        seed = np.asarray(seed)
        if seed.shape != (2,):
            raise invalid_argument(node.name, node.op, f"seed must have shape [2], not "
                                   f"{fmt_shape(seed.shape)}")
        params = [np.asarray(p) for p in (means, stddevs, minvals, maxvals)]
        try:
            params = np.broadcast_arrays(*params)
        except ValueError:
            raise invalid_argument(node.name, node.op, "means, stddevs, minvals, maxvals "
                                   "must have compatible batch dimensions") from None
        dims = drawn_shape(node, shape)
        batch = params[0].shape
        if len(batch) > len(dims) or tuple(dims[len(dims) - len(batch):]) != batch:
            raise invalid_argument(node.name, node.op, "Shape passed in must end with "
                                   "broadcasted shape.")
        count = int(np.prod(dims, dtype=np.int64))
        if count == 0:
            return np.zeros(dims, dtype)
        key, counter = seed_key_counter(int(seed[0]), int(seed[1]))
        try:
            samples = samplers.truncated_normal_samples(key, counter, params,
                                                        count // max(params[0].size, 1),
                                                        dtype)
        except NoSampleAccepted:
            raise InternalError(f"{node.op} node '{node.name}': TruncatedNormal's rejection "
                                f"sampler failed to accept a sample (NaN parameters?)",
                                node.name) from None
        if samples is None:
            raise invalid_argument(node.name, node.op, "Invalid parameters")
        return samples.reshape(dims)
    return stateless_truncated_normal
