"""Convolution and pooling on the GPU (NHWC): im2col + cuBLAS, and window reductions.

The algorithms are ``windows.py``'s, run on cupy: the windows of the input are packed
with ``KH * KW`` strided copies into an ``(N*OH*OW, KH*KW*C)`` matrix, which one cuBLAS
``matmul`` multiplies by the filter; the input gradient multiplies the output gradient
by the filter's transpose and adds the windows back (``KH * KW`` strided adds, which
never collide); the filter gradient is ``packed.T @ dy``.  Pooling reduces the packed
windows (padding reads -inf for MaxPool and 0 for AvgPool, which divides by the count
of valid elements); MaxPoolGrad sends each gradient to its window's first maximum.
The same code runs on numpy in the tests, against the reference kernels.

cuDNN would be faster for large convolutions, but cupy 13 only reaches it through an
optional separately installed library and it pads symmetrically (TF's SAME padding is
not); the im2col path is exact, dependency-free and already at cuBLAS speed for the
matmul.  float16 is computed in float32 and rounded once, as on the other devices.  A
grouped convolution runs these once per group (``windows.by_group``).
"""

from __future__ import annotations

import cupy
import numpy as np

from .. import windows
from ..registry import register_kernel
from ..windows import (CONV_BACKPROP_OPS, ConvParams, PoolParams, by_group, group_count,
                       lowest)
from .device import on_device

__all__ = ["build_conv2d", "build_pool"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _compute(a, dtype):
    return a.astype(_F32, copy=False) if dtype == _F16 else a


def _counts(g, dtype):
    return cupy.asarray(windows.window_counts(g).astype(dtype))


@register_kernel("Conv2D", "GPU")
def build_conv2d(node):
    params, out_dtype = ConvParams(node), node.output_dtype

    def conv2d(x, f):
        g = params.geometry(x.shape, f.shape)
        shape = params.output_shape(g, f.shape)
        if 0 in shape or g.channels == 0:
            return cupy.zeros(shape, out_dtype)
        out = by_group(cupy, lambda xg, fg: windows.conv2d(cupy, xg, fg, g),
                       group_count(x.shape[3], g), _compute(x, out_dtype), _compute(f, out_dtype))
        return out.astype(out_dtype, copy=False)
    return on_device(node, conv2d)


@register_kernel(CONV_BACKPROP_OPS, "GPU")
def build_conv2d_backprop(node):
    params, out_dtype = ConvParams(node), node.output_dtype
    grad = windows.conv2d_input_grad if params.grads_input else windows.conv2d_filter_grad

    def backprop(first, second, dy):
        g, grad_shape, operand = params.backprop(first, second, dy)
        if dy.size == 0 or g.window * g.channels == 0:
            return cupy.zeros(grad_shape, out_dtype)
        x_shape = grad_shape if params.grads_input else operand.shape
        out = by_group(cupy, lambda a, dyg: grad(cupy, a, dyg, g), group_count(x_shape[3], g),
                       _compute(operand, out_dtype), _compute(dy, out_dtype))
        return cupy.ascontiguousarray(out.astype(out_dtype, copy=False))
    return on_device(node, backprop)


@register_kernel(("MaxPool", "AvgPool"), "GPU")
def build_pool(node):
    params, out_dtype = PoolParams(node), node.output_dtype
    is_max = node.op == "MaxPool"

    def pool(x):
        g = params.geometry(x.shape)
        shape = params.output_shape(g)
        if 0 in shape:
            return cupy.zeros(shape, out_dtype)
        if is_max:
            return windows.max_pool(cupy, x, g, lowest(x.dtype))
        xc = _compute(x, out_dtype)
        return windows.avg_pool(cupy, xc, g, _counts(g, xc.dtype)).astype(out_dtype, copy=False)
    return on_device(node, pool)


@register_kernel("MaxPoolGrad", "GPU")
def build_max_pool_grad(node):
    params, out_dtype = PoolParams(node), node.output_dtype

    def max_pool_grad(x, y, dy):
        g = params.grad_geometry(x, y, dy)
        if dy.size == 0:
            return cupy.zeros(x.shape, out_dtype)
        dx = windows.max_pool_grad(cupy, x, _compute(dy, out_dtype), g, lowest(x.dtype))
        return cupy.ascontiguousarray(dx.astype(out_dtype, copy=False))
    return on_device(node, max_pool_grad)


@register_kernel("MaxPoolGradGrad", "GPU")
def build_max_pool_grad_grad(node):
    return on_device(node, windows.max_pool_grad_grad_kernel(cupy, node))


@register_kernel("AvgPoolGrad", "GPU")
def build_avg_pool_grad(node):
    params, out_dtype = PoolParams(node), node.output_dtype

    def avg_pool_grad(sizes, dy):
        g = params.grad_geometry(sizes, dy)
        if dy.size == 0:
            return cupy.zeros((g.batch, g.in_h, g.in_w, g.channels), out_dtype)
        dyc = _compute(dy, out_dtype)
        dx = windows.avg_pool_grad(cupy, dyc, g, _counts(g, dyc.dtype))
        return cupy.ascontiguousarray(dx.astype(out_dtype, copy=False))
    return on_device(node, avg_pool_grad)
