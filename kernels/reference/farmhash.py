"""FarmHash's ``Fingerprint64`` (farmhashna's ``Hash64``): the 64-bit fingerprint that
TensorFlow's ``StringToHashBucketFast`` takes modulo the bucket count, so a string lands
in the bucket TF puts it in.

The function is fixed by FarmHash's published algorithm: strings of up to 16, 32 and 64
bytes each have their own mixing of a few 64-bit little-endian words; longer strings
run 64-byte blocks through two 128-bit states, then mix in the last 64 bytes.  All
arithmetic is modulo 2**64 (``_M``).  Checked against the buckets TF 2.21 computed
(tests/data/tf_string_ops.json).

``fingerprint_cat64`` is TensorFlow's ``FingerprintCat64``, how its sparse crosses
chain two fingerprints into one (a multiply-xorshift mix; not commutative).
"""

from __future__ import annotations

import struct

__all__ = ["fingerprint64", "fingerprint_cat64"]

_M = (1 << 64) - 1
_K0 = 0xc3a5c85c97cb3127
_K1 = 0xb492b66fbe98f273
_K2 = 0x9ae16a3b2f90404f


def _word(s: bytes, i: int) -> int:
    return struct.unpack_from("<Q", s, i)[0]


def _half(s: bytes, i: int) -> int:
    return struct.unpack_from("<I", s, i)[0]


def _rotate(v: int, shift: int) -> int:
    return ((v >> shift) | (v << (64 - shift))) & _M


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _upto16(s: bytes, n: int) -> int:
    if n >= 8:
        mul = _K2 + n * 2
        a = (_word(s, 0) + _K2) & _M
        b = _word(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & _M
        d = ((_rotate(a, 25) + b) * mul) & _M
        return _hash16(c, d, mul)
    if n >= 4:
        return _hash16(n + (_half(s, 0) << 3), _half(s, n - 4), _K2 + n * 2)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _ends(s: bytes, n: int, k: int, mul: int) -> tuple[int, int, int]:
    """What HashLen17to32 and HashLen33to64 both compute first: ``a`` (the first word
    times ``k``: k1 for the one, k2 for the other) and the two words HashLen16 mixes."""
    a = (_word(s, 0) * k) & _M
    b = _word(s, 8)
    c = (_word(s, n - 8) * mul) & _M
    d = (_word(s, n - 16) * _K2) & _M
    return a, (_rotate((a + b) & _M, 43) + _rotate(c, 30) + d) & _M, \
        (a + _rotate((b + _K2) & _M, 18) + c) & _M


def _upto32(s: bytes, n: int) -> int:
    mul = _K2 + n * 2
    _, u, v = _ends(s, n, _K1, mul)
    return _hash16(u, v, mul)


def _upto64(s: bytes, n: int) -> int:
    mul = _K2 + n * 2
    a, y, v = _ends(s, n, _K2, mul)
    z = _hash16(y, v, mul)
    e = (_word(s, 16) * mul) & _M
    f = _word(s, 24)
    g = ((y + _word(s, n - 32)) * mul) & _M
    h = ((z + _word(s, n - 24)) * mul) & _M
    return _hash16((_rotate((e + f) & _M, 43) + _rotate(g, 30) + h) & _M,
                   (e + _rotate((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    """FarmHash's WeakHashLen32WithSeeds over the 32 bytes at ``i``."""
    w, x, y, z = _word(s, i), _word(s, i + 8), _word(s, i + 16), _word(s, i + 24)
    a = (a + w) & _M
    b = _rotate((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rotate(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def _long(s: bytes, n: int) -> int:
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_shift_mix((y * _K2 + 113) & _M) * _K2) & _M
    v = w = (0, 0)
    x = (x * _K2 + _word(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    for i in range(0, end, 64):
        x = (_rotate((x + y + v[0] + _word(s, i + 8)) & _M, 37) * _K1) & _M
        y = (_rotate((y + v[1] + _word(s, i + 48)) & _M, 42) * _K1) & _M
        x ^= w[1]
        y = (y + v[0] + _word(s, i + 40)) & _M
        z = (_rotate((z + w[0]) & _M, 33) * _K1) & _M
        v = _weak32(s, i, (v[1] * _K1) & _M, (x + w[0]) & _M)
        w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _word(s, i + 16)) & _M)
        z, x = x, z
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & _M
    v0 = (v[0] + w0) & _M
    w = ((w0 + v0) & _M, w[1])
    v = (v0, v[1])
    x = (_rotate((x + y + v[0] + _word(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rotate((y + v[1] + _word(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w[1] * 9) & _M
    y = (y + v[0] * 9 + _word(s, i + 40)) & _M
    z = (_rotate((z + w[0]) & _M, 33) * mul) & _M
    v = _weak32(s, i, (v[1] * mul) & _M, (x + w[0]) & _M)
    w = _weak32(s, i + 32, (z + w[1]) & _M, (y + _word(s, i + 16)) & _M)
    z, x = x, z
    return _hash16((_hash16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _M,
                   (_hash16(v[1], w[1], mul) + x) & _M, mul)


def fingerprint64(data: bytes) -> int:
    """FarmHash's Fingerprint64 of ``data``, an unsigned 64-bit int."""
    n = len(data)
    if n <= 16:
        return _upto16(data, n)
    if n <= 32:
        return _upto32(data, n)
    if n <= 64:
        return _upto64(data, n)
    return _long(data, n)


_CAT_MUL = 0xc6a4a7935bd1e995


def fingerprint_cat64(first: int, second: int) -> int:
    """TensorFlow's ``FingerprintCat64(first, second)`` of two unsigned 64-bit ints: the
    hash a sparse cross chains its values' hashes with."""
    mixed = (first ^ _CAT_MUL) ^ ((_shift_mix((second * _CAT_MUL) & _M) * _CAT_MUL) & _M)
    mixed = (mixed * _CAT_MUL) & _M
    mixed = (_shift_mix(mixed) * _CAT_MUL) & _M
    return _shift_mix(mixed)
