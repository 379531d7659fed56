"""Convolutions on ``register_gemm``'s kernels with the packing in the same loop: each
task packs one image's windows into its own buffer and multiplies it while it is in L2.

Why: ``nn_conv``'s chunked path packs up to 16 MB of windows (im2col) in one parallel
loop and multiplies them in another, so the packed matrix goes out to memory and comes
back (the Deep MNIST layer 2 packs 40 MB a step, three times: forward, and both
gradients).  An image's windows are 627 KB there, and stay in the task's L2 between its
packing and its product; one parallel loop per op instead of two per chunk.

* forward: ``out[n] = windows(x[n]) @ filter``;
* input gradient: ``windows = dy[n] @ filter.T``, then col2im of that image's rows;
* filter gradient: each task adds ``windows(x[n]).T @ dy[n]`` over its images into its
  own partial sum; the partial sums are added at the end.

With stride and dilation 1 (``direct``), the forward and input-gradient products read
their windows where they lie instead: in a zero-padded copy of the image, the row ``kh``
of the windows of output row ``oh`` is a matrix whose rows (the output columns) are
``C`` floats apart and whose ``KW * C`` columns are contiguous, which is what a tile
reads.  So ``out[n, oh] = sum over kh of that @ filter[kh]``, ``KH`` products
accumulating into the output row, and no windows are packed (Deep MNIST layer 2: the
forward 6.1 -> 5.75 ms, the input gradient, a convolution of the padded ``dy`` with the
flipped filter, 6.65 -> 6.07 ms, no col2im).  The filter gradient keeps the packed
windows: read directly, its products would be only ``OW`` long.

Used for float32 when ``register_gemm`` is (``nn_conv`` decides); the chunked path
stays for everything else.
"""

from __future__ import annotations

import numpy as np

from . import register_gemm
from .im2col import col2im_row, copy_bytes, pack_tap, pack_window
from .reduce import JIT, PAR

from numba import get_num_threads, njit, prange  # noqa: E402  (after numba_setup)

__all__ = ["usable", "forward", "input_grad", "filter_grad", "direct"]

_F32 = np.dtype(np.float32)
DIRECT_MIN_RUN = 64     # floats in a window row (KW * channels): shorter, and the tiles'
                        # KH passes over each output row cost more than packing saves


def usable(*arrays) -> bool:
    return register_gemm.usable() and all(a.dtype == _F32 for a in arrays)


def direct(g, channels: int) -> bool:
    """Whether windows of ``channels`` channels are read in place (stride and dilation
    1, rows long enough)."""
    return (g.stride_h == g.stride_w == g.dil_h == g.dil_w == 1
            and g.k_w * channels >= DIRECT_MIN_RUN)


def forward(x, f, g, out, by_columns: bool) -> None:
    """out (N, OH, OW, O) = Conv2D of contiguous x (N, H, W, C) with f (KH, KW, C, O)."""
    if direct(g, g.channels):
        _forward_direct(register_gemm.tile_address(), x.reshape(g.batch, g.in_h, -1),
                        g.numba_args(), np.ascontiguousarray(f.reshape(-1, f.shape[3])),
                        out.reshape(g.batch, -1), _tasks(g.batch))
        return
    _forward(register_gemm.tile_address(), x.reshape(g.batch, g.in_h, -1), g.numba_args(),
             np.ascontiguousarray(f.reshape(-1, f.shape[3])), out.reshape(g.batch, -1),
             by_columns, _tasks(g.batch))


def input_grad(f, dy, g) -> np.ndarray:
    """The gradient of Conv2D with respect to its input, (N, H, W, C)."""
    dx = np.empty((g.batch, g.in_h, g.in_w * g.channels), _F32)
    out_channels = f.shape[3]
    if direct(g, out_channels):       # dy convolved with the filter turned half a turn
        flipped = np.ascontiguousarray(f[::-1, ::-1].transpose(0, 1, 3, 2)).reshape(
            g.k_h, g.k_w * out_channels, g.channels)
        _input_grad_direct(register_gemm.tile_address(),
                           np.ascontiguousarray(dy).reshape(g.batch, g.out_h, -1),
                           g.numba_args(), flipped, dx, _tasks(g.batch))
        return dx.reshape(g.batch, g.in_h, g.in_w, g.channels)
    _input_grad(register_gemm.tile_address(), np.ascontiguousarray(dy).reshape(g.batch, -1),
                g.numba_args(), np.ascontiguousarray(f.reshape(-1, f.shape[3]).T), dx,
                _tasks(g.batch))
    return dx.reshape(g.batch, g.in_h, g.in_w, g.channels)


def filter_grad(x, dy, g, by_columns: bool) -> np.ndarray:
    """The gradient of Conv2D with respect to its filter, (KH, KW, C, O)."""
    out_channels = dy.shape[3]
    tasks = _tasks(g.batch)
    partials = np.empty((tasks, g.window * g.channels, out_channels), _F32)
    _filter_grad(register_gemm.tile_address(), x.reshape(g.batch, g.in_h, -1), g.numba_args(),
                 np.ascontiguousarray(dy).reshape(g.batch, -1), partials, by_columns)
    return partials.sum(axis=0).reshape(g.k_h, g.k_w, g.channels, out_channels)


def _tasks(batch: int) -> int:
    """One task per thread: each packs into one buffer, reused image after image."""
    return max(1, min(batch, get_num_threads()))


@njit(**JIT)
def _pack(x, g, n, cols, by_columns):
    """Image ``n``'s windows into ``cols``: (windows, KH*KW*C) rows, or with
    ``by_columns`` its transpose (few channels: rows of whole output rows)."""
    if by_columns:
        for tap in range(g[3] * g[4]):
            pack_tap(x, g, tap, n, cols, 0)
    else:
        for w in range(g[11] * g[12]):
            pack_window(x, g, n, w // g[12], w % g[12], cols[w])


@njit(**JIT)
def _images(task, tasks, batch):
    return task * batch // tasks, (task + 1) * batch // tasks


@njit(**PAR)
def _forward(tile, x, g, weights, out, by_columns, tasks):
    windows, width = g[11] * g[12], weights.shape[0]
    outputs = weights.shape[1]
    for task in prange(tasks):
        shape = (width, windows) if by_columns else (windows, width)
        cols = np.empty(shape, np.float32)
        rows, columns = (1, windows) if by_columns else (width, 1)    # A = cols (or .T)
        first, last = _images(task, tasks, x.shape[0])
        for n in range(first, last):
            _pack(x, g, n, cols, by_columns)
            register_gemm.multiply(tile, cols.ctypes.data, rows, columns,
                                   weights.ctypes.data, outputs, out[n].ctypes.data, outputs,
                                   windows, outputs, width, np.float32(1.0), 0)


@njit(**PAR)
def _input_grad(tile, dy, g, weights_t, dx, tasks):
    windows, width = g[11] * g[12], weights_t.shape[1]
    outputs = weights_t.shape[0]
    for task in prange(tasks):
        cols = np.empty((windows, width), np.float32)
        first, last = _images(task, tasks, dx.shape[0])
        for n in range(first, last):
            register_gemm.multiply(tile, dy[n].ctypes.data, outputs, 1, weights_t.ctypes.data,
                                   width, cols.ctypes.data, width, windows, width, outputs,
                                   np.float32(1.0), 0)
            for ih in range(g[0]):
                col2im_row(cols, g, 0, ih, dx[n, ih])


@njit(**PAR)
def _filter_grad(tile, x, g, dy, partials, by_columns):
    tasks, width, outputs = partials.shape
    windows = g[11] * g[12]
    for task in prange(tasks):
        shape = (width, windows) if by_columns else (windows, width)
        cols = np.empty(shape, np.float32)
        rows, columns = (windows, 1) if by_columns else (1, width)    # A = cols.T
        first, last = _images(task, tasks, x.shape[0])
        if first == last:
            partials[task] = 0
        for n in range(first, last):
            _pack(x, g, n, cols, by_columns)
            register_gemm.multiply(tile, cols.ctypes.data, rows, columns, dy[n].ctypes.data,
                                   outputs, partials[task].ctypes.data, outputs, width,
                                   outputs, windows, np.float32(1.0), 0 if n == first else 1)


@njit(**PAR)
def _forward_direct(tile, x, g, weights, out, tasks):
    """``forward`` from a zero-padded copy of each image: rows ``kh * KW * C`` on of
    ``weights`` are the filter's row kh, a matrix of ``KW * C`` rows."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    outputs = weights.shape[1]
    run = KW * C
    width = OW + KW - 1                                  # the padded image's
    for task in prange(tasks):
        padded = np.zeros((OH + KH - 1, width * C), np.float32)   # the margins stay 0
        first, last = _images(task, tasks, x.shape[0])
        for n in range(first, last):
            for ih in range(H):
                copy_bytes(padded[ih + PT].ctypes.data + 4 * PL * C,
                           x[n, ih].ctypes.data, 4 * W * C)
            for oh in range(OH):
                for kh in range(KH):
                    register_gemm.multiply(
                        tile, padded[oh + kh].ctypes.data, C, 1,
                        weights.ctypes.data + 4 * kh * run * outputs, outputs,
                        out[n].ctypes.data + 4 * oh * OW * outputs, outputs, OW, outputs, run,
                        np.float32(1.0), 0 if kh == 0 else 1)


@njit(**PAR)
def _input_grad_direct(tile, dy, g, flipped, dx, tasks):
    """``input_grad`` as the convolution of ``dy``, padded by the filter's size less the
    forward padding, with ``flipped`` (KH, KW * O, C): ``f[KH-1-kh, KW-1-kw, c, o]`` at
    ``[kh, kw * O + o, c]``."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    outputs = dy.shape[2] // OW
    run = KW * outputs
    top, left, width = KH - 1 - PT, KW - 1 - PL, W + KW - 1
    for task in prange(tasks):
        padded = np.zeros((H + KH - 1, width * outputs), np.float32)
        first, last = _images(task, tasks, dy.shape[0])
        for n in range(first, last):
            for oh in range(OH):
                copy_bytes(padded[oh + top].ctypes.data + 4 * left * outputs,
                           dy[n, oh].ctypes.data, 4 * OW * outputs)
            for ih in range(H):
                for kh in range(KH):
                    register_gemm.multiply(
                        tile, padded[ih + kh].ctypes.data, outputs, 1, flipped[kh].ctypes.data,
                        C, dx[n, ih].ctypes.data, C, W, C, run, np.float32(1.0),
                        0 if kh == 0 else 1)
