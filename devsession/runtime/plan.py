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
import operator
from typing import Callable, Sequence

from ..device_spec import HOST, Device
from ..errors import InvalidArgumentError
from ..graph import Operation, Tensor
from ..ops.registry import get_op_def
from ..optimizer.ir import from_operations
from .branches import overlapping_waves
from .placement import Placement

__all__ = ["Step", "Plan", "build_plan", "needed_ops", "check_feeds_cover_placeholders",
           "fused_members"]


@dataclasses.dataclass(frozen=True)
class Step:
    kernel: Callable
    inputs: tuple          # slot indices read, in the kernel's argument order
    output: int            # slot written, -1 for ops without an output
    frees: tuple           # slots whose last reader is this step
    name: str
    op_type: str
    device: Device         # where the kernel runs
    work: int = -1         # static output elements (-1: unknown), to decide what to overlap
    members: tuple = ()    # (node, op type) of each graph node a fused kernel runs, in order


@dataclasses.dataclass(frozen=True)
class Plan:
    steps: tuple
    num_slots: int
    feed_slots: tuple      # one per fed tensor, in the order the signature lists them
    fetch_slots: tuple     # one per fetched tensor
    fetch_needs_copy: tuple  # True where the fetched value may alias a kernel input or state
    placements: dict       # node name -> Placement, for every node the plan runs
    waves: tuple = ()      # the steps by depth when branches are worth overlapping (branches.py)
    # (fetch index, a reader of the variable) for each fetch of a variable this plan
    # also changes: fetched as it is after the step (``variables_read_after``)
    fetch_after_step: tuple = ()

    # (kernel, inputs, output, frees) per step: all the untraced loop reads
    hot_steps: tuple = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "hot_steps", tuple(
            (s.kernel, s.inputs, s.output, s.frees) for s in self.steps))


# Ops whose output may be (a view of) an input, a constant or a variable's state, so a
# fetch must copy it; every other kernel returns a fresh array.  Ops with ref inputs
# (Assign, the optimizers' Apply*) return their variable's state too (``_may_alias``).
ALIASING_OPS = frozenset({"Identity", "IdentityN", "PlaceholderWithDefault", "Reshape", "Const",
                          "VariableV2", "Assign", "AssignAdd", "Squeeze", "ExpandDims", "StopGradient", "_ReduceToShapeOf",
                          "_ReshapeToShapeOf", "_ReducedSize", "_SplitToShapesOf",
                          "CheckNumerics", "Print", "If", "StatelessIf", "While", "StatelessWhile",
                          "_WhileGrad", "_WhileReplay"})   # 0 iterations: their inputs
# Ops whose kernels compute nothing (a Reshape copies only an input that is not
# contiguous): they hand back a stored value or a view of their input, so a thread
# hand-off to overlap them would cost more than they do.
NO_WORK_OPS = frozenset({"Identity", "IdentityN", "PlaceholderWithDefault", "Reshape", "Const",
                         "VariableV2", "Squeeze", "ExpandDims", "StopGradient"})


def _may_alias(op_type) -> bool:
    return op_type in ALIASING_OPS or bool(op_type and get_op_def(op_type).ref_inputs)


def _aliasing_type(op) -> str:
    """``op``'s type, as ``_may_alias`` should see it: a Cast to its own dtype is a view
    of its input (the CPU kernel's ``x.view()``), as an Identity is."""
    if op.type == "Cast" and op.inputs and op.inputs[0].dtype == op.outputs[0].dtype:
        return "Identity"
    return op.type


def _lists_outputs(op) -> bool:
    """Whether the graph op behind ``op`` (an Operation or a PlanOp: its outputs are the
    graph's tensors) has a list of outputs, whatever its length."""
    return getattr(op.outputs[0].op, "_listed_outputs", False)


def _only_item(result):
    """The one output of an op whose outputs are a list (its kernel's 1-tuple)."""
    return result[0] if isinstance(result, (tuple, list)) and len(result) == 1 else result


def _static_work(op) -> int:
    """Output elements ``op``'s kernel computes (-1: unknown until run; 0 for a view or
    a stored value): what ``overlapping_waves`` weighs."""
    if not op.outputs or _aliasing_type(op) in NO_WORK_OPS:
        return 0
    work = op.outputs[0].shape.num_elements()
    return -1 if work is None else work


def needed_ops(fetches: Sequence[Tensor], targets: Sequence[Operation],
               fed: set) -> set:
    """The ops the fetches and targets depend on, not looking past fed tensors.

    Ref inputs (Assign's variable) are not dependencies: assigning reads no value.  Nor
    is an op every output of which is fed, through a control edge either: the feed
    stands for it, as in TF (``control_dependencies([placeholder.op])``).
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
        stack.extend(c for c in op.control_inputs
                     if not (c.outputs and all(t in fed for t in c.outputs)))
    return needed




def build_plan(graph_ops: Sequence[Operation], feeds: Sequence[Tensor],
               fetches: Sequence[Tensor], targets: Sequence[Operation],
               place: Callable[[Operation], Placement],
               make_kernel: Callable[[Operation, Placement], Callable],
               make_transfer: Callable[[str, str], Callable] | None = None,
               optimize: Callable | None = None, feed_device: Device = HOST,
               fetch_device: Device = HOST, variables_after_step: bool = True) -> Plan:
    """Build the plan; raises InvalidArgumentError for an unfed placeholder or an op
    that cannot be placed, naming the node.

    Values live on the device of the step that made them (feeds and fetches on
    ``feed_device`` and ``fetch_device``: the host, CPU:0, for a session; a control-flow
    node's own device for the functions it runs).  Where a step reads a value that
    lives elsewhere, a transfer step made by ``make_transfer(src, dst)`` is inserted
    once per (value, device), so a value crossing to the GPU is copied once however
    many GPU nodes read it.

    ``optimize(ops, fed, fetches, targets, placements) -> (ops, alias)`` rewrites the
    placed ops (``devsession.optimizer``); ``alias`` maps tensors it merged away to the
    tensors that now carry their values.

    ``variables_after_step``: a fetched variable that the plan changes is read again
    when the step ends (``variables_read_after``); a function's plan (a loop body, a
    branch) returns what it computed instead.
    """
    fed = set(feeds)
    needed = needed_ops(fetches, targets, fed)
    order = [op for op in graph_ops if op in needed]
    check_feeds_cover_placeholders(order)

    placements = {op.name: place(op) for op in order}
    read_after = variables_read_after(fetches, order, fed) if variables_after_step else ()
    alias: dict = {}
    if optimize is not None:
        order, alias = optimize(from_operations(order), fed, fetches, targets, placements)
        placements = {op.name: placements[op.name] for op in order}

    builder = _StepBuilder(make_transfer)
    slot_of: dict = {}
    for t in feeds:
        slot_of[t] = builder.new_slot(feed_device)
    for op in order:
        for t in op.outputs:
            if t not in fed:
                slot_of[t] = builder.new_slot(placements[op.name].device)

    producer_type = {t: _aliasing_type(op) for op in order for t in op.outputs}
    variable_kernels = {}
    for op in order:
        placement = placements[op.name]
        device = placement.device
        op_def = get_op_def(op.type)
        inputs = tuple(builder.on_device(slot_of[t], HOST if i in op_def.host_inputs else device,
                                         t.name)
                       for i, t in enumerate(op.inputs) if i not in op_def.ref_inputs)
        kernel = make_kernel(op, placement)
        if op.type == "VariableV2" and (device == fetch_device or make_transfer is not None):
            variable_kernels[op.name] = kernel if device == fetch_device else \
                _moved(kernel, make_transfer(device, fetch_device))
        work = _static_work(op)
        if len(op.outputs) == 0 or (len(op.outputs) == 1 and not _lists_outputs(op)):
            output = slot_of[op.outputs[0]] if op.outputs and op.outputs[0] not in fed else -1
            builder.add(kernel, inputs, output, op.name, op.type, device, work,
                        fused_members(op))
            continue
        # Several outputs (or a list of one: Split into 1, Unpack of 1): the kernel returns
        # a tuple into one slot, and a step per output takes its item out (the executor
        # only ever stores one value per step).
        whole = builder.new_slot(device)
        builder.add(kernel, inputs, whole, op.name, op.type, device, work,
                    fused_members(op))
        take = operator.itemgetter if len(op.outputs) > 1 else lambda k: _only_item
        for k, t in enumerate(op.outputs):
            if t not in fed:
                builder.add(take(k), (whole,), slot_of[t], t.name, "_Output", device, 0)

    fetch_slots = tuple(builder.on_device(slot_of[alias.get(t, t)], fetch_device, t.name)
                        for t in fetches)
    steps = builder.finish(keep=set(fetch_slots))

    seen: set = set()
    needs_copy = []
    for t, s in zip(fetches, fetch_slots):
        source = alias.get(t, t)
        moved = s != slot_of[source]  # a device-to-host copy is already the caller's own
        needs_copy.append(not moved and (source in fed or _may_alias(producer_type.get(source))
                                         or s in seen))
        seen.add(s)
    after_step = tuple((i, variable_kernels[found[0].name]) for i, found in enumerate(read_after)
                       if found is not None and found[0].name in variable_kernels)
    controls = {op.name: tuple(c.name for c in op.control_inputs) for op in order
                if op.control_inputs}
    return Plan(steps, builder.num_slots, tuple(slot_of[t] for t in feeds), fetch_slots,
                tuple(needs_copy), placements,
                overlapping_waves(steps, frozenset(fetch_slots), controls), after_step)


def _moved(read, transfer):
    """``read``, its value then copied by ``transfer`` (a GPU variable, fetched)."""
    return lambda: transfer(read())


_READS_ONLY = frozenset({"_ReadVariable", "IsVariableInitialized"})   # ref inputs, unchanged


def variables_read_after(fetches: Sequence[Tensor], order, fed: set) -> list:
    """Per fetch, (the variable it shows as it is after the step, the ops of ``order``
    that change it), else None.

    TF1 hands a fetched variable (its ref output, or an Identity of it: ``v.value()``,
    ``read_value()``, ``tf.identity(v)``) back as the variable's own buffer, copied
    out when the step has ended, so ``_, step = sess.run([train, global_step])`` gives
    the incremented step.  devsession's kernels read a variable as a snapshot, so where
    the run also changes the variable (an op with it as a ref input), such a fetch is
    read again at the end: by the plan (``make_step``), or on a cluster by a read that
    waits for those ops (``partition.py``).  A value computed from the variable
    (``v + 0``) stays what it was when computed, as in TF1."""
    changers: dict = {}
    for op in order:
        if op.type in _READS_ONLY:
            continue
        for i in get_op_def(op.type).ref_inputs:
            if i < len(op.inputs):
                changers.setdefault(op.inputs[i].op, []).append(op)
    found = []
    for t in fetches:
        while t.op.type == "Identity" and t not in fed:
            t = t.op.inputs[0]
        variable = t.op if t.op.type == "VariableV2" and t not in fed else None
        found.append((variable, changers[variable]) if variable in changers else None)
    return found


def check_feeds_cover_placeholders(needed_in_order: Sequence) -> None:
    """InvalidArgumentError for the first needed placeholder that is not fed."""
    for op in needed_in_order:
        if op.type == "Placeholder":
            shape = op.outputs[0].shape
            raise InvalidArgumentError(
                f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{op.outputs[0].dtype.name} and shape {shape}.", op.name)


class _StepBuilder:
    """Accumulates steps and slots; inserts transfers; computes when slots die."""

    def __init__(self, make_transfer):
        self._make_transfer = make_transfer
        self._device_of: list[Device] = []
        self._moved: dict = {}       # (slot, device) -> slot holding the copy there
        self._raw: list = []

    @property
    def num_slots(self) -> int:
        return len(self._device_of)

    def new_slot(self, device: Device) -> int:
        self._device_of.append(device)
        return len(self._device_of) - 1

    def on_device(self, slot: int, device: Device, tensor_name: str) -> int:
        """A slot holding ``slot``'s value on ``device``, adding a transfer if needed."""
        src = self._device_of[slot]
        if src == device:
            return slot
        key = (slot, device)
        if key not in self._moved:
            if self._make_transfer is None:
                raise InvalidArgumentError(f"Tensor '{tensor_name}' lives on {src.short_name} "
                                           f"but is needed on {device.short_name}, and this "
                                           f"session cannot "
                                           f"copy between devices.")
            moved = self.new_slot(device)
            self.add(self._make_transfer(src, device), (slot,), moved,
                     f"{tensor_name}/_to_{device.short_name}", "_Transfer", device)
            self._moved[key] = moved
        return self._moved[key]

    def add(self, kernel, inputs, output, name, op_type, device, work=-1, members=()) -> None:
        self._raw.append((kernel, inputs, output, name, op_type, device, work, members))

    def finish(self, keep: set) -> tuple:
        last_read = {}
        for index, raw in enumerate(self._raw):
            for slot in raw[1]:
                last_read[slot] = index
        frees: dict[int, list] = {}
        for slot, index in last_read.items():
            if slot not in keep:
                frees.setdefault(index, []).append(slot)
        return tuple(Step(kernel, inputs, output, tuple(frees.get(i, ())), name, op_type, device,
                          work, members)
                     for i, (kernel, inputs, output, name, op_type, device, work, members)
                     in enumerate(self._raw))


def fused_members(op) -> tuple:
    """(node, op type) of each graph node an optimizer-fused op runs, in order (its
    ``members`` and ``member_ops`` attributes); () for an op that is one graph node."""
    return tuple(zip(op.attrs.get("members", ()), op.attrs.get("member_ops", ())))


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
