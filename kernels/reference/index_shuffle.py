"""The kernel of TF's ``RandomIndexShuffle`` (``devsession/ops/index_shuffle.py``), for the
reference device and the CPU (``HOST``): TF's ``random::index_shuffle``
(``random_index_shuffle.cc``) bit for bit.

The permutation of ``[0, max_index]`` is a Simon block cipher walked in cycles: blocks
of ``B = max(ceil(log2(max_index)) rounded up to even, 16)`` bits, two words of ``W =
B / 2`` bits; round keys the seed's three words (as uint32, cut to ``W`` bits) and, for
``rounds > 3``, ``c ^ (z & 1) ^ k[i-3] ^ rotr(k[i-1], 3) ^ rotr(k[i-1], 4)`` with ``c``
and ``z`` TF's constants cut to ``W`` bits (``z`` shifted right each round).  Each pair
of rounds: ``left ^= f(right) ^ k1; right ^= f(left) ^ k2``, ``f(x) = (rotl(x, 1) &
rotl(x, 8)) ^ rotl(x, 2)``; an index is encrypted again until it is at most
``max_index``.  Python integers, one index at a time.
"""

from __future__ import annotations

import math

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["index_shuffle"]

_C, _Z = 0xFFFFFFFC, 0x7369F885192C0EF5


def _round_keys(key, rounds: int, width: int) -> list:
    mask = (1 << width) - 1

    def rotr(x, r):
        return ((x >> r) | (x << (width - r))) & mask
    keys = [k & mask for k in key]
    z = _Z & mask
    for i in range(3, rounds):
        keys.append((_C & mask) ^ (z & 1) ^ keys[i - 3] ^ rotr(keys[i - 1], 3)
                    ^ rotr(keys[i - 1], 4))
        z >>= 1
    return keys


def _encrypt(value: int, keys: list, width: int) -> int:
    mask = (1 << width) - 1

    def rotl(x, r):
        return ((x << r) | (x >> (width - r))) & mask

    def f(x):
        return (rotl(x, 1) & rotl(x, 8)) ^ rotl(x, 2)
    left, right = (value >> width) & mask, value & mask
    for i in range(0, len(keys), 2):
        left ^= f(right) ^ keys[i]
        right ^= f(left) ^ keys[i + 1]
    return (left << width) | right


def index_shuffle(index: int, key, max_index: int, rounds: int) -> int:
    """The position of ``index`` in the permutation of ``[0, max_index]`` of ``key``
    (three uint32 words)."""
    if max_index == 0:
        return 0
    block = math.ceil(math.log2(float(max_index)))
    block = min(max(block + block % 2, 16), 64)
    width = block // 2
    keys = _round_keys(key, rounds, width)
    value = index
    while True:
        value = _encrypt(value, keys, width)
        if value <= max_index:
            return value


@register_kernel("RandomIndexShuffle", HOST)
def build_index_shuffle(node):
    rounds = int(node.attrs.get("rounds", 4))
    dtype = node.output_dtype

    def random_index_shuffle(index, seed, max_index):
        index, seed, max_index = (np.asarray(v) for v in (index, seed, max_index))
        if seed.shape[-1:] != (3,) or seed.ndim > 2:
            raise invalid_argument(node.name, node.op, f"seed must have shape [3] or "
                                   f"[batch, 3], not {fmt_shape(seed.shape)}")
        count = index.size
        seeds = np.broadcast_to(seed.reshape(-1, 3), (max(count, 1), 3)) \
            if seed.ndim == 1 or seed.shape[0] == 1 else seed
        maxima = np.broadcast_to(max_index.reshape(-1), (max(count, 1),)) \
            if max_index.size == 1 else max_index.reshape(-1)
        if len(seeds) != max(count, 1) or len(maxima) != max(count, 1):
            raise invalid_argument(node.name, node.op, f"index, seed and max_index must "
                                   f"have the same batch size, got {fmt_shape(index.shape)}, "
                                   f"{fmt_shape(seed.shape)} and {fmt_shape(max_index.shape)}")
        out = [index_shuffle(int(i), [int(w) & 0xFFFFFFFF for w in s], int(m), rounds)
               for i, s, m in zip(index.reshape(-1).tolist(), seeds.tolist(),
                                  maxima.tolist())]
        return np.array(out, np.uint64).astype(dtype).reshape(index.shape)
    return random_index_shuffle
