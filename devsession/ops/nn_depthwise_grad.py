"""Gradients of the depthwise convolution ops (``nn_depthwise.py``), as TF's
``nn_grad.py`` computes them, each checked against finite differences
(tests/test_depthwise_conv.py).

* DepthwiseConv2dNative's input and filter gradients are
  ``DepthwiseConv2dNativeBackpropInput(shape(input), filter, dy)`` and
  ``DepthwiseConv2dNativeBackpropFilter(input, shape(filter), dy)``.  TF has no ``V2``
  forms reading the original tensors, so the shapes are int32 tensors: constants where
  the graph knows them, a Shape op otherwise (an unknown batch).
* Each backprop op is linear in its two tensor inputs (its shape input gets None), so
  its gradient is the other backprop op or the forward op, as TF registers them: second
  derivatives work.
"""

from __future__ import annotations

from .common import make_op
from .nn import shape_tensor
from .nn_depthwise import DEPTHWISE_ATTRS
from .registry import register_gradient

__all__: list = []

FORWARD = "DepthwiseConv2dNative"
INPUT_GRAD = "DepthwiseConv2dNativeBackpropInput"
FILTER_GRAD = "DepthwiseConv2dNativeBackpropFilter"


def _attrs(op) -> dict:
    return {key: op.attrs[key] for key in DEPTHWISE_ATTRS if key in op.attrs}


@register_gradient(FORWARD)
def _depthwise_grad(op, dy):
    x, f = op.inputs
    attrs = _attrs(op)
    return [make_op(INPUT_GRAD, [shape_tensor(x), f, dy], attrs),
            make_op(FILTER_GRAD, [x, shape_tensor(f), dy], attrs)]


@register_gradient(INPUT_GRAD)
def _depthwise_input_grad_grad(op, grad):
    """Linear in (filter, dy); ``input_sizes`` only lends a shape."""
    _, f, dy = op.inputs
    attrs = _attrs(op)
    return [None, make_op(FILTER_GRAD, [grad, shape_tensor(f), dy], attrs),
            make_op(FORWARD, [grad, f], attrs)]


@register_gradient(FILTER_GRAD)
def _depthwise_filter_grad_grad(op, grad):
    """Linear in (input, dy); ``filter_sizes`` only lends a shape."""
    x, _, dy = op.inputs
    attrs = _attrs(op)
    return [make_op(INPUT_GRAD, [shape_tensor(x), grad, dy], attrs), None,
            make_op(FORWARD, [x, grad], attrs)]
