"""``DIRECT_SESSION``: run graphs in this process, on the CPU (numba) or a CUDA GPU.

The factory accepts local targets ("" or "local") and resolves the session's device
once: "" means the best local device, a GPU that is missing becomes CPU:0 when soft
placement is allowed (with a logged warning, and the CPU visible in ``list_devices``,
``placement()`` and traces) and is refused otherwise, with the reason.

A ``DirectSession`` owns its resource containers (variables) and a cache of execution
plans keyed by (feeds, fetches, targets); each plan is built once (pruned, placed,
kernels compiled) and then run by ``runtime.executor.execute`` from any number of
threads at once.
"""

from __future__ import annotations

import logging
import threading
import weakref

import numpy as np

from .device_spec import DeviceSpec
from .devices import gpu_devices, gpu_unavailable_reason, list_local_devices, local_device_name
from .errors import InvalidArgumentError
from .kernels.registry import KernelNode, lookup_kernel, registered_ops
from .ops.registry import get_op_def
from .optimizer import optimize
from .options import SessionOptions
from .runtime import state_kernels
from .runtime.executor import execute
from .runtime.placement import Placement, PlacementPolicy, place_node
from .runtime.plan import build_plan, kernel_node_attrs
from .runtime.resources import ResourceMgr
from .session import BaseSession
from .session_factory import SessionFactory, Verdict

__all__ = ["DirectSession", "DirectSessionFactory", "resolve_local_device"]

log = logging.getLogger("devsession")
placement_log = logging.getLogger("devsession.placement")


def resolve_local_device(options: SessionOptions) -> tuple[Placement | None, str]:
    """(the session's default device, a reason) for local options.

    Returns (None, why) when the device cannot be served here.
    """
    spec = options.device_spec
    if spec.job not in (None, "localhost") or (spec.task not in (None, 0)):
        return None, (f"device {options.device} names another process "
                      f"({DeviceSpec(job=spec.job, task=spec.task)}); use a grpc://host:port "
                      f"target to reach a cluster")
    gpus = gpu_devices()
    if spec.device_type is None:
        if gpus:
            return Placement("GPU", 0), "best local device is GPU:0"
        return Placement("CPU", 0), f"best local device is CPU:0 ({gpu_unavailable_reason()})"
    index = spec.device_index or 0
    if spec.device_type == "CPU":
        if index != 0:
            if options.allow_soft_placement:
                return Placement("CPU", 0, f"CPU:{index} does not exist; using CPU:0"), \
                    f"CPU:{index} falls back to CPU:0 (soft placement)"
            return None, f"device CPU:{index} does not exist (only CPU:0)"
        return Placement("CPU", 0), "runs on CPU:0"
    if index < len(gpus):
        return Placement("GPU", index), f"runs on GPU:{index} ({gpus[index].description})"
    why = gpu_unavailable_reason() if not gpus else f"only {len(gpus)} GPU(s) present"
    if options.allow_soft_placement:
        note = f"GPU:{index} was requested but {why}; running on CPU:0 instead"
        return Placement("CPU", 0, note), f"GPU:{index} falls back to CPU:0 ({why})"
    return None, (f"device GPU:{index} is not available: {why}; set allow_soft_placement=True "
                  f"to fall back to the CPU, or install cupy and a CUDA driver")


class DirectSessionFactory(SessionFactory):
    """Sessions in this process; accepts "" and "local" targets."""

    def __init__(self):
        self._sessions: "weakref.WeakSet[DirectSession]" = weakref.WeakSet()
        self._lock = threading.Lock()

    def accepts_options(self, options: SessionOptions) -> Verdict:
        if not options.is_local:
            return Verdict(False, f"target \"{options.target}\" is not local (\"\" or "
                                  f"\"local\"){_target_hint(options.target)}")
        device, reason = resolve_local_device(options)
        return Verdict(device is not None, reason)

    def new_session(self, options: SessionOptions) -> "DirectSession":
        device, reason = resolve_local_device(options)
        if device is None:
            raise InvalidArgumentError(f"DIRECT_SESSION cannot serve {options.device}: {reason}.")
        if device.note:
            log.warning("devsession: requested device %s: %s.", options.device, device.note)
        session = DirectSession(options, device)
        with self._lock:
            self._sessions.add(session)
        return session

    def reset(self, options: SessionOptions, containers=None) -> None:
        """Clear containers in every live direct session of this process (as TF1)."""
        with self._lock:
            sessions = list(self._sessions)
        for session in sessions:
            session.resources.clear(containers)


class DirectSession(BaseSession):
    """An in-process session on one default device."""

    def __init__(self, options: SessionOptions, device: Placement):
        super().__init__(options)
        self.device = device
        self.resources = ResourceMgr()
        self._plans: dict = {}
        self._plan_lock = threading.Lock()
        available = {"CPU:0"} | {d.short_name for d in gpu_devices()}
        self._policy = PlacementPolicy(
            default=DeviceSpec(device_type=device.device_type, device_index=device.device_index),
            available=frozenset(available),
            allow_soft_placement=options.allow_soft_placement,
            has_kernel=_has_kernel)

    # --- devices and placement ----------------------------------------------------------

    def list_devices(self) -> list:
        """The devices this session places on: CPU:0, and its GPU when it has one."""
        self._check_open()
        devices = list_local_devices()
        if self.device.device_type == "GPU":
            return devices
        return [d for d in devices if d.device_type == "CPU"]

    def placement(self, fetches=None) -> dict:
        """{node name: device name} for every node of the graph (or those ``fetches`` need)."""
        self._check_open()
        from .fetches import FetchMapper
        from .runtime.plan import needed_ops

        ops = self._graph.get_operations()
        if fetches is not None:
            mapper = FetchMapper(self._graph, fetches)
            needed = needed_ops(mapper.tensors, mapper.targets, set())
            ops = [op for op in ops if op in needed]
        out = {}
        for op in ops:
            p = self._place(op)
            out[op.name] = local_device_name(p.device_type, p.device_index)
        return out

    def _place(self, op) -> Placement:
        return place_node(op.name, op.type, op.device, self._policy)

    # --- plans -------------------------------------------------------------------------------

    def _prepare(self, feeds, fetches, targets):
        key = (feeds, fetches, targets)
        step = self._plans.get(key)
        if step is not None:
            return step
        with self._plan_lock:
            step = self._plans.get(key)
            if step is None:
                step = self._plans[key] = self._build_step(feeds, fetches, targets)
        return step

    def _build_step(self, feeds, fetches, targets):
        plan = build_plan(self._graph.get_operations(), feeds, fetches, targets,
                          self._place, self._make_kernel, self._make_transfer, self._optimize)
        self._log_placement(plan)
        copies = plan.fetch_needs_copy

        def step(values, deadline, stats):
            out = execute(plan, values, deadline, stats)
            return [np.array(v, copy=True) if c else v for v, c in zip(out, copies)]

        step.plan = plan
        return step

    def _make_kernel(self, op, placement: Placement):
        variable = None
        if op.type == "VariableV2":
            variable = state_kernels.variable_key(op)
        elif get_op_def(op.type).ref_inputs:
            ref = op.inputs[0].op
            if ref.type != "VariableV2":
                raise InvalidArgumentError(f"Op '{op.name}' must assign to a Variable, not to "
                                           f"'{ref.name}' ({ref.type}).", op.name)
            variable = state_kernels.variable_key(ref)
        node = KernelNode(
            name=op.name, op=op.type, attrs=kernel_node_attrs(op),
            input_dtypes=tuple(t.dtype.np for t in op.inputs),
            input_shapes=tuple(t.shape.dims for t in op.inputs),
            output_dtype=op.outputs[0].dtype.np if op.outputs else None,
            output_shape=op.outputs[0].shape.dims if op.outputs else None,
            context=state_kernels.StateContext(self.resources, variable),
            device=placement.short_name)
        return lookup_kernel(op.type, placement.device_type)(node)

    def _optimize(self, ops, fed, fetches, targets, placements):
        return optimize(ops, fed, fetches, targets, placements, self._options.optimizer,
                        self._evaluate_on_cpu)

    def _evaluate_on_cpu(self, op, values):
        """Run one op on the CPU now (constant folding)."""
        return self._make_kernel(op, Placement("CPU", 0))(*values)

    def _make_transfer(self, src: str, dst: str):
        """A kernel copying a value from device ``src`` to ``dst`` (e.g. CPU:0 -> GPU:0);
        the GPU kernel module provides it, registered as ("_Transfer", "GPU")."""
        node = KernelNode(name=f"_Transfer_{src}_{dst}", op="_Transfer",
                          attrs={"src": src, "dst": dst}, input_dtypes=(), input_shapes=(),
                          output_dtype=None, output_shape=None,
                          device=dst if dst != "CPU:0" else src)
        return lookup_kernel("_Transfer", "GPU")(node)

    def _log_placement(self, plan) -> None:
        moved = [(name, p) for name, p in plan.placements.items() if p.note]
        for name, p in moved:
            log.warning("devsession: node '%s' %s", name, p.note)
        if self._options.log_device_placement:
            if not placement_log.handlers and not logging.getLogger().handlers:
                placement_log.addHandler(logging.StreamHandler())
                placement_log.setLevel(logging.INFO)
            for name, p in plan.placements.items():
                placement_log.info("%s: %s", name, local_device_name(p.device_type,
                                                                      p.device_index))

    def _close(self) -> None:
        self._plans.clear()
        self.resources.clear()


def _target_hint(target: str) -> str:
    """A did-you-mean for targets that look like a mistyped cluster address."""
    import re

    if target.startswith("grpc://"):
        return ""
    bare = re.sub(r"^[a-z][a-z0-9+.-]*://", "", target)
    if re.match(r"^[\w.\-\[\]:]+:\d+$", bare):
        return f"; did you mean grpc://{bare}?"
    return "; cluster targets look like grpc://host:port"


def _has_kernel(op_type: str, device_type: str) -> bool:
    try:
        return op_type in registered_ops(device_type)
    except Exception:
        return False
