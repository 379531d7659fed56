"""The depthwise convolution on the GPU (NHWC): DepthwiseConv2dNative and its two
gradients.

The forward pass and the input gradient are one ``cupy.ElementwiseKernel`` launch each,
a thread per element of the result reading the input, the filter and the output
gradient in place (``raw`` arrays indexed by hand): with ``KH * KW`` taps of one channel
per element there is no matrix product for cuBLAS, and packing the windows (Conv2D's
im2col, ``nn_conv.py``) would only copy the input ``KH * KW`` times.

* forward: output element ``(n, oh, ow, c*M + m)`` sums its window's taps of input
  channel ``c`` times ``filter[kh, kw, c, m]``, skipping the padding;
* input gradient: input element ``(n, ih, iw, c)`` *gathers* from the windows that read
  it (the taps whose offset lands on it at a multiple of the stride), so no two threads
  write one element and no atomics are needed.

The filter gradient is a sum over every output position, which a thread per filter
element would walk alone; it is instead ``windows.py``'s packed windows
``(N*OH*OW, KH*KW, C)`` times the output gradient ``(N*OH*OW, C, M)``, one cuBLAS
product batched over the channels.  Shapes are checked on the host
(``reference/depthwise.py``'s ``DepthwiseParams``); the sizes inputs arrive as host
arrays (``OpDef.host_inputs``).  float16 is computed in float32 and rounded once, as on
the other devices.  Kernels are compiled on first use, so importing this module needs no
GPU.
"""

from __future__ import annotations

import functools

import cupy
import numpy as np

from .. import windows
from ..reference.depthwise import BACKPROP_OPS, DepthwiseParams
from ..registry import register_kernel
from .device import on_device

__all__ = ["build_depthwise", "build_depthwise_backprop"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
_GEOMETRY = ("int64 H, int64 W, int64 C, int64 KH, int64 KW, int64 SH, int64 SW, int64 DH, "
             "int64 DW, int64 PT, int64 PL, int64 OH, int64 OW, int64 M")

_FORWARD = """
    const long long CM = C * M;
    const long long j = i % CM;                 // output channel c * M + m
    const long long ow = (i / CM) % OW;
    const long long oh = (i / (CM * OW)) % OH;
    const long long n = i / (CM * OW * OH);
    const long long c = j / M;
    T total = 0;
    for (long long kh = 0; kh < KH; ++kh) {
        const long long ih = oh * SH - PT + kh * DH;
        if (ih < 0 || ih >= H) continue;
        for (long long kw = 0; kw < KW; ++kw) {
            const long long iw = ow * SW - PL + kw * DW;
            if (iw < 0 || iw >= W) continue;
            total += x[((n * H + ih) * W + iw) * C + c] * f[(kh * KW + kw) * CM + j];
        }
    }
    y = total;
"""

_INPUT_GRAD = """
    const long long CM = C * M;
    const long long c = i % C;
    const long long iw = (i / C) % W;
    const long long ih = (i / (C * W)) % H;
    const long long n = i / (C * W * H);
    T total = 0;
    for (long long kh = 0; kh < KH; ++kh) {
        const long long th = ih + PT - kh * DH;  // = oh * SH for the window reading ih
        if (th < 0 || th % SH != 0 || th / SH >= OH) continue;
        for (long long kw = 0; kw < KW; ++kw) {
            const long long tw = iw + PL - kw * DW;
            if (tw < 0 || tw % SW != 0 || tw / SW >= OW) continue;
            const long long d = ((n * OH + th / SH) * OW + tw / SW) * CM + c * M;
            const long long w = (kh * KW + kw) * CM + c * M;
            for (long long m = 0; m < M; ++m) total += dy[d + m] * f[w + m];
        }
    }
    dx = total;
"""


@functools.lru_cache(maxsize=None)
def _kernel(which: str):
    if which == "forward":
        return cupy.ElementwiseKernel(f"raw T x, raw T f, {_GEOMETRY}", "T y", _FORWARD,
                                      name="devsession_depthwise_forward")
    return cupy.ElementwiseKernel(f"raw T f, raw T dy, {_GEOMETRY}", "T dx", _INPUT_GRAD,
                                  name="devsession_depthwise_input_grad")


def _compute(a, dtype):
    """``a`` contiguous (the raw arrays are indexed flat), float16 widened to float32."""
    return cupy.ascontiguousarray(a.astype(_F32, copy=False) if dtype == _F16 else a)


def _launch(which, operands, g, multiplier, out):
    """One launch over ``out``; the raw operands go as the flat 1-D arrays the kernel
    indexes (``_compute`` made them contiguous)."""
    _kernel(which)(*[a.reshape(-1) for a in operands], *g.numba_args(), multiplier, out)
    return out


def _filter_grad(x, dy, g, multiplier):
    """df[k, c, m] = sum_r windows[r, k, c] * dy[r, c, m], batched over c."""
    rows = g.batch * g.out_h * g.out_w
    cols = windows.patches(cupy, x, g).reshape(rows, g.window, g.channels)
    per_channel = cupy.matmul(cols.transpose(2, 1, 0),
                              dy.reshape(rows, g.channels, multiplier).transpose(1, 0, 2))
    return per_channel.transpose(1, 0, 2).reshape(g.k_h, g.k_w, g.channels, multiplier)


@register_kernel("DepthwiseConv2dNative", "GPU")
def build_depthwise(node):
    params, out_dtype = DepthwiseParams(node), node.output_dtype

    def depthwise(x, f):
        g = params.geometry(x.shape, f.shape)
        shape = params.output_shape(g, f.shape)
        if 0 in shape:
            return cupy.zeros(shape, out_dtype)
        x, f = _compute(x, out_dtype), _compute(f, out_dtype)
        out = _launch("forward", (x, f), g, f.shape[3], cupy.empty(shape, x.dtype))
        return out.astype(out_dtype, copy=False)
    return on_device(node, depthwise)


@register_kernel(BACKPROP_OPS, "GPU")
def build_depthwise_backprop(node):
    params, out_dtype = DepthwiseParams(node), node.output_dtype

    def backprop(first, second, dy):
        g, shape, operand = params.backprop(first, second, dy)
        if 0 in shape or dy.size == 0:
            return cupy.zeros(shape, out_dtype)
        operand, dy = _compute(operand, out_dtype), _compute(dy, out_dtype)
        if params.grads_input:
            out = _launch("input_grad", (operand, dy), g, operand.shape[3],
                          cupy.empty(shape, dy.dtype))
        else:
            out = _filter_grad(operand, dy, g, shape[3])
        return cupy.ascontiguousarray(out.astype(out_dtype, copy=False))
    return on_device(node, backprop)
