"""Reference kernels of convolution and pooling (NHWC): direct numpy.

Conv2D and its gradients loop over the ``KH x KW`` filter offsets of a zero-padded
input: each offset is a strided view of the input multiplied by one ``C x O`` slice of
the filter (``tensordot``), once per group of a grouped convolution (``by_group``).
Pooling loops over the output positions and reduces the part of each window inside the
input, so SAME padding is never read (AvgPool divides by the number of valid elements,
as TF's).  MaxPoolGrad sends each gradient to the first
maximum of its window in row-major order (a NaN counts as the maximum, as ``np.max``
propagates it).  float16 is computed in float32 and rounded once.  The geometry
(padding split, output sizes, shape errors) is ``windows.py``'s.
"""

from __future__ import annotations

import numpy as np

from ..registry import register_kernel
from ..windows import (CONV_BACKPROP_OPS, ConvParams, Geometry, PoolParams, by_group,
                       group_count)
from .elementwise import compute_dtype

DEVICE = "REF"


def _padded(x, g: Geometry):
    return np.pad(x, ((0, 0), (g.pad_top, g.pad_bottom), (g.pad_left, g.pad_right), (0, 0)))


def _offset(g: Geometry, kh: int, kw: int) -> tuple:
    """The strided view, into the padded input, that filter offset (kh, kw) reads."""
    top, left = kh * g.dil_h, kw * g.dil_w
    return (slice(None), slice(top, top + (g.out_h - 1) * g.stride_h + 1, g.stride_h),
            slice(left, left + (g.out_w - 1) * g.stride_w + 1, g.stride_w), slice(None))


def _conv(g: Geometry, x, f):
    out = np.zeros((g.batch, g.out_h, g.out_w, f.shape[3]), x.dtype)
    padded = _padded(x, g)
    for kh in range(g.k_h):
        for kw in range(g.k_w):
            out += np.tensordot(padded[_offset(g, kh, kw)], f[kh, kw], axes=([3], [0]))
    return out


def _conv_input_grad(g: Geometry, f, dy):
    padded = np.zeros((g.batch, g.in_h + g.pad_top + g.pad_bottom,
                       g.in_w + g.pad_left + g.pad_right, g.channels), dy.dtype)
    for kh in range(g.k_h):
        for kw in range(g.k_w):
            padded[_offset(g, kh, kw)] += np.tensordot(dy, f[kh, kw], axes=([3], [1]))
    return padded[:, g.pad_top:g.pad_top + g.in_h, g.pad_left:g.pad_left + g.in_w, :]


def _conv_filter_grad(g: Geometry, x, dy):
    padded = _padded(x, g)
    df = np.zeros((g.k_h, g.k_w, g.channels, dy.shape[3]), dy.dtype)
    for kh in range(g.k_h):
        for kw in range(g.k_w):
            df[kh, kw] = np.tensordot(padded[_offset(g, kh, kw)], dy, axes=([0, 1, 2], [0, 1, 2]))
    return df


@register_kernel("Conv2D", DEVICE)
def build_conv2d(node):
    params, out_dtype = ConvParams(node), node.output_dtype

    def conv2d(x, f):
        g = params.geometry(x.shape, f.shape)
        out = by_group(np, lambda xg, fg: _conv(g, xg, fg), group_count(x.shape[3], g),
                       compute_dtype(x), compute_dtype(f))
        return out.astype(out_dtype)
    return conv2d


@register_kernel(CONV_BACKPROP_OPS, DEVICE)
def build_conv2d_backprop(node):
    params, out_dtype = ConvParams(node), node.output_dtype
    grad = _conv_input_grad if params.grads_input else _conv_filter_grad

    def backprop(first, second, dy):
        g, grad_shape, operand = params.backprop(first, second, dy)
        x_shape = grad_shape if params.grads_input else operand.shape
        out = by_group(np, lambda a, dyg: grad(g, a, dyg), group_count(x_shape[3], g),
                       compute_dtype(operand), compute_dtype(dy))
        return out.astype(out_dtype)
    return backprop


def _windows(g: Geometry):
    """(oh, ow, rows, cols) of every output position: the part of its window inside
    the input."""
    for oh in range(g.out_h):
        top = oh * g.stride_h - g.pad_top
        rows = slice(max(top, 0), min(top + g.k_h, g.in_h))
        for ow in range(g.out_w):
            left = ow * g.stride_w - g.pad_left
            yield oh, ow, rows, slice(max(left, 0), min(left + g.k_w, g.in_w))


@register_kernel(("MaxPool", "AvgPool"), DEVICE)
def build_pool(node):
    params, out_dtype = PoolParams(node), node.output_dtype
    reduce = np.max if node.op == "MaxPool" else np.mean

    def pool(x):
        g = params.geometry(x.shape)
        xc = compute_dtype(x)
        out = np.empty(params.output_shape(g), xc.dtype)
        for oh, ow, rows, cols in _windows(g):
            out[:, oh, ow, :] = reduce(xc[:, rows, cols, :], axis=(1, 2))
        return out.astype(out_dtype, copy=False)
    return pool


def _first_maxima(x, g: Geometry):
    """(oh, ow, at) of every output position: ``x[at]`` (N, C) is the first maximum of
    each image's and channel's window, in row-major order (a NaN counts as the maximum,
    as ``np.max`` propagates it)."""
    if x.size == 0:
        return
    batch, channel = np.meshgrid(np.arange(g.batch), np.arange(g.channels), indexing="ij")
    for oh, ow, rows, cols in _windows(g):
        window = x[:, rows, cols, :]
        width = window.shape[2]
        first = np.argmax(window.reshape(g.batch, -1, g.channels), axis=1)
        yield oh, ow, (batch, rows.start + first // width, cols.start + first % width, channel)


def _max_pool_grad(g: Geometry, x, y, dy):
    """Each gradient added at its window's first maximum."""
    dx = np.zeros(x.shape, compute_dtype(dy).dtype)
    for oh, ow, at in _first_maxima(x, g):
        np.add.at(dx, at, dy[:, oh, ow, :])
    return dx


def _max_pool_grad_grad(g: Geometry, x, y, grad):
    """Per window, ``grad`` at its first maximum (the adjoint of ``_max_pool_grad``)."""
    out = np.zeros(g.out_shape + (g.channels,), compute_dtype(grad).dtype)
    for oh, ow, at in _first_maxima(x, g):
        out[:, oh, ow, :] = grad[at]
    return out


def _avg_pool_grad(g: Geometry, sizes, dy):
    """Each gradient shared evenly by the valid elements of its window."""
    dyc = compute_dtype(dy)
    dx = np.zeros((g.batch, g.in_h, g.in_w, g.channels), dyc.dtype)
    for oh, ow, rows, cols in _windows(g):
        count = (rows.stop - rows.start) * (cols.stop - cols.start)
        dx[:, rows, cols, :] += dyc[:, oh, ow, None, None, :] / count
    return dx


_POOL_GRADS = {"MaxPoolGrad": _max_pool_grad, "MaxPoolGradGrad": _max_pool_grad_grad,
               "AvgPoolGrad": _avg_pool_grad}


@register_kernel(tuple(_POOL_GRADS), DEVICE)
def build_pool_grad(node):
    params, out_dtype = PoolParams(node), node.output_dtype
    grad = _POOL_GRADS[node.op]

    def pool_grad(*inputs):
        g = params.grad_geometry(*inputs)
        return grad(g, *inputs).astype(out_dtype, copy=False)
    return pool_grad
