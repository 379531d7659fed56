"""Gradients of the TensorArray ops (``tensor_array.py``): a TensorArray is values, so
its gradient is the gradient of its ``values`` array, shaped as it (``lengths`` and
indices are integers: no gradient).

A read's gradient places the element's gradient at its row of a zero array (the
adjoint of taking it out: ``_TensorArrayGatherGrad``, summing where an index repeats);
``concat``'s cuts its gradient back into rows (``_TensorArrayConcatGrad``).  A write's
gradient splits the array's gradient in two: the written rows' go to the value written
(read out of the gradient with the written lengths), the rest to the array before the
write (``_TensorArrayUnwrite``: cut to its shape, the written rows zero, since the
write replaced whatever they held).  So ``ds.gradients`` goes through a ``While`` that
writes into a TensorArray as through any loop: the body's gradient is made of these.
"""

from __future__ import annotations

from .registry import not_differentiable, register_gradient
from .common import make_op
from .array_fill import size
from .sequence import range as range_

not_differentiable("_TensorArray", "_TensorArrayGatherGrad", "_TensorArrayConcatGrad",
                   "_TensorArraySplitGrad", "_TensorArrayUnwrite")


def _op(op_type, inputs, attrs=None):
    return make_op(op_type, inputs, attrs, name=op_type[1:])   # (names may not start "_")


def _unwrite(grad, values, indices):
    return _op("_TensorArrayUnwrite", [grad, values, indices])


@register_gradient("_TensorArrayWrite")
def _write_grad(op, grad, _):
    if grad is None:
        return [None] * 4
    values, _, index, _ = op.inputs
    value = _op("_TensorArrayRead", [grad, op.outputs[1], index],
                    {"identical_element_shapes": op.attrs["identical_element_shapes"]})
    return [_unwrite(grad, values, index), None, None, value]


@register_gradient("_TensorArrayScatter")
def _scatter_grad(op, grad, _):
    if grad is None:
        return [None] * 4
    values, _, indices, _ = op.inputs
    value = _op("_TensorArrayGather", [grad, op.outputs[1], indices],
                    {"identical_element_shapes": op.attrs["identical_element_shapes"]})
    return [_unwrite(grad, values, indices), None, None, value]


@register_gradient("_TensorArraySplit")
def _split_grad(op, grad, _):
    if grad is None:
        return [None] * 4
    values, _, _, split_lengths = op.inputs
    written = range_(0, size(split_lengths))
    value = _op("_TensorArraySplitGrad", [grad, op.outputs[1], split_lengths])
    return [_unwrite(grad, values, written), None, value, None]


@register_gradient("_TensorArrayRead")
def _read_grad(op, grad):
    values, _, index = op.inputs
    return [_op("_TensorArrayGatherGrad", [values, index, grad]), None, None]


@register_gradient("_TensorArrayGather")
def _gather_grad(op, grad):
    values, _, indices = op.inputs
    return [_op("_TensorArrayGatherGrad", [values, indices, grad]), None, None]


@register_gradient("_TensorArrayConcat")
def _concat_grad(op, grad):
    values, lengths = op.inputs
    return [_op("_TensorArrayConcatGrad", [values, lengths, grad]), None]
