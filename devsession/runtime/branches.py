"""Which steps of a plan may run at the same time (independent branches).

Pure logic over a plan's steps: a step's *depth* is one more than the deepest step
whose output it reads, so steps of equal depth never depend on each other.  A depth
with at least two *heavy* steps (``HEAVY_WORK`` output elements or more, or unknown) is
worth overlapping: the kernels release the GIL, so two threads run two branches at
once.  Light steps are not worth a thread hand-off (tens of microseconds).  Plans with
stateful steps (variables, random streams) are not reordered: their order stays the
graph's, as the sequential executor runs it.  Nor are plans with steps that may wait for
another step (a queue's dequeue, a reader: ``OpDef.blocks``): waiting on one of the
session's few pool threads, such a step would starve the other steps that need the pool,
among them those that would end its wait.

When some depth is worth overlapping, the plan runs depth by depth: ``Wave``s in order,
each freeing afterwards the slots no later wave reads (the steps' own ``frees`` assume
the sequential order and are not used then).
"""

from __future__ import annotations

import dataclasses

__all__ = ["Wave", "overlapping_waves", "HEAVY_WORK"]

HEAVY_WORK = 1 << 15
_STATEFUL = frozenset({"VariableV2", "Assign", "AssignAdd", "RandomUniform",
                       "RandomStandardNormal"})


@dataclasses.dataclass(frozen=True)
class Wave:
    steps: tuple        # indices into plan.steps, independent of each other
    overlap: bool       # run them on several threads
    frees: tuple        # slots to drop once the wave is done


def overlapping_waves(steps, keep=frozenset(), controls=None) -> tuple:
    """The plan's steps as waves by depth, or () when nothing is worth overlapping.

    ``keep`` are slots never freed (the fetches); ``controls`` maps a node's name to the
    nodes it has control edges from, so a step comes in a wave after theirs (an op
    under ``control_dependencies([assert_op])`` never runs beside the Assert).
    """
    if any(step.op_type in _STATEFUL or _waits(step.op_type) for step in steps):
        return ()
    controls = controls or {}
    depth_of_slot: dict = {}
    depth_of_node: dict = {}
    by_depth: dict = {}
    for index, step in enumerate(steps):
        nodes = [name for name, _ in step.members] or [step.name]
        after = [depth_of_node.get(c, 0) for node in nodes for c in controls.get(node, ())]
        depth = 1 + max([depth_of_slot.get(s, 0) for s in step.inputs] + after, default=0)
        if step.output >= 0:
            depth_of_slot[step.output] = depth
        for node in nodes:
            depth_of_node[node] = depth
        by_depth.setdefault(depth, []).append(index)
    groups = [tuple(by_depth[d]) for d in sorted(by_depth)]
    overlap = [sum(1 for i in g if _heavy(steps[i])) >= 2 for g in groups]
    if not any(overlap):
        return ()
    last_group: dict = {}
    for g, group in enumerate(groups):
        for i in group:
            for slot in steps[i].inputs:
                last_group[slot] = g
    frees: dict = {}
    for slot, g in last_group.items():
        if slot not in keep:
            frees.setdefault(g, []).append(slot)
    return tuple(Wave(group, flag, tuple(frees.get(g, ())))
                 for g, (group, flag) in enumerate(zip(groups, overlap)))


def _heavy(step) -> bool:
    return step.work < 0 or step.work >= HEAVY_WORK


def _waits(op_type) -> bool:
    from ..errors import NotFoundError
    from ..ops.registry import get_op_def

    try:
        return get_op_def(op_type).blocks
    except NotFoundError:          # the plan's own steps (_FusedElementwise, _Output)
        return False
