"""Reference kernels of the depthwise convolution (NHWC): DepthwiseConv2dNative and its
two gradients, as ``einsum``s over the windows; and ``DepthwiseParams``, the run-time
checks every device's kernels share.

With the windows of the input as ``p = windows.patches(x)`` (N, OH, OW, KH, KW, C) and
the output seen as (N, OH, OW, C, M) (channel ``c * M + m`` is ``[..., c, m]``):

* forward:         ``y[n,h,w,c,m]  = sum_ij p[n,h,w,i,j,c] * f[i,j,c,m]``;
* input gradient:  ``cols[n,h,w,i,j,c] = sum_m dy[n,h,w,c,m] * f[i,j,c,m]``, each window's
  values added back where it read them (``windows.add_patches``);
* filter gradient: ``df[i,j,c,m] = sum_nhw p[n,h,w,i,j,c] * dy[n,h,w,c,m]``.

Padding reads zeros and gradients landing on it are dropped; float16 is computed in
float32 and rounded once.  The geometry (padding split, output sizes, shape errors) is
``windows.py``'s, as Conv2D's.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import register_kernel
from ..windows import ConvParams, Geometry, add_patches, check_shape, patches, shape_input
from .elementwise import compute_dtype

__all__ = ["DepthwiseParams", "BACKPROP_OPS"]

DEVICE = "REF"
BACKPROP_OPS = ("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter")


class DepthwiseParams(ConvParams):
    """A DepthwiseConv2dNative-family node's attrs, read once (Conv2D's: strides,
    dilations, padding).  ``geometry(x_shape, f_shape)`` checks one call's shapes (4-D,
    as many in-channels in the filter as in the input) and places the windows;
    ``InvalidArgumentError`` naming the node otherwise."""

    grouped = False

    def output_shape(self, g: Geometry, f_shape: tuple) -> tuple:
        return (g.batch, g.out_h, g.out_w, g.channels * f_shape[3])

    @property
    def grads_input(self) -> bool:
        return self.node.op == BACKPROP_OPS[0]

    def backprop(self, first, second, dy) -> tuple[Geometry, tuple, object]:
        """``(geometry, gradient shape, operand)`` of a backprop call, whose sizes input
        (the first for the input's gradient, the second for the filter's) is an int
        vector on the host; the operand is the other tensor input (the filter, or the
        input).  Raises unless ``dy`` has the convolution's output shape."""
        x_shape = shape_input(self.node, first, self.grads_input)
        f_shape = shape_input(self.node, second, not self.grads_input)
        if min(x_shape + f_shape) < 0:
            raise invalid_argument(self.node.name, self.node.op, f"the sizes "
                                   f"{fmt_shape(x_shape if self.grads_input else f_shape)} "
                                   f"must not be negative")
        g = self.geometry(x_shape, f_shape)
        check_shape(self.node.name, self.node.op, "out_backprop", dy.shape,
                    self.output_shape(g, f_shape))
        return (g, x_shape, second) if self.grads_input else (g, f_shape, first)


def _split(y, g: Geometry, multiplier: int):
    """A (N, OH, OW, C * M) array seen as (N, OH, OW, C, M)."""
    return y.reshape(g.out_shape + (g.channels, multiplier))


def depthwise(g: Geometry, x, f):
    out = np.einsum("nhwijc,ijcm->nhwcm", patches(np, x, g), f)
    return out.reshape(g.out_shape + (g.channels * f.shape[3],))


def depthwise_input_grad(g: Geometry, f, dy):
    cols = np.einsum("nhwcm,ijcm->nhwijc", _split(dy, g, f.shape[3]), f)
    return add_patches(np, cols, g)


def depthwise_filter_grad(g: Geometry, x, dy, multiplier: int):
    return np.einsum("nhwijc,nhwcm->ijcm", patches(np, x, g), _split(dy, g, multiplier))


@register_kernel("DepthwiseConv2dNative", DEVICE)
def build_depthwise(node):
    params, out_dtype = DepthwiseParams(node), node.output_dtype

    def kernel(x, f):
        g = params.geometry(x.shape, f.shape)
        return depthwise(g, compute_dtype(x), compute_dtype(f)).astype(out_dtype)
    return kernel


@register_kernel(BACKPROP_OPS, DEVICE)
def build_depthwise_backprop(node):
    params, out_dtype = DepthwiseParams(node), node.output_dtype

    def kernel(first, second, dy):
        g, shape, operand = params.backprop(first, second, dy)
        operand, dy = compute_dtype(operand), compute_dtype(dy)
        if params.grads_input:
            out = depthwise_input_grad(g, operand, dy)
        else:
            out = depthwise_filter_grad(g, operand, dy, shape[3])
        return np.ascontiguousarray(out, dtype=out_dtype)
    return kernel
