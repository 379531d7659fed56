"""Gradients of MaxPoolWithArgmax and Dilation2D (``nn_window_argmax.py``), as TF's
``nn_grad.py`` registers them, each checked against finite differences
(tests/test_window_argmax.py):

* MaxPoolWithArgmax's is ``MaxPoolGradWithArgmax(input, dy, argmax)`` (the argmax
  output gets none); that op's is zeros for ``input``,
  ``MaxPoolGradGradWithArgmax(input, grad, argmax)`` for ``grad`` and none for
  ``argmax``; MaxPoolGradGradWithArgmax has none (as TF, which registers none).
* Dilation2D's are ``Dilation2DBackpropInput`` and ``Dilation2DBackpropFilter``; TF
  registers no gradient for those two, so neither does devsession.
"""

from __future__ import annotations

from .common import make_op
from .nn_window_argmax import ARGMAX_POOL_ATTRS, DILATION_ATTRS
from .registry import not_differentiable, register_gradient
from .shape_of import zeros_like_of

__all__: list = []


def _attrs(op, keys) -> dict:
    return {key: op.attrs[key] for key in keys if key in op.attrs}


@register_gradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op, dy, _argmax_grad=None):
    if dy is None:
        return [None]
    (x,) = op.inputs
    attrs = {**_attrs(op, ARGMAX_POOL_ATTRS), "Targmax": op.outputs[1].dtype}
    return [make_op("MaxPoolGradWithArgmax", [x, dy, op.outputs[1]], attrs)]


@register_gradient("MaxPoolGradWithArgmax")
def _max_pool_grad_with_argmax_grad(op, grad):
    x, _, argmax = op.inputs
    attrs = {**_attrs(op, ARGMAX_POOL_ATTRS), "Targmax": argmax.dtype}
    return [zeros_like_of(x), make_op("MaxPoolGradGradWithArgmax", [x, grad, argmax], attrs),
            None]


@register_gradient("Dilation2D")
def _dilation2d_grad(op, dy):
    x, f = op.inputs
    attrs = _attrs(op, DILATION_ATTRS)
    return [make_op("Dilation2DBackpropInput", [x, f, dy], attrs),
            make_op("Dilation2DBackpropFilter", [x, f, dy], attrs)]


not_differentiable("MaxPoolGradGradWithArgmax", "Dilation2DBackpropInput",
                   "Dilation2DBackpropFilter")
