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

With stride and dilation 1 (``direct``), the products read the windows where they lie
instead, and nothing is packed: in a zero-padded copy of the image, the row ``kh`` of
the windows of output row ``oh`` is a matrix whose rows (the output columns) are ``C``
floats apart and whose ``KW * C`` columns are contiguous, which is what a tile reads.
``register_gemm.multiply_runs`` sums such products over kh (runs of k, ``KH * KW * C``
in all) with the tile in registers:

* forward: ``out[n, oh] = sum over kh of windows(oh, kh) @ filter[kh]``;
* input gradient: the same, of the padded ``dy`` with the filter turned half a turn
  (with at least 16 input channels, a tile's width; no col2im);
* filter gradient: ``filter[kh] += windows(kh).T @ dy[n]``, k running over the output
  positions, OW along a row and OH rows.

Deep MNIST, layer 2 (forward, input and filter gradients): 6.1, 6.65, 6.2 ms packed,
5.7, 6.1, 5.8 ms direct; layer 1's forward and filter gradient 0.57 -> 0.43, 0.38 ms.

B (the filter, or dy for the filter gradient) is read in blocks of at most
``L1_BLOCK`` bytes, each by every tile of the image before the next (the tiles add into
C): a tile reading all of layer 2's 200 KB filter streamed it from L2, which a core with
two FMA units outruns (on an Intel Xeon with AVX-512, interleaved in one process: 5.25,
5.06, 4.64 ms whole; 4.59, 4.67, 4.23 ms in blocks).

B (the filter, or dy for the filter gradient) starts on a cache line
(``buffer_pool.aligned``: copied if it does not), so no vector a tile loads straddles
two (layer 2's forward 4.2 -> 3.8 ms, its filter gradient 4.15 -> 3.9).

Used for float32 when ``register_gemm`` is (``nn_conv`` decides); the chunked path
stays for everything else.
"""

from __future__ import annotations

import numpy as np

from ..buffer_pool import aligned
from . import register_gemm
from .im2col import col2im_row, copy_bytes, pack_tap, pack_window
from .reduce import JIT, PAR

from numba import get_num_threads, njit, prange  # noqa: E402  (after numba_setup)

__all__ = ["usable", "forward", "input_grad", "filter_grad", "direct", "add_bias"]

_F32 = np.dtype(np.float32)
L1_BLOCK = 40 << 10     # bytes of B (the filter's rows, or dy's) every tile of an image
                        # reads before moving on: they stay in L1 (48 KB here), where
                        # reading all of B per tile streamed it from L2 (10-14% slower)


def usable(*arrays) -> bool:
    return register_gemm.usable() and all(a.dtype == _F32 for a in arrays)


def direct(g) -> bool:
    """Whether the windows are read in place (stride and dilation 1)."""
    return g.stride_h == g.stride_w == g.dil_h == g.dil_w == 1


def _within_window(g) -> bool:
    """Whether each padding is at most the window less one (always so for SAME): the
    direct input gradient pads ``dy`` by the window less the forward padding.  Larger
    EXPLICIT paddings take the packed path."""
    return max(g.pad_top, g.pad_bottom) < g.k_h and max(g.pad_left, g.pad_right) < g.k_w


def forward(x, f, g, out, by_columns: bool, bias=None, relu: bool = False) -> None:
    """out (N, OH, OW, O) = Conv2D of contiguous x (N, H, W, C) with f (KH, KW, C, O),
    plus ``bias`` (O,) and clipped at 0 with ``relu``, each image's (or row's) while it
    is in cache (``optimizer/bias_folds.py``)."""
    bias = np.empty(0, _F32) if bias is None else np.ascontiguousarray(bias, _F32)
    weights = aligned(f.reshape(-1, f.shape[3]))
    if direct(g):
        _forward_direct(register_gemm.tiles_address(), x.reshape(g.batch, g.in_h, -1),
                        g.numba_args(), weights, out.reshape(g.batch, -1), _tasks(g.batch),
                        bias, relu)
        return
    _forward(register_gemm.tile_address(), x.reshape(g.batch, g.in_h, -1), g.numba_args(),
             weights, out.reshape(g.batch, -1), by_columns, _tasks(g.batch), bias, relu)


def input_grad(f, dy, g, dx) -> None:
    """The gradient of Conv2D with respect to its input into ``dx`` (N, H, W * C),
    every element written."""
    out_channels = f.shape[3]
    if direct(g) and g.channels >= register_gemm.LANES and _within_window(g):
        # dy convolved with the filter turned half a turn
        flipped = aligned(f[::-1, ::-1].transpose(0, 1, 3, 2)).reshape(
            g.k_h, g.k_w * out_channels, g.channels)
        _input_grad_direct(register_gemm.tiles_address(),
                           np.ascontiguousarray(dy).reshape(g.batch, g.out_h, -1),
                           g.numba_args(), flipped, dx, _tasks(g.batch))
        return
    _input_grad(register_gemm.tile_address(), np.ascontiguousarray(dy).reshape(g.batch, -1),
                g.numba_args(), aligned(f.reshape(-1, f.shape[3]).T), dx, _tasks(g.batch))


def filter_grad(x, dy, g, by_columns: bool) -> np.ndarray:
    """The gradient of Conv2D with respect to its filter, (KH, KW, C, O)."""
    out_channels = dy.shape[3]
    tasks = _tasks(g.batch)
    partials = np.empty((tasks, g.window * g.channels, out_channels), _F32)
    if direct(g):
        _filter_grad_direct(register_gemm.tiles_address(), x.reshape(g.batch, g.in_h, -1),
                            g.numba_args(), aligned(dy).reshape(g.batch, g.out_h, -1),
                            partials)
        return partials.sum(axis=0).reshape(g.k_h, g.k_w, g.channels, out_channels)
    _filter_grad(register_gemm.tile_address(), x.reshape(g.batch, g.in_h, -1), g.numba_args(),
                 aligned(dy).reshape(g.batch, -1), partials, by_columns)
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


@njit(**JIT)
def _blocks(count, size):
    """(first, how many) of ``count`` runs of ``size`` bytes, in as few blocks of at
    most ``L1_BLOCK`` bytes as there can be (at least a run each), shared evenly."""
    blocks = -(-count // max(1, L1_BLOCK // size))
    return [(b * count // blocks, (b + 1) * count // blocks - b * count // blocks)
            for b in range(blocks)]


@njit(**JIT)
def add_bias(out, first, count, bias, relu):
    """``count`` values of ``out`` from ``first``, rows of ``len(bias)``: plus the bias,
    and with ``relu`` negatives become 0 (NaN stays, as Relu's maximum keeps it).  A
    row slice and the test outside the loops: so the loop over channels vectorises (5x
    faster than indexing ``out`` from ``j + o``)."""
    channels = bias.shape[0]
    if channels == 0:
        return
    for j in range(first, first + count, channels):
        row = out[j:j + channels]
        if relu:
            for o in range(channels):
                v = row[o] + bias[o]
                row[o] = v if not v < 0 else 0
        else:
            for o in range(channels):
                row[o] += bias[o]


@njit(**PAR)
def _forward(tile, x, g, weights, out, by_columns, tasks, bias, relu):
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
            add_bias(out[n], 0, windows * outputs, bias, relu)


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


@njit(**JIT)
def _pad_into(padded, image, top, left):
    """The rows of ``image`` into ``padded`` from row ``top`` and float ``left`` on; the
    margins keep their zeros."""
    for r in range(image.shape[0]):
        copy_bytes(padded[r + top].ctypes.data + 4 * left, image[r].ctypes.data,
                   4 * image.shape[1])


@njit(**PAR)
def _forward_direct(tiles, x, g, weights, out, tasks, bias, relu):
    """``forward`` from a zero-padded copy of each image: output row oh is the sum over
    kh of (padded row oh + kh's windows) @ (the filter's row kh), ``multiply_runs``
    over a block of the KH runs at a time; ``weights`` is the filter as (KH * KW * C, O);
    the bias and ReLU once the image's sums are whole."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    outputs = weights.shape[1]
    run, width = KW * C, OW + KW - 1                     # width: the padded image's
    for task in prange(tasks):
        padded = np.zeros((OH + KH - 1, width * C), np.float32)   # the margins stay 0
        first, last = _images(task, tasks, x.shape[0])
        for n in range(first, last):
            _pad_into(padded, x[n], PT, PL * C)
            for kh, runs in _blocks(KH, 4 * run * outputs):
                for oh in range(OH):
                    register_gemm.multiply_runs(
                        tiles, padded[oh + kh].ctypes.data, C, 1, width * C,
                        weights.ctypes.data + 4 * kh * run * outputs, outputs, run * outputs,
                        out[n].ctypes.data + 4 * oh * OW * outputs, outputs, OW, outputs, run,
                        runs, np.float32(1.0), 0 if kh == 0 else 1)
            add_bias(out[n], 0, OH * OW * outputs, bias, relu)


@njit(**PAR)
def _input_grad_direct(tiles, dy, g, flipped, dx, tasks):
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
            _pad_into(padded, dy[n], top, left * outputs)
            for kh, runs in _blocks(KH, 4 * run * C):
                for ih in range(H):
                    register_gemm.multiply_runs(
                        tiles, padded[ih + kh].ctypes.data, outputs, 1, width * outputs,
                        flipped.ctypes.data + 4 * kh * run * C, C, run * C,
                        dx[n, ih].ctypes.data, C, W, C, run, runs, np.float32(1.0),
                        0 if kh == 0 else 1)


@njit(**PAR)
def _filter_grad_direct(tiles, x, g, dy, partials):
    """``filter_grad`` from a zero-padded copy of each image: the filter's row kh, as a
    (KW * C, O) matrix, gains (the windows' row kh).T @ dy[n], k running over the output
    positions: OW along a padded row, OH rows (``multiply_runs``'s runs)."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    tasks, _, outputs = partials.shape
    run, width = KW * C, OW + KW - 1
    for task in prange(tasks):
        padded = np.zeros((OH + KH - 1, width * C), np.float32)
        first, last = _images(task, tasks, x.shape[0])
        if first == last:
            partials[task] = 0
        for n in range(first, last):
            _pad_into(padded, x[n], PT, PL * C)
            for oh, rows in _blocks(OH, 4 * OW * outputs):
                for kh in range(KH):
                    register_gemm.multiply_runs(
                        tiles, padded[oh + kh].ctypes.data, 1, C, width * C,
                        dy[n].ctypes.data + 4 * oh * OW * outputs, outputs, OW * outputs,
                        partials[task].ctypes.data + 4 * kh * run * outputs, outputs, run,
                        outputs, OW, rows, np.float32(1.0), 0 if n == first and oh == 0 else 1)
