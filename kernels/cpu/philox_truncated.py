"""TF's parameterized truncated normal compiled by numba: bit for bit the reference's
``truncated_normal_samples`` (``reference/stateless_random_rates.py``, which says how TF
draws it), for the CPU's ``StatelessParameterizedTruncatedNormal`` of float32 and float64
parameters.

Why: the reference draws one value at a time in Python, about 24 us a sample (a
``[100000]`` draw: 2.4 s).  Its draws read ONE stream in output order (a batch member's
samples, then the next member's), so they cannot be split across threads; compiled, one
sample costs a few tens of nanoseconds.  Each batch member's set-up (its bounds in
standard deviations, the region it samples from) and its rejection loop run in the
parameters' dtype, with the C library's ``expf``/``logf`` (``exp``/``log``) as the
reference calls them, and give up as it does: ``MAX_REJECTED_BLOCKS`` blocks in a row
that kept nothing (NaN parameters) are TF's InternalError.

float16 parameters take the reference's way: TF computes them in half, rounding every
operation, and numba has no half type on the CPU.  As in ``philox.py``, the first draw
checks samples of every region (normal, uniform, exponential; float32 and float64)
against the reference's and takes the reference's way if any differs.
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np

from ..reference import stateless_random_rates as reference
from .numba_setup import numba
from .philox import box_muller32, box_muller64, philox_block, stream_words, unit32, unit64
from .reduce import INNER, JIT

__all__ = ["truncated_normal_samples"]

njit = numba.njit
_ONE = np.uint64(1)
_COMPILED = (np.dtype(np.float32), np.dtype(np.float64))
# constants of the parameters' dtype, by index (numba would take a literal as float64)
_HALF, _TWO, _FOUR, _INSIDE, _ZERO = range(5)
_CONSTANTS = (0.5, 2.0, 4.0, 1.3, 0.0)


@njit(**INNER)
def _normal_block(k0, k1, low0, high0, offset, values):
    """The block's normals into ``values``: four float32s (two Box-Muller pairs) or two
    float64s."""
    w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, offset)
    if values.size == 4:
        values[0], values[1] = box_muller32(w0, w1)
        values[2], values[3] = box_muller32(w2, w3)
    else:
        values[0], values[1] = box_muller64(w0, w1, w2, w3)


@njit(**INNER)
def _uniform_block(k0, k1, low0, high0, offset, values):
    """The block's uniforms into ``values``, in order: four float32s or two float64s."""
    w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, offset)
    if values.size == 4:
        values[0], values[1], values[2], values[3] = unit32(w0), unit32(w1), unit32(w2), \
            unit32(w3)
    else:
        values[0], values[1] = unit64(w0, w1), unit64(w2, w3)


@njit(**INNER)
def _gives_up(kept, read, had, rejected):
    """The reference's rule before a batch member's next block, over what it counts:
    the blocks ``read``, the values it ``had`` kept when one last kept any, the blocks
    ``rejected`` since.  Returns them as they are after it, and whether to give up (the
    rejected blocks reached ``MAX_REJECTED_BLOCKS``)."""
    if read:
        if kept > had:
            had, rejected = kept, 0
        else:
            rejected += 1
    return read + 1, had, rejected, rejected >= reference.MAX_REJECTED_BLOCKS


@njit(**INNER)
def _member(mean, stddev, minval, maxval, c, column, scratch, scratch2, k0, k1, low0,
            high0, offset, out):
    """Batch member ``column``'s samples into ``out[:, column]``, from the block at
    ``offset`` (``c``: the constants, in its dtype): (the block after its last one,
    whether it gave up)."""
    count = out.shape[0]
    read = had = rejected = 0
    if (math.isinf(minval) and minval < 0) or maxval < mean:
        minval, maxval, stddev = maxval, minval, -stddev
    norm_min, norm_max = (minval - mean) / stddev, (maxval - mean) / stddev
    sqrt_factor = math.sqrt(norm_min * norm_min + c[_FOUR])
    cutoff = c[_TWO] * math.exp(c[_HALF] + (norm_min * (norm_min - sqrt_factor)) / c[_FOUR]) \
        / (norm_min + sqrt_factor)
    diff = norm_max - norm_min
    kept = 0
    if (norm_min < -c[_INSIDE] and norm_max >= 0) or (norm_max > c[_INSIDE] and norm_min <= 0):
        while kept < count:                 # normals within the bounds
            read, had, rejected, give_up = _gives_up(kept, read, had, rejected)
            if give_up:
                return offset, True
            _normal_block(k0, k1, low0, high0, offset, scratch)
            offset += _ONE
            for x in scratch:
                if norm_min <= x <= norm_max:
                    out[kept, column] = x * stddev + mean
                    kept += 1
                    if kept == count:
                        break
        return offset, False
    if diff < cutoff:                       # uniform proposals, a block of acceptances
        plus = c[_ZERO] if norm_min < 0 else norm_min * norm_min
        while kept < count:
            read, had, rejected, give_up = _gives_up(kept, read, had, rejected)
            if give_up:
                return offset, True
            _uniform_block(k0, k1, low0, high0, offset, scratch)
            read, had, rejected, give_up = _gives_up(kept, read, had, rejected)
            if give_up:
                return offset, True
            _uniform_block(k0, k1, low0, high0, offset + _ONE, scratch2)
            offset += _ONE + _ONE
            for i in range(scratch.size):
                z = scratch[i] * diff + norm_min
                if scratch2[i] <= math.exp((plus - z * z) / c[_TWO]):
                    out[kept, column] = z * stddev + mean
                    kept += 1
                    if kept == count:
                        break
        return offset, False
    alpha = (norm_min + math.sqrt(norm_min * norm_min + c[_FOUR])) / c[_TWO]
    while kept < count:                     # exponential proposals, uniforms in pairs
        read, had, rejected, give_up = _gives_up(kept, read, had, rejected)
        if give_up:
            return offset, True
        _uniform_block(k0, k1, low0, high0, offset, scratch)
        offset += _ONE
        for i in range(0, scratch.size, 2):
            z = -math.log(scratch[i]) / alpha + norm_min
            x = alpha - z if norm_min < alpha else norm_min - alpha
            g = math.exp(-x * x / c[_TWO])
            if scratch[i + 1] <= g and z < norm_max:
                out[kept, column] = z * stddev + mean
                kept += 1
                if kept == count:
                    break
    return offset, False


@njit(**JIT)
def _fill(means, stddevs, minvals, maxvals, members, c, scratch, scratch2, k0, k1, low0,
          high0, out):
    """The first ``members`` batch members' samples, one stream in output order
    (``scratch``: a block's values); whether one gave up."""
    offset = np.uint64(0)
    for b in range(members):
        offset, gave_up = _member(means[b], stddevs[b], minvals[b], maxvals[b], c, b,
                                  scratch, scratch2, k0, k1, low0, high0, offset, out)
        if gave_up:
            return True
    return False


def truncated_normal_samples(key, counter, params, num_samples: int, dtype):
    """``reference.truncated_normal_samples``: ``[num_samples, batch members]`` of
    ``dtype``; None for invalid parameters (once the members before them are drawn);
    ``reference.NoSampleAccepted`` where one gave up."""
    dtype = np.dtype(dtype)
    if dtype not in _COMPILED or not _agrees():
        return reference.truncated_normal_samples(key, counter, params, num_samples, dtype)
    means, stddevs, minvals, maxvals = (np.ascontiguousarray(np.asarray(p, dtype).reshape(-1))
                                        for p in params)
    valid = (stddevs > 0) & (minvals < maxvals) & (np.isfinite(minvals) | np.isfinite(maxvals))
    members = int(valid.size if valid.all() else np.argmin(valid))
    out = np.zeros((num_samples, valid.size), dtype)
    if num_samples and _draw(means, stddevs, minvals, maxvals, members, key, counter, out):
        raise reference.NoSampleAccepted
    return out if members == valid.size else None


def _draw(means, stddevs, minvals, maxvals, members: int, key, counter, out) -> bool:
    dtype = out.dtype
    scratch = [np.empty(4 if dtype == np.float32 else 2, dtype) for _ in range(2)]
    return _fill(means, stddevs, minvals, maxvals, members, np.array(_CONSTANTS, dtype),
                 *scratch, *stream_words(key, counter), out)


@functools.cache
def _agrees() -> bool:
    """Whether the compiled samples equal the reference's in every region (normal,
    uniform, exponential, one-sided), float32 and float64."""
    key, counter = (0x7F4A7C15, 0x2B7E1516), (3, 0, 9, 0)
    params = [np.array(p) for p in ([0.0, 0.0, 1.0, 0.0, 2.0], [1.0, 1.0, 2.0, 1.0, 3.0],
                                    [-2.0, 0.5, 6.0, -np.inf, -1.0],
                                    [2.0, 0.7, 20.0, -2.0, np.inf])]
    for dtype in _COMPILED:
        params = [p.astype(dtype) for p in params]
        out = np.zeros((7, params[0].size), dtype)
        _draw(*params, params[0].size, key, counter, out)
        if not np.array_equal(out, reference.truncated_normal_samples(key, counter, params,
                                                                      7, dtype)):
            logging.getLogger("devsession").warning(
                "devsession: compiled truncated normals differ from the C library's here; "
                "they take the slower exact way")
            return False
    return True
