"""Conversions between devsession's value types and their wire messages (no gRPC here).

Devices, step stats, optimizer options and worker status cross the wire as the small
messages of ``proto/wire.proto`` and ``proto/worker.proto``; these functions are the one
place that knows both shapes.
"""

from __future__ import annotations

import dataclasses

from ...devices import DeviceAttributes
from ...options import NodeStats, OptimizerOptions, SessionOptions
from ...proto import graph_pb2, master_pb2, wire_pb2, worker_pb2
from ..timeouts import CONNECT_TIMEOUT_S
from ..master.placement import TaskDevices

__all__ = ["WorkerStatus", "device_to_proto", "device_from_proto", "stats_to_proto",
           "stats_from_proto", "optimizer_to_proto", "optimizer_from_proto",
           "status_to_proto", "status_from_proto", "options_to_proto", "options_from_proto",
           "connect_timeout"]


@dataclasses.dataclass(frozen=True)
class WorkerStatus:
    """What a worker says about itself (GetStatus)."""

    task: str
    incarnation: int
    devices: tuple            # DeviceAttributes with full names
    kernels: dict             # device type -> frozenset of op types
    data_port: int = 0        # its direct socket path's port (0: gRPC only)

    def task_devices(self) -> TaskDevices:
        return TaskDevices(frozenset(d.short_name for d in self.devices), self.kernels)


def device_to_proto(d: DeviceAttributes, out=None):
    out = out if out is not None else wire_pb2.DeviceAttributesProto()
    out.name, out.device_type = d.name, d.device_type
    out.memory_limit, out.description = int(d.memory_limit), d.description
    return out


def device_from_proto(p) -> DeviceAttributes:
    return DeviceAttributes(p.name, p.device_type, p.memory_limit, p.description)


def stats_to_proto(stats, out, task: str = "") -> None:
    """Append NodeStats to the repeated field ``out``; with ``task``, short device names
    ("CPU:0") become full ones."""
    for s in stats:
        device = f"{task}/device:{s.device}" if task else s.device
        stat = out.add(node=s.node, op=s.op, device=device, start=s.start,
                       duration=s.duration, thread=s.thread, kernel=s.kernel)
        for shape in s.output_shapes:
            stat.output_shapes.add().dim.extend(graph_pb2.TensorShapeProto.Dim(size=d)
                                                for d in shape)


def stats_from_proto(protos) -> list[NodeStats]:
    return [NodeStats(p.node, p.op, p.device, p.start, p.duration, p.thread, p.kernel,
                      tuple(tuple(d.size for d in shape.dim) for shape in p.output_shapes))
            for p in protos]


def optimizer_to_proto(o: OptimizerOptions, out=None):
    out = out if out is not None else wire_pb2.OptimizerConfig()
    out.constant_folding = o.constant_folding
    out.common_subexpression_elimination = o.common_subexpression_elimination
    out.fusion = o.fusion
    out.constant_folding_max_elements = o.constant_folding_max_elements
    return out


def optimizer_from_proto(p) -> OptimizerOptions:
    return OptimizerOptions(
        constant_folding=p.constant_folding,
        common_subexpression_elimination=p.common_subexpression_elimination,
        fusion=p.fusion, constant_folding_max_elements=p.constant_folding_max_elements)


def connect_timeout(options: SessionOptions) -> float:
    """How long the session waits for a task it never reached (its config's
    ``connect_timeout_s``, else ``timeouts.CONNECT_TIMEOUT_S``)."""
    return float(options.get("connect_timeout_s") or CONNECT_TIMEOUT_S)


def options_to_proto(options: SessionOptions) -> master_pb2.SessionConfig:
    """What the master needs of a client's options (never its credentials)."""
    out = master_pb2.SessionConfig(
        device=str(options.device), allow_soft_placement=options.allow_soft_placement,
        log_device_placement=options.log_device_placement,
        connect_timeout_s=connect_timeout(options),
        device_filters=[str(f) for f in options.device_filters])
    optimizer_to_proto(options.optimizer, out.optimizer)
    return out


def options_from_proto(p: master_pb2.SessionConfig) -> SessionOptions:
    """The client's options on the master; ValueError for a device that does not parse."""
    return SessionOptions(
        device=p.device, allow_soft_placement=p.allow_soft_placement,
        log_device_placement=p.log_device_placement, optimizer=optimizer_from_proto(p.optimizer),
        device_filters=tuple(p.device_filters),
        config={"connect_timeout_s": p.connect_timeout_s or CONNECT_TIMEOUT_S})


def status_to_proto(status: WorkerStatus) -> worker_pb2.GetStatusResponse:
    out = worker_pb2.GetStatusResponse(task=status.task, incarnation=status.incarnation,
                                       data_port=status.data_port)
    for d in status.devices:
        device_to_proto(d, out.devices.add())
    for device_type, ops in sorted(status.kernels.items()):
        out.kernels.add(device_type=device_type, ops=sorted(ops))
    return out


def status_from_proto(p) -> WorkerStatus:
    return WorkerStatus(p.task, p.incarnation, tuple(device_from_proto(d) for d in p.devices),
                        {k.device_type: frozenset(k.ops) for k in p.kernels}, p.data_port)
