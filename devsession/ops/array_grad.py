"""Gradients of the data-movement ops: the inverse movement of the output gradient.

Identity passes it on, Reshape reshapes it back, Transpose applies the inverse
permutation, ConcatV2 cuts it into one piece per input (``_SplitToShapesOf``).
StopGradient is not differentiable: that is its purpose.
"""

from __future__ import annotations

from .array import transpose
from .registry import not_differentiable, register_gradient
from .shape_of import reshape_to_shape_of, split_to_shapes_of

not_differentiable("StopGradient")


@register_gradient("Identity")
def _identity_grad(op, dy):
    return [dy]


@register_gradient("Reshape")
def _reshape_grad(op, dy):
    return [reshape_to_shape_of(dy, op.inputs[0])]


@register_gradient("Transpose")
def _transpose_grad(op, dy):
    perm = op.get_attr("perm")
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return [transpose(dy, inverse)]


@register_gradient("ConcatV2")
def _concat_grad(op, dy):
    return split_to_shapes_of(dy, op.inputs, op.get_attr("axis"))
