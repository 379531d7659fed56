"""Convolution and pooling on the CPU (NHWC).

Conv2D is a matrix product, so it runs at BLAS speed.  In float32, on a CPU
``register_gemm`` runs on, ``conv_fused`` does it image by image in one parallel loop
(reading the windows in place at stride 1, packing them otherwise); else (and in
float64) this module's chunked path does: the windows of a chunk of images are packed
into a ``(windows, KH*KW*C)`` matrix (im2col, a numba loop parallel over windows,
copying whole ``KW*C`` runs of a row when the dilation is 1) and multiplied by the
filter seen as a ``(KH*KW*C, O)`` matrix into the output rows.  Every product goes
through ``blas.matmul_into``, so the BLAS thread policy holds for convolutions as for
MatMul: a lone product uses BLAS's own threads, one that runs while others do (towers,
parallel branches) holds BLAS to one thread.  Chunks of about ``CHUNK_ELEMENTS``
packed values keep the packed matrix in cache and its memory bounded; a 1x1 filter
with stride 1 needs no packing at all.  With at most ``TRANSPOSED_MAX_CHANNELS`` input
channels (a first layer's images) the windows pack as columns instead
(``im2col_transposed``: runs of a whole output row), and BLAS multiplies the transpose.
``_Conv2DBias`` (the optimizer's fold, ``optimizer/bias_folds.py``) adds a bias and
clips at zero as it goes.  A grouped convolution runs all this once per group
(``grouped_conv2d``, ``windows.by_group``), or, with one channel a group, is the
depthwise convolution's loop (``depthwise.depthwise_forward``: ConvNeXt's 7x7 over
768 channels is one loop, not 768 products).  The gradients are the same products transposed:

* input:  ``dy @ filter.T`` gives each window's contribution, and col2im adds them
  back -- as a *gather* per input row (every input element sums the windows that read
  it), so rows run in parallel without atomics;
* filter: ``packed.T @ dy``, accumulated over chunks.

Pooling is direct numba loops (parallel over output rows, or over images for the
gradients, whose windows may overlap; windows that tile the input, stride = window,
write each position once instead of zeroing and scattering), with the reference
kernels' semantics: MaxPool propagates NaN and routes gradients to the first maximum;
AvgPool divides by the number of valid elements.  ``_MaxPoolReluGrad`` (the optimizer's
fold, ``optimizer/pool_gradients.py``) is MaxPoolGrad passing only positive maxima.  float16 is computed in float32 and rounded once.  The geometry is
``windows.py``'s; outputs of the forward ops are reused across runs once free.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..checks import fmt_shape, invalid_argument, to_float16
from ..registry import register_kernel
from ...ops.nn_conv import CONV2D_BIAS, MAX_POOL_RELU_GRAD
from ..windows import (CONV_BACKPROP_OPS, ConvParams, Geometry, PoolParams, by_group,
                       group_count, lowest, max_pool_grad_grad_kernel)
from . import conv_fused
from .blas import matmul_into
from .depthwise import depthwise_forward
from ..buffer_pool import BufferPool
from .im2col import col2im, im2col, im2col_transposed
from .reduce import JIT, PAR

from numba import njit, prange  # noqa: E402  (after numba_setup, which reduce imports)

__all__ = ["CHUNK_ELEMENTS", "TRANSPOSED_MAX_CHANNELS", "conv2d", "conv2d_input_grad", "conv2d_filter_grad"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
CHUNK_ELEMENTS = 1 << 22      # packed values per chunk (16 MB of float32)
TRANSPOSED_MAX_CHANNELS = 3   # up to this many input channels, windows pack as columns


# ---------------------------------------------------------------------- convolution

def _images_per_chunk(g: Geometry) -> int:
    per_image = g.out_h * g.out_w * g.window * g.channels
    return max(1, min(g.batch, CHUNK_ELEMENTS // max(per_image, 1)))


def _pointwise(g: Geometry) -> bool:
    """A 1x1 window at stride 1 without padding (EXPLICIT padding may pad a 1x1
    window): the input already is the packed matrix."""
    return g.window == 1 and g.stride_h == g.stride_w == 1 and \
        g.pad_top == g.pad_bottom == g.pad_left == g.pad_right == 0


def _chunks(g: Geometry):
    """(first image, last image + 1, first window row, last row + 1) of each chunk."""
    step = _images_per_chunk(g)
    per_image = g.out_h * g.out_w
    for n0 in range(0, g.batch, step):
        n1 = min(n0 + step, g.batch)
        yield n0, n1, n0 * per_image, n1 * per_image


def _transposed(g: Geometry) -> bool:
    """Pack the windows as columns: with so few channels a window's rows are runs too
    short to copy well, and BLAS takes the transposed matrix as it is (conv1 of the
    Deep MNIST model, one channel: forward 5.3 -> 2.6 ms, filter gradient 6.3 -> 3.0 ms)."""
    return g.channels <= TRANSPOSED_MAX_CHANNELS


def _packed(x, g: Geometry, n0, n1, scratch):
    """The (windows, KH*KW*C) packed matrix of images n0..n1-1 (a transposed view of
    column-packed memory when ``_transposed``)."""
    windows, width = (n1 - n0) * g.out_h * g.out_w, g.window * g.channels
    x = x.reshape(g.batch, g.in_h, -1)
    if _transposed(g):
        cols_t = scratch.reshape(-1)[:width * windows].reshape(width, windows)
        im2col_transposed(x, g.numba_args(), n0, n1, cols_t)
        return cols_t.T
    cols = scratch[:windows]
    im2col(x, g.numba_args(), n0, n1, cols)
    return cols


def _scratch(g: Geometry, dtype):
    return np.empty((_images_per_chunk(g) * g.out_h * g.out_w, g.window * g.channels), dtype)


def _product(a, b):
    """``a @ b`` into a fresh array, under the BLAS thread policy (``matmul_into``)."""
    out = np.empty((a.shape[0], b.shape[1]), np.result_type(a, b))
    matmul_into(a, b, out)
    return out


def conv2d(x, f, g: Geometry, out, bias=None, relu: bool = False):
    """out (N, OH, OW, O) = Conv2D of contiguous x (N, H, W, C) with f (KH, KW, C, O),
    plus ``bias`` (O,) and clipped at 0 with ``relu`` (``_Conv2DBias``)."""
    weights = f.reshape(-1, f.shape[3])
    rows = out.reshape(-1, f.shape[3])
    if conv_fused.usable(x, f) and not _pointwise(g):
        conv_fused.forward(x, f, g, out, _transposed(g), bias, relu)
        return out
    # the bias and ReLU in the product's tiles, while they are in cache
    if _pointwise(g):
        matmul_into(x.reshape(-1, g.channels), weights, rows, bias=bias, relu=relu)
    else:
        scratch = _scratch(g, x.dtype)
        for n0, n1, r0, r1 in _chunks(g):
            matmul_into(_packed(x, g, n0, n1, scratch), weights, rows[r0:r1], bias=bias,
                        relu=relu)
    return out


def grouped_conv2d(x, f, g: Geometry, out, bias=None, relu: bool = False):
    """``conv2d`` of a convolution whose input has several groups of the filter's
    in-channels (``windows.by_group``): each group's product into a fresh array, then
    copied into its channels of ``out``."""
    groups = group_count(x.shape[3], g)
    if groups == 1:
        return conv2d(x, f, g, out, bias, relu)
    if g.channels == 1:     # one channel a group: a depthwise convolution (ConvNeXt's)
        depthwise_forward(x, f.reshape(g.k_h, g.k_w, -1),
                          dataclasses.replace(g, channels=groups).numba_args(), out)
        if bias is not None:
            out += bias
        if relu:
            np.maximum(out, 0, out=out)
        return out

    def one_group(xg, fg, *bias_g):
        part = np.empty(g.out_shape + (fg.shape[3],), xg.dtype)
        return conv2d(xg, fg, g, part, *bias_g, relu=relu)
    out[...] = by_group(np, one_group, groups, *((x, f) if bias is None else (x, f, bias)))
    return out


def conv2d_input_grad(f, dy, g: Geometry, out=None):
    """The gradient of Conv2D with respect to its input, (N, H, W, C): into ``out``
    (C-contiguous, every element written) when given."""
    if out is None:
        out = np.empty((g.batch, g.in_h, g.in_w, g.channels), dy.dtype)
    weights_t = f.reshape(-1, f.shape[3]).T
    dy_rows = dy.reshape(-1, f.shape[3])
    dx = out.reshape(g.batch, g.in_h, g.in_w * g.channels)
    if _pointwise(g):
        matmul_into(dy_rows, weights_t, out.reshape(-1, g.channels))
    elif conv_fused.usable(f, dy):
        conv_fused.input_grad(f, dy, g, dx)
    else:
        scratch = _scratch(g, dy.dtype)
        for n0, n1, r0, r1 in _chunks(g):
            cols = scratch[:r1 - r0]
            matmul_into(dy_rows[r0:r1], weights_t, cols)
            col2im(cols, g.numba_args(), n0, n1, dx)
    return out


def conv2d_filter_grad(x, dy, g: Geometry):
    """The gradient of Conv2D with respect to its filter, (KH, KW, C, O)."""
    out_channels = dy.shape[3]
    dy_rows = dy.reshape(-1, out_channels)
    if _pointwise(g):
        df = _product(x.reshape(-1, g.channels).T, dy_rows)
        return df.reshape(1, 1, g.channels, out_channels)
    if conv_fused.usable(x, dy):
        return conv_fused.filter_grad(x, dy, g, _transposed(g))
    df = np.zeros((g.window * g.channels, out_channels), dy.dtype)
    partial = np.empty_like(df)
    scratch = _scratch(g, x.dtype)
    for n0, n1, r0, r1 in _chunks(g):
        matmul_into(_packed(x, g, n0, n1, scratch).T, dy_rows[r0:r1], partial)
        df += partial
    return df.reshape(g.k_h, g.k_w, g.channels, out_channels)


def _compute(a, widen):
    return np.ascontiguousarray(a, dtype=_F32 if widen else None)


@register_kernel("Conv2D", "CPU")
def build_conv2d(node):
    params = ConvParams(node)
    widen = node.output_dtype == _F16
    pool = BufferPool()

    def kernel(x, f):
        g = params.geometry(x.shape, f.shape)
        x, f = _compute(x, widen), _compute(f, widen)
        out = pool.take(params.output_shape(g, f.shape), x.dtype)
        if out.size and g.window * g.channels:
            grouped_conv2d(x, f, g, out)
        else:
            out[...] = 0
        pool.give(out)
        return to_float16(out) if widen else out
    return kernel


@register_kernel(CONV2D_BIAS, "CPU")
def build_conv2d_bias(node):
    """Conv2D plus a bias, then a ReLU when ``relu``: the additions and the clipping done
    on each output row while it is in cache (``optimizer/bias_folds.py``)."""
    params = ConvParams(node)
    relu = node.attrs["relu"]
    pool = BufferPool()

    def kernel(x, f, bias):
        g = params.geometry(x.shape, f.shape)
        if bias.shape != (f.shape[3],):
            raise invalid_argument(node.name, node.op, f"bias must have shape "
                                   f"{fmt_shape((f.shape[3],))} (the filter's out-channels), "
                                   f"got {fmt_shape(bias.shape)}")
        x, f = np.ascontiguousarray(x), np.ascontiguousarray(f)
        out = pool.take(params.output_shape(g, f.shape), x.dtype)
        if out.size and g.window * g.channels:
            grouped_conv2d(x, f, g, out, bias, relu)
        else:
            out[...] = bias
            if relu:
                np.maximum(out, 0, out=out)
        pool.give(out)
        return out
    return kernel


@register_kernel(CONV_BACKPROP_OPS, "CPU")
def build_conv2d_backprop(node):
    """An input gradient is written into a pooled buffer (a fresh one per step cost
    its pages: 500 page faults a step in the separable benchmark's 6.4 MB one)."""
    params = ConvParams(node)
    widen = node.output_dtype == _F16
    pool = BufferPool()

    def kernel(first, second, dy):
        g, grad_shape, operand = params.backprop(first, second, dy)
        operand, dy = _compute(operand, widen), _compute(dy, widen)
        groups = group_count((grad_shape if params.grads_input else operand.shape)[3], g)
        if not (dy.size and g.window * g.channels):
            out = np.zeros(grad_shape, dy.dtype)
        elif groups > 1:
            grad = conv2d_input_grad if params.grads_input else conv2d_filter_grad
            out = by_group(np, lambda a, dy_g: grad(a, dy_g, g), groups, operand, dy)
        elif params.grads_input:
            out = conv2d_input_grad(operand, dy, g, pool.take(grad_shape, dy.dtype))
            pool.give(out)
        else:
            out = conv2d_filter_grad(operand, dy, g)
        return to_float16(out) if widen else out
    return kernel


# ---------------------------------------------------------------------------- pooling

@njit(**JIT)
def _window(o, stride, pad, k, size):
    start = o * stride - pad
    return max(start, 0), min(start + k, size)


@njit(**PAR)
def max_pool(x, g, floor, out):
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    for t in prange(x.shape[0] * OH):
        n = t // OH
        oh = t % OH
        h0, h1 = _window(oh, SH, PT, KH, H)
        for ow in range(OW):
            w0, w1 = _window(ow, SW, PL, KW, W)
            best = out[n, oh, ow]
            best[:] = floor
            for ih in range(h0, h1):
                for iw in range(w0, w1):
                    v = x[n, ih, iw]
                    for c in range(C):
                        a = v[c]
                        if a > best[c] or a != a:     # a NaN wins, as np.max
                            best[c] = a


@njit(**PAR)
def avg_pool(x, g, out):
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    for t in prange(x.shape[0] * OH):
        n = t // OH
        oh = t % OH
        h0, h1 = _window(oh, SH, PT, KH, H)
        for ow in range(OW):
            w0, w1 = _window(ow, SW, PL, KW, W)
            total = out[n, oh, ow]
            total[:] = 0
            for ih in range(h0, h1):
                for iw in range(w0, w1):
                    v = x[n, ih, iw]
                    for c in range(C):
                        total[c] += v[c]
            count = (h1 - h0) * (w1 - w0)
            for c in range(C):
                total[c] = total[c] / count


@njit(**PAR)
def max_pool_grad(x, dy, g, dx, relu, bias_parts):
    """dx[n, first max of each window, c] += dy[n, window, c] (np.argmax's first max,
    a NaN counting as the max).

    With ``relu``, a window whose maximum is not positive passes its gradient times 0
    (0, or NaN for a NaN or infinite gradient, as the product apart): that is the
    gradient of a ReLU before the pool (``_MaxPoolReluGrad``), the ReLU's mask being 1
    at a window's maximum exactly when the maximum is positive.  ``bias_parts[n, c]``
    (when it has rows) sums what image n passes in channel c: a bias's gradient.
    """
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    sums = bias_parts.shape[0] > 0
    for n in prange(x.shape[0]):
        image = dx[n].reshape(-1)           # the maxima's places as flat offsets: no
        image[:] = 0                        # division per element to scatter
        best = np.empty(C, x.dtype)
        at = np.empty(C, np.int64)
        if sums:
            bias_parts[n] = 0
        for oh in range(OH):
            h0, h1 = _window(oh, SH, PT, KH, H)
            for ow in range(OW):
                w0, w1 = _window(ow, SW, PL, KW, W)
                best[:] = x[n, h0, w0]
                first = (h0 * W + w0) * C
                for c in range(C):
                    at[c] = first + c
                for ih in range(h0, h1):
                    for iw in range(w0, w1):
                        v = x[n, ih, iw]
                        here = (ih * W + iw) * C
                        for c in range(C):
                            a = v[c]
                            if a > best[c] or (a != a and best[c] == best[c]):
                                best[c] = a
                                at[c] = here + c
                grad = dy[n, oh, ow]
                for c in range(C):
                    passed = grad[c]
                    if relu and not best[c] > 0:
                        passed = passed * 0     # the mask's 0: NaN or inf stays NaN
                    image[at[c]] += passed
                    if sums:
                        bias_parts[n, c] += passed


@njit(**PAR)
def max_pool_grad_tiled(x, dy, g, dx, relu, bias_parts):
    """``max_pool_grad`` for windows that tile the input (stride = window): each window
    writes its own positions once, the gradient at its maximum and zeros elsewhere, a
    loop over channels that vectorises, instead of zeroing the image and scattering.
    (Its search for the maxima is ``max_pool_grad``'s, written out again: as a shared
    function, even inlined, both loops ran 1.5-1.8x slower.)"""
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    sums = bias_parts.shape[0] > 0
    h_end, w_end = min(OH * SH - PT, H), min(OW * SW - PL, W)   # VALID leaves a margin
    for n in prange(x.shape[0]):
        best = np.empty(C, x.dtype)
        which = np.empty(C, np.int64)
        passed = np.empty(C, dy.dtype)
        if sums:
            bias_parts[n] = 0
        for oh in range(OH):
            h0, h1 = _window(oh, SH, PT, KH, H)
            for ow in range(OW):
                w0, w1 = _window(ow, SW, PL, KW, W)
                best[:] = x[n, h0, w0]
                which[:] = 0
                k = 0
                for ih in range(h0, h1):
                    for iw in range(w0, w1):
                        v = x[n, ih, iw]
                        for c in range(C):
                            a = v[c]
                            if a > best[c] or (a != a and best[c] == best[c]):
                                best[c] = a
                                which[c] = k
                        k += 1
                grad = dy[n, oh, ow]
                for c in range(C):
                    passed[c] = grad[c] if not relu or best[c] > 0 else grad[c] * 0
                if sums:
                    for c in range(C):
                        bias_parts[n, c] += passed[c]
                k = 0
                for ih in range(h0, h1):
                    for iw in range(w0, w1):
                        row = dx[n, ih, iw]
                        for c in range(C):
                            row[c] = passed[c] if which[c] == k else 0
                        k += 1
        dx[n, h_end:] = 0
        dx[n, :h_end, w_end:] = 0


@njit(**PAR)
def avg_pool_grad(dy, g, dx):
    H, W, C, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW = g
    for n in prange(dx.shape[0]):
        dx[n] = 0
        for oh in range(OH):
            h0, h1 = _window(oh, SH, PT, KH, H)
            for ow in range(OW):
                w0, w1 = _window(ow, SW, PL, KW, W)
                grad = dy[n, oh, ow]
                share = 1.0 / ((h1 - h0) * (w1 - w0))
                for ih in range(h0, h1):
                    for iw in range(w0, w1):
                        row = dx[n, ih, iw]
                        for c in range(C):
                            row[c] += grad[c] * share


@register_kernel(("MaxPool", "AvgPool"), "CPU")
def build_pool(node):
    params = PoolParams(node)
    widen = node.output_dtype == _F16
    is_max = node.op == "MaxPool"
    pool = BufferPool()

    def kernel(x):
        g = params.geometry(x.shape)
        x = _compute(x, widen)
        out = pool.take(params.output_shape(g), x.dtype)
        if out.size:
            if is_max:
                max_pool(x, g.numba_args(), lowest(x.dtype), out)
            else:
                avg_pool(x, g.numba_args(), out)
        pool.give(out)
        return to_float16(out) if widen else out
    return kernel


def _max_pool_grad_into(x, dy, g, dx, relu, bias_parts):
    tiled = g.k_h == g.stride_h and g.k_w == g.stride_w
    (max_pool_grad_tiled if tiled else max_pool_grad)(x, dy, g.numba_args(), dx, relu,
                                                      bias_parts)


@register_kernel("MaxPoolGrad", "CPU")
def build_max_pool_grad(node):
    params = PoolParams(node)
    widen = node.output_dtype == _F16
    pool = BufferPool()

    def kernel(x, y, dy):
        g = params.grad_geometry(x, y, dy)
        x, dy = _compute(x, widen), _compute(dy, widen)
        if dy.size:
            dx = pool.take(x.shape, dy.dtype)      # every element written by the loop
            _max_pool_grad_into(x, dy, g, dx, False, np.empty((0, 0), dy.dtype))
            pool.give(dx)
        else:
            dx = np.zeros(x.shape, dy.dtype)
        return to_float16(dx) if widen else dx
    return kernel


@register_kernel(MAX_POOL_RELU_GRAD, "CPU")
def build_max_pool_relu_grad(node):
    """MaxPoolGrad with the gradient of the ReLU before the pool, and with ``bias_grad``
    the per-channel sums of the result as a second output: three passes over the
    pool's input folded into one (``optimizer/pool_gradients.py``)."""
    params = PoolParams(node)
    with_bias = node.attrs["bias_grad"]
    pool = BufferPool()

    def kernel(x, y, dy):
        g = params.grad_geometry(x, y, dy)
        parts = np.zeros((x.shape[0] if with_bias else 0, x.shape[3]), dy.dtype)
        if dy.size:
            dx = pool.take(x.shape, dy.dtype)
            _max_pool_grad_into(x, dy, g, dx, True, parts)
            pool.give(dx)
        else:
            dx = np.zeros(x.shape, dy.dtype)
        return (dx, parts.sum(axis=0)) if with_bias else dx
    return kernel


@register_kernel("MaxPoolGradGrad", "CPU")
def build_max_pool_grad_grad(node):
    """Second derivatives only: ``windows.py``'s numpy algorithm (no numba loop)."""
    return max_pool_grad_grad_kernel(np, node)


@register_kernel("AvgPoolGrad", "CPU")
def build_avg_pool_grad(node):
    params = PoolParams(node)
    widen = node.output_dtype == _F16

    def kernel(sizes, dy):
        g = params.grad_geometry(sizes, dy)
        dy = _compute(dy, widen)
        dx = np.zeros((g.batch, g.in_h, g.in_w, g.channels), dy.dtype)
        if dy.size:
            avg_pool_grad(dy, g.numba_args(), dx)
        return to_float16(dx) if widen else dx
    return kernel
