"""The depthwise convolution on the CPU (NHWC): DepthwiseConv2dNative and its two
gradients as direct numba loops.

Conv2D is a matrix product (``nn_conv.py``'s im2col + BLAS) because every output channel
reads every input channel; a depthwise convolution has no such product (each output
channel reads one input channel: a product per channel of a window by ``M`` values),
so packing windows would only copy the input ``KH * KW`` times.  The loops instead read
the input where it is, with the filter seen as ``(KH, KW, C * M)``, whose last axis runs
with the output's channels (``c * M + m``), so the innermost loop walks contiguous
channels of the input, the filter and the output together (a multiplier of 1, the
common case, is one vectorisable loop over ``c``):

* forward: parallel over output rows (image, row), each output element summing its
  window's taps (padding is skipped, not read);
* input gradient: a *gather*, parallel over input rows: each input element sums the
  output gradients of the windows that read it (the taps whose offset lands on it at a
  multiple of the stride), so rows never collide and no atomics are needed;
* filter gradient: a sum over every output position, split into one contiguous block
  of output rows per thread, each adding into its own copy of the filter; the copies
  are summed at the end.

float16 is computed in float32 and rounded once.  Outputs come from a buffer pool (the
loops zero each row they write): a fresh 12.8 MB ``np.zeros`` per call cost more than
the convolution (8x56x56x128, 3x3: 2.5-3.0 -> 1.2 ms a forward pass in a session).  The checks and the geometry are the
reference's (``reference/depthwise.py``'s ``DepthwiseParams`` over ``windows.py``).
"""

from __future__ import annotations

import numpy as np

from ..buffer_pool import BufferPool
from ..checks import to_float16
from ..reference.depthwise import BACKPROP_OPS, DepthwiseParams
from ..registry import register_kernel
from .numba_setup import num_threads
from .reduce import PAR

from numba import njit, prange  # noqa: E402  (after numba_setup, which reduce imports)

__all__ = ["depthwise_forward", "depthwise_input_grad", "depthwise_filter_grad"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


@njit(**PAR)
def depthwise_forward(x, f, g, out):
    """out (N, OH, OW, C*M) from x (N, H, W, C) and f (KH, KW, C*M); ``g`` is
    ``Geometry.numba_args()``; C > 0."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    M = f.shape[2] // C
    for t in prange(x.shape[0] * OH):
        n = t // OH
        oh = t % OH
        for ow in range(OW):
            row = out[n, oh, ow]
            row[:] = 0
            for kh in range(KH):
                ih = oh * SH - PT + kh * DH
                if ih < 0 or ih >= H:
                    continue
                for kw in range(KW):
                    iw = ow * SW - PL + kw * DW
                    if iw < 0 or iw >= W:
                        continue
                    v = x[n, ih, iw]
                    w = f[kh, kw]
                    if M == 1:
                        for c in range(C):
                            row[c] += v[c] * w[c]
                    else:
                        for c in range(C):
                            a = v[c]
                            for m in range(c * M, c * M + M):
                                row[m] += a * w[m]


@njit(**PAR)
def depthwise_input_grad(f, dy, g, dx):
    """dx (N, H, W, C) from f (KH, KW, C*M) and dy (N, OH, OW, C*M); C > 0."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    M = f.shape[2] // C
    for t in prange(dx.shape[0] * H):
        n = t // H
        ih = t % H
        for iw in range(W):
            acc = dx[n, ih, iw]
            acc[:] = 0
            for kh in range(KH):
                th = ih + PT - kh * DH           # = oh * SH for the window that reads ih
                if th < 0 or th % SH != 0 or th // SH >= OH:
                    continue
                oh = th // SH
                for kw in range(KW):
                    tw = iw + PL - kw * DW
                    if tw < 0 or tw % SW != 0 or tw // SW >= OW:
                        continue
                    d = dy[n, oh, tw // SW]
                    w = f[kh, kw]
                    if M == 1:
                        for c in range(C):
                            acc[c] += d[c] * w[c]
                    else:
                        for c in range(C):
                            for m in range(c * M, c * M + M):
                                acc[c] += d[m] * w[m]


@njit(**PAR)
def depthwise_filter_grad(x, dy, g, parts):
    """parts (P, KH, KW, C*M): part p sums the products of its block of output rows
    (image, row); their sum is the filter's gradient.  C > 0."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    M = parts.shape[3] // C
    P = parts.shape[0]
    rows = x.shape[0] * OH
    for p in prange(P):
        part = parts[p]
        part[:] = 0
        for t in range(rows * p // P, rows * (p + 1) // P):
            n = t // OH
            oh = t % OH
            for ow in range(OW):
                d = dy[n, oh, ow]
                for kh in range(KH):
                    ih = oh * SH - PT + kh * DH
                    if ih < 0 or ih >= H:
                        continue
                    for kw in range(KW):
                        iw = ow * SW - PL + kw * DW
                        if iw < 0 or iw >= W:
                            continue
                        v = x[n, ih, iw]
                        acc = part[kh, kw]
                        if M == 1:
                            for c in range(C):
                                acc[c] += v[c] * d[c]
                        else:
                            for c in range(C):
                                a = v[c]
                                for m in range(c * M, c * M + M):
                                    acc[m] += a * d[m]


def _compute(a, widen):
    """``a`` contiguous (float16 widened) and seen read-only: numba compiles a loop once
    per read-only/writeable pattern of its inputs (a Const's value is read-only, a fed
    one is not), so the loops always get read-only views, one compile per dtype."""
    view = np.ascontiguousarray(a, dtype=_F32 if widen else None).view()
    view.flags.writeable = False
    return view


def _taps(f):
    """The filter (KH, KW, C, M) as (KH, KW, C*M)."""
    return f.reshape(f.shape[0], f.shape[1], -1)


@register_kernel("DepthwiseConv2dNative", "CPU")
def build_depthwise(node):
    params = DepthwiseParams(node)
    widen = node.output_dtype == _F16
    pool = BufferPool()        # the loop zeroes each output row it writes

    def kernel(x, f):
        g = params.geometry(x.shape, f.shape)
        x, f = _compute(x, widen), _compute(f, widen)
        out = pool.take(params.output_shape(g, f.shape), x.dtype)
        if out.size:
            depthwise_forward(x, _taps(f), g.numba_args(), out)
        pool.give(out)
        return to_float16(out) if widen else out
    return kernel


@register_kernel(BACKPROP_OPS, "CPU")
def build_depthwise_backprop(node):
    params = DepthwiseParams(node)
    widen = node.output_dtype == _F16
    pool = BufferPool()        # the input gradient's loop zeroes each row it writes

    def kernel(first, second, dy):
        g, shape, operand = params.backprop(first, second, dy)
        operand, dy = _compute(operand, widen), _compute(dy, widen)
        out = pool.take(shape, dy.dtype) if params.grads_input and dy.size else \
            np.zeros(shape, dy.dtype)
        if out.size and dy.size:
            if params.grads_input:
                depthwise_input_grad(_taps(operand), dy, g.numba_args(), out)
                pool.give(out)
            else:
                parts = np.empty((min(num_threads(), g.batch * g.out_h),) + _taps(out).shape,
                                 dy.dtype)
                depthwise_filter_grad(operand, dy, g.numba_args(), parts)
                out = parts.sum(axis=0).reshape(shape)
        return to_float16(out) if widen else out
    return kernel
