"""Reference kernels of MaxPoolWithArgmax, Dilation2D and their gradient ops: TF's CPU
loops written out in numpy, vectorised over the batch and channels only.  Per window,
the taps inside the input in row-major order: MaxPoolWithArgmax takes the first and then
any strictly larger one; Dilation2D starts from the dtype's lowest and takes any
strictly larger ``input + filter``, defaulting its gradients to TF's positions.  The
geometry and checks are ``windows.py``'s and ``window_argmax.py``'s.
"""

from __future__ import annotations

import numpy as np

from ..registry import register_kernel
from ..window_argmax import ArgmaxPoolParams, DilationParams, argmax_dtype
from ..windows import Geometry, lowest

DEVICE = "REF"


def _taps(g: Geometry, oh: int, ow: int):
    """(tap, row, col) of window (oh, ow)'s taps inside the input, row-major."""
    top, left = oh * g.stride_h - g.pad_top, ow * g.stride_w - g.pad_left
    for i in range(g.k_h):
        row = top + i * g.dil_h
        for j in range(g.k_w):
            col = left + j * g.dil_w
            if 0 <= row < g.in_h and 0 <= col < g.in_w:
                yield i * g.k_w + j, row, col


def _argmax_pool(g: Geometry, x, include_batch: bool):
    out = np.empty((g.batch, g.out_h, g.out_w, g.channels), x.dtype)
    argmax = np.empty(out.shape, np.int64)
    channel = np.arange(g.channels)
    base = (np.arange(g.batch) * g.in_h * g.in_w * g.channels)[:, None] if include_batch \
        else np.zeros((g.batch, 1), np.int64)
    for oh in range(g.out_h):
        for ow in range(g.out_w):
            best = np.full((g.batch, g.channels), lowest(x.dtype), x.dtype)
            where = np.full((g.batch, g.channels), -1, np.int64)
            for _, row, col in _taps(g, oh, ow):
                value = x[:, row, col, :]
                take = (where < 0) | (value > best)
                best = np.where(take, value, best)
                where = np.where(take, base + (row * g.in_w + col) * g.channels + channel,
                                 where)
            out[:, oh, ow, :], argmax[:, oh, ow, :] = best, where
    return out, argmax


@register_kernel("MaxPoolWithArgmax", DEVICE)
def build_max_pool_with_argmax(node):
    params = ArgmaxPoolParams(node)
    index_dtype = argmax_dtype(node)

    def max_pool_with_argmax(x):
        g = params.geometry(x.shape)
        out, argmax = _argmax_pool(g, x, params.include_batch)
        return out, argmax.astype(index_dtype)
    return max_pool_with_argmax


def _positions(params: ArgmaxPoolParams, x, grad, argmax):
    """Each argmax as a flat position in the whole input; the gradient ops' shapes and
    the positions checked."""
    g = params.grad_geometry(x, grad, argmax)
    index = argmax.astype(np.int64)
    if not params.include_batch:
        index = index + (np.arange(g.batch) * g.in_h * g.in_w * g.channels).reshape(-1, 1, 1, 1)
    params.check_indices(index, g.batch * g.in_h * g.in_w * g.channels)
    return index


@register_kernel("MaxPoolGradWithArgmax", DEVICE)
def build_max_pool_grad_with_argmax(node):
    params = ArgmaxPoolParams(node)

    def max_pool_grad_with_argmax(x, grad, argmax):
        dx = np.zeros(x.size, grad.dtype)
        np.add.at(dx, _positions(params, x, grad, argmax).reshape(-1), grad.reshape(-1))
        return dx.reshape(x.shape)
    return max_pool_grad_with_argmax


@register_kernel("MaxPoolGradGradWithArgmax", DEVICE)
def build_max_pool_grad_grad_with_argmax(node):
    params = ArgmaxPoolParams(node)

    def max_pool_grad_grad_with_argmax(x, grad, argmax):
        return grad.reshape(-1)[_positions(params, x, grad, argmax)]
    return max_pool_grad_grad_with_argmax


def _dilation(g: Geometry, x, f):
    """(output, input rows, input cols, filter taps) per (N, OH, OW, C), TF's loop."""
    shape = (g.batch, g.out_h, g.out_w, g.channels)
    out = np.empty(shape, x.dtype)
    rows, cols, taps = (np.empty(shape, np.int64) for _ in range(3))
    for oh in range(g.out_h):
        for ow in range(g.out_w):
            best = np.full((g.batch, g.channels), lowest(x.dtype), x.dtype)
            row = np.full(best.shape, max(oh * g.stride_h - g.pad_top, 0))
            col = np.full(best.shape, max(ow * g.stride_w - g.pad_left, 0))
            tap = np.zeros(best.shape, np.int64)
            for t, r, c in _taps(g, oh, ow):
                value = x[:, r, c, :] + f[t // g.k_w, t % g.k_w, :]
                take = value > best
                best = np.where(take, value, best)
                row, col, tap = np.where(take, r, row), np.where(take, c, col), \
                    np.where(take, t, tap)
            out[:, oh, ow], rows[:, oh, ow], cols[:, oh, ow], taps[:, oh, ow] = \
                best, row, col, tap
    return out, rows, cols, taps


@register_kernel("Dilation2D", DEVICE)
def build_dilation2d(node):
    params = DilationParams(node)

    def dilation2d(x, f):
        g = params.geometry(x.shape, f.shape)
        with np.errstate(over="ignore", invalid="ignore"):
            return _dilation(g, x, f)[0]
    return dilation2d


@register_kernel(("Dilation2DBackpropInput", "Dilation2DBackpropFilter"), DEVICE)
def build_dilation2d_backprop(node):
    params = DilationParams(node)
    wrt_input = node.op == "Dilation2DBackpropInput"

    def backprop(x, f, dy):
        g = params.backprop_geometry(x, f, dy)
        with np.errstate(over="ignore", invalid="ignore"):
            _, rows, cols, taps = _dilation(g, x, f)
        channel = np.arange(g.channels).reshape(1, 1, 1, -1)
        if wrt_input:
            batch = np.arange(g.batch).reshape(-1, 1, 1, 1)
            grad = np.zeros(x.shape, dy.dtype)
            at = (np.broadcast_to(batch, dy.shape), rows, cols,
                  np.broadcast_to(channel, dy.shape))
        else:
            grad = np.zeros(f.shape, dy.dtype)
            at = (taps // g.k_w, taps % g.k_w, np.broadcast_to(channel, dy.shape))
        np.add.at(grad, at, dy)
        return grad
    return backprop
