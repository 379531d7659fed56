"""Run the enabled passes in order, then drop what no longer feeds a result."""

from __future__ import annotations

from ..ops.registry import get_op_def
from ..options import OptimizerOptions
from .constant_folding import fold_constants
from .bias_folds import fold_biases
from .constant_weights import mark_constant_weights
from .cse import eliminate_common_subexpressions
from .fusion import fuse_elementwise
from .gemm_updates import fold_gemm_updates
from .ir import PlanOp
from .pool_gradients import fold_pool_gradients
from .relu_gate_folds import fold_relu_gates

__all__ = ["optimize"]


def optimize(ops: list[PlanOp], fed: set, fetches, targets, placements: dict,
             options: OptimizerOptions, evaluate) -> tuple[list, dict]:
    """(optimized ops, alias of tensors merged away) for one plan.

    ``placements`` maps node names to Placements; a fused op keeps its root's name and
    so its placement.  ``evaluate(op, values)`` runs one op on the CPU (for folding).
    """
    alias: dict = {}
    if options.common_subexpression_elimination:
        ops, alias = eliminate_common_subexpressions(ops, fed)
    if options.constant_folding:
        ops = fold_constants(ops, evaluate, options.constant_folding_max_elements)
    fetched = {alias.get(t, t) for t in fetches}
    if options.fusion:          # before fusion takes the ReLUs into regions
        ops = fold_pool_gradients(ops, fetched, placements)
        ops = fold_relu_gates(ops, fetched, placements)
        ops = fold_biases(ops, fetched, placements)
    ops = _drop_dead(ops, fetched, {op.name for op in targets})
    if options.fusion:
        ops = fuse_elementwise(ops, fed, fetched, placements)
        ops = fold_gemm_updates(ops, fetched, placements)
    if options.pack_constant_weights:
        ops = mark_constant_weights(ops, placements)
    return ops, alias


def _drop_dead(ops: list[PlanOp], fetched: set, target_names: set) -> list[PlanOp]:
    """Drop ops nothing needs any more (folding leaves the inputs of folded ops behind).

    Kept: targets, stateful ops, control inputs of kept ops, producers of live tensors.
    """
    live, control_live, kept = set(fetched), set(), []
    for op in reversed(ops):
        if (op.name in target_names or op.name in control_live or get_op_def(op.type).stateful
                or any(t in live for t in op.outputs)):
            kept.append(op)
            live.update(op.inputs)
            control_live.update(c.name for c in op.control_inputs)
    kept.reverse()
    return kept
