"""The kernels of FractionalMaxPool, FractionalAvgPool and their gradient ops
(``devsession/ops/nn_fractional_pool.py``), on the host.

The pooling sequences are TF's ``fractional_pool_common.cc`` drawn from TF's
``GuardedPhiloxRandom``: Philox keyed by ``seed`` (its low and high words) with
``seed2`` as the counter's upper half; each sequence reserves its 32-bit samples in
blocks of four (``ReserveSamples32``: a copy of the generator, which then skips those
blocks) and reads them one at a time (``SingleSampleAdapter``).  The random sequence
shuffles the region sizes with ``sample % n``; the pseudo-random one takes ``u`` from
two samples as TF's ``Uint64ToDouble`` (20 + 32 mantissa bits).
"""

from __future__ import annotations

import os

import numpy as np

from ...errors import UnimplementedError

from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from .philox import blocks_at

__all__ = ["PhiloxGenerator", "pooling_sequence"]

_M32 = 0xFFFFFFFF


class PhiloxGenerator:
    """TF's ``GuardedPhiloxRandom`` for one node: ``reserve(n)`` gives a reader of ``n``
    32-bit samples and moves past them."""

    def __init__(self, seed: int, seed2: int):
        if seed == 0 and seed2 == 0:          # TF draws fresh seeds
            seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        seed, seed2 = seed & ((1 << 64) - 1), seed2 & ((1 << 64) - 1)
        self._key = (seed & _M32, seed >> 32)
        self._counter = (0, 0, seed2 & _M32, seed2 >> 32)
        self._block = 0

    def reserve(self, samples: int):
        start = self._block
        self._block += (samples + 3) // 4
        buffer: list = []

        def next_sample() -> int:
            nonlocal start
            if not buffer:
                buffer.extend(int(v) for v in blocks_at(self._key, self._counter, [start])[0])
                start += 1
            return buffer.pop(0)
        return next_sample


def _uint64_to_double(x0: int, x1: int) -> float:
    bits = (1023 << 52) | ((x0 & 0xFFFFF) << 32) | x1
    return float(np.array([bits], np.uint64).view(np.float64)[0]) - 1.0


def pooling_sequence(n_in: int, n_out: int, generator: PhiloxGenerator,
                     pseudo_random: bool) -> np.ndarray:
    """The ``n_out + 1`` int64 region boundaries of ``n_in`` cells (TF's
    ``GeneratePoolingSequence``)."""
    if pseudo_random:
        alpha = n_in / n_out
        k = n_in // n_out
        max_u = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        sample = generator.reserve(2)
        u = _uint64_to_double(sample(), sample()) * max_u
        cum = [1] + [int(np.ceil(alpha * (i + u))) for i in range(1, n_out)] + [n_in + 1]
        diff = np.diff(cum)
    else:
        k = n_in // n_out
        diff = np.full(n_out, k, np.int64)
        diff[:n_in % n_out] += 1
        sample = generator.reserve(n_out)
        for i in range(n_out - 1):                     # TF's RandomShuffle
            j = i + sample() % (n_out - i)
            diff[i], diff[j] = diff[j], diff[i]
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _regions(sequence, size: int, overlapping: bool) -> list:
    """``(start, stop)`` (exclusive) of each region of a sequence, clipped to ``size``."""
    return [(int(a), min(int(b) + (1 if overlapping else 0), size))
            for a, b in zip(sequence[:-1], sequence[1:])]


def _output_size(node, x_shape, ratios, what: str) -> list:
    if x_shape.__len__() != 4:
        raise invalid_argument(node.name, node.op, "tensor_in must be 4-dimensional")
    if ratios[0] != 1 or ratios[3] != 1:
        raise UnimplementedError(f"Fractional {what} pooling is not yet supported on the "
                                 f"batch nor channel dimension.", node_name=node.name)
    from ...ops.nn_fractional_pool import pooled_size

    out = []
    for i, (d, r) in enumerate(zip(x_shape, ratios)):
        size = pooled_size(d, r)
        if size <= 0:
            raise invalid_argument(node.name, node.op, f"Pooling ratio is higher than input "
                                   f"dimension size for dimension {i}. Input dim size: {d} "
                                   f"pooling ratio: {r:g}")
        out.append(size)
    return out


def _pool_builder(op_type: str, reduce):
    what = "max" if op_type == "FractionalMaxPool" else "average"

    @register_kernel(op_type, HOST)
    def build(node):
        attrs = node.attrs
        ratios = [float(r) for r in attrs["pooling_ratio"]]
        pseudo, overlapping = bool(attrs.get("pseudo_random")), bool(attrs.get("overlapping"))
        seeds = int(attrs.get("seed", 0)), int(attrs.get("seed2", 0))
        if what == "max" and any(seeds) and not attrs.get("deterministic"):   # TF's check
            raise invalid_argument(node.name, node.op, "Both seed and seed2 should be 0 if "
                                   "deterministic is false.")
        generator = PhiloxGenerator(*seeds)
        kept: list = []                       # the first sequences, when deterministic

        def fractional_pool(x):
            out = _output_size(node, x.shape, ratios, what)
            if kept:
                rows, cols = kept
            else:
                rows = pooling_sequence(x.shape[1], out[1], generator, pseudo)
                cols = pooling_sequence(x.shape[2], out[2], generator, pseudo)
                if attrs.get("deterministic"):
                    kept.extend([rows, cols])
            y = np.empty(out, x.dtype)
            for i, (r0, r1) in enumerate(_regions(rows, x.shape[1], overlapping)):
                for j, (c0, c1) in enumerate(_regions(cols, x.shape[2], overlapping)):
                    y[:, i, j] = reduce(x[:, r0:r1, c0:c1])
            return y, rows.copy(), cols.copy()
        return fractional_pool
    return build


def _average(region):
    total = region.sum(axis=(1, 2), dtype=region.dtype)
    count = region.shape[1] * region.shape[2]
    if region.dtype.kind in "iu":                  # C++'s division: toward zero
        return np.sign(total) * (np.abs(total) // count)
    return total / region.dtype.type(count)


_pool_builder("FractionalMaxPool", lambda region: region.max(axis=(1, 2)))
_pool_builder("FractionalAvgPool", _average)


@register_kernel("FractionalMaxPoolGrad", HOST)
def build_fractional_max_pool_grad(node):
    overlapping = bool(node.attrs.get("overlapping"))

    def fractional_max_pool_grad(x, y, dy, rows, cols):
        dx = np.zeros_like(x)
        batch, depth = np.arange(x.shape[0])[:, None], np.arange(x.shape[3])[None, :]
        for i, (r0, r1) in enumerate(_regions(rows, x.shape[1], overlapping)):
            for j, (c0, c1) in enumerate(_regions(cols, x.shape[2], overlapping)):
                region = x[:, r0:r1, c0:c1].reshape(x.shape[0], -1, x.shape[3])
                first = region.argmax(axis=1)             # the first maximum, row-major
                r, c = r0 + first // (c1 - c0), c0 + first % (c1 - c0)
                np.add.at(dx, (batch, r, c, depth), dy[:, i, j])
        return dx
    return fractional_max_pool_grad


@register_kernel("FractionalAvgPoolGrad", HOST)
def build_fractional_avg_pool_grad(node):
    overlapping = bool(node.attrs.get("overlapping"))

    def fractional_avg_pool_grad(shape, dy, rows, cols):
        shape = [int(d) for d in np.asarray(shape).reshape(-1)]
        if len(shape) != 4:
            raise invalid_argument(node.name, node.op, "original input tensor shape must "
                                   "be1-dimensional and 4 elements")
        dx = np.zeros(shape, np.float64)
        for i, (r0, r1) in enumerate(_regions(rows, shape[1], overlapping)):
            for j, (c0, c1) in enumerate(_regions(cols, shape[2], overlapping)):
                cell = (r1 - r0) * (c1 - c0)
                dx[:, r0:r1, c0:c1] += (dy[:, i, j].astype(np.float64) / cell)[:, None, None]
        return dx.astype(dy.dtype)
    return fractional_avg_pool_grad
