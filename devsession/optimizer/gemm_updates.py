"""Fold a weight gradient's product into its update (gradient descent or Adam).

``ApplyGradientDescent(var, lr, MatMul(a, b))`` becomes one ``_MatMulApplyGradientDescent``
whose CPU kernel is a single product accumulating ``-lr * a @ b`` into the variable
(``kernels/cpu/sgemm.py``): the gradient is never written out and read back, and the
update is no second pass over the variable.  ``ApplyAdam(var, m, v, ..., MatMul(a, b))``
becomes ``_MatMulApplyAdam``, whose kernel makes the gradient a block of rows at a time
in cache and updates that block of var, m and v at once (``kernels/cpu/training.py``).
It applies where that is the same computation: the product feeds only the update (not
fetched, no other reader), both run on the CPU in float32 on 2-D operands of known
shapes, the product is big enough for the saving to outweigh a call (``MIN_MACS``), and
for gradient descent, numpy's BLAS has an sgemm we can call.  The fused op keeps the
update's name and tensor, and names both nodes in traces.
"""

from __future__ import annotations

import collections

from ..dtypes import float32
from ..ops.training import MATMUL_ADAM, MATMUL_GRADIENT_DESCENT
from .ir import PlanOp

__all__ = ["fold_gemm_updates", "MIN_MACS"]

MIN_MACS = 1 << 18          # smaller products: a call costs more than it saves
# update -> (the op it folds into, the position of its gradient input)
_FOLDS = {"ApplyGradientDescent": (MATMUL_GRADIENT_DESCENT, 2), "ApplyAdam": (MATMUL_ADAM, 9)}


def fold_gemm_updates(ops: list[PlanOp], fetched: set, placements: dict) -> list[PlanOp]:
    readers = collections.Counter(t for op in ops for t in op.inputs)
    producer = {t: op for op in ops for t in op.outputs}
    folded, dropped = {}, set()
    for op in ops:
        if op.type not in _FOLDS:
            continue
        fused_type, at = _FOLDS[op.type]
        gradient = op.inputs[at]
        product = producer.get(gradient)
        if product is None or product.type != "MatMul" or readers[gradient] != 1 or \
                gradient in fetched or not _fits(op, product, placements) or \
                (fused_type == MATMUL_GRADIENT_DESCENT and not _sgemm_available()):
            continue
        folded[id(op)] = op.replace(
            type=fused_type, inputs=(*op.inputs[:at], *product.inputs),
            attrs={**{k: v for k, v in op.attrs.items() if k in ("use_locking", "use_nesterov")},
                   "transpose_a": bool(product.attrs.get("transpose_a")),
                   "transpose_b": bool(product.attrs.get("transpose_b")),
                   "members": (product.name, op.name),
                   "member_ops": (product.type, op.type)},
            control_inputs=tuple(dict.fromkeys(product.control_inputs + op.control_inputs)))
        dropped.add(id(product))
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
