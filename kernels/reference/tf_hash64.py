"""TensorFlow's own ``Hash64`` (``tensorflow/core/platform/hash.cc``): MurmurHash64A
over the bytes, seeded with 0xDECAFCAFFE, what TF1's ``StringToHashBucket`` takes modulo
the bucket count.  Eight-byte little-endian words are mixed in one at a time; the 1-7
byte tail is folded in byte by byte (byte ``i`` shifted ``8 i``); every product is modulo
2**64.  Checked against the buckets TF 2.21 computed (tests/data/tf_string_joins.json).
"""

from __future__ import annotations

__all__ = ["tf_hash64"]

_M = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_SHIFT = 47
SEED = 0xDECAFCAFFE


def tf_hash64(data: bytes, seed: int = SEED) -> int:
    """TF's ``Hash64(data, len, seed)``, an unsigned 64-bit int."""
    n = len(data)
    h = (seed ^ (n * _MUL)) & _M
    whole = n - n % 8
    for start in range(0, whole, 8):
        k = (int.from_bytes(data[start:start + 8], "little") * _MUL) & _M
        k = ((k ^ (k >> _SHIFT)) * _MUL) & _M
        h = ((h ^ k) * _MUL) & _M
    tail = data[whole:]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * _MUL) & _M
    h = ((h ^ (h >> _SHIFT)) * _MUL) & _M
    return h ^ (h >> _SHIFT)
