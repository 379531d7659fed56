"""Gradients of the nn ops (``nn.py``, ``nn_conv.py``), as TF's ``nn_grad.py`` computes
them, each checked against finite differences (tests/test_nn_grad.py).

* Conv2D's input and filter gradients are ``Conv2DBackpropInputV2`` and
  ``Conv2DBackpropFilterV2``: TF's ops that read the original tensor's shape
  themselves, so a batch of unknown size needs no Shape op.  The backprop ops have
  gradients too (each is linear in its two tensor inputs), so second derivatives work.
* Pooling: ``MaxPoolGrad`` routes the gradient to each window's first maximum;
  ``AvgPoolGrad`` spreads it evenly (it needs the input's shape as a tensor: static
  shapes give a constant).
* The softmax losses reuse their ``backprop`` output, as TF does; a gradient arriving
  at that output too (second-order use) adds the softmax's Jacobian-vector product.
  Sparse labels get no gradient.
* Softmax: ``(dy - sum(dy * y)) * y`` along its axis.
* Activations are written with elementwise ops (``where``, ``sigmoid``), which the
  optimizer fuses into one loop with the forward pass's neighbours.

A gradient function gets the forward ``Operation`` and one gradient per output (None
where none flows) and returns one per input (``registry.py``).
"""

from __future__ import annotations

from ..graph import Tensor
from .array import reshape
from .common import make_op
from .array_fill import zeros_like
from .elementwise import abs as abs_
from .elementwise import logical_and, sigmoid, where
from .nn import log_softmax, shape_tensor, softmax
from .nn_conv import CONV_ATTRS, POOL_ATTRS
from .reduce import reduce_sum
from .registry import register_gradient
from .shape_of import broadcast_to_shape_of

__all__: list = []

SELU_SCALE, SELU_ALPHA = 1.0507009873554805, 1.6732632423543772   # TF's constants


def _attrs(op, keys) -> dict:
    return {k: op.attrs[k] for k in keys if k in op.attrs}


# --- convolution and pooling ---------------------------------------------------------------

@register_gradient("Conv2D")
def _conv2d_grad(op, dy):
    x, f = op.inputs
    attrs = _attrs(op, CONV_ATTRS)
    return [make_op("Conv2DBackpropInputV2", [x, f, dy], attrs),
            make_op("Conv2DBackpropFilterV2", [x, f, dy], attrs)]


@register_gradient("Conv2DBackpropInput")
@register_gradient("Conv2DBackpropInputV2")
def _conv2d_backprop_input_grad(op, grad):
    """The input gradient is linear in (filter, dy); its first input only lends a shape."""
    _, f, dy = op.inputs
    attrs = _attrs(op, CONV_ATTRS)
    return [None, make_op("Conv2DBackpropFilterV2", [grad, f, dy], attrs),
            make_op("Conv2D", [grad, f], attrs)]


@register_gradient("Conv2DBackpropFilter")
@register_gradient("Conv2DBackpropFilterV2")
def _conv2d_backprop_filter_grad(op, grad):
    """The filter gradient is linear in (input, dy); its second input only lends a shape."""
    x, _, dy = op.inputs
    attrs = _attrs(op, CONV_ATTRS)
    return [make_op("Conv2DBackpropInputV2", [x, grad, dy], attrs), None,
            make_op("Conv2D", [x, grad], attrs)]


@register_gradient("MaxPool")
def _max_pool_grad(op, dy):
    (x,) = op.inputs
    return [make_op("MaxPoolGrad", [x, op.outputs[0], dy], _attrs(op, POOL_ATTRS))]


@register_gradient("MaxPoolGrad")
def _max_pool_grad_grad(op, grad):
    """MaxPoolGrad is linear in its gradient input (piecewise constant in the others)."""
    x, y, _ = op.inputs
    return [None, None, make_op("MaxPoolGradGrad", [x, y, grad], _attrs(op, POOL_ATTRS))]


@register_gradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad(op, grad):
    x, y, _ = op.inputs
    return [None, None, make_op("MaxPoolGrad", [x, y, grad], _attrs(op, POOL_ATTRS))]


@register_gradient("AvgPool")
def _avg_pool_grad(op, dy):
    (x,) = op.inputs
    return [make_op("AvgPoolGrad", [shape_tensor(x), dy], _attrs(op, POOL_ATTRS))]


@register_gradient("AvgPoolGrad")
def _avg_pool_grad_grad(op, grad):
    return [None, make_op("AvgPool", [grad], _attrs(op, POOL_ATTRS))]


# --- softmax family ------------------------------------------------------------------------

@register_gradient("Softmax")
def _softmax_grad(op, dy):
    """``(dy - sum(dy * y, axis, keepdims)) * y`` (TF's op has no axis attr: the last)."""
    y = op.outputs[0]
    total = reduce_sum(dy * y, axis=op.attrs.get("axis", -1), keepdims=True)
    return [(dy - total) * y]


def _rows_times(per_row: Tensor, matrix: Tensor) -> Tensor:
    """``per_row[:, None] * matrix``."""
    return reshape(per_row, [-1, 1]) * matrix


def _softmax_jvp(probs: Tensor, grad: Tensor) -> Tensor:
    """The softmax Jacobian applied to ``grad`` (rows): ``(grad - sum(grad * p)) * p``."""
    return (grad - reduce_sum(grad * probs, axis=-1, keepdims=True)) * probs


@register_gradient("LogSoftmax")
def _log_softmax_grad(op, dy):
    probs = make_op("Exp", [op.outputs[0]])
    return [dy - reduce_sum(dy, axis=-1, keepdims=True) * probs]


@register_gradient("SoftmaxCrossEntropyWithLogits")
def _xent_grad(op, grad_loss, grad_backprop=None):
    logits, labels = op.inputs
    d_logits = d_labels = None
    if grad_loss is not None:
        d_logits = _rows_times(grad_loss, op.outputs[1])
        d_labels = _rows_times(grad_loss, -log_softmax(logits))
    if grad_backprop is not None:       # backprop = softmax(logits) - labels
        jvp = _softmax_jvp(softmax(logits), grad_backprop)
        d_logits = jvp if d_logits is None else d_logits + jvp
        d_labels = -grad_backprop if d_labels is None else d_labels - grad_backprop
    return [d_logits, d_labels]


@register_gradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_xent_grad(op, grad_loss, grad_backprop=None):
    logits = op.inputs[0]
    d_logits = None if grad_loss is None else _rows_times(grad_loss, op.outputs[1])
    if grad_backprop is not None:
        jvp = _softmax_jvp(softmax(logits), grad_backprop)
        d_logits = jvp if d_logits is None else d_logits + jvp
    return [d_logits, None]


@register_gradient("BiasAddGrad")
def _bias_add_grad_grad(op, grad):
    """BiasAddGrad sums over all but the channel axis: its gradient broadcasts back."""
    (dy,) = op.inputs
    if op.attrs.get("data_format", "NHWC") == "NCHW":
        if dy.shape.ndims is None:
            raise ValueError(f"The gradient of '{op.name}' (NCHW) needs the rank of "
                             f"'{dy.name}'.")
        grad = reshape(grad, [-1] + [1] * (dy.shape.ndims - 2))
    return [broadcast_to_shape_of(grad, dy)]


@register_gradient("L2Loss")
def _l2_loss_grad(op, dy):
    return [op.inputs[0] * dy]


@register_gradient("BiasAdd")
def _bias_add_grad(op, dy):
    return [dy, make_op("BiasAddGrad", [dy], _attrs(op, ("data_format",)))]


# --- activations ---------------------------------------------------------------------------

@register_gradient("LeakyRelu")
def _leaky_relu_grad(op, dy):
    (x,) = op.inputs
    return [where(x > 0, dy, dy * op.attrs["alpha"])]


@register_gradient("Elu")
def _elu_grad(op, dy):
    y = op.outputs[0]
    return [where(y < 0, dy * (y + 1), dy)]


@register_gradient("Softplus")
def _softplus_grad(op, dy):
    return [dy * sigmoid(op.inputs[0])]


@register_gradient("Relu6")
def _relu6_grad(op, dy):
    (x,) = op.inputs
    return [where(logical_and(x > 0, x < 6), dy, zeros_like(dy))]


@register_gradient("Selu")
def _selu_grad(op, dy):
    y = op.outputs[0]          # TF's SeluGrad: from the output
    return [where(y < 0, dy * (y + SELU_SCALE * SELU_ALPHA), dy * SELU_SCALE)]


@register_gradient("Softsign")
def _softsign_grad(op, dy):
    denominator = abs_(op.inputs[0]) + 1
    return [dy / (denominator * denominator)]
