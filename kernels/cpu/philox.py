"""TF's Philox draws compiled by numba: bit for bit the reference's
(``reference/philox.py``, ``reference/stateless_random.py``), which say how TF draws.

Why: the reference computes Philox with numpy arrays (about 50 ms a million uniforms) and
the normals' Box-Muller transform through ``ctypes`` calls to the C library, one value at
a time (about 0.5 s a million), so a 1024 x 1024 ``truncated_normal`` initializer took a
second.  Here each Philox block is computed in registers and the normals call the same
C functions (``logf``, ``sinf``, ``cosf``...) from compiled code: about 10 ms a million.

A numba build with a vector math library (SVML) could vectorise those calls with other
results, so the first draw checks a thousand normals of each kind against the reference's
(``_agrees``); if any differs, every draw takes the reference's way (slower, still TF's
values).  Integer draws, and uniforms other than float32, take the reference's arithmetic
over these blocks.
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np

from ..reference import stateless_random as reference
from .numba_setup import numba
from .reduce import INNER, JIT

__all__ = ["blocks", "uniform", "normal", "truncated_normal", "uniform_int", "full_int",
           "philox_block", "box_muller32", "box_muller64", "unit32", "unit64", "stream_words"]

njit, prange = numba.njit, numba.prange
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_LOW = np.uint64(0xFFFFFFFF)
_SHIFT = np.uint64(32)
_MUL_A, _MUL_B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_WEYL_A, _WEYL_B = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_ONE = np.uint64(1)
_MANTISSA32, _MANTISSA20 = np.uint64(0x7FFFFF), np.uint64(0xFFFFF)
_UNIT32, _UNIT64 = np.float32(2.0 ** -23), 2.0 ** -52
_EPSILON32, _EPSILON64 = np.float32(1.0e-7), 1.0e-7
_TWO_PI = 2.0 * np.pi
_MINUS_TWO32 = np.float32(-2.0)
_CUTOFF = 2.0                   # TF's truncation: |x| < 2 standard deviations
_GROUP_SKIP32, _GROUP_SKIP64 = np.uint64(256), np.uint64(128)


@njit(**INNER)
def philox_block(k0, k1, low0, high0, offset):
    """Philox4x32-10 of the 128-bit counter ``(low0, high0) + offset`` under the key
    words ``k0``, ``k1``: four uint32 words (as uint64s), the first the lowest."""
    low = low0 + offset
    high = high0 + _ONE if low < low0 else high0
    c0, c1, c2, c3 = low & _LOW, low >> _SHIFT, high & _LOW, high >> _SHIFT
    for _ in range(10):
        product_a, product_b = _MUL_A * c0, _MUL_B * c2
        c0, c1, c2, c3 = ((product_b >> _SHIFT) ^ c1 ^ k0, product_b & _LOW,
                          (product_a >> _SHIFT) ^ c3 ^ k1, product_a & _LOW)
        k0, k1 = (k0 + _WEYL_A) & _LOW, (k1 + _WEYL_B) & _LOW
    return c0, c1, c2, c3


@njit(**JIT, parallel=True)
def _fill_blocks(k0, k1, low0, high0, out):
    for i in prange(out.shape[0]):
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = philox_block(k0, k1, low0, high0, np.uint64(i))


@njit(**JIT, parallel=True)
def _fill_uniform32(k0, k1, low0, high0, out):
    count = out.shape[0]
    for b in prange((count + 3) // 4):
        w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, np.uint64(b))
        i = 4 * b
        out[i] = unit32(w0)
        if i + 1 < count:
            out[i + 1] = unit32(w1)
        if i + 2 < count:
            out[i + 2] = unit32(w2)
        if i + 3 < count:
            out[i + 3] = unit32(w3)


@njit(**INNER)
def unit32(word):
    """TF's ``Uint32ToFloat``: a float32 in [0, 1) of a word's 23 low bits."""
    return np.float32(word & _MANTISSA32) * _UNIT32        # (1.mantissa) - 1, exactly


@njit(**INNER)
def unit64(high, low):
    """TF's ``Uint64ToDouble``: a double in [0, 1) of two words."""
    return np.float64(((high & _MANTISSA20) << _SHIFT) | low) * _UNIT64


@njit(**INNER)
def box_muller32(x0, x1):
    """TF's ``BoxMullerFloat`` of two words: ``(sin, cos) * sqrt(-2 log u1)`` in float32."""
    u1 = max(unit32(x0), _EPSILON32)
    v1 = np.float32(_TWO_PI * np.float64(unit32(x1)))
    u2 = np.float32(math.sqrt(_MINUS_TWO32 * math.log(u1)))
    return math.sin(v1) * u2, math.cos(v1) * u2


@njit(**INNER)
def box_muller64(x0, x1, x2, x3):
    """TF's ``BoxMullerDouble`` of a block's words: ``(sin, cos) * sqrt(-2 log u1)``."""
    u1 = max(unit64(x0, x1), _EPSILON64)
    v1 = _TWO_PI * unit64(x2, x3)
    u2 = math.sqrt(-2.0 * math.log(u1))
    return math.sin(v1) * u2, math.cos(v1) * u2


@njit(**JIT, parallel=True)
def _fill_normal32(k0, k1, low0, high0, out):
    count = out.shape[0]
    for b in prange((count + 3) // 4):
        w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, np.uint64(b))
        f0, f1 = box_muller32(w0, w1)
        f2, f3 = box_muller32(w2, w3)
        i = 4 * b
        out[i] = f0
        if i + 1 < count:
            out[i + 1] = f1
        if i + 2 < count:
            out[i + 2] = f2
        if i + 3 < count:
            out[i + 3] = f3


@njit(**JIT, parallel=True)
def _fill_normal64(k0, k1, low0, high0, out):
    count = out.shape[0]
    for b in prange((count + 1) // 2):
        w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, np.uint64(b))
        d0, d1 = box_muller64(w0, w1, w2, w3)
        out[2 * b] = d0
        if 2 * b + 1 < count:
            out[2 * b + 1] = d1


@njit(**JIT, parallel=True)
def _fill_truncated32(k0, k1, low0, high0, out):
    """Group ``g`` of four values from its own part of the stream (block ``256 g`` on):
    Box-Muller pairs in order, each value kept while ``|x| < 2``."""
    count = out.shape[0]
    for g in prange((count + 3) // 4):
        start, filled, taken = np.uint64(g) * _GROUP_SKIP32, 4 * g, np.uint64(0)
        end = min(4 * g + 4, count)
        while filled < end:
            w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, start + taken)
            taken += _ONE
            f0, f1 = box_muller32(w0, w1)
            f2, f3 = box_muller32(w2, w3)
            for value in (f0, f1, f2, f3):
                if filled < end and abs(value) < _CUTOFF:
                    out[filled] = value
                    filled += 1


@njit(**JIT, parallel=True)
def _fill_truncated64(k0, k1, low0, high0, out):
    count = out.shape[0]
    for g in prange((count + 1) // 2):
        start, filled, taken = np.uint64(g) * _GROUP_SKIP64, 2 * g, np.uint64(0)
        end = min(2 * g + 2, count)
        while filled < end:
            w0, w1, w2, w3 = philox_block(k0, k1, low0, high0, start + taken)
            taken += _ONE
            d0, d1 = box_muller64(w0, w1, w2, w3)
            for value in (d0, d1):
                if filled < end and abs(value) < _CUTOFF:
                    out[filled] = value
                    filled += 1


def stream_words(key, counter) -> tuple:
    """The compiled fills' arguments for a stream at (key words, counter words): the key
    words and the counter's low and high 64-bit halves."""
    return (np.uint64(key[0]), np.uint64(key[1]), np.uint64(counter[0] | counter[1] << 32),
            np.uint64(counter[2] | counter[3] << 32))


def blocks(key, counter, count: int) -> np.ndarray:
    """The first ``count`` blocks of the stream at ``counter``: uint32 ``[count, 4]``
    (``reference.philox.blocks``)."""
    out = np.empty((count, 4), np.uint32)
    if count:
        _fill_blocks(*stream_words(key, counter), out)
    return out


def uniform(key, counter, count: int, dtype) -> np.ndarray:
    """``reference.uniform``: float32 in one pass, the other dtypes over these blocks."""
    if np.dtype(dtype) != _F32:
        return reference.uniform(key, counter, count, dtype, blocks=blocks)
    out = np.empty(count, _F32)
    if count:
        _fill_uniform32(*stream_words(key, counter), out)
    return out


def full_int(key, counter, count: int, dtype) -> np.ndarray:
    return reference.full_int(key, counter, count, dtype, blocks=blocks)


def uniform_int(key, counter, count: int, dtype, lo, hi) -> np.ndarray:
    return reference.uniform_int(key, counter, count, dtype, lo, hi, blocks=blocks)


def normal(key, counter, count: int, dtype) -> np.ndarray:
    """``reference.normal``: float32 and float16 (rounded from float32) and float64."""
    return _normals(reference.normal, (_fill_normal32, _fill_normal64), key, counter,
                    count, dtype)


def truncated_normal(key, counter, count: int, dtype) -> np.ndarray:
    """``reference.truncated_normal``, for the same dtypes."""
    return _normals(reference.truncated_normal, (_fill_truncated32, _fill_truncated64), key,
                    counter, count, dtype)


def _normals(slow, fills, key, counter, count: int, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype not in (_F16, _F32, _F64) or not _agrees():
        return slow(key, counter, count, dtype)
    out = np.empty(count, _F64 if dtype == _F64 else _F32)
    if count:
        fills[dtype == _F64](*stream_words(key, counter), out)
    return out.astype(dtype, copy=False)


@functools.cache
def _agrees() -> bool:
    """Whether the compiled normals equal the reference's (the C library's functions
    called one value at a time) on a thousand draws of each kind."""
    key, counter = (0x2545F491, 0x4F6CDD1D), (7, 0, 1, 0)
    for fill, dtype, draw in ((_fill_normal32, _F32, reference.normal),
                              (_fill_normal64, _F64, reference.normal),
                              (_fill_truncated32, _F32, reference.truncated_normal)):
        out = np.empty(1027, dtype)
        fill(*stream_words(key, counter), out)
        if not np.array_equal(out, draw(key, counter, out.size, dtype)):
            logging.getLogger("devsession").warning(
                "devsession: compiled Box-Muller normals differ from the C library's here "
                "(a vector math library?); random normals take the slower exact way")
            return False
    return True
