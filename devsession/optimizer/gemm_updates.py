"""Fold a weight gradient's product into its gradient-descent update.

``ApplyGradientDescent(var, lr, MatMul(a, b))`` becomes one ``_MatMulApplyGradientDescent``
whose CPU kernel is a single product accumulating ``-lr * a @ b`` into the variable
(``kernels/cpu/sgemm.py``): the gradient is never written out and read back, and the
update is no second pass over the variable.  It applies where that is the same
computation: the product feeds only the update (not fetched, no other reader), both run
on the CPU in float32 on 2-D operands of known shapes, the product is big enough for the
saving to outweigh a ctypes call (``MIN_MACS``), and numpy's BLAS has an sgemm we can
call.  The fused op keeps the update's name and tensor, and names both nodes in traces.
"""

from __future__ import annotations

import collections

from ..dtypes import float32
from ..ops.training import MATMUL_GRADIENT_DESCENT
from .ir import PlanOp

__all__ = ["fold_gemm_updates", "MIN_MACS"]

MIN_MACS = 1 << 18          # smaller products: a ctypes call costs more than it saves


def fold_gemm_updates(ops: list[PlanOp], fetched: set, placements: dict) -> list[PlanOp]:
    readers = collections.Counter(t for op in ops for t in op.inputs)
    producer = {t: op for op in ops for t in op.outputs}
    folded, dropped = {}, set()
    for op in ops:
        if op.type != "ApplyGradientDescent":
            continue
        product = producer.get(op.inputs[2])
        if product is None or product.type != "MatMul" or readers[op.inputs[2]] != 1 or \
                op.inputs[2] in fetched or not _fits(op, product, placements):
            continue
        folded[id(op)] = op.replace(
            type=MATMUL_GRADIENT_DESCENT, inputs=(*op.inputs[:2], *product.inputs),
            attrs={"transpose_a": bool(product.attrs.get("transpose_a")),
                   "transpose_b": bool(product.attrs.get("transpose_b")),
                   "members": (product.name, op.name),
                   "member_ops": (product.type, op.type)},
            control_inputs=tuple(dict.fromkeys(product.control_inputs + op.control_inputs)))
        dropped.add(id(product))
    if folded and not _sgemm_available():
        return ops
    return [folded.get(id(op), op) for op in ops if id(op) not in dropped]


def _fits(update: PlanOp, product: PlanOp, placements: dict) -> bool:
    if any(placements[op.name].device.device_type != "CPU" for op in (update, product)):
        return False
    var, a, b = update.inputs[0], *product.inputs
    shapes = [t.shape.dims for t in (var, a, b)]
    if any(t.dtype != float32 for t in (var, a, b)) or \
            any(s is None or len(s) != 2 or None in s for s in shapes):
        return False
    m, n = shapes[0]
    k = shapes[1][0] if product.attrs.get("transpose_a") else shapes[1][1]
    return m * n * k >= MIN_MACS


def _sgemm_available() -> bool:
    from ..kernels.cpu.sgemm import available    # imported here: only CPU plans need it

    return available()
