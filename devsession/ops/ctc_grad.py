"""Gradients of the CTC ops (``ctc.py``), as TF's ``ctc_ops.py`` registers them:

* CTCLoss's gradient with respect to its logits is its own second output (the loss's
  gradient, computed in the forward-backward pass) scaled by each example's incoming
  loss gradient; the labels and lengths get none.  The second output has no gradient of
  its own (TF's PreventGradient): a second derivative raises LookupError, as in TF.
* The decoders are not differentiable (TF registers ``NotDifferentiable`` for both).
"""

from __future__ import annotations

from .array import expand_dims
from .registry import not_differentiable, register_gradient

__all__: list = []

_NO_SECOND_DERIVATIVE = (
    "Gradient explicitly disabled. Reason: Currently there is no way to take the second "
    "derivative of ctc_loss due to the fused implementation's interaction with "
    "tf.gradients()")


@register_gradient("CTCLoss")
def _ctc_loss_grad(op, grad_loss, grad_gradient=None):
    if grad_gradient is not None:
        raise LookupError(f"{_NO_SECOND_DERIVATIVE} (node '{op.name}')")
    if grad_loss is None:
        return [None, None, None, None]
    return [expand_dims(grad_loss, -1) * op.outputs[1], None, None, None]


not_differentiable("CTCGreedyDecoder", "CTCBeamSearchDecoder")
