"""MaxPoolWithArgmax, Dilation2D and their gradients on the GPU: ``window_argmax.py``'s
array algorithms on cupy (the windows packed with one strided copy per tap, then
reductions and argmaxes; the gradients' scatters are weighted ``bincount``s, so no
atomics).  The same code runs on numpy in the tests, against the reference kernels.
float16 is computed in float32 and rounded once, as on the CPU.
"""

from __future__ import annotations

import cupy
import numpy as np

from .. import window_argmax as algorithms
from ..registry import register_kernel
from ..window_argmax import ArgmaxPoolParams, DilationParams, argmax_dtype
from .device import on_device

__all__ = ["build_max_pool_with_argmax", "build_dilation2d"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _compute(a, dtype):
    return a.astype(_F32, copy=False) if dtype == _F16 else a


@register_kernel("MaxPoolWithArgmax", "GPU")
def build_max_pool_with_argmax(node):
    params, out_dtype = ArgmaxPoolParams(node), node.output_dtype
    index_dtype = argmax_dtype(node)

    def max_pool_with_argmax(x):
        g = params.geometry(x.shape)
        shape = params.output_shape(g)
        if 0 in shape:
            return cupy.zeros(shape, out_dtype), cupy.zeros(shape, index_dtype)
        out, argmax = algorithms.argmax_pool(cupy, _compute(x, out_dtype), g,
                                             params.include_batch)
        return (cupy.ascontiguousarray(out.astype(out_dtype, copy=False)),
                cupy.ascontiguousarray(argmax.astype(index_dtype, copy=False)))
    return on_device(node, max_pool_with_argmax)


@register_kernel(("MaxPoolGradWithArgmax", "MaxPoolGradGradWithArgmax"), "GPU")
def build_max_pool_grad_with_argmax(node):
    params, out_dtype = ArgmaxPoolParams(node), node.output_dtype
    algorithm = algorithms.argmax_scatter if node.op == "MaxPoolGradWithArgmax" else \
        algorithms.argmax_gather

    def kernel(x, grad, argmax):
        g = params.grad_geometry(x, grad, argmax)
        out = algorithm(cupy, g, _compute(grad, out_dtype), argmax, params.include_batch,
                        params)
        return cupy.ascontiguousarray(out.astype(out_dtype, copy=False))
    return on_device(node, kernel)


@register_kernel("Dilation2D", "GPU")
def build_dilation2d(node):
    params, out_dtype = DilationParams(node), node.output_dtype

    def dilation2d(x, f):
        g = params.geometry(x.shape, f.shape)
        shape = params.output_shape(g)
        if 0 in shape:
            return cupy.zeros(shape, out_dtype)
        out = algorithms.dilation(cupy, _compute(x, out_dtype), _compute(f, out_dtype), g)
        return cupy.ascontiguousarray(out.astype(out_dtype, copy=False))
    return on_device(node, dilation2d)


@register_kernel(("Dilation2DBackpropInput", "Dilation2DBackpropFilter"), "GPU")
def build_dilation2d_backprop(node):
    params, out_dtype = DilationParams(node), node.output_dtype
    algorithm = algorithms.dilation_input_grad if node.op == "Dilation2DBackpropInput" \
        else algorithms.dilation_filter_grad

    def backprop(x, f, dy):
        g = params.backprop_geometry(x, f, dy)
        if dy.size == 0:
            return cupy.zeros(x.shape if node.op == "Dilation2DBackpropInput" else f.shape,
                              out_dtype)
        out = algorithm(cupy, _compute(x, out_dtype), _compute(f, out_dtype),
                        _compute(dy, out_dtype), g)
        return cupy.ascontiguousarray(out.astype(out_dtype, copy=False))
    return on_device(node, backprop)
