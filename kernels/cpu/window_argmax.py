"""MaxPoolWithArgmax, Dilation2D and their gradients on the CPU: numba loops with the
reference's rule (TF's CPU loop: per window, the taps inside the input in row-major
order; MaxPoolWithArgmax takes the first tap and then any strictly larger one,
Dilation2D any ``input + filter`` strictly above the running maximum, starting from the
dtype's lowest, with TF's default positions where nothing beats it).  The forward
loops and the input gradients run parallel over images (an image's writes stay in that
image); a MaxPoolGradWithArgmax whose indices include the batch, and the filter
gradient, scatter in one serial loop.  MaxPoolGradGradWithArgmax is a numpy gather.
float16 is computed in float32 and rounded once (exact for the comparisons; a
Dilation2D sum that rounds to a tie in float16 may pick a later tap than TF's).
"""

from __future__ import annotations

import numpy as np

from ..checks import to_float16
from ..registry import register_kernel
from ..window_argmax import ArgmaxPoolParams, DilationParams, argmax_dtype, argmax_gather
from ..windows import lowest
from .reduce import JIT, PAR

from numba import njit, prange  # noqa: E402  (after numba_setup, which reduce imports)

__all__ = ["build_max_pool_with_argmax", "build_dilation2d"]

_F16 = np.dtype(np.float16)


def _compute(a, widen: bool):
    return a.astype(np.float32) if widen else a


@njit(**PAR)
def _argmax_pool(x, g, include_batch, out, argmax):
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    for n in prange(x.shape[0]):
        base = n * H * W * C if include_batch else 0
        for oh in range(OH):
            for ow in range(OW):
                for c in range(C):
                    best = x[n, 0, 0, c]
                    at = -1
                    for i in range(KH):
                        ih = oh * SH - PT + i
                        if ih < 0 or ih >= H:
                            continue
                        for j in range(KW):
                            iw = ow * SW - PL + j
                            if iw < 0 or iw >= W:
                                continue
                            v = x[n, ih, iw, c]
                            if at < 0 or v > best:
                                best = v
                                at = base + (ih * W + iw) * C + c
                    out[n, oh, ow, c] = best
                    argmax[n, oh, ow, c] = at


@njit(**JIT)
def _scatter(dy, index, size):
    dx = np.zeros(size, dy.dtype)
    flat_dy, flat_index = dy.reshape(-1), index.reshape(-1)
    for k in range(flat_index.shape[0]):
        dx[flat_index[k]] += flat_dy[k]
    return dx


@register_kernel("MaxPoolWithArgmax", "CPU")
def build_max_pool_with_argmax(node):
    params = ArgmaxPoolParams(node)
    widen = node.output_dtype == _F16
    index_dtype = argmax_dtype(node)

    def kernel(x):
        g = params.geometry(x.shape)
        xc = _compute(x, widen)
        out = np.empty(params.output_shape(g), xc.dtype)
        argmax = np.empty(out.shape, np.int64)
        if out.size:
            _argmax_pool(xc, g.numba_args(), params.include_batch, out, argmax)
        return (to_float16(out) if widen else out), argmax.astype(index_dtype, copy=False)
    return kernel


def _global_positions(params, g, argmax):
    index = argmax.astype(np.int64)
    if not params.include_batch:
        index = index + (np.arange(g.batch, dtype=np.int64) * g.in_h * g.in_w * g.channels
                         ).reshape(-1, 1, 1, 1)
    params.check_indices(index, g.batch * g.in_h * g.in_w * g.channels)
    return index


@register_kernel("MaxPoolGradWithArgmax", "CPU")
def build_max_pool_grad_with_argmax(node):
    params = ArgmaxPoolParams(node)
    widen = node.output_dtype == _F16

    def kernel(x, grad, argmax):
        g = params.grad_geometry(x, grad, argmax)
        index = _global_positions(params, g, argmax)
        dx = _scatter(np.ascontiguousarray(_compute(grad, widen)), index, x.size)
        dx = dx.reshape(x.shape)
        return to_float16(dx) if widen else dx
    return kernel


@register_kernel("MaxPoolGradGradWithArgmax", "CPU")
def build_max_pool_grad_grad_with_argmax(node):
    """Second derivatives only: ``window_argmax.py``'s numpy gather (no numba loop)."""
    params = ArgmaxPoolParams(node)

    def kernel(x, grad, argmax):
        g = params.grad_geometry(x, grad, argmax)
        return argmax_gather(np, g, grad, argmax, params.include_batch, params)
    return kernel


@njit(**PAR)
def _dilation(x, f, g, floor, out, rows, cols, taps):
    """out = max(x + f) over each window's taps inside; rows/cols/taps where it was."""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    for n in prange(x.shape[0]):
        for oh in range(OH):
            top = oh * SH - PT
            for ow in range(OW):
                left = ow * SW - PL
                for c in range(C):
                    best = floor
                    row, col, tap = max(top, 0), max(left, 0), 0
                    for i in range(KH):
                        ih = top + i * DH
                        if ih < 0 or ih >= H:
                            continue
                        for j in range(KW):
                            iw = left + j * DW
                            if iw < 0 or iw >= W:
                                continue
                            v = x[n, ih, iw, c] + f[i, j, c]
                            if v > best:
                                best, row, col, tap = v, ih, iw, i * KW + j
                    out[n, oh, ow, c] = best
                    rows[n, oh, ow, c] = row
                    cols[n, oh, ow, c] = col
                    taps[n, oh, ow, c] = tap


@njit(**PAR)
def _dilation_input_grad(dy, rows, cols, dx):
    for n in prange(dy.shape[0]):
        for oh in range(dy.shape[1]):
            for ow in range(dy.shape[2]):
                for c in range(dy.shape[3]):
                    dx[n, rows[n, oh, ow, c], cols[n, oh, ow, c], c] += dy[n, oh, ow, c]


@njit(**JIT)
def _dilation_filter_grad(dy, taps, kw, df):
    for n in range(dy.shape[0]):
        for oh in range(dy.shape[1]):
            for ow in range(dy.shape[2]):
                for c in range(dy.shape[3]):
                    t = taps[n, oh, ow, c]
                    df[t // kw, t % kw, c] += dy[n, oh, ow, c]


def _run_dilation(params, g, x, f):
    shape = params.output_shape(g)
    out = np.empty(shape, x.dtype)
    rows, cols, taps = (np.zeros(shape, np.int64) for _ in range(3))
    if out.size:
        _dilation(x, f, g.numba_args(), lowest(x.dtype), out, rows, cols, taps)
    return out, rows, cols, taps


@register_kernel("Dilation2D", "CPU")
def build_dilation2d(node):
    params = DilationParams(node)
    widen = node.output_dtype == _F16

    def kernel(x, f):
        g = params.geometry(x.shape, f.shape)
        out = _run_dilation(params, g, _compute(x, widen), _compute(f, widen))[0]
        return to_float16(out) if widen else out
    return kernel


@register_kernel(("Dilation2DBackpropInput", "Dilation2DBackpropFilter"), "CPU")
def build_dilation2d_backprop(node):
    params = DilationParams(node)
    widen = node.output_dtype == _F16
    wrt_input = node.op == "Dilation2DBackpropInput"

    def kernel(x, f, dy):
        g = params.backprop_geometry(x, f, dy)
        x, f, dy = _compute(x, widen), _compute(f, widen), _compute(dy, widen)
        _, rows, cols, taps = _run_dilation(params, g, x, f)
        if wrt_input:
            grad = np.zeros(x.shape, dy.dtype)
            if dy.size:
                _dilation_input_grad(dy, rows, cols, grad)
        else:
            grad = np.zeros(f.shape, dy.dtype)
            if dy.size:
                _dilation_filter_grad(dy, taps, g.k_w, grad)
        return to_float16(grad) if widen else grad
    return kernel
