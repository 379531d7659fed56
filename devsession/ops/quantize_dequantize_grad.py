"""Gradients of ``quantize_dequantize.py``'s ops, as TF registers them: V2 and V3 pass
the gradient straight through (none for the ranges or ``num_bits``); V4's is TF's
``QuantizeAndDequantizeV4Grad``, the gradient where the input lies in
``[input_min, input_max]`` and zeros for the ranges."""

from __future__ import annotations

from .common import make_op
from .registry import not_differentiable, register_gradient

__all__: list = []


@register_gradient("QuantizeAndDequantizeV2")
def _quantize_and_dequantize_v2_grad(op, grad):
    return [grad, None, None]


@register_gradient("QuantizeAndDequantizeV3")
def _quantize_and_dequantize_v3_grad(op, grad):
    return [grad, None, None, None]


@register_gradient("QuantizeAndDequantizeV4")
def _quantize_and_dequantize_v4_grad(op, grad):
    x, lo, hi = op.inputs
    backprop = make_op("QuantizeAndDequantizeV4Grad", [grad, x, lo, hi],
                       {"axis": op.attrs["axis"]}).op
    return list(backprop.outputs)


not_differentiable("QuantizeAndDequantizeV4Grad")
