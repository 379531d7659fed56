"""Fold a bias and a ReLU into the convolution or product before them (TF's
``_FusedConv2D`` and ``_FusedMatMul``).

``Relu(Conv2D(x, f) + b)`` writes the convolution's output, reads it back to add the
bias and writes the sum, then reads that to clip it.  Folded (``_Conv2DBias``), the
CPU kernel adds the bias and clips each output row right after computing it, while it
is in cache: one full-size array written instead of three, the same values (the same
float32 additions and maximum).  A dense layer's ``Relu(MatMul(a, w) + b)`` folds the
same way (``_MatMulBias``): on ``register_gemm``'s kernels each tile of the product gets
its bias and ReLU right after it is stored (an MLP's forward pass: 0.2 ms of its 3.9 were
those passes); other engines add them in one pass after the product.

Matched (on the CPU, float32 or float64, nothing in between fetched or read elsewhere):

    y = Conv2D(x, f) (NHWC), or MatMul(a, w) of two matrices
    z = BiasAdd(y, b) or Add(y, b) or Add(b, y)      b of shape (y's last dimension,)
    r = Relu(z)                                       optional

The fold produces ``r`` (or ``z``), keeps that node's name, and names every node it
replaces in traces.
"""

from __future__ import annotations

from ..dtypes import float32, float64
from ..ops.linalg import MATMUL_BIAS
from ..ops.nn_conv import CONV2D_BIAS
from .ir import PlanOp, fold_each, folded_op, on_cpu

__all__ = ["fold_biases"]

_ADDS = ("Add", "AddV2", "BiasAdd")
_FOLDS = {"Conv2D": (CONV2D_BIAS, 4), "MatMul": (MATMUL_BIAS, 2)}   # (folded op, rank)


def fold_biases(ops: list[PlanOp], fetched: set, placements: dict) -> list[PlanOp]:
    def fold(add, producer, readers):
        match = _match(add, producer, readers, fetched, placements)
        if match is None:
            return None
        base, bias = match
        relu = _only_relu(add, readers, fetched, placements)
        last = relu or add
        members = [base, add] + ([relu] if relu else [])
        return members, folded_op(members, last, _FOLDS[base.type][0], (*base.inputs, bias),
                                  last.outputs, {**base.attrs, "relu": relu is not None})
    return fold_each(ops, fold)


def _match(add, producer, readers, fetched, placements):
    """(the Conv2D or MatMul, the bias) when ``add`` adds a bias to the output of one
    that it alone reads."""
    if add.type not in _ADDS or len(add.inputs) != 2 or not on_cpu(add, placements):
        return None
    if add.type == "BiasAdd" and add.attrs.get("data_format", "NHWC") != "NHWC":
        return None
    pairs = [add.inputs] if add.type == "BiasAdd" else [add.inputs, add.inputs[::-1]]
    for base_out, bias in pairs:
        base = producer.get(base_out)
        if base is None or base.type not in _FOLDS or not on_cpu(base, placements) or \
                base.attrs.get("data_format", "NHWC") != "NHWC":
            continue
        rank = _FOLDS[base.type][1]
        if base.type == "MatMul" and any(t.shape.dims is None or len(t.shape.dims) != 2
                                         for t in base.inputs):
            continue                    # batch products keep MatMul's own kernel
        dims = base_out.shape.dims
        if base_out in fetched or readers[base_out] != [add] or dims is None or \
                len(dims) != rank or dims[-1] is None or bias.shape.dims != (dims[-1],) or \
                base_out.dtype not in (float32, float64) or bias.dtype != base_out.dtype or \
                add.outputs[0].shape.dims != dims:
            continue
        return base, bias
    return None


def _only_relu(add, readers, fetched, placements):
    """The ReLU that alone reads ``add``'s sum, if there is one."""
    out = add.outputs[0]
    if out in fetched or len(readers[out]) != 1:
        return None
    relu = readers[out][0]
    return relu if relu.type == "Relu" and on_cpu(relu, placements) else None
