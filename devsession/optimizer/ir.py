"""``PlanOp``: the op records the optimizer rewrites and the plan builder consumes.

A PlanOp looks like an ``Operation`` to the plan builder (name, type, inputs, outputs,
attrs, device, control_inputs) but is cheap to make and change.  Inputs and outputs are
the graph's own ``Tensor`` objects: a rewritten op keeps producing the same tensor, so
nothing downstream needs renaming.
"""

from __future__ import annotations

import dataclasses

__all__ = ["PlanOp", "from_operations"]


@dataclasses.dataclass(eq=False)
class PlanOp:
    name: str
    type: str
    inputs: tuple
    outputs: tuple
    attrs: dict
    device: str
    control_inputs: tuple = ()
    source: object = None      # the graph Operation this came from (None if synthesised)

    def replace(self, **changes) -> "PlanOp":
        return dataclasses.replace(self, **changes)

    def __repr__(self) -> str:
        return f"<PlanOp '{self.name}' type={self.type}>"


def from_operations(ops) -> list[PlanOp]:
    return [PlanOp(op.name, op.type, tuple(op.inputs), tuple(op.outputs), op.attrs, op.device,
                   tuple(op.control_inputs), op) for op in ops]
