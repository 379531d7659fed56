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

import dataclasses
import logging
import os
import threading
import time
import weakref

from .device_spec import Device
from .devices import gpu_devices, gpu_unavailable_reason, list_local_devices, local_device_name
from .errors import InvalidArgumentError
from .kernels.registry import has_kernel
from .options import SessionOptions
from .runtime import tiered
from .runtime.daemon_pool import DaemonThreadPool
from .runtime.deadline import StepsInFlight, session_closed_error
from .runtime.local_executor import LocalExecutorFactory, intra_op_setter, make_step
from .runtime.placement import (DefaultDevice, Machine, Placement, PlacementPolicy,
                                colocation_root, place_node, takes_or_makes_strings,
                                resolve_default_device)
from .runtime.resources import ResourceMgr
from .session import BaseSession
from .session_factory import SessionFactory, Verdict

__all__ = ["DirectSession", "DirectSessionFactory", "resolve_local_device"]

log = logging.getLogger("devsession")


_MACHINE = Machine(gpu_count=lambda: len(gpu_devices()),
                   gpu_description=lambda index: gpu_devices()[index].description,
                   why_no_gpu=gpu_unavailable_reason)


def resolve_local_device(options: SessionOptions) -> DefaultDevice:
    """The session's default device on this machine (``placement.resolve_default_device``)."""
    return resolve_default_device(options.device, _MACHINE, options.allow_soft_placement)


class DirectSessionFactory(SessionFactory):
    """Sessions in this process; accepts "" and "local" targets."""

    def __init__(self):
        self._sessions: "weakref.WeakSet[DirectSession]" = weakref.WeakSet()
        self._lock = threading.Lock()
        self._last: tuple | None = None      # (options, DefaultDevice) last resolved

    def accepts_options(self, options: SessionOptions) -> Verdict:
        if not options.is_local:
            return Verdict(False, f"target \"{options.target}\" is not local (\"\" or "
                                  f"\"local\"){_target_hint(options.target)}")
        default = self._resolve(options)
        return Verdict(default.device is not None, default.reason)

    def new_session(self, options: SessionOptions) -> "DirectSession":
        default = self._resolve(options)
        if default.device is None:
            raise InvalidArgumentError(f"DIRECT_SESSION cannot serve {options.device}: "
                                       f"{default.reason}.")
        if default.note:
            log.warning("devsession: requested device %s: %s.", options.device, default.note)
        session = DirectSession(options, default)
        with self._lock:
            self._sessions.add(session)
        return session

    def _resolve(self, options: SessionOptions) -> DefaultDevice:
        """``resolve_local_device``, once for the accepts_options/new_session pair that
        ``ds.new_session`` makes with the same options object."""
        with self._lock:
            if self._last is not None and self._last[0] is options:
                return self._last[1]
        default = resolve_local_device(options)
        with self._lock:
            self._last = (options, default)
        return default

    def reset(self, options: SessionOptions, containers=None) -> None:
        """Clear containers in every live direct session of this process (as TF1)."""
        with self._lock:
            sessions = list(self._sessions)
        for session in sessions:
            session.resources.clear(containers)


class DirectSession(BaseSession):
    """An in-process session on one default device."""

    def __init__(self, options: SessionOptions, default: DefaultDevice):
        super().__init__(options)
        self.device: Device = default.device
        self.resources = ResourceMgr()
        self._executor = LocalExecutorFactory(self.resources, options.optimizer)
        self._reference_executor = tiered.reference_factory(self.resources, options.optimizer)
        self._pool = None
        self._in_flight = StepsInFlight()     # steps that close() cancels
        self._policy = PlacementPolicy(
            default=default.device, default_note=default.note, exists=_exists,
            describe_devices=_describe_devices,
            allow_soft_placement=options.allow_soft_placement, has_kernel=_has_kernel)
        self._gpus_used: set = set()          # GPU indices some plan of this session ran on
        self._previous_gpu_limits: dict = {}  # GPU index -> pool cap before this session
        if options.gpu_memory_limit_bytes is not None and gpu_devices():
            from .kernels.cuda import memory as cuda_memory

            for index in range(len(gpu_devices())):
                self._previous_gpu_limits[index] = cuda_memory.set_pool_limit(
                    index, options.gpu_memory_limit_bytes)

    # --- devices and placement ----------------------------------------------------------

    def list_devices(self) -> list:
        """The devices this session can place on: CPU:0 and every visible GPU (none on a
        machine without CUDA, where a GPU request fell back to the CPU).  A GPU's
        ``memory_limit`` is the session's ``gpu_memory_limit_bytes`` when that is lower."""
        self._check_open()
        cap = self._options.gpu_memory_limit_bytes
        return [dataclasses.replace(d, memory_limit=min(d.memory_limit, cap))
                if cap is not None and d.device_type == "GPU" else d
                for d in list_local_devices()]

    def placement(self, fetches=None) -> dict:
        """{node name: device name} for every node of the graph (or those ``fetches`` need)."""
        self._check_open()
        return {op.name: local_device_name(p.device.device_type, p.device.index)
                for op, p in self._placements(fetches)}

    def placement_notes(self, fetches=None) -> dict:
        """{node name: why it is not where it asked to be} for the nodes that moved
        (soft placement), including every node that runs on a default device that fell
        back."""
        self._check_open()
        return {op.name: p.note for op, p in self._placements(fetches) if p.note}

    def _placements(self, fetches) -> list:
        from .fetches import FetchMapper
        from .runtime.plan import needed_ops

        ops = self._graph.get_operations()
        if fetches is not None:
            mapper = FetchMapper(self._graph, fetches)
            needed = needed_ops(mapper.tensors, mapper.targets, set())
            ops = [op for op in ops if op in needed]
        return [(op, self._place(op)) for op in ops]

    def _place(self, op) -> Placement:
        root = colocation_root(op)    # assignments run where their variable lives (as TF)
        spec = root.device_spec if not root.device_spec.is_empty else op.device_spec
        return place_node(op.name, op.type, spec, self._policy, takes_or_makes_strings(op))

    # --- plans -------------------------------------------------------------------------------

    def _build_step(self, feeds, fetches, targets, timeout=None):
        if self._options.kernel_compile == "background" and not self.device.is_gpu:
            step = self._tiered_step(feeds, fetches, targets)
            if step is not None:
                return step
        return self._compiled_step(feeds, fetches, targets)

    def _compiled_step(self, feeds, fetches, targets, log_placement=True):
        plan = self._executor.build_plan(self._graph.get_operations(), feeds, fetches, targets,
                                         self._place)
        if log_placement:
            self._log_plan(plan)
        self._gpus_used.update(p.device.index for p in plan.placements.values()
                               if p.device.is_gpu)
        return make_step(plan, self._branch_pool() if plan.waves else None,
                         threads=self._options.intra_op_threads, in_flight=self._in_flight)

    def _tiered_step(self, feeds, fetches, targets):
        """A ``TieredStep`` for a CPU plan whose kernels this machine has not compiled;
        None when they are compiled (or some node is on a GPU): then build eagerly."""
        ops = self._graph.get_operations()
        fingerprint = tiered.plan_fingerprint(ops, feeds, fetches, targets)
        if tiered.is_compiled(fingerprint):
            return None
        plan = self._reference_executor.build_plan(ops, feeds, fetches, targets, self._place)
        if any(p.device.device_type != "CPU" for p in plan.placements.values()):
            return None
        self._log_plan(plan)
        threads = self._options.intra_op_threads
        key = (feeds, fetches, targets)

        def build_compiled():      # also for a callable whose step the cache forgot
            if self._closed:
                return None
            return self._compiled_step(feeds, fetches, targets, log_placement=False)

        def adopt(compiled):
            tiered.mark_compiled(fingerprint)
            with self._lock:
                if not self._closed and self._steps.get(key) is step:
                    self._steps[key] = compiled

        step = tiered.TieredStep(
            make_step(plan, threads=threads, in_flight=self._in_flight),
            lambda observe: make_step(plan, threads=threads, observe=observe,
                                      in_flight=self._in_flight),
            feeds, build_compiled, adopt,
            tiered.scratch_kernels(self._graph, self._options.optimizer, self._place))
        return step

    def wait_compiled(self, timeout: float | None = None) -> bool:
        """Wait until every plan this session ran runs on compiled kernels (with
        ``kernel_compile="background"`` its first runs used the reference kernels);
        True if they all do, False if ``timeout`` seconds passed first or a compile
        failed (the log says why).  Timing a session's steady state starts after this."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            steps = [s for s in self._steps.values()
                     if isinstance(s, tiered.TieredStep) and s.started]
        for step in steps:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not step.settled.wait(left) or step.tier != "compiled":
                return False
        return True

    def _log_plan(self, plan) -> None:
        self._log_placement(((name, local_device_name(p.device.device_type, p.device.index),
                              p.note) for name, p in plan.placements.items()),
                            said=self._policy.default_note)

    def _branch_pool(self):
        """Threads that run independent branches (``inter_op_threads``; 0 = one per
        core, 1 = none), made when the first plan has branches worth overlapping."""
        threads = self._options.inter_op_threads or os.cpu_count() or 1
        if threads < 2:
            return None
        with self._lock:
            if self._pool is None:   # its threads run kernels: cap numba in each too
                self._pool = DaemonThreadPool(
                    threads - 1, "devsession",
                    initializer=intra_op_setter(self._options.intra_op_threads))
            return self._pool

    def _close(self) -> None:
        self._in_flight.cancel_all(session_closed_error())
        self._forget_steps()
        self.resources.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        gpus = self._gpus_used | set(self._previous_gpu_limits)
        if gpus:
            _release_gpu_memory(gpus, self._previous_gpu_limits)


def _target_hint(target: str) -> str:
    """A did-you-mean for targets that look like a mistyped cluster address."""
    import re

    if target.startswith("grpc://"):
        return ""
    bare = re.sub(r"^[a-z][a-z0-9+.-]*://", "", target)
    if re.match(r"^[\w.\-\[\]:]+:\d+$", bare):
        return f"; did you mean grpc://{bare}?"
    return "; cluster targets look like grpc://host:port"


def _release_gpu_memory(gpus, previous_limits: dict) -> None:
    """Hand a closed session's GPU memory back to the driver and undo its pool caps."""
    try:
        import gc

        from .kernels.cuda import memory as cuda_memory

        gc.collect()     # plans may hold device arrays in reference cycles
        cuda_memory.release_free_memory(sorted(gpus))
        for index, limit in previous_limits.items():
            cuda_memory.set_pool_limit(index, limit)
    except Exception as e:   # closing must not fail (it also runs from __del__)
        log.warning("devsession: could not release GPU memory on close: %s", e)


def _has_kernel(op_type: str, device_type: str) -> bool:
    """Whether ``op_type`` has a kernel on ``device_type``.  A device type whose kernels
    failed to load raises NotFoundError with the real cause; placement reports it.

    The CPU has a kernel for exactly the reference ops (tests/test_tiered_compile.py
    checks it), so asking the reference registry spares a tiered start importing numba
    on the caller's thread; a missing numba still fails when the CPU kernel is built."""
    return has_kernel(op_type, "REF" if device_type == "CPU" else device_type)


def _exists(device: Device) -> bool:
    """Whether this process has ``device``; GPUs are probed only when a node asks."""
    if device.device_type == "CPU":
        return device.index == 0
    return device.device_type == "GPU" and device.index < len(gpu_devices())


def _describe_devices() -> str:
    return ", ".join(["CPU:0"] + [d.short_name for d in gpu_devices()])


SessionFactory.register("DIRECT_SESSION", DirectSessionFactory())
