"""SipHash-2-4, the keyed 64-bit hash TensorFlow's ``StringToHashBucketStrong`` takes
modulo the bucket count (``strings::StrongKeyedHash``), so a string lands in the bucket
TF puts it in for the same two-integer key.

The algorithm is SipHash's published one (Aumasson and Bernstein): four 64-bit words
seeded from the 128-bit key, two rounds per 8-byte little-endian block, the last block
padded with the length's low byte at the top, then four finishing rounds.  All
arithmetic is modulo 2**64.  Checked against the buckets TF 2.21 computed
(tests/data/tf_lookup.json).
"""

from __future__ import annotations

import struct

__all__ = ["siphash24"]

_M = (1 << 64) - 1


def _rotate(v: int, shift: int) -> int:
    return ((v << shift) | (v >> (64 - shift))) & _M


def _rounds(v: list, count: int) -> None:
    for _ in range(count):
        v[0] = (v[0] + v[1]) & _M
        v[1] = _rotate(v[1], 13) ^ v[0]
        v[0] = _rotate(v[0], 32)
        v[2] = (v[2] + v[3]) & _M
        v[3] = _rotate(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & _M
        v[3] = _rotate(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & _M
        v[1] = _rotate(v[1], 17) ^ v[2]
        v[2] = _rotate(v[2], 32)


def siphash24(key0: int, key1: int, data: bytes) -> int:
    """The 64-bit SipHash-2-4 of ``data`` under the key (``key0``, ``key1``), each
    taken modulo 2**64 (a negative int64 key as its two's complement, as TF's)."""
    k0, k1 = key0 & _M, key1 & _M
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
         k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]
    whole = len(data) - len(data) % 8
    for i in range(0, whole, 8):
        m = struct.unpack_from("<Q", data, i)[0]
        v[3] ^= m
        _rounds(v, 2)
        v[0] ^= m
    last = ((len(data) & 0xff) << 56) | int.from_bytes(data[whole:], "little")
    v[3] ^= last
    _rounds(v, 2)
    v[0] ^= last
    v[2] ^= 0xff
    _rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]
