"""Gradients of the 3-D convolution and pooling ops (``nn_conv3d.py``), as TF's
``nn_grad.py`` computes them, each checked against finite differences
(tests/test_conv3d.py).

* Conv3D's input and filter gradients are ``Conv3DBackpropInputV2(shape(input), filter,
  dy)`` and ``Conv3DBackpropFilterV2(input, shape(filter), dy)`` (the shapes: constants
  where the graph knows them, a Shape op otherwise).  Each backprop op is linear in its
  two tensor inputs (its shape input gets None), so its gradient is the other backprop
  op or Conv3D: second derivatives work.
* MaxPool3D's is ``MaxPool3DGrad`` (each gradient to its window's first maximum), whose
  own is ``MaxPool3DGradGrad``, whose own is ``MaxPool3DGrad`` again; AvgPool3D's is
  ``AvgPool3DGrad`` (spread evenly), whose own is AvgPool3D.
"""

from __future__ import annotations

from .common import make_op
from .nn import shape_tensor
from .nn_conv3d import CONV3D_ATTRS, POOL3D_ATTRS
from .registry import register_gradient

__all__: list = []

INPUT_GRAD, FILTER_GRAD = "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"


def _attrs(op, keys) -> dict:
    return {key: op.attrs[key] for key in keys if key in op.attrs}


@register_gradient("Conv3D")
def _conv3d_grad(op, dy):
    x, f = op.inputs
    attrs = _attrs(op, CONV3D_ATTRS)
    return [make_op(INPUT_GRAD, [shape_tensor(x), f, dy], attrs),
            make_op(FILTER_GRAD, [x, shape_tensor(f), dy], attrs)]


@register_gradient(INPUT_GRAD)
def _conv3d_input_grad_grad(op, grad):
    """Linear in (filter, dy); ``input_sizes`` only lends a shape."""
    _, f, dy = op.inputs
    attrs = _attrs(op, CONV3D_ATTRS)
    return [None, make_op(FILTER_GRAD, [grad, shape_tensor(f), dy], attrs),
            make_op("Conv3D", [grad, f], attrs)]


@register_gradient(FILTER_GRAD)
def _conv3d_filter_grad_grad(op, grad):
    """Linear in (input, dy); ``filter_sizes`` only lends a shape."""
    x, _, dy = op.inputs
    attrs = _attrs(op, CONV3D_ATTRS)
    return [make_op(INPUT_GRAD, [shape_tensor(x), grad, dy], attrs), None,
            make_op("Conv3D", [x, grad], attrs)]


@register_gradient("MaxPool3D")
def _max_pool3d_grad(op, dy):
    (x,) = op.inputs
    return [make_op("MaxPool3DGrad", [x, op.outputs[0], dy], _attrs(op, POOL3D_ATTRS))]


@register_gradient("MaxPool3DGrad")
def _max_pool3d_grad_grad(op, grad):
    """Linear in its gradient input (piecewise constant in the others)."""
    x, y, _ = op.inputs
    return [None, None, make_op("MaxPool3DGradGrad", [x, y, grad], _attrs(op, POOL3D_ATTRS))]


@register_gradient("MaxPool3DGradGrad")
def _max_pool3d_grad_grad_grad(op, grad):
    x, y, _ = op.inputs
    return [None, None, make_op("MaxPool3DGrad", [x, y, grad], _attrs(op, POOL3D_ATTRS))]


@register_gradient("AvgPool3D")
def _avg_pool3d_grad(op, dy):
    (x,) = op.inputs
    return [make_op("AvgPool3DGrad", [shape_tensor(x), dy], _attrs(op, POOL3D_ATTRS))]


@register_gradient("AvgPool3DGrad")
def _avg_pool3d_grad_grad(op, grad):
    return [None, make_op("AvgPool3D", [grad], _attrs(op, POOL3D_ATTRS))]
