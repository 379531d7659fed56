"""Mark the CPU products whose B is a graph constant (a frozen model's weights), so
that their kernel packs B once, on the first run, and not on every run.

``register_gemm`` copies each panel of B into consecutive cache lines before its tiles
read it, every run.  For a B that never changes that copy is the same every time: kept
from the first run (``register_gemm.pack_b``), a frozen MLP's products ran 1.11-1.14x
faster, a 7-row one 1.7x.  A fed tensor is never a constant here: its Const op is not
among the plan's ops.  The packed copy (as big as B) is one per constant for the
process, shared by every plan and session that reads it (``kernels/cpu/linalg.py``);
``OptimizerOptions(pack_constant_weights=False)`` goes without it.
"""

from __future__ import annotations

from ..ops.linalg import CONSTANT_B, MATMUL_BIAS, MATMUL_RELU_GRAD
from .ir import PlanOp, on_cpu, producers

__all__ = ["mark_constant_weights"]

_PRODUCTS = ("MatMul", MATMUL_BIAS, MATMUL_RELU_GRAD)


def mark_constant_weights(ops: list[PlanOp], placements: dict) -> list[PlanOp]:
    producer = producers(ops)
    return [op.replace(attrs={**op.attrs, CONSTANT_B: True}) if _reads_constant_b(
        op, producer, placements) else op for op in ops]


def _reads_constant_b(op, producer, placements) -> bool:
    """A product on the CPU whose B comes straight from a Const on the same device (a
    transfer would hand its kernel a new array every run)."""
    if op.type not in _PRODUCTS or not on_cpu(op, placements):
        return False
    source = producer.get(op.inputs[1])
    return source is not None and source.type == "Const" and \
        placements[source.name].device == placements[op.name].device
