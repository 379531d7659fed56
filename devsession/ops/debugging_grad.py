"""The gradients of ``CheckNumerics`` (the incoming gradient, itself checked for NaN and
Inf: TF's message, so a training step that goes non-finite says where) and of ``Print``
(the incoming gradient, to its first input only)."""

from __future__ import annotations

from .debugging import check_numerics
from .registry import register_gradient


@register_gradient("CheckNumerics")
def _check_numerics_grad(op, grad):
    message = op.attrs.get("message", "")
    return [check_numerics(grad, "Not a number (NaN) or infinity (Inf) values detected in "
                                 f"gradient. {message}")]


@register_gradient("Print")
def _print_grad(op, grad):
    return [grad] + [None] * (len(op.inputs) - 1)
