"""Reference kernels of 3-D convolution and pooling: direct numpy, NDHWC inside (an
NCDHW node's arrays are transposed in and out, ``volumes.Volume3DParams``).

Conv3D and its gradients loop over the ``KD x KH x KW`` filter taps of a zero-padded
input: each tap is a strided view of the input multiplied by one ``C x O`` slice of the
filter (``tensordot``).  Pooling loops over the output positions and reduces the part of
each window inside the input, so SAME padding is never read (AvgPool3D divides by the
number of valid elements, as TF's).  MaxPool3DGrad sends each gradient to the first
maximum of its window in (kd, kh, kw) order (a NaN counts as the maximum, as ``np.max``
propagates it).  float16 is computed in float32 and rounded once.  The geometry and the
run-time checks are ``volumes.py``'s.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..registry import register_kernel
from ..volumes import CONV3D_BACKPROP_OPS, Conv3DParams, Pool3DParams, Volume
from .elementwise import compute_dtype

DEVICE = "REF"


def _padded(x, g: Volume):
    return np.pad(x, ((0, 0), *zip(g.pad_before, g.pad_after), (0, 0)))


def _tap_view(g: Volume, tap) -> tuple:
    return (slice(None), *(slice(t * d, t * d + (o - 1) * s + 1, s)
                           for t, d, o, s in zip(tap, g.dilation, g.out, g.stride)),
            slice(None))


def _taps(g: Volume):
    return itertools.product(*(range(k) for k in g.window))


def _conv(g: Volume, x, f):
    out = np.zeros((*g.out_shape, f.shape[4]), x.dtype)
    padded = _padded(x, g)
    for tap in _taps(g):
        out += np.tensordot(padded[_tap_view(g, tap)], f[tap], axes=([4], [0]))
    return out


def _conv_input_grad(g: Volume, f, dy):
    padded = np.zeros(g.padded_shape, dy.dtype)
    for tap in _taps(g):
        padded[_tap_view(g, tap)] += np.tensordot(dy, f[tap], axes=([4], [1]))
    return padded[(slice(None), *(slice(b, b + n) for b, n in zip(g.pad_before, g.size)))]


def _conv_filter_grad(g: Volume, x, dy):
    padded = _padded(x, g)
    df = np.zeros((*g.window, g.channels, dy.shape[4]), dy.dtype)
    for tap in _taps(g):
        df[tap] = np.tensordot(padded[_tap_view(g, tap)], dy, axes=([0, 1, 2, 3], [0, 1, 2, 3]))
    return df


@register_kernel("Conv3D", DEVICE)
def build_conv3d(node):
    params, out_dtype = Conv3DParams(node), node.output_dtype

    def conv3d(x, f):
        x = params.to_ndhwc(np, x)
        g = params.geometry(x.shape, f.shape)
        y = _conv(g, compute_dtype(x), compute_dtype(f))
        return params.from_ndhwc(np, y).astype(out_dtype)
    return conv3d


@register_kernel(CONV3D_BACKPROP_OPS, DEVICE)
def build_conv3d_backprop(node):
    params, out_dtype = Conv3DParams(node), node.output_dtype

    def backprop(first, second, dy):
        if not params.grads_input:
            first = params.to_ndhwc(np, first)
        g, _, operand = params.backprop(first, second, dy)
        dyc = compute_dtype(params.to_ndhwc(np, dy))
        if params.grads_input:
            return params.from_ndhwc(np, _conv_input_grad(g, compute_dtype(operand), dyc)
                                     ).astype(out_dtype)
        return _conv_filter_grad(g, compute_dtype(operand), dyc).astype(out_dtype)
    return backprop


def _windows(g: Volume):
    """(output position, window slices) of every output position: the part of its
    window inside the input."""
    for at in itertools.product(*(range(o) for o in g.out)):
        starts = [o * s - p for o, s, p in zip(at, g.stride, g.pad_before)]
        yield at, tuple(slice(max(b, 0), min(b + k, n))
                        for b, k, n in zip(starts, g.window, g.size))


def _at(at) -> tuple:
    return (slice(None), *at, slice(None))


@register_kernel(("MaxPool3D", "AvgPool3D"), DEVICE)
def build_pool3d(node):
    params, out_dtype = Pool3DParams(node), node.output_dtype
    reduce = np.max if node.op == "MaxPool3D" else np.mean

    def pool(x):
        x = compute_dtype(params.to_ndhwc(np, x))
        g = params.geometry(x.shape)
        out = np.empty((*g.out_shape, g.channels), x.dtype)
        for at, window in _windows(g):
            out[_at(at)] = reduce(x[(slice(None), *window)], axis=(1, 2, 3))
        return params.from_ndhwc(np, out).astype(out_dtype, copy=False)
    return pool


def _first_maxima(x, g: Volume):
    """(output position, index) pairs: ``x[index]`` (N, C) is the first maximum of each
    image's and channel's window at that position."""
    if x.size == 0:
        return
    batch, channel = np.meshgrid(np.arange(g.batch), np.arange(g.channels), indexing="ij")
    for at, window in _windows(g):
        part = x[(slice(None), *window)]
        first = np.argmax(part.reshape(g.batch, -1, g.channels), axis=1)
        offsets = np.unravel_index(first, part.shape[1:4])
        yield at, (batch, *(w.start + o for w, o in zip(window, offsets)), channel)


def _max_pool_grad(g: Volume, x, y, dy):
    dx = np.zeros(x.shape, dy.dtype)
    for at, index in _first_maxima(x, g):
        np.add.at(dx, index, dy[_at(at)])
    return dx


def _max_pool_grad_grad(g: Volume, x, y, grad):
    out = np.zeros((*g.out_shape, g.channels), grad.dtype)
    for at, index in _first_maxima(x, g):
        out[_at(at)] = grad[index]
    return out


def _avg_pool_grad(g: Volume, sizes, dy):
    dx = np.zeros(g.in_shape, dy.dtype)
    for at, window in _windows(g):
        count = np.prod([w.stop - w.start for w in window])
        dx[(slice(None), *window)] += dy[_at(at)][:, None, None, None, :] / count
    return dx


_POOL_GRADS = {"MaxPool3DGrad": _max_pool_grad, "MaxPool3DGradGrad": _max_pool_grad_grad,
               "AvgPool3DGrad": _avg_pool_grad}


@register_kernel(tuple(_POOL_GRADS), DEVICE)
def build_pool3d_grad(node):
    params, out_dtype = Pool3DParams(node), node.output_dtype
    grad = _POOL_GRADS[node.op]

    def pool_grad(*inputs):
        g = params.grad_geometry(*inputs)
        inputs = [inputs[0]] + [compute_dtype(params.to_ndhwc(np, t)) for t in inputs[1:]]
        if node.op != "AvgPool3DGrad":
            inputs[0] = params.to_ndhwc(np, inputs[0])
        return params.from_ndhwc(np, grad(g, *inputs)).astype(out_dtype, copy=False)
    return pool_grad
