"""Turn (graph, feeds, fetches, targets) into a flat execution plan.

A plan is what ``run`` executes on its hot path: a list of steps, each a pre-built
kernel with the integer slots it reads and the slot it writes, in a topological order.
Building it does all the graph work once per signature: prune to the nodes the fetches
and targets need (stopping at fed tensors), place each node, build its kernel, give
every live value a slot, and note after which step each slot is dead so big
intermediates are freed early.  Nothing here runs a kernel.

State: ``Plan`` is immutable once built and shared by every thread that runs the same
signature; each run keeps its values in its own list of slots.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np

from ..errors import InvalidArgumentError
from ..graph import Operation, Tensor
from ..ops.registry import get_op_def
from .placement import Placement

__all__ = ["Step", "Plan", "build_plan", "needed_ops"]


@dataclasses.dataclass(frozen=True)
class Step:
    kernel: Callable
    inputs: tuple          # slot indices read, in the kernel's argument order
    output: int            # slot written, -1 for ops without an output
    frees: tuple           # slots whose last reader is this step
    name: str
    op_type: str
    device: str            # short device name, e.g. "CPU:0"


@dataclasses.dataclass(frozen=True)
class Plan:
    steps: tuple
    num_slots: int
    feed_slots: tuple      # one per fed tensor, in the order the signature lists them
    fetch_slots: tuple     # one per fetched tensor
    fetch_needs_copy: tuple  # True where the fetched value may alias a kernel input or state
    placements: dict       # node name -> Placement, for every node the plan runs


# Ops whose output may be (a view of) an input, a constant or a variable's state, so a
# fetch must copy it; every other kernel returns a fresh array.
ALIASING_OPS = frozenset({"Identity", "Reshape", "Const", "VariableV2", "Assign", "AssignAdd"})


def needed_ops(fetches: Sequence[Tensor], targets: Sequence[Operation],
               fed: set) -> set:
    """The ops the fetches and targets depend on, not looking past fed tensors.

    Ref inputs (Assign's variable) are not dependencies: assigning reads no value.
    """
    needed: set = set()
    stack = [t.op for t in fetches if t not in fed] + list(targets)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        refs = get_op_def(op.type).ref_inputs
        for i, t in enumerate(op.inputs):
            if i not in refs and t not in fed:
                stack.append(t.op)
        stack.extend(op.control_inputs)
    return needed


def build_plan(graph_ops: Sequence[Operation], feeds: Sequence[Tensor],
               fetches: Sequence[Tensor], targets: Sequence[Operation],
               place: Callable[[Operation], Placement],
               make_kernel: Callable[[Operation, Placement], Callable]) -> Plan:
    """Build the plan; raises InvalidArgumentError for an unfed placeholder or an op
    that cannot be placed, naming the node."""
    fed = set(feeds)
    needed = needed_ops(fetches, targets, fed)
    order = [op for op in graph_ops if op in needed]
    for op in order:
        if op.type == "Placeholder":
            shape = op.outputs[0].shape
            raise InvalidArgumentError(
                f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{op.outputs[0].dtype.name} and shape {shape}.", op.name)

    slot_of: dict = {}
    for t in feeds:
        slot_of[t] = len(slot_of)
    for op in order:
        if op.outputs and op.outputs[0] not in slot_of:
            slot_of[op.outputs[0]] = len(slot_of)

    placements = {}
    raw_steps = []
    for op in order:
        placement = place(op)
        placements[op.name] = placement
        refs = get_op_def(op.type).ref_inputs
        inputs = tuple(slot_of[t] for i, t in enumerate(op.inputs) if i not in refs)
        output = slot_of[op.outputs[0]] if op.outputs and op.outputs[0] not in fed else -1
        raw_steps.append((make_kernel(op, placement), inputs, output, op, placement))

    fetch_slots = tuple(slot_of[t] for t in fetches)
    last_read = {}
    for index, (_, inputs, _, _, _) in enumerate(raw_steps):
        for s in inputs:
            last_read[s] = index
    keep = set(fetch_slots)
    frees: dict[int, list] = {}
    for s, index in last_read.items():
        if s not in keep:
            frees.setdefault(index, []).append(s)
    steps = tuple(
        Step(kernel, inputs, output, tuple(frees.get(i, ())), op.name, op.type,
             placement.short_name)
        for i, (kernel, inputs, output, op, placement) in enumerate(raw_steps))

    seen: set = set()
    needs_copy = []
    for t in fetches:
        s = slot_of[t]
        needs_copy.append(t in fed or t.op.type in ALIASING_OPS or s in seen)
        seen.add(s)
    return Plan(steps, len(slot_of), tuple(slot_of[t] for t in feeds), fetch_slots,
                tuple(needs_copy), placements)


def kernel_node_attrs(op: Operation) -> dict:
    """An op's attributes as kernels want them: numpy dtypes and plain shape tuples."""
    from ..dtypes import DType
    from ..tensor_shape import TensorShape

    out = {}
    for key, value in op.attrs.items():
        if isinstance(value, DType):
            value = value.np
        elif isinstance(value, TensorShape):
            value = value.dims
        out[key] = value
    return out


def as_numpy_dtype(tensor: Tensor) -> np.dtype:
    return tensor.dtype.np
