"""Assign every node of a local graph to one of this process's devices.

Pure logic, no devices touched: a node's own device spec (from ``ds.device``) is merged
over the session's default device, then checked against the devices that exist and the
kernels registered for them.  With soft placement, a node asking for a missing device
(or for a device with no kernel for its op) goes to CPU:0 and the move is recorded as a
note; without it, that node is an ``InvalidArgumentError`` naming it.  A job/task in a
local session means another process, which only a cluster (grpc://) target can reach.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from ..device_spec import DeviceSpec
from ..errors import InvalidArgumentError

__all__ = ["PlacementPolicy", "Placement", "place_node"]


@dataclasses.dataclass(frozen=True)
class Placement:
    device_type: str          # "CPU" or "GPU"
    device_index: int
    note: str = ""            # why the node is not where it asked to be ('' if it is)

    @property
    def short_name(self) -> str:
        return f"{self.device_type}:{self.device_index}"


@dataclasses.dataclass(frozen=True)
class PlacementPolicy:
    """What placement needs to know about the session and the machine."""

    default: DeviceSpec                          # the session's resolved default device
    available: frozenset                         # e.g. {"CPU:0", "GPU:0"}
    allow_soft_placement: bool
    has_kernel: Callable[[str, str], bool]       # (op_type, device_type) -> bool
    local_jobs: frozenset = frozenset({None, "localhost"})


def place_node(name: str, op_type: str, requested: str, policy: PlacementPolicy) -> Placement:
    """Where node ``name`` runs; raises InvalidArgumentError when it cannot be placed."""
    spec = policy.default.merge(DeviceSpec.parse(requested)) if requested else policy.default
    problems = []
    if spec.job not in policy.local_jobs:
        problems.append(f"it asks for {DeviceSpec(job=spec.job, task=spec.task)}, another "
                        f"process, which only a grpc:// target can reach")
    device_type = spec.device_type or "CPU"
    index = spec.device_index or 0
    if f"{device_type}:{index}" not in policy.available:
        have = ", ".join(sorted(policy.available))
        problems.append(f"device {device_type}:{index} does not exist here (devices: {have})")
    elif not policy.has_kernel(op_type, device_type):
        problems.append(f"op {op_type} has no {device_type} kernel")
    if not problems:
        return Placement(device_type, index)
    reason = "; ".join(problems)
    if policy.allow_soft_placement and policy.has_kernel(op_type, "CPU"):
        return Placement("CPU", 0, f"placed on CPU:0 instead of {spec or 'the default'}: {reason}")
    raise InvalidArgumentError(
        f"Cannot assign a device for operation '{name}' ({op_type}): {reason}. Set "
        f"allow_soft_placement=True in SessionOptions to fall back to the CPU.", name)
