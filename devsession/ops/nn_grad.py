"""Gradients of the neural-network ops (TF's ``nn_grad.py`` formulas).

Softmax: ``(dy - sum(dy * y, axis, keepdims)) * y``.
"""

from __future__ import annotations

from .common import make_op
from .elementwise import multiply, subtract
from .registry import register_gradient


@register_gradient("Softmax")
def _softmax_grad(op, dy):
    y = op.outputs[0]
    total = make_op("Sum", [multiply(dy, y)], {"axis": (op.get_attr("axis"),),
                                               "keepdims": True})
    return [multiply(subtract(dy, total), y)]
