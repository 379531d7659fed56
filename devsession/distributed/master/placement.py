"""Place nodes on a cluster: first on a task, then on one of that task's devices.

Pure logic.  A node's device spec (``ds.device(...)``) is merged over the session's
default device, which is itself merged over the master's own task, so a node without
any placement runs on the master's task and a node that names only a device type runs
on that device of the master's task.  ``/job:localhost`` names the master's task when
the cluster has no job of that name (TF1 graphs often say it).  Ops that assign to a
variable (ref inputs) run wherever their variable runs, whatever they ask; so does a
cond or while_loop whose bodies assign to variables (a body finds its variables by name
on the task it runs on), and one whose variables live on several tasks is an
``InvalidArgumentError`` naming them.

Two steps, because the master must reach a task before it knows its devices:

1. ``task_of(op)``: the task, from the specs alone; a job or task that is not in the
   cluster is an ``InvalidArgumentError`` naming the node and listing the tasks.
2. ``place(op, devices)``: the device on that task, with ``runtime.placement.place_node``
   and the task's own device list and kernel table (``TaskDevices``, from the worker's
   GetStatus), so soft placement behaves exactly as in a direct session.

A session with ``device_filters`` (TF's ConfigProto field) sees only the devices one of
them includes: a node on a task they leave out is an ``InvalidArgumentError`` naming the
node and the filters, and soft placement picks among the devices they keep.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

from ...device_spec import Device, DeviceSpec
from ...errors import InvalidArgumentError
from ...function_graph import assigned_variables
from ...ops.registry import get_op_def
from ...runtime.placement import (Placement, PlacementPolicy, colocation_root, place_node,
                                  takes_or_makes_strings)
from ..cluster_spec import ClusterSpec, task_name

__all__ = ["TaskDevices", "ClusterPlacer", "colocation_root", "referenced_variables",
           "filters_include_task"]


@dataclasses.dataclass(frozen=True)
class TaskDevices:
    """What placement needs to know about one task's machine."""

    devices: frozenset                 # short names: {"CPU:0", "GPU:0"}
    kernels: Mapping[str, frozenset]   # device type -> op types with a kernel there

    def has_kernel(self, op_type: str, device_type: str) -> bool:
        return op_type in self.kernels.get(device_type, ())

    @property
    def best_device(self) -> Device:
        return Device("GPU" if "GPU:0" in self.devices else "CPU")

    def exists(self, device: Device) -> bool:
        return device.short_name in self.devices

    def describe(self) -> str:
        return ", ".join(sorted(self.devices))


def referenced_variables(op) -> list:
    """The ops of every ref input of ``op`` (an optimizer's update names its variable
    and slots): they must be placed, and on ``op``'s task, though ``op`` reads none."""
    return [op.inputs[i].op for i in get_op_def(op.type).ref_inputs]


class ClusterPlacer:
    """Places the nodes of one session on a cluster (see the module docstring)."""

    def __init__(self, cluster: ClusterSpec, master_job: str, master_task: int,
                 session_device: str = "", allow_soft_placement: bool = True,
                 device_filters: tuple = ()):
        self.cluster = cluster
        self.master_task = task_name(master_job, master_task)
        self._master = DeviceSpec(job=master_job, replica=0, task=master_task)
        self._session = DeviceSpec.parse(session_device)
        self._allow_soft = allow_soft_placement
        self._filters = tuple(device_filters)

    def _spec(self, op) -> DeviceSpec:
        root = self._root(op)
        asked = self._session.merge(root.device_spec)
        if asked.job == "localhost" and "localhost" not in self.cluster.jobs:
            asked = asked.replace(job=self._master.job, task=self._master.task)
        elif asked.job not in (None, self._master.job) and asked.task is None:
            asked = asked.replace(task=0)      # another job, no task: its first task
        return self._master.merge(asked)

    def _root(self, op):
        """The op whose device ``op`` takes: ``colocation_root``'s, or for a cond or
        while_loop, the variable its bodies assign to."""
        root = colocation_root(op)
        if root is not op:
            return root
        graph = op.graph
        variables = [colocation_root(graph.get_operation_by_name(name))
                     for name in assigned_variables(op) if name in graph]
        if not variables:
            return op
        tasks = {self.task_of(v): v for v in variables}
        if len(tasks) > 1:
            listed = ", ".join(f"'{v.name}' on {task}" for task, v in sorted(tasks.items()))
            raise InvalidArgumentError(
                f"Cannot assign a device for operation '{op.name}' ({op.type}): its body "
                f"assigns to variables on more than one task ({listed}), and a body runs "
                f"on one task.  Place those variables on one task (ds.device), or update "
                f"them outside the {op.type}.", op.name)
        return variables[0]

    def task_of(self, op) -> str:
        """The full name of the task ``op`` runs on; InvalidArgumentError if not in the cluster."""
        spec = self._spec(op)
        if spec.replica not in (None, 0):
            raise InvalidArgumentError(
                f"Cannot assign a device for operation '{op.name}': replica {spec.replica} "
                f"does not exist (a devsession cluster has replica 0 only).", op.name)
        if spec.job not in self.cluster.jobs:
            raise InvalidArgumentError(
                f"Cannot assign a device for operation '{op.name}': it asks for job "
                f"'{spec.job}', which the cluster lacks (jobs: {', '.join(self.cluster.jobs)}). "
                f"Add the job to the ClusterSpec of every task, or place the op on one of "
                f"its jobs.", op.name)
        if not self.cluster.has_task(spec.job, spec.task):
            tasks = ", ".join(f"/job:{j}/task:{t}" for j, t in self.cluster.tasks())
            raise InvalidArgumentError(
                f"Cannot assign a device for operation '{op.name}': /job:{spec.job}/task:"
                f"{spec.task} is not in the cluster (tasks: {tasks}).", op.name)
        if not filters_include_task(self._filters, spec.job, spec.task):
            raise InvalidArgumentError(
                f"Cannot assign a device for operation '{op.name}': it asks for /job:"
                f"{spec.job}/task:{spec.task}, which the session's device_filters "
                f"({_listed(self._filters)}) leave out.  Add it to ConfigProto("
                f"device_filters=...), or place the op on a task they keep.", op.name)
        return task_name(spec.job, spec.task)

    def place(self, op, devices: TaskDevices) -> Placement:
        """The device ``op`` runs on (with its job and task), given its task's devices;
        InvalidArgumentError if none fits and soft placement is off (or the op has no
        CPU kernel either)."""
        self.task_of(op)            # a job or task the cluster lacks is named here
        spec = self._spec(op)
        devices = self._visible(op, devices, spec)
        local = DeviceSpec(device_type=spec.device_type, device_index=spec.device_index)
        policy = PlacementPolicy(
            default=devices.best_device, exists=devices.exists,
            describe_devices=devices.describe, allow_soft_placement=self._allow_soft,
            has_kernel=devices.has_kernel)
        root = colocation_root(op)
        placement = place_node(op.name, root.type if root is not op else op.type, local, policy,
                               takes_or_makes_strings(op))
        device = dataclasses.replace(placement.device, job=spec.job, task=spec.task)
        if root is not op and not devices.has_kernel(op.type, device.device_type):
            raise InvalidArgumentError(
                f"Cannot assign a device for operation '{op.name}' ({op.type}): it must run "
                f"with its variable '{root.name}' on {device}, which has no {op.type} "
                f"kernel.", op.name)
        return Placement(device, placement.note)

    def _visible(self, op, devices: TaskDevices, spec: DeviceSpec) -> TaskDevices:
        """``devices`` (of ``spec``'s task) less those the device filters leave out."""
        if not self._filters:
            return devices
        task = DeviceSpec(job=spec.job, replica=0, task=spec.task)
        kept = frozenset(d for d in devices.devices
                         if any(f.includes(task.merge(d)) for f in self._filters))
        if not kept:
            raise InvalidArgumentError(
                f"Cannot assign a device for operation '{op.name}': the session's "
                f"device_filters ({_listed(self._filters)}) keep none of {task}'s "
                f"devices ({devices.describe()}).", op.name)
        return dataclasses.replace(devices, devices=kept)


def filters_include_task(filters: tuple, job: str, task: int) -> bool:
    """Whether device filters (none: all) keep some device of ``/job:job/task:task``."""
    device = DeviceSpec(job=job, replica=0, task=task)
    return not filters or any(f.replace(device_type=None, device_index=None).includes(device)
                              for f in filters)


def _listed(filters: tuple) -> str:
    return ", ".join(repr(str(f)) for f in filters)
