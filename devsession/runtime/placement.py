"""Assign every node to one device: the session's default device, and each node's own.

Pure logic, no devices touched.  Two decisions, each made in one place:

* ``resolve_default_device(requested, machine, allow_soft_placement)``: the session's
  default device from ``SessionOptions.device`` ("" means the best local device; a GPU
  that is missing becomes CPU:0 with soft placement, and the answer says why).  A CPU
  request never asks the machine about GPUs, so ``device="cpu"`` never imports cupy.
* ``place_node``: a node's own spec (from ``ds.device``) merged over the session's
  default, checked against the devices that exist and the kernels registered for
  them.  With soft placement a node asking for a missing device (or one without a
  kernel for its op) goes to CPU:0 and the move is recorded as the placement's note;
  without it, the node is an ``InvalidArgumentError`` naming it.  A node that asks for
  no device and whose op only the CPU runs (a dataset iterator) goes to CPU:0 either
  way, as TF's placer puts host-only ops.  A node that simply
  runs on a default device that fell back carries that fallback's note, so
  ``placement_notes()`` reads every move from the placements alone.

The result is a ``Placement``: the ``Device`` (``device_spec.py``) the node runs on,
which the plan, the transfers and the kernel node then carry unchanged, and the note.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from ..device_spec import Device, DeviceSpec
from ..errors import InvalidArgumentError, NotFoundError
from ..ops.registry import get_op_def

__all__ = ["Placement", "PlacementPolicy", "place_node", "DefaultDevice",
           "resolve_default_device", "Machine", "colocation_root", "takes_or_makes_strings",
           "moved_node_warnings"]


@dataclasses.dataclass(frozen=True)
class Placement:
    """Where a node runs, and why it is not where it asked to be ('' if it is)."""

    device: Device
    note: str = ""


@dataclasses.dataclass(frozen=True)
class Machine:
    """What placement asks of the machine, lazily: GPUs are probed only when a node or
    the session asks for one."""

    gpu_count: Callable[[], int]
    gpu_description: Callable[[int], str]
    why_no_gpu: Callable[[], str]


@dataclasses.dataclass(frozen=True)
class DefaultDevice:
    """The session's default device (None when it cannot be served here), the note every
    node placed on it carries when it fell back, and one line saying why."""

    device: Device | None
    note: str
    reason: str


def resolve_default_device(requested: DeviceSpec, machine: Machine,
                           allow_soft_placement: bool) -> DefaultDevice:
    """The session's default device for ``SessionOptions.device`` on this machine."""
    if requested.job not in (None, "localhost") or requested.task not in (None, 0):
        return DefaultDevice(None, "", (
            f"device {requested} names another process "
            f"({DeviceSpec(job=requested.job, task=requested.task)}); use a "
            f"grpc://host:port target to reach a cluster"))
    index = requested.device_index or 0
    if requested.device_type == "CPU":
        if index == 0:
            return DefaultDevice(Device("CPU"), "", "runs on CPU:0")
        if allow_soft_placement:
            return DefaultDevice(Device("CPU"), f"CPU:{index} does not exist; using CPU:0",
                                 f"CPU:{index} falls back to CPU:0 (soft placement)")
        return DefaultDevice(None, "", f"device CPU:{index} does not exist (only CPU:0)")
    gpus = machine.gpu_count()
    if requested.device_type is None:
        if gpus:
            return DefaultDevice(Device("GPU"), "", "best local device is GPU:0")
        return DefaultDevice(Device("CPU"), "",
                             f"best local device is CPU:0 ({machine.why_no_gpu()})")
    if index < gpus:
        return DefaultDevice(Device("GPU", index), "",
                             f"runs on GPU:{index} ({machine.gpu_description(index)})")
    why = machine.why_no_gpu() if not gpus else f"only {gpus} GPU(s) present"
    if allow_soft_placement:
        return DefaultDevice(Device("CPU"),
                             f"GPU:{index} was requested but {why}; running on CPU:0 instead",
                             f"GPU:{index} falls back to CPU:0 ({why})")
    return DefaultDevice(None, "", (
        f"device GPU:{index} is not available: {why}; set allow_soft_placement=True to "
        f"fall back to the CPU, or install cupy and a CUDA driver"))


@dataclasses.dataclass(frozen=True)
class PlacementPolicy:
    """What placement needs to know about the session and the machine."""

    default: Device                              # the session's resolved default device
    exists: Callable[[Device], bool]             # is this device here?
    describe_devices: Callable[[], str]          # "CPU:0, GPU:0", for error messages
    allow_soft_placement: bool
    has_kernel: Callable[[str, str], bool]       # (op_type, device_type) -> bool
    default_note: str = ""                       # the default device's fallback note
    local_jobs: frozenset = frozenset({None, "localhost"})


def place_node(name: str, op_type: str, requested: DeviceSpec,
               policy: PlacementPolicy, strings: bool = False) -> Placement:
    """Where node ``name`` runs; raises InvalidArgumentError when it cannot be placed.
    ``strings``: the node takes or makes string tensors, which only the CPU holds."""
    default = policy.default
    if requested.is_empty:
        problem = _kernel_problem(policy, op_type, default.device_type, strings)
        if not problem:
            return Placement(default, policy.default_note)
        if _host_only(policy, op_type, default.device_type):
            # a dataset iterator that asked for no device runs on the CPU, as TF's
            # placer puts host-only ops, soft placement or not
            return Placement(Device("CPU"), f"placed on CPU:0: {problem}")
        spec = default.spec()
    else:
        spec = default.spec().merge(requested)
    problems = []
    if requested.job not in policy.local_jobs:
        problems.append(f"it asks for {DeviceSpec(job=spec.job, task=spec.task)}, another "
                        f"process, which only a grpc:// target can reach")
    device = Device(spec.device_type or "CPU", spec.device_index or 0)
    if not policy.exists(device):
        problems.append(f"device {device.short_name} does not exist here (devices: "
                        f"{policy.describe_devices()})")
    else:
        missing = _kernel_problem(policy, op_type, device.device_type, strings)
        if missing:
            problems.append(missing)
    if not problems:
        return Placement(device, policy.default_note if device == default else "")
    reason = "; ".join(problems)
    if policy.allow_soft_placement and not _kernel_problem(policy, op_type, "CPU"):
        return Placement(Device("CPU"), f"placed on CPU:0 instead of {spec}: {reason}")
    raise InvalidArgumentError(
        f"Cannot assign a device for operation '{name}' ({op_type}): {reason}. Set "
        f"allow_soft_placement=True in SessionOptions to fall back to the CPU.", name)


def _kernel_problem(policy: PlacementPolicy, op_type: str, device_type: str,
                    strings: bool = False) -> str:
    """Why ``op_type`` cannot run on ``device_type`` ('' when it can).  A device type
    whose kernels failed to load (a broken cupy install) says so, with the cause."""
    if strings and device_type != "CPU":     # as TF's: no device kernel holds strings
        return f"op {op_type} has no {device_type} kernel for string or quantized tensors"
    try:
        if policy.has_kernel(op_type, device_type):
            return ""
    except NotFoundError as e:
        return f"the {device_type} kernels are unavailable ({e.message})"
    return f"op {op_type} has no {device_type} kernel"


def _host_only(policy: PlacementPolicy, op_type: str, device_type: str) -> bool:
    """Whether ``device_type``'s kernels load but have none for ``op_type``, which the
    CPU runs (not a device whose kernels are broken: that falls back only softly)."""
    try:
        return not policy.has_kernel(op_type, device_type) and \
            policy.has_kernel(op_type, "CPU")
    except NotFoundError:
        return False


def takes_or_makes_strings(op) -> bool:
    """Whether ``op`` has a string input or output (a summary, its tag constant), or a
    quantized one (``qint8``...: numpy structured arrays, which only the host holds)."""
    return any(t.dtype.is_string or t.dtype.is_quantized for t in (*op.inputs, *op.outputs))


def colocation_root(op):
    """The op whose placement ``op`` follows: the variable an assign-like op names (its
    first ref input), or the op its TF ``_class`` attr names ("loc:@var": an optimizer's
    slots live with their variable), followed to the end of the chain."""
    seen = set()
    while id(op) not in seen:
        seen.add(id(op))
        refs = get_op_def(op.type).ref_inputs
        if refs:
            op = op.inputs[refs[0]].op
            continue
        group = [g for g in op.attrs.get("_class", ()) if str(g).startswith("loc:@")]
        name = str(group[0])[len("loc:@"):] if group else None
        if name is None or name not in op.graph or op.graph.get_operation_by_name(name) is op:
            return op
        op = op.graph.get_operation_by_name(name)
    return op


def moved_node_warnings(notes, said: str = "", shown: int = 5) -> list:
    """One warning line per distinct placement note in ``notes`` ((node name, note)
    pairs; empty notes and ``said`` skipped), naming the first ``shown`` nodes it moved:
    a GPU request on a machine without one moves every node for the same reason, which
    is one warning, not one a node."""
    by_note: dict = {}
    for name, note in notes:
        if note and note != said:
            by_note.setdefault(note, []).append(name)
    lines = []
    for note, names in by_note.items():
        listed = ", ".join(f"'{n}'" for n in names[:shown])
        if len(names) == 1:
            lines.append(f"devsession: node {listed} {note}")
        else:
            more = f" and {len(names) - shown} more" if len(names) > shown else ""
            lines.append(f"devsession: {len(names)} nodes ({listed}{more}) {note}")
    return lines
