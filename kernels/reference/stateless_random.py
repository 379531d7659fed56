"""Kernels of TF's stateless random ops (``devsession/ops/stateless_random.py``), for the
reference device and the CPU (``HOST``; the draws register for "REF" here and for the CPU
with compiled Philox, ``cpu/random.py``; ``cuda/stateless_random.py`` runs the CPU's for
the GPU and uploads): TensorFlow's values bit for bit, from Philox (``philox.py``) as TF's
CPU kernels draw them (``random_distributions.h``, ``random_op_cpu.h``).

Per output dtype, from the stream's uint32s in order:

* uniform floats: the mantissa bits under exponent 0, minus 1: float32 one uint32 each
  (23 low bits), float16 one uint32 each (10 low bits), float64 two (20 low bits of the
  first above the second);
* normals: Box-Muller over pairs (float32/float16: two uint32s make two floats, computed
  in float32 and rounded to half; float64: four make two), ``u1`` at least 1e-7,
  ``sqrt(-2 log u1) * (sin, cos)(2 pi u2)`` with the C library's ``log``/``sin``/``cos``
  (``libm.py``) as TF calls them;
* truncated normals: output groups (4 values, float64 2) each from its own part of the
  stream (group ``g`` from block ``g * 256``, float64 ``g * 128``), Box-Muller pairs taken
  in order and kept while ``|x| < 2``, until the group is full;
* integers in ``[lo, hi)``: ``lo + bits % (hi - lo)`` (int32 one uint32, int64 two, the
  first the low word), wrapping as TF's; full-range integers: the bits themselves.

A float group (4 values, float64 2) takes one block; an output of ``n`` values takes the
first ``ceil(n / group)`` blocks and drops the tail.  ``StatelessMultinomial`` draws one
double (two uint32s) per sample, row after row, and picks classes as ``Multinomial``
does (``random.py``'s ``draw_classes``; TF splits very large batches across its threads,
each part skipping ahead: such batches draw other values there).
"""

from __future__ import annotations

import sys

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from . import libm
from .philox import (blocks, blocks_at, key_counter_tensors, key_counter_words,
                     seed_key_counter, unit_float64 as _unit_float64)
from .random import drawn_shape, multinomial, multinomial_count

__all__ = ["uniform", "normal", "truncated_normal", "uniform_int", "full_int", "int_bounds",
           "shuffle", "DRAW_NAMES", "V1_OPS", "V2_OPS"]

_PHILOX, _AUTO_SELECT = 1, 3


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _unit_float32(bits: np.ndarray) -> np.ndarray:
    return ((bits & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) \
        - np.float32(1.0)


def _unit_float16(bits: np.ndarray) -> np.ndarray:
    half = ((bits & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return half.view(np.float16) - np.float16(1.0)


def uniform(key, counter, count: int, dtype, blocks=blocks) -> np.ndarray:
    """``count`` uniform values in [0, 1) of float ``dtype``; ``blocks`` makes the
    stream's Philox blocks (the CPU passes its compiled ones)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        b = blocks(key, counter, _ceil_div(count, 2))
        return np.stack([_unit_float64(b[:, 0], b[:, 1]),
                         _unit_float64(b[:, 2], b[:, 3])], axis=1).reshape(-1)[:count]
    bits = blocks(key, counter, _ceil_div(count, 4)).reshape(-1)[:count]
    return _unit_float16(bits) if dtype == np.float16 else _unit_float32(bits)


def _box_muller32(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """TF's ``BoxMullerFloat``: [n, 2] float32 normals of uint32 pairs."""
    u1 = np.maximum(_unit_float32(x0), np.float32(1.0e-7))
    v1 = (2.0 * np.pi * _unit_float32(x1).astype(np.float64)).astype(np.float32)
    u2 = np.sqrt(np.float32(-2.0) * libm.log(u1))
    return np.stack([libm.sin(v1) * u2, libm.cos(v1) * u2], axis=-1)


def _box_muller64(x0, x1, x2, x3) -> np.ndarray:
    """TF's ``BoxMullerDouble``: [n, 2] float64 normals of uint32 quadruples."""
    u1 = np.maximum(_unit_float64(x0, x1), 1.0e-7)
    v1 = 2.0 * np.pi * _unit_float64(x2, x3)
    u2 = np.sqrt(-2.0 * libm.log(u1))
    return np.stack([libm.sin(v1) * u2, libm.cos(v1) * u2], axis=-1)


def _normal_pairs(b: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The normals of blocks ``b`` ([..., 4] uint32), in stream order: float64 two a
    block, float32 (the float16 ones' source) four."""
    if dtype == np.float64:
        return _box_muller64(b[..., 0], b[..., 1], b[..., 2], b[..., 3])
    pairs = b.reshape(b.shape[:-1] + (2, 2))
    return _box_muller32(pairs[..., 0], pairs[..., 1])


def normal(key, counter, count: int, dtype) -> np.ndarray:
    """``count`` standard normal values of float ``dtype``."""
    dtype = np.dtype(dtype)
    per_block = 2 if dtype == np.float64 else 4
    values = _normal_pairs(blocks(key, counter, _ceil_div(count, per_block)), dtype)
    return values.reshape(-1)[:count].astype(dtype)


def truncated_normal(key, counter, count: int, dtype, first_blocks: int | None = None):
    """``count`` standard normal values within (-2, 2), of float ``dtype``.  Each group
    first tries ``first_blocks`` blocks (default 2, float64 3: 8 and 6 candidates, so about
    one group in 10**5 and in 10**6 reads on, one block at a time)."""
    dtype = np.dtype(dtype)
    # per group: its values, its part of the stream (in blocks)
    group, skip = (2, 128) if dtype == np.float64 else (4, 256)
    taken = first_blocks or (3 if dtype == np.float64 else 2)
    groups = _ceil_div(count, group)
    starts = np.arange(groups, dtype=np.uint64) * np.uint64(skip)
    offsets = starts[:, None] + np.arange(taken, dtype=np.uint64)
    candidates = _normal_pairs(blocks_at(key, counter, offsets.reshape(-1)), dtype)
    candidates = candidates.reshape(groups, -1)
    kept = np.abs(candidates) < 2.0
    first = np.argsort(~kept, axis=1, kind="stable")[:, :group]   # the first kept, in order
    out = np.take_along_axis(candidates, first, axis=1)
    for g in np.nonzero(kept.sum(axis=1) < group)[0]:   # rejected many: read on in its part
        row, more = candidates[g], taken
        while np.count_nonzero(np.abs(row) < 2.0) < group:
            block = blocks_at(key, counter, [starts[g] + np.uint64(more)])
            row, more = np.concatenate([row, _normal_pairs(block, dtype).reshape(-1)]), more + 1
        out[g] = row[np.abs(row) < 2.0][:group]
    return out.reshape(-1)[:count].astype(dtype)


def _bits64(b: np.ndarray) -> np.ndarray:
    """Two uint64s a block: the first uint32 of each pair the low word."""
    pairs = b.reshape(-1, 2).astype(np.uint64)
    return pairs[:, 0] | (pairs[:, 1] << np.uint64(32))


def full_int(key, counter, count: int, dtype, blocks=blocks) -> np.ndarray:
    """``count`` integers of ``dtype`` over its whole range (the bits reinterpreted)."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        return _bits64(blocks(key, counter, _ceil_div(count, 2)))[:count].view(dtype)
    return blocks(key, counter, _ceil_div(count, 4)).reshape(-1)[:count].view(dtype)


def uniform_int(key, counter, count: int, dtype, lo, hi, blocks=blocks) -> np.ndarray:
    """``count`` integers in ``[lo, hi)`` (``lo < hi``) of int32/int64 ``dtype``."""
    dtype = np.dtype(dtype)
    unsigned = np.uint64 if dtype.itemsize == 8 else np.uint32
    span = unsigned((int(hi) - int(lo)) & (2 ** (8 * dtype.itemsize) - 1))
    bits = full_int(key, counter, count, unsigned, blocks)
    with np.errstate(over="ignore"):
        return (unsigned(int(lo) & (2 ** (8 * dtype.itemsize) - 1)) + bits % span).view(dtype)


# kind -> the name of its draw here (and in the CPU's ``cpu/philox.py``)
DRAW_NAMES = {"Uniform": "uniform", "Normal": "normal", "TruncatedNormal": "truncated_normal",
              "UniformFullInt": "full_int", "UniformInt": "uniform_int"}
# op type -> the draw; V1 ops take (shape, seed[, minval, maxval]), V2 ops (shape, key,
# counter, alg[, minval, maxval])
V1_OPS = {"StatelessRandomUniform": "Uniform", "StatelessRandomNormal": "Normal",
          "StatelessTruncatedNormal": "TruncatedNormal",
          "StatelessRandomUniformInt": "UniformInt",
          "StatelessRandomUniformFullInt": "UniformFullInt"}
V2_OPS = {"StatelessRandomUniformV2": "Uniform", "StatelessRandomNormalV2": "Normal",
          "StatelessTruncatedNormalV2": "TruncatedNormal",
          "StatelessRandomUniformIntV2": "UniformInt",
          "StatelessRandomUniformFullIntV2": "UniformFullInt"}


def _seed_words(node, seed: np.ndarray):
    if seed.shape != (2,):
        raise invalid_argument(node.name, node.op, f"seed must have shape [2], not "
                               f"{fmt_shape(seed.shape)}")
    return seed_key_counter(int(seed[0]), int(seed[1]))


def _v2_words(node, key: np.ndarray, counter: np.ndarray, alg: np.ndarray):
    """TF's ``GetKeyCounterAlgFromInputs``: the alg a scalar, 1 (Philox) or 3 (auto
    select: Philox on CPUs and GPUs); the key [1], the counter at least two long."""
    if alg.ndim != 0:
        raise invalid_argument(node.name, node.op, f"input 3 (0-based) must have shape [], "
                               f"not {fmt_shape(alg.shape)}")
    if key.shape != (1,):
        raise invalid_argument(node.name, node.op, f"key must have shape [1], not "
                               f"{fmt_shape(key.shape)}. (Note that batched keys are not "
                               f"supported yet.)")
    if counter.ndim != 1 or counter.shape[0] < 2:
        raise invalid_argument(node.name, node.op, f"counter must be a vector with length "
                               f"at least 2; got shape: {fmt_shape(counter.shape)}. (Note "
                               f"that batched counters are not supported yet.)")
    if int(alg) not in (_PHILOX, _AUTO_SELECT):
        raise invalid_argument(node.name, node.op, f"Unsupported algorithm id: {int(alg)}")
    return key_counter_words(key, counter)


def int_bounds(node, minval: np.ndarray, maxval: np.ndarray, count: int):
    """TF's checks of an integer draw's bounds: scalars, and (for a non-empty output)
    ``minval < maxval``."""
    for name, bound in (("minval", minval), ("maxval", maxval)):
        if bound.ndim != 0:
            raise invalid_argument(node.name, node.op, f"{name} must be 0-D, got shape "
                                   f"{fmt_shape(bound.shape)}")
    lo, hi = int(minval), int(maxval)
    if count and lo >= hi:
        raise invalid_argument(node.name, node.op, f"Need minval < maxval, got {lo} >= {hi}")
    return lo, hi


def _draw_kernel(node, words_of, arity: int, draws):
    """A draw of ``node``'s kind: ``words_of(inputs)`` gives the (key, counter) words of
    the ``arity`` inputs after the shape (the seed, or key, counter and alg), checked in
    TF's order: V2 ops the key, counter and alg first; V1 ops their bounds only for a
    non-empty output."""
    draw = getattr(draws, DRAW_NAMES[V1_OPS.get(node.op) or V2_OPS[node.op]])
    dtype = node.output_dtype

    def kernel(shape, *inputs):
        words = words_of(*inputs[:arity]) if arity > 1 else None
        dims = drawn_shape(node, shape)
        count = int(np.prod(dims, dtype=np.int64))
        words = words or words_of(*inputs[:arity])
        bounds = inputs[arity:]
        if bounds and (count or arity > 1):
            bounds = int_bounds(node, *bounds, count)
        if count == 0:
            return np.zeros(dims, dtype)
        return draw(*words, count, dtype, *bounds).reshape(dims)
    return kernel


@register_kernel(tuple(V1_OPS), "REF")
def build_stateless_v1(node, draws=sys.modules[__name__]):
    """``draws``: the module whose draw functions it calls (this one, or the CPU's)."""
    return _draw_kernel(node, lambda seed: _seed_words(node, np.asarray(seed)), 1, draws)


@register_kernel(tuple(V2_OPS), "REF")
def build_stateless_v2(node, draws=sys.modules[__name__]):
    return _draw_kernel(node, lambda key, counter, alg: _v2_words(
        node, np.asarray(key), np.asarray(counter), np.asarray(alg)), 3, draws)


@register_kernel("StatelessRandomGetKeyCounter", HOST)
def build_get_key_counter(node):
    def get_key_counter(seed):
        return key_counter_tensors(*_seed_words(node, np.asarray(seed)))
    return get_key_counter


@register_kernel("StatelessRandomGetKeyCounterAlg", HOST)
def build_get_key_counter_alg(node):
    def get_key_counter_alg(seed):
        return (*key_counter_tensors(*_seed_words(node, np.asarray(seed))),
                np.array(_PHILOX, np.int32))
    return get_key_counter_alg


@register_kernel("StatelessRandomGetAlg", HOST)
def build_get_alg(node):
    return lambda: np.array(_PHILOX, np.int32)     # TF's CPU and GPU choice


@register_kernel("StatelessMultinomial", HOST)
def build_stateless_multinomial(node):
    dtype = node.output_dtype

    def stateless_multinomial(logits, num_samples, seed):
        count = multinomial_count(node, logits, num_samples)
        key, counter = _seed_words(node, np.asarray(seed))
        return multinomial(logits, count, key, counter).astype(dtype, copy=False)
    return stateless_multinomial


def shuffle(value: np.ndarray, key, counter, blocks=blocks) -> np.ndarray:
    """TF's ``RandomShuffle`` (``shuffle_common.h``): a forward Fisher-Yates shuffle of the
    first dimension (at least two rows), swapping row i with row ``i + sample % (size -
    i)`` for the stream's 32-bit samples in order (four to a Philox block)."""
    size = value.shape[0]
    samples = blocks(key, counter, _ceil_div(size - 1, 4)).reshape(-1)
    order = np.arange(size)
    for i, sample in enumerate(samples[:size - 1].tolist()):
        j = i + sample % (size - i)
        order[i], order[j] = order[j], order[i]
    return value[order]


@register_kernel("StatelessShuffle", HOST)
def build_stateless_shuffle(node):
    def stateless_shuffle(value, key, counter, alg):
        key_words, counter_words = _v2_words(node, np.asarray(key), np.asarray(counter),
                                             np.asarray(alg))
        if value.ndim == 0 or value.size <= 1 or value.shape[0] <= 1:
            return value.copy()
        return shuffle(value, key_words, counter_words)
    return stateless_shuffle
