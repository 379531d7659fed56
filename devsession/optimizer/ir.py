"""``PlanOp``: the op records the optimizer rewrites and the plan builder consumes.

A PlanOp looks like an ``Operation`` to the plan builder (name, type, inputs, outputs,
attrs, device, control_inputs) but is cheap to make and change.  Inputs and outputs are
the graph's own ``Tensor`` objects: a rewritten op keeps producing the same tensor, so
nothing downstream needs renaming.
"""

from __future__ import annotations

import collections
import dataclasses

import numpy as np

__all__ = ["PlanOp", "from_operations", "producers", "readers", "on_cpu", "folded_op",
           "fold_each", "relu_gradients", "mask_ops"]


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


# --- for the passes that fold several ops into one ----------------------------------------

def producers(ops) -> dict:
    """tensor -> the op that makes it."""
    return {t: op for op in ops for t in op.outputs}


def readers(ops) -> dict:
    """tensor -> the ops that read it, in order (a list, empty for none)."""
    out = collections.defaultdict(list)
    for op in ops:
        for t in op.inputs:
            out[t].append(op)
    return out


def on_cpu(op: PlanOp, placements: dict) -> bool:
    return placements[op.name].device.device_type == "CPU"


def folded_op(members: list, last: PlanOp, op_type: str, inputs: tuple, outputs: tuple,
              attrs: dict) -> PlanOp:
    """One op running ``members`` (in graph order) in the place of ``last``: its name,
    device and source, every member's control inputs, and ``members``/``member_ops`` so
    that traces still report each node (``runtime/plan.fused_members``)."""
    return PlanOp(name=last.name, type=op_type, inputs=inputs, outputs=outputs,
                  attrs={**attrs, "members": tuple(op.name for op in members),
                         "member_ops": tuple(op.type for op in members)},
                  device=last.device,
                  control_inputs=tuple(dict.fromkeys(c for op in members
                                                     for c in op.control_inputs)),
                  source=last.source)


def fold_each(ops: list[PlanOp], fold) -> list[PlanOp]:
    """``ops`` with every fold made: ``fold(op, producer, readers)`` (the maps of the ops
    as given) returns None, or (the members it folds, the folded op), which takes the
    place of the member it is named after (``folded_op``) while the others go."""
    producer, reading = producers(ops), readers(ops)
    replaced, dropped = {}, set()
    for op in ops:
        found = fold(op, producer, reading)
        if found is None:
            continue
        members, folded = found
        last, = [member for member in members if member.name == folded.name]
        replaced[id(last)] = folded
        dropped.update(id(member) for member in members if member is not last)
    return [replaced.get(id(op), op) for op in ops if id(op) not in dropped]


def relu_gradients(mul: PlanOp, producer: dict) -> list:
    """(gradient, Cast, Greater) for each way ``mul`` reads as ``gradient * Cast(Greater(y,
    0))``, a ReLU's gradient as ``Relu``'s is built (``y`` is the Greater's first input);
    [] when it is not one."""
    if mul.type != "Mul" or len(mul.inputs) != 2:
        return []
    found = []
    for gradient, mask in (mul.inputs, mul.inputs[::-1]):
        cast = producer.get(mask)
        greater = producer.get(cast.inputs[0]) if cast is not None and cast.type == "Cast" \
            else None
        if greater is not None and greater.type == "Greater" and \
                _is_zero(producer.get(greater.inputs[1])):
            found.append((gradient, cast, greater))
    return found


def mask_ops(mul: PlanOp, cast: PlanOp, greater: PlanOp, readers: dict, fetched: set) -> list:
    """The mask's ops that a fold of ``mul`` takes in: those nothing else reads."""
    if not _only_reader(mul, cast, readers, fetched):
        return []
    return [greater, cast] if _only_reader(cast, greater, readers, fetched) else [cast]


def _only_reader(reader, op, readers, fetched) -> bool:
    out = op.outputs[0]
    return out not in fetched and all(r is reader for r in readers[out])


def _is_zero(const) -> bool:
    if const is None or const.type != "Const":
        return False
    value = const.attrs.get("value")
    return isinstance(value, np.ndarray) and value.shape == () and value == 0
