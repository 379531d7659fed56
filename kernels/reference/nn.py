"""Reference kernels of the neural-network ops (convolution and pooling are in
``nn_conv.py``): the most direct numpy formulas, the oracle of the CPU and GPU kernels.

* Softmax, LogSoftmax and the cross entropies subtract the row max first, so huge
  finite inputs give no inf/nan; float16 is computed in float32 and rounded once.
* ``SoftmaxCrossEntropyWithLogits`` returns TF's two outputs: ``loss = sum(labels *
  (log(sum(exp(z))) - z))`` with ``z = logits - max``, and ``backprop = softmax -
  labels``; the sparse form takes class indices, and a label outside [0, classes)
  raises ``InvalidArgumentError`` naming the node.
* LeakyRelu, Elu, Softplus, Relu6, Selu and Softsign are TF's kernel formulas (``exp(x) - 1`` below 0 for Elu;
  ``np.logaddexp(0, x)`` for Softplus).
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, get_attr, invalid_argument
from ..nn_checks import (bias_axis, broadcastable_bias, label_error, last_axis,
                         softmax_axis, sparse_xent_shapes, xent_shape)
from ..registry import register_kernel
from .elementwise import compute_dtype

DEVICE = "REF"


def _shifted(x, axis):
    xc = compute_dtype(x)
    return xc - np.max(xc, axis=axis, keepdims=True)


@register_kernel("Softmax", DEVICE)
def build_softmax(node):
    out_dtype = node.output_dtype

    def softmax(x):
        axis = softmax_axis(node, x.shape)
        if x.size == 0:
            return np.empty(x.shape, out_dtype)
        with np.errstate(all="ignore"):
            e = np.exp(_shifted(x, axis))
            return (e / np.sum(e, axis=axis, keepdims=True)).astype(out_dtype, copy=False)
    return softmax


@register_kernel("LogSoftmax", DEVICE)
def build_log_softmax(node):
    out_dtype = node.output_dtype

    def log_softmax(x):
        last_axis(node, x.shape)
        if x.size == 0:
            return np.empty(x.shape, out_dtype)
        with np.errstate(all="ignore"):
            z = _shifted(x, -1)
            return (z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))).astype(out_dtype)
    return log_softmax


@register_kernel("SoftmaxCrossEntropyWithLogits", DEVICE)
def build_xent(node):
    out_dtype = node.output_dtype

    def xent(logits, labels):
        shape = xent_shape(node, logits.shape, labels.shape)
        x = np.broadcast_to(compute_dtype(logits), shape)
        y = np.broadcast_to(compute_dtype(labels), shape)
        if shape[1] == 0:
            return np.zeros(shape[:1], out_dtype), np.empty(shape, out_dtype)
        with np.errstate(all="ignore"):
            z = x - np.max(x, axis=1, keepdims=True)
            e = np.exp(z)
            total = np.sum(e, axis=1, keepdims=True)
            loss = np.sum(y * (np.log(total) - z), axis=1)
            return loss.astype(out_dtype), (e / total - y).astype(out_dtype)
    return xent


@register_kernel("SparseSoftmaxCrossEntropyWithLogits", DEVICE)
def build_sparse_xent(node):
    out_dtype = node.output_dtype

    def sparse_xent(logits, labels):
        sparse_xent_shapes(node, logits.shape, labels.shape)
        error = label_error(node, labels, logits.shape[1])
        if error is not None:
            raise error
        if logits.size == 0:
            return np.zeros(logits.shape[:1], out_dtype), np.empty(logits.shape, out_dtype)
        rows = np.arange(logits.shape[0])
        with np.errstate(all="ignore"):
            z = _shifted(logits, 1)
            e = np.exp(z)
            total = np.sum(e, axis=1, keepdims=True)
            loss = np.log(total[:, 0]) - z[rows, labels]
            backprop = e / total
            backprop[rows, labels] -= 1
            return loss.astype(out_dtype), backprop.astype(out_dtype)
    return sparse_xent


@register_kernel("L2Loss", DEVICE)
def build_l2_loss(node):
    out_dtype = node.output_dtype

    def l2_loss(t):
        with np.errstate(over="ignore"):
            xc = compute_dtype(t)
            return np.asarray(np.sum(xc * xc) / 2).astype(out_dtype)
    return l2_loss


@register_kernel("BiasAdd", DEVICE)
def build_bias_add(node):
    out_dtype = node.output_dtype

    def bias_add(value, bias):
        bias = broadcastable_bias(node, value.shape, bias)
        with np.errstate(over="ignore"):
            total = compute_dtype(value) + compute_dtype(bias)
            return total.astype(out_dtype, copy=False)
    return bias_add


@register_kernel("BiasAddGrad", DEVICE)
def build_bias_add_grad(node):
    out_dtype = node.output_dtype

    def bias_add_grad(dy):
        axis = bias_axis(node, dy.ndim)
        others = tuple(a for a in range(dy.ndim) if a != axis)
        return np.sum(compute_dtype(dy), axis=others).astype(out_dtype)
    return bias_add_grad


def _leaky_relu(node):
    alpha = float(get_attr(node, "alpha"))
    return lambda x: np.where(x > 0, x, x * np.asarray(alpha, x.dtype))


def _elu(node):
    return lambda x: np.where(x < 0, np.exp(x) - 1, x)


def _softplus(node):
    return lambda x: np.logaddexp(np.zeros((), x.dtype), x)


def _relu6(node):
    return lambda x: np.minimum(np.maximum(x, 0), 6)


SELU_SCALE, SELU_ALPHA = 1.0507009873554805, 1.6732632423543772   # TF's constants


def _selu(node):
    return lambda x: np.where(x > 0, SELU_SCALE * x, SELU_SCALE * SELU_ALPHA * (np.exp(x) - 1))


def _softsign(node):
    return lambda x: x / (np.abs(x) + 1)


_ACTIVATIONS = {"LeakyRelu": _leaky_relu, "Elu": _elu, "Softplus": _softplus,
                "Relu6": _relu6, "Selu": _selu, "Softsign": _softsign}


@register_kernel(tuple(_ACTIVATIONS), DEVICE)
def build_activation(node):
    fn = _ACTIVATIONS[node.op](node)
    out_dtype = node.output_dtype

    def activation(x):
        with np.errstate(all="ignore"):
            return np.asarray(fn(compute_dtype(x))).astype(out_dtype, copy=False)
    return activation


# --- LRN, LRNGrad: one formula over numpy or cupy (the GPU's in cuda/nn.py) ---------------------

def _window_sums(xp, v, radius: int):
    """The sums of ``v`` over channels ``c - radius .. c + radius`` (last axis), by one
    cumulative sum, in float32 (float64 for float64 inputs)."""
    acc = v.astype(np.float64 if v.dtype == np.float64 else np.float32)
    channels = v.shape[-1]
    total = xp.cumsum(acc, axis=-1)
    zero = xp.zeros(v.shape[:-1] + (1,), total.dtype)
    padded = xp.concatenate([zero, total], axis=-1)          # padded[k] = sum of v[:k]
    index = np.arange(channels)
    hi = xp.asarray(np.minimum(index + radius + 1, channels))
    lo = xp.asarray(np.maximum(index - radius, 0))
    return xp.take(padded, hi, axis=-1) - xp.take(padded, lo, axis=-1)


def _lrn_params(node):
    a = node.attrs
    return int(a["depth_radius"]), float(a["bias"]), float(a["alpha"]), float(a["beta"])


def _four_d(node, *arrays) -> None:
    for x in arrays:
        if x.ndim != 4:
            raise invalid_argument(node.name, node.op, f"inputs must be 4-dimensional, got "
                                   f"{fmt_shape(x.shape)}")
    if any(x.shape != arrays[0].shape for x in arrays[1:]):
        raise invalid_argument(node.name, node.op, "input_grads, input_image and "
                               "output_image must have the same shape")


def make_lrn(xp, node):
    """The LRN or LRNGrad kernel of ``node`` over array module ``xp``."""
    radius, bias, alpha, beta = _lrn_params(node)

    def norm_of(x):
        return bias + alpha * _window_sums(xp, x.astype(np.float32) ** 2, radius)

    def lrn(x):
        _four_d(node, x)
        return (x * norm_of(x) ** -beta).astype(x.dtype)

    def lrn_grad(dy, x, y):
        _four_d(node, dy, x, y)
        norm = norm_of(x)
        around = _window_sums(xp, dy * y / norm, radius)
        return (dy * norm ** -beta - 2.0 * alpha * beta * x * around).astype(x.dtype)
    return lrn if node.op == "LRN" else lrn_grad


@register_kernel(("LRN", "LRNGrad"), DEVICE)
def build_lrn(node):
    return make_lrn(np, node)
