"""Philox4x32-10, TensorFlow's counter-based generator, in vectorised numpy; the bits of
TF's stateless random ops (``stateless_random.py``).

As ``core/lib/random/philox_random.h``: the state is a 128-bit counter (four uint32
words, the first the lowest) and a 64-bit key (two words).  One call turns the counter
into four uint32s by ten rounds, each ``(hi(B*c2) ^ c1 ^ k0, lo(B*c2), hi(A*c0) ^ c3 ^ k1,
lo(A*c0))`` with the key raised by two Weyl constants between rounds, and then steps the
counter by one; ``Skip(n)`` adds ``n`` to it.  So block ``i`` of a stream is the rounds
of ``counter + i``, and any set of blocks can be computed at once.

TF's seed scrambling (``GenerateKey`` in ``stateless_random_ops.cc``): the two seeds,
as uint64 (an int32 seed sign-extended), are a counter ``(s0 lo, s0 hi, s1 lo, s1 hi)``
run once under the fixed key ``0x02461E29_3EC8F720``; the four words out are the key
(first two) and the upper half of a counter whose lower half is zero.  The V2 ops get the
key as one uint64 (low word first) and the counter as two uint64s (``key_counter_words``).
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["blocks", "blocks_at", "seed_key_counter", "first_blocks_of_seeds",
           "key_counter_words",
           "key_counter_tensors", "unit_float64", "words", "seed_pair_stream", "SimplePhilox"]

_MUL_A, _MUL_B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_WEYL_A, _WEYL_B = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_LOW, _SHIFT = np.uint64(0xFFFFFFFF), np.uint64(32)
_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)
_MASK64 = (1 << 64) - 1


def blocks_at(key, counter, offsets) -> np.ndarray:
    """The Philox blocks of ``counter + offsets`` under ``key`` (two uint32 words; the
    counter four, lowest first; ``offsets`` uint64s): uint32 ``[len(offsets), 4]``."""
    offsets = np.asarray(offsets, np.uint64)
    low0 = np.uint64(counter[0] | (counter[1] << 32))
    high0 = np.uint64(counter[2] | (counter[3] << 32))
    with np.errstate(over="ignore"):
        low = low0 + offsets                        # 128-bit addition, carry into high
        high = high0 + (low < low0).astype(np.uint64)
    return _rounds(low & _LOW, low >> _SHIFT, high & _LOW, high >> _SHIFT,
                   np.uint64(key[0]), np.uint64(key[1]))


def _rounds(c0, c1, c2, c3, k0, k1) -> np.ndarray:
    """The ten rounds of counters' words (uint64 arrays holding uint32s) under keys' (the
    same for all, or one each): uint32 ``[..., 4]``."""
    for _ in range(10):
        product_a, product_b = _MUL_A * c0, _MUL_B * c2   # 32 x 32 bits: fits in 64
        c0, c1, c2, c3 = ((product_b >> _SHIFT) ^ c1 ^ k0, product_b & _LOW,
                          (product_a >> _SHIFT) ^ c3 ^ k1, product_a & _LOW)
        k0, k1 = (k0 + _WEYL_A) & _LOW, (k1 + _WEYL_B) & _LOW
    return np.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


def blocks(key, counter, count: int) -> np.ndarray:
    """The first ``count`` blocks of the stream at ``counter``: uint32 ``[count, 4]``."""
    return blocks_at(key, counter, np.arange(count, dtype=np.uint64))


def seed_key_counter(seed0: int, seed1: int) -> tuple[tuple, tuple]:
    """TF's ``GenerateKey``: the (key words, counter words) of a pair of seeds."""
    s0, s1 = int(seed0) & _MASK64, int(seed1) & _MASK64
    words = (s0 & 0xFFFFFFFF, s0 >> 32, s1 & 0xFFFFFFFF, s1 >> 32)
    mix = [int(w) for w in blocks(_SCRAMBLE_KEY, words, 1)[0]]
    return (mix[0], mix[1]), (0, 0, mix[2], mix[3])


def first_blocks_of_seeds(seed0, seed1) -> np.ndarray:
    """For each pair of seeds (int64 or uint64 arrays), the first block of the stream
    ``seed_key_counter`` gives it, all pairs at once: uint32 ``[n, 4]`` (TF's stateless
    ops of one sample, seeded element by element, as ``sample_from_datasets``' selector)."""
    s0, s1 = (np.asarray(s).astype(np.uint64) for s in (seed0, seed1))
    mix = _rounds(s0 & _LOW, s0 >> _SHIFT, s1 & _LOW, s1 >> _SHIFT,
                  np.uint64(_SCRAMBLE_KEY[0]), np.uint64(_SCRAMBLE_KEY[1])).astype(np.uint64)
    zero = np.zeros_like(s0)
    return _rounds(zero, zero, mix[:, 2], mix[:, 3], mix[:, 0], mix[:, 1])


def key_counter_words(key: np.ndarray, counter: np.ndarray) -> tuple[tuple, tuple]:
    """The words of a V2 op's ``key`` (uint64 [1]) and ``counter`` (uint64, two used)."""
    k = int(key.reshape(-1)[0])
    c = [int(v) for v in counter.reshape(-1)[:2]]
    return ((k & 0xFFFFFFFF, k >> 32),
            (c[0] & 0xFFFFFFFF, c[0] >> 32, c[1] & 0xFFFFFFFF, c[1] >> 32))


def key_counter_tensors(key_words, counter_words) -> tuple[np.ndarray, np.ndarray]:
    """``StatelessRandomGetKeyCounter``'s outputs: key uint64 [1], counter uint64 [2]."""
    key = key_words[0] | key_words[1] << 32
    counter = (counter_words[0] | counter_words[1] << 32,
               counter_words[2] | counter_words[3] << 32)
    return np.array([key], np.uint64), np.array(counter, np.uint64)


def unit_float64(high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """TF's ``Uint64ToDouble``: doubles in [0, 1) of two uint32 words each (20 low bits
    of ``high`` above ``low``, under exponent 0, minus 1)."""
    mantissa = ((high.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) \
        | low.astype(np.uint64)
    return (mantissa | np.uint64(1023 << 52)).view(np.float64) - 1.0


def words(key, counter):
    """The stream's uint32s in order (TF's ``SingleSampleAdapter``): each block's four
    words, block after block, read 256 blocks at a time."""
    for first in itertools.count(0, 256):
        offsets = np.arange(first, first + 256, dtype=np.uint64)
        yield from blocks_at(key, counter, offsets).reshape(-1).tolist()


def seed_pair_stream(seed: int, seed2: int) -> tuple[tuple, tuple]:
    """The (key, counter) words of TF's ``PhiloxRandom(seed, seed2)``: key ``seed``, the
    counter's upper half ``seed2`` (both as uint64), its lower half 0."""
    seed, seed2 = seed % 2**64, seed2 % 2**64
    return (seed & 0xFFFFFFFF, seed >> 32), (0, 0, seed2 & 0xFFFFFFFF, seed2 >> 32)


class SimplePhilox:
    """TF's ``random::SimplePhilox`` over a stream's words (``words``): the draws TF's
    samplers and crops make one at a time."""

    def __init__(self, key, counter):
        self._words = words(key, counter)

    def rand32(self) -> int:
        return next(self._words)

    def rand64(self) -> int:
        """64 bits, the low word drawn first."""
        return next(self._words) | next(self._words) << 32

    def rand_float(self) -> np.float32:
        """``Uint32ToFloat``: the low 23 bits as a float32 in [0, 1)."""
        return np.float32(self.rand32() & 0x7FFFFF) * np.float32(2.0 ** -23)

    def rand_double(self) -> float:
        """``Uint64ToDouble`` of two words, the first the high one."""
        high, low = self.rand32(), self.rand32()
        return float(((high & 0xFFFFF) << 32 | low) * 2.0 ** -52)

    def uniform(self, n: int) -> int:
        """TF's ``ExactUniformInt`` over 32 bits: exactly uniform in ``[0, n)``."""
        return _exact_uniform(n, self.rand32, 32)

    def uniform64(self, n: int) -> int:
        return _exact_uniform(n, self.rand64, 64)


def _exact_uniform(n: int, bits, width: int) -> int:
    """``bits() % n``, drawing again below ``2**width mod n`` (a power of two: masked)."""
    if n == 0:
        bits()
        return 0
    if n & (n - 1) == 0:
        return bits() & (n - 1)
    rejected_below = (2**width - 1) % n + 1
    while True:
        value = bits()
        if value >= rejected_below:
            return value % n
