"""Gradients of the shape-of ops, so gradients of gradients work: broadcasting and
summing down are each other's adjoints, a reshape is undone by a reshape, a split by a
concat.  The ``like`` inputs only lend a shape: they get no gradient."""

from __future__ import annotations

from .array import concat
from .registry import not_differentiable, register_gradient
from .shape_of import (broadcast_to_shape_of, reduce_to_shape_of, reshape_to_shape_of,
                       zeros_like_of)

not_differentiable("_ReducedSize")


@register_gradient("_BroadcastToShapeOf")
def _broadcast_grad(op, dy):
    value, like = op.inputs
    return [reduce_to_shape_of(dy, value, peers=(like,)), None]


@register_gradient("_ReduceToShapeOf")
def _reduce_grad(op, dy):
    return [broadcast_to_shape_of(dy, op.inputs[0]), None]


@register_gradient("_ReshapeToShapeOf")
def _reshape_grad(op, dy):
    return [reshape_to_shape_of(dy, op.inputs[0]), None]


@register_gradient("_SplitToShapesOf")
def _split_grad(op, *dys):
    pieces = [zeros_like_of(t) if g is None else g for t, g in zip(op.outputs, dys)]
    return [concat(pieces, op.attrs["axis"])] + [None] * (len(op.inputs) - 1)
