"""Fold a max-pool's gradient, the gradient of the ReLU before it, and the bias's gradient.

A convnet layer ``pool(relu(conv + b))`` differentiates into three passes over the
pool's full-size input: ``MaxPoolGrad`` scatters each window's gradient to its maximum,
the ReLU's gradient multiplies that by ``relu_out > 0``, and the bias's gradient sums it
per channel.  The mask is 1 at a window's maximum exactly when the maximum is positive,
so one pass does all three (``_MaxPoolReluGrad``): a window whose maximum is not
positive passes its gradient times 0 (NaN stays NaN), and what the windows pass is
summed per channel as it is scattered.  The same values (the bias's gradient summed in
another order), one full-size array written instead of two, none read back.

Matched (before fusion, on the CPU, float32 or float64, nothing in between fetched):

    g = MaxPoolGrad(x, y, dy)                          read only by the Mul
    r = Mul(g, Cast(Greater(x, 0)))                    the ReLU's gradient (``Relu``'s)
    s = Sum(r, axis=(0, 1, 2)) or BiasAddGrad(r)       optional: the bias's gradient

The fold produces ``r`` (and ``s`` as its second output), keeps the Mul's name, and
names every node it replaces in traces.  A Greater or Cast that something else still
reads stays as it was, and so does a sum with control inputs (the fold runs where the
Mul did, maybe before them).
"""

from __future__ import annotations

from ..dtypes import float32, float64
from ..ops.nn_conv import MAX_POOL_RELU_GRAD
from .ir import PlanOp, fold_each, folded_op, mask_ops, on_cpu, relu_gradients

__all__ = ["fold_pool_gradients"]

_BIAS_AXES = (0, 1, 2)


def fold_pool_gradients(ops: list[PlanOp], fetched: set, placements: dict) -> list[PlanOp]:
    def fold(mul, producer, readers):
        match = _match(mul, producer, readers, fetched, placements)
        if match is None:
            return None
        pool_grad, masks = match
        bias = _bias_sum(mul, readers, placements)
        members = [pool_grad, *masks, mul] + ([bias] if bias is not None else [])
        return members, folded_op(
            members, mul, MAX_POOL_RELU_GRAD, pool_grad.inputs,
            mul.outputs + (bias.outputs if bias is not None else ()),
            {**{k: pool_grad.attrs[k] for k in ("ksize", "strides", "padding")},
             "bias_grad": bias is not None})
    return fold_each(ops, fold)


def _match(mul, producer, readers, fetched, placements):
    """(the MaxPoolGrad, the mask ops only this Mul reads) when ``mul`` is a ReLU's
    gradient of a max-pool's gradient that can fold, else None."""
    if not on_cpu(mul, placements):
        return None
    for grad, cast, greater in relu_gradients(mul, producer):
        pool_grad, mask = producer.get(grad), cast.outputs[0]
        if pool_grad is None or pool_grad.type != "MaxPoolGrad" or \
                greater.inputs[0] is not pool_grad.inputs[0]:
            continue
        if grad in fetched or len(readers[grad]) != 1 or not on_cpu(pool_grad, placements) or \
                mul.outputs[0].dtype not in (float32, float64) or \
                grad.dtype != mul.outputs[0].dtype or mask.dtype != grad.dtype or \
                mask.shape.dims != grad.shape.dims:
            continue
        return pool_grad, mask_ops(mul, cast, greater, readers, fetched)
    return None


def _bias_sum(mul, readers, placements):
    """The reader of the ReLU's gradient that sums it per channel, if there is one."""
    for op in readers[mul.outputs[0]]:
        if not on_cpu(op, placements) or op.control_inputs:
            continue
        if op.type == "Sum" and len(op.inputs) == 1 and not op.attrs.get("keepdims") and \
                tuple(op.attrs.get("axis", ())) == _BIAS_AXES:
            return op
        if op.type == "BiasAddGrad" and op.attrs.get("data_format", "NHWC") == "NHWC":
            return op
    return None
