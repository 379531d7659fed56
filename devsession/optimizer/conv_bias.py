"""Fold a convolution's bias and ReLU into the convolution (TF's ``_FusedConv2D``).

``Relu(Conv2D(x, f) + b)`` writes the convolution's output, reads it back to add the
bias and writes the sum, then reads that to clip it.  Folded (``_Conv2DBias``), the
CPU kernel adds the bias and clips each output row right after computing it, while it
is in cache: one full-size array written instead of three, the same values (the same
float32 additions and maximum).

Matched (on the CPU, float32 or float64, NHWC, nothing in between fetched or read
elsewhere):

    y = Conv2D(x, f)
    z = BiasAdd(y, b) or Add(y, b) or Add(b, y)      b of shape (out channels,)
    r = Relu(z)                                       optional

The fold produces ``r`` (or ``z``), keeps that node's name, and names every node it
replaces in traces.
"""

from __future__ import annotations

from ..dtypes import float32, float64
from ..ops.nn_conv import CONV2D_BIAS
from .ir import PlanOp, folded_op, on_cpu, producers
from .ir import readers as readers_of

__all__ = ["fold_conv_bias"]

_ADDS = ("Add", "AddV2", "BiasAdd")


def fold_conv_bias(ops: list[PlanOp], fetched: set, placements: dict) -> list[PlanOp]:
    producer, readers = producers(ops), readers_of(ops)
    replaced, dropped = {}, set()
    for add in ops:
        match = _match(add, producer, readers, fetched, placements)
        if match is None:
            continue
        conv, bias = match
        relu = _only_relu(add, readers, fetched, placements)
        last = relu or add
        members = [conv, add] + ([relu] if relu else [])
        replaced[id(last)] = folded_op(members, last, CONV2D_BIAS, (*conv.inputs, bias),
                                       last.outputs, {**conv.attrs, "relu": relu is not None})
        dropped.update(id(op) for op in members if op is not last)
    return [replaced.get(id(op), op) for op in ops if id(op) not in dropped]


def _match(add, producer, readers, fetched, placements):
    """(the Conv2D, the bias) when ``add`` adds a bias to a convolution it alone reads."""
    if add.type not in _ADDS or len(add.inputs) != 2 or not on_cpu(add, placements):
        return None
    if add.type == "BiasAdd" and add.attrs.get("data_format", "NHWC") != "NHWC":
        return None
    pairs = [add.inputs] if add.type == "BiasAdd" else [add.inputs, add.inputs[::-1]]
    for conv_out, bias in pairs:
        conv = producer.get(conv_out)
        if conv is None or conv.type != "Conv2D" or not on_cpu(conv, placements) or \
                conv.attrs.get("data_format", "NHWC") != "NHWC":
            continue
        dims = conv_out.shape.dims
        if conv_out in fetched or readers[conv_out] != [add] or dims is None or \
                len(dims) != 4 or dims[3] is None or bias.shape.dims != (dims[3],) or \
                conv_out.dtype not in (float32, float64) or bias.dtype != conv_out.dtype or \
                add.outputs[0].shape.dims != dims:
            continue
        return conv, bias
    return None


def _only_relu(add, readers, fetched, placements):
    """The ReLU that alone reads ``add``'s sum, if there is one."""
    out = add.outputs[0]
    if out in fetched or len(readers[out]) != 1:
        return None
    relu = readers[out][0]
    return relu if relu.type == "Relu" and on_cpu(relu, placements) else None
