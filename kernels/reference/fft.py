"""Kernels of TF's FFT ops (``devsession/ops/fft.py``): numpy's pocketfft over the inner
1, 2 or 3 axes, in the input's precision (complex64 stays complex64).  RFFT crops or
zero-pads each inner axis to ``fft_length``; IRFFT takes the last one's first
``fft_length[-1] // 2 + 1`` values (zeros past the end), as TF's.  A negative length is
TF's InvalidArgumentError; zero lengths give empty outputs.  HOST: the CPU runs these,
and a GPU session places them there, as devsession keeps complex values on the host."""

from __future__ import annotations

import numpy as np

from devsession.ops.fft import FFT_RANKS

from ..checks import invalid_argument
from ..registry import HOST, register_kernel

__all__: list = []


def _axes(rank: int) -> tuple:
    return tuple(range(-rank, 0))


def build_complex_fft(node):
    rank, inverse = FFT_RANKS[node.op], node.op.startswith("I")
    out = np.dtype(node.output_dtype)

    def fft(x):
        if x.size == 0:
            return np.zeros(x.shape, out)
        fn = np.fft.ifftn if inverse else np.fft.fftn
        return np.asarray(fn(x, axes=_axes(rank)), out)
    return fft


def _lengths(node, x, fft_length, rank):
    lengths = [int(n) for n in np.asarray(fft_length).reshape(-1)]
    if len(lengths) != rank:
        raise invalid_argument(node.name, node.op, f"fft_length must have {rank} "
                               f"element(s), got {len(lengths)}")
    if any(n < 0 for n in lengths):
        raise invalid_argument(node.name, node.op, f"fft_length must be non-negative, got "
                               f"{lengths}")
    if x.ndim < rank:
        raise invalid_argument(node.name, node.op, f"Input must have rank of at least "
                               f"{rank} but got: {x.ndim}")
    return lengths


def _fit(x, shape):
    """``x``'s inner axes cropped or zero-padded to ``shape``."""
    rank = len(shape)
    out = np.zeros(x.shape[:x.ndim - rank] + tuple(shape), x.dtype)
    keep = tuple(slice(0, min(a, b)) for a, b in zip(x.shape[x.ndim - rank:], shape))
    out[(Ellipsis,) + keep] = x[(Ellipsis,) + keep]
    return out


def build_real_fft(node):
    rank, inverse = FFT_RANKS[node.op], node.op.startswith("I")
    out = np.dtype(node.output_dtype)

    def rfft(x, fft_length):
        lengths = _lengths(node, x, fft_length, rank)
        if inverse:
            spectrum = lengths[:-1] + [lengths[-1] // 2 + 1]
            x = _fit(x, spectrum)
            if 0 in lengths or x.size == 0:
                return np.zeros(x.shape[:x.ndim - rank] + tuple(lengths), out)
            return np.asarray(np.fft.irfftn(x, s=lengths, axes=_axes(rank)), out)
        x = _fit(x, lengths)
        spectrum = lengths[:-1] + [lengths[-1] // 2 + 1]
        if 0 in lengths or x.size == 0:
            return np.zeros(x.shape[:x.ndim - rank] + tuple(spectrum), out)
        return np.asarray(np.fft.rfftn(x, axes=_axes(rank)), out)
    return rfft


for _op in FFT_RANKS:
    register_kernel(_op, HOST)(build_real_fft if "RFFT" in _op else build_complex_fft)
