"""3-D convolution and pooling on the CPU: im2col and BLAS, a chunk of images at a time.

Conv3D is a matrix product: the windows of a chunk of images are packed into a
``(windows, KD*KH*KW*C)`` matrix (``volumes.patches``: one strided numpy copy per filter
tap) and multiplied by the filter seen as a ``(KD*KH*KW*C, O)`` matrix into the output
rows.  The gradients are the same products transposed -- input: ``dy @ filter.T`` and
the windows added back (``volumes.add_patches``, one strided add per tap); filter:
``packed.T @ dy``, summed over chunks.  Every product goes through ``blas.matmul_into``,
so the BLAS thread policy holds for these as for MatMul.  Chunks of about
``CHUNK_ELEMENTS`` packed values bound the packed matrix's memory.

Pooling runs ``volumes.py``'s window reductions on numpy (a window's copy per tap, then
one reduction), with the reference kernels' semantics.  An NCDHW node's arrays are
transposed to NDHWC and back.  float16 is computed in float32 and rounded once.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .. import volumes
from ..checks import to_float16
from ..registry import register_kernel
from ..volumes import CONV3D_BACKPROP_OPS, Conv3DParams, Volume
from .blas import matmul_into

__all__ = ["CHUNK_ELEMENTS", "conv3d", "conv3d_input_grad", "conv3d_filter_grad"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
CHUNK_ELEMENTS = 1 << 22      # packed values per chunk (16 MB of float32)


def _chunks(g: Volume):
    """(first image, last image + 1, the chunk's geometry) of each chunk of images."""
    per_image = math.prod(g.out) * g.taps * g.channels
    step = max(1, min(g.batch, CHUNK_ELEMENTS // max(per_image, 1)))
    for n0 in range(0, g.batch, step):
        n1 = min(n0 + step, g.batch)
        yield n0, n1, dataclasses.replace(g, batch=n1 - n0)


def _rows(g: Volume) -> int:
    return math.prod(g.out)


def conv3d(x, f, g: Volume):
    """(N, OD, OH, OW, O): Conv3D of contiguous NDHWC ``x`` with ``f`` [KD, KH, KW, C, O]."""
    depth, out_channels = g.taps * g.channels, f.shape[4]
    out = np.empty((*g.out_shape, out_channels), x.dtype)
    rows, weights = out.reshape(-1, out_channels), f.reshape(depth, out_channels)
    for n0, n1, part in _chunks(g):
        cols = volumes.patches(np, x[n0:n1], part).reshape(-1, depth)
        matmul_into(cols, weights, rows[n0 * _rows(g):n1 * _rows(g)])
    return out


def conv3d_input_grad(f, dy, g: Volume):
    """(N, D, H, W, C): the gradient of Conv3D with respect to its input."""
    depth, out_channels = g.taps * g.channels, f.shape[4]
    weights_t = np.ascontiguousarray(f.reshape(depth, out_channels).T)
    dy_rows = dy.reshape(-1, out_channels)
    dx = np.empty(g.in_shape, dy.dtype)
    for n0, n1, part in _chunks(g):
        cols = np.empty(((n1 - n0) * _rows(g), depth), dy.dtype)
        matmul_into(dy_rows[n0 * _rows(g):n1 * _rows(g)], weights_t, cols)
        dx[n0:n1] = volumes.add_patches(
            np, cols.reshape(*part.out_shape, *g.window, g.channels), part)
    return dx


def conv3d_filter_grad(x, dy, g: Volume):
    """[KD, KH, KW, C, O]: the gradient of Conv3D with respect to its filter."""
    depth, out_channels = g.taps * g.channels, dy.shape[4]
    dy_rows = dy.reshape(-1, out_channels)
    df = np.zeros((depth, out_channels), dy.dtype)
    partial = np.empty_like(df)
    for n0, n1, part in _chunks(g):
        cols = volumes.patches(np, x[n0:n1], part).reshape(-1, depth)
        matmul_into(cols.T, dy_rows[n0 * _rows(g):n1 * _rows(g)], partial)
        df += partial
    return df.reshape(*g.window, g.channels, out_channels)


def _compute(a, widen: bool):
    return np.ascontiguousarray(a, dtype=_F32 if widen else None)


def _rounded(out, widen: bool):
    return to_float16(out) if widen else out


@register_kernel("Conv3D", "CPU")
def build_conv3d(node):
    params = Conv3DParams(node)
    widen = node.output_dtype == _F16

    def kernel(x, f):
        x = _compute(params.to_ndhwc(np, x), widen)
        g = params.geometry(x.shape, f.shape)
        f = _compute(f, widen)
        if math.prod(g.out_shape) and g.taps * g.channels and f.shape[4]:
            out = conv3d(x, f, g)
        else:
            out = np.zeros((*g.out_shape, f.shape[4]), x.dtype)
        return _rounded(params.from_ndhwc(np, out), widen)
    return kernel


@register_kernel(CONV3D_BACKPROP_OPS, "CPU")
def build_conv3d_backprop(node):
    params = Conv3DParams(node)
    widen = node.output_dtype == _F16

    def kernel(first, second, dy):
        if not params.grads_input:
            first = params.to_ndhwc(np, first)
        g, grad_shape, operand = params.backprop(first, second, dy)
        operand, dy = _compute(operand, widen), _compute(params.to_ndhwc(np, dy), widen)
        if not (dy.size and g.taps * g.channels):
            return _rounded(np.zeros(grad_shape, dy.dtype), widen)
        if params.grads_input:
            out = params.from_ndhwc(np, conv3d_input_grad(operand, dy, g))
        else:
            out = conv3d_filter_grad(operand, dy, g)
        return _rounded(out, widen)
    return kernel


@register_kernel(("MaxPool3D", "AvgPool3D"), "CPU")
def build_pool3d(node):
    return volumes.pool3d_kernel(np, node)


@register_kernel(("MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3DGrad"), "CPU")
def build_pool3d_grad(node):
    return volumes.pool3d_grad_kernel(np, node)
