"""3-D convolution and pooling on the GPU: ``volumes.py``'s algorithms on cupy -- im2col
(one strided copy per filter tap) and one cuBLAS ``matmul`` for Conv3D and its
gradients, window reductions for pooling.  An NCDHW node's arrays are transposed to
NDHWC and back on the device.  The same code runs on numpy in the tests, against the
reference kernels.  float16 is computed in float32 and rounded once.
"""

from __future__ import annotations

import math

import cupy
import numpy as np

from .. import volumes
from ..registry import register_kernel
from ..volumes import CONV3D_BACKPROP_OPS, Conv3DParams
from .device import on_device

__all__ = ["build_conv3d", "build_pool3d"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _compute(a, dtype):
    return a.astype(_F32, copy=False) if dtype == _F16 else a


@register_kernel("Conv3D", "GPU")
def build_conv3d(node):
    params, out_dtype = Conv3DParams(node), node.output_dtype

    def conv3d(x, f):
        x = params.to_ndhwc(cupy, x)
        g = params.geometry(x.shape, f.shape)
        if 0 in (math.prod(g.out_shape), g.taps * g.channels, f.shape[4]):
            out = cupy.zeros((*g.out_shape, f.shape[4]), out_dtype)
        else:
            out = volumes.conv3d(cupy, _compute(x, out_dtype), _compute(f, out_dtype), g)
        return params.from_ndhwc(cupy, cupy.ascontiguousarray(out.astype(out_dtype,
                                                                         copy=False)))
    return on_device(node, conv3d)


@register_kernel(CONV3D_BACKPROP_OPS, "GPU")
def build_conv3d_backprop(node):
    params, out_dtype = Conv3DParams(node), node.output_dtype

    def backprop(first, second, dy):
        if not params.grads_input:
            first = params.to_ndhwc(cupy, first)
        g, grad_shape, operand = params.backprop(first, second, dy)
        if dy.size == 0 or g.taps * g.channels == 0:
            return cupy.zeros(grad_shape, out_dtype)
        dyc = _compute(params.to_ndhwc(cupy, dy), out_dtype)
        if params.grads_input:
            out = volumes.conv3d_input_grad(cupy, _compute(operand, out_dtype), dyc, g)
            out = params.from_ndhwc(cupy, out)
        else:
            out = volumes.conv3d_filter_grad(cupy, _compute(operand, out_dtype), dyc, g)
        return cupy.ascontiguousarray(out.astype(out_dtype, copy=False))
    return on_device(node, backprop)


@register_kernel(("MaxPool3D", "AvgPool3D"), "GPU")
def build_pool3d(node):
    return on_device(node, volumes.pool3d_kernel(cupy, node))


@register_kernel(("MaxPool3DGrad", "MaxPool3DGradGrad", "AvgPool3DGrad"), "GPU")
def build_pool3d_grad(node):
    return on_device(node, volumes.pool3d_grad_kernel(cupy, node))
