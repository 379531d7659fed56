"""Neural-network GPU kernels (convolution and pooling are in ``nn_conv.py``).

Softmax and its relatives subtract the row max (a cupy reduction), then fused
``ElementwiseKernel``s (``cuda/elementwise.py``) compute ``exp(x - max)`` and the
result from the row sums, so huge finite inputs give no inf/nan; sums accumulate in
float32 for float16 (rounded once).  The cross entropies return TF's two outputs.
SparseSoftmaxCrossEntropyWithLogits checks its labels on the device and raises
``InvalidArgumentError`` (as TF1's CPU kernel does; TF's GPU kernel gives NaN); only
that check waits for the device.  BiasAdd is one broadcast add, BiasAddGrad a sum.
"""

from __future__ import annotations

import cupy
import numpy as np

from ..nn_checks import (bias_axis, broadcastable_bias, label_error, last_axis,
                         softmax_axis, sparse_xent_shapes, xent_shape)
from ..registry import register_kernel
from .device import on_device
from .elementwise import ElementwiseKernel
from .reduce import compute_dtype

__all__ = ["build_softmax", "build_log_softmax", "build_xent", "build_sparse_xent",
           "build_l2_loss", "build_bias_add", "build_bias_add_grad"]


class _Shifted:
    """A softmax-family node's ``exp(x - max)`` along an axis, and its sum, in the compute
    dtype ``acc``; ``kernel(expr, names, out_dtype)`` fuses what follows into one
    elementwise kernel over the values named x (the logits), y (the labels), m (the
    max), e (``exp(x - m)``) and s (the sum)."""

    def __init__(self, node):
        self.node = node
        self.acc = compute_dtype(node.output_dtype)
        self._dtypes = dict(zip("xy", node.input_dtypes), m=self.acc, e=self.acc, s=self.acc)
        self.exp = self.kernel("exp(x - m)", "xm", self.acc)

    def kernel(self, expr: str, names: str, out_dtype) -> ElementwiseKernel:
        return ElementwiseKernel(expr, [(n, self._dtypes[n]) for n in names], out_dtype,
                                 name=self.node.name, op=self.node.op)

    def __call__(self, x, axis):
        m = cupy.max(x, axis=axis, keepdims=True).astype(self.acc, copy=False)
        e = self.exp(x, m)
        return m, e, cupy.sum(e, axis=axis, keepdims=True, dtype=self.acc)


@register_kernel("Softmax", "GPU")
def build_softmax(node):
    shifted, out_dtype = _Shifted(node), node.output_dtype
    normalise = shifted.kernel("e / s", "es", out_dtype)

    def softmax(x):
        axis = softmax_axis(node, x.shape)
        if x.size == 0:
            return cupy.empty(x.shape, out_dtype)
        _, e, s = shifted(x, axis)
        return normalise(e, s)
    return on_device(node, softmax)


@register_kernel("LogSoftmax", "GPU")
def build_log_softmax(node):
    shifted, out_dtype = _Shifted(node), node.output_dtype
    finish = shifted.kernel("(x - m) - log(s)", "xms", out_dtype)

    def log_softmax(x):
        last_axis(node, x.shape)
        if x.size == 0:
            return cupy.empty(x.shape, out_dtype)
        m, _, s = shifted(x, -1)
        return finish(x, m, s)
    return on_device(node, log_softmax)


@register_kernel("SoftmaxCrossEntropyWithLogits", "GPU")
def build_xent(node):
    shifted, out_dtype = _Shifted(node), node.output_dtype
    terms = shifted.kernel("y * (log(s) - (x - m))", "xyms", shifted.acc)
    backprop = shifted.kernel("exp(x - m) / s - y", "xyms", out_dtype)

    def xent(logits, labels):
        shape = xent_shape(node, logits.shape, labels.shape)
        if shape[1] == 0 or shape[0] == 0:
            return cupy.zeros(shape[:1], out_dtype), cupy.empty(shape, out_dtype)
        m, _, s = shifted(logits, 1)
        loss = cupy.sum(terms(logits, labels, m, s), axis=1, dtype=shifted.acc)
        return loss.astype(out_dtype, copy=False), backprop(logits, labels, m, s)
    return on_device(node, xent)


@register_kernel("SparseSoftmaxCrossEntropyWithLogits", "GPU")
def build_sparse_xent(node):
    shifted, out_dtype = _Shifted(node), node.output_dtype
    probs = shifted.kernel("e / s", "es", shifted.acc)

    def sparse_xent(logits, labels):
        sparse_xent_shapes(node, logits.shape, labels.shape)
        rows, classes = logits.shape
        if labels.size and bool(cupy.any((labels < 0) | (labels >= classes))):
            raise label_error(node, cupy.asnumpy(labels), classes)
        if logits.size == 0:
            return cupy.zeros((rows,), out_dtype), cupy.empty(logits.shape, out_dtype)
        m, e, s = shifted(logits, 1)
        index = labels.astype(np.int64, copy=False).reshape(rows, 1)
        picked = cupy.take_along_axis(logits, index, axis=1).astype(shifted.acc, copy=False)
        loss = cupy.log(s[:, 0]) - (picked[:, 0] - m[:, 0])
        backprop = probs(e, s)
        backprop[cupy.arange(rows), index[:, 0]] -= 1
        return loss.astype(out_dtype, copy=False), backprop.astype(out_dtype, copy=False)
    return on_device(node, sparse_xent)


@register_kernel("L2Loss", "GPU")
def build_l2_loss(node):
    out_dtype = node.output_dtype
    acc = compute_dtype(out_dtype)
    square = ElementwiseKernel("x * x", [("x", node.input_dtypes[0])], acc, name=node.name,
                               op=node.op)

    def l2_loss(t):
        total = cupy.sum(square(t), dtype=acc) if t.size else cupy.zeros((), acc)
        with np.errstate(over="ignore"):     # a float16 total past 65504 is inf, as TF's
            return (total / 2).astype(out_dtype)
    return on_device(node, l2_loss)


@register_kernel("BiasAdd", "GPU")
def build_bias_add(node):
    add = ElementwiseKernel("x + b", [("x", node.input_dtypes[0]), ("b", node.input_dtypes[1])],
                            node.output_dtype, name=node.name, op=node.op)

    def bias_add(value, bias):
        return add(value, broadcastable_bias(node, value.shape, bias))
    return on_device(node, bias_add)


@register_kernel("BiasAddGrad", "GPU")
def build_bias_add_grad(node):
    out_dtype = node.output_dtype
    acc = compute_dtype(out_dtype)

    def bias_add_grad(dy):
        axis = bias_axis(node, dy.ndim)
        others = tuple(a for a in range(dy.ndim) if a != axis)
        if dy.size == 0:
            return cupy.zeros((dy.shape[axis],), out_dtype)
        return cupy.sum(dy, axis=others, dtype=acc).astype(out_dtype, copy=False)
    return on_device(node, bias_add_grad)


# --- LRN, LRNGrad: the reference's formula over cupy -------------------------------------------

from ..reference.nn import make_lrn  # noqa: E402


@register_kernel(("LRN", "LRNGrad"), "GPU")
def build_lrn(node):
    return on_device(node, make_lrn(cupy, node))
