"""Value types users hand to sessions: ``SessionOptions``, ``RunOptions``, ``RunMetadata``.

``SessionOptions`` is immutable and canonical once built (the device is parsed into a
``DeviceSpec`` at the boundary: strings such as "gpu:1" are accepted there), so
factories compare options without re-parsing and an options object can key a cache.  ``RunMetadata`` is the one mutable type: a run with
``RunOptions(trace=True)`` (or TF1's ``trace_level=RunOptions.FULL_TRACE``) appends its
per-node step stats to it; ``step_stats`` is a list of ``NodeStats`` that also reads as
TF's StepStats proto (``dev_stats``, each with ``device`` and ``node_stats``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading

import numpy as np

from .device_spec import DeviceSpec

__all__ = ["SessionOptions", "OptimizerOptions", "RunOptions", "RunMetadata", "NodeStats",
           "StepStats", "DeviceStepStats", "NodeExecStats"]


@dataclasses.dataclass(frozen=True)
class OptimizerOptions:
    """Graph optimizer passes run once per cached plan; switch any off to debug.

    Results are the same with every pass on or off (tests/test_optimizer.py), to float
    rounding where a product folds into its SGD update (tests/test_gemm_updates.py).
    """

    constant_folding: bool = True
    common_subexpression_elimination: bool = True
    fusion: bool = True      # elementwise regions -> one kernel; a product into its update
    constant_folding_max_elements: int = 1 << 20  # don't bake bigger results into a plan
    # a product's constant B (a frozen model's weights) packed once for the CPU's tiles,
    # not on every run: a second copy of it in memory, shared by every session
    pack_constant_weights: bool = True

    # TF's OptimizerOptions levels, for tf.ConfigProto's graph_options (config.py)
    L1, L0 = 0, -1
    DEFAULT, OFF, ON_1, ON_2 = 0, -1, 1, 2

    @classmethod
    def none(cls) -> "OptimizerOptions":
        return cls(constant_folding=False, common_subexpression_elimination=False,
                   fusion=False, pack_constant_weights=False)


KERNEL_COMPILE_MODES = ("background", "eager")


@dataclasses.dataclass(frozen=True)
class SessionOptions:
    """How and where a session runs; see API.md.

    ``device`` is the default device for nodes without their own placement, a
    ``DeviceSpec`` (a string is parsed): empty means the best local device (GPU:0 when
    one is present, else CPU:0).
    ``gpu_memory_limit_bytes`` caps the GPU memory pool on the session's GPUs while it
    is open (running past it raises ``ResourceExhaustedError``); None: no cap.
    ``kernel_compile`` says when a direct session's numba kernels compile:
    "background" (the default; ``$DEVSESSION_KERNEL_COMPILE`` may change it) runs a
    plan that was never compiled on this machine with the numpy reference kernels
    while its numba kernels compile on a background thread (``runtime/tiered.py``);
    "eager" compiles them during the first run.
    ``device_filters`` (TF's ConfigProto field): a cluster session sees only the
    devices one of them includes (``/job:ps`` includes every ps device): it lists,
    contacts and places on no other, so tasks it leaves out need not be running.  A
    direct session has only its own devices and ignores them, as TF's.
    """

    target: str = ""
    device: DeviceSpec = DeviceSpec()
    allow_soft_placement: bool = True
    log_device_placement: bool = False
    inter_op_threads: int = 0
    intra_op_threads: int = 0
    operation_timeout_s: float | None = None
    gpu_memory_limit_bytes: int | None = None   # cap on the session's GPU memory pool
    config: tuple = ()   # extra (key, value) pairs for third-party factories
    optimizer: OptimizerOptions = OptimizerOptions()
    kernel_compile: str = dataclasses.field(default_factory=lambda: os.environ.get(
        "DEVSESSION_KERNEL_COMPILE", "background"))
    device_filters: tuple = ()

    def __post_init__(self):
        if self.kernel_compile not in KERNEL_COMPILE_MODES:
            raise ValueError(f"kernel_compile must be one of {', '.join(KERNEL_COMPILE_MODES)}"
                             f", not {self.kernel_compile!r} (from the argument or "
                             f"$DEVSESSION_KERNEL_COMPILE).")
        if not isinstance(self.target, str):
            raise TypeError(f"SessionOptions.target must be a string, not {self.target!r}.")
        object.__setattr__(self, "target", self.target.strip())
        object.__setattr__(self, "device", DeviceSpec.parse(self.device))
        if self.operation_timeout_s is not None and self.operation_timeout_s <= 0:
            raise ValueError("operation_timeout_s must be positive or None.")
        limit = self.gpu_memory_limit_bytes
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)):
                raise TypeError(f"gpu_memory_limit_bytes must be an int or None, not {limit!r}.")
            if limit <= 0:
                raise ValueError("gpu_memory_limit_bytes must be positive (None: no cap).")
            object.__setattr__(self, "gpu_memory_limit_bytes", int(limit))
        for name in ("inter_op_threads", "intra_op_threads"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0 (0 picks from the machine).")
        if isinstance(self.config, dict):
            object.__setattr__(self, "config", tuple(sorted(self.config.items())))
        if isinstance(self.device_filters, (str, DeviceSpec)):
            raise TypeError(f"device_filters must be a list of device names, not "
                            f"{self.device_filters!r}.")
        object.__setattr__(self, "device_filters",
                           tuple(DeviceSpec.parse(f) for f in self.device_filters))

    @property
    def is_local(self) -> bool:
        return self.target in ("", "local")

    def get(self, key: str, default=None):
        """A value from ``config`` (third-party factory settings)."""
        return dict(self.config).get(key, default)

    def replace(self, **changes) -> "SessionOptions":
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """Per-``run`` options: a deadline and whether to trace node timings.

    TF1's spellings work too: ``trace_level`` one of TF's TraceLevel constants (any
    level above ``NO_TRACE`` traces: devsession's trace times every node, which is
    what TF's levels add up to on a CPU) and ``timeout_in_ms`` (0: none), as
    ``tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)`` writes them.
    """

    # TF's RunOptions.TraceLevel values
    NO_TRACE = 0
    SOFTWARE_TRACE = 1
    HARDWARE_TRACE = 2
    FULL_TRACE = 3

    timeout_s: float | None = None
    trace: bool = False
    trace_level: int = 0
    timeout_in_ms: int = 0

    def __post_init__(self):
        if self.timeout_in_ms:
            if self.timeout_in_ms < 0:
                raise ValueError("RunOptions.timeout_in_ms must be positive or 0 (none).")
            if self.timeout_s is not None:
                raise ValueError("Give RunOptions timeout_s or timeout_in_ms, not both.")
            object.__setattr__(self, "timeout_s", self.timeout_in_ms / 1000.0)
        if self.timeout_s is not None and self.timeout_s <= 0:
            raise ValueError("RunOptions.timeout_s must be positive or None.")
        if isinstance(self.trace_level, bool) or not isinstance(
                self.trace_level, (int, np.integer)):
            raise TypeError(f"RunOptions.trace_level must be an int (RunOptions.FULL_TRACE"
                            f"...), not {self.trace_level!r}.")
        if self.trace_level > self.NO_TRACE:
            object.__setattr__(self, "trace", True)
        elif self.trace:
            object.__setattr__(self, "trace_level", self.FULL_TRACE)


@dataclasses.dataclass(frozen=True)
class NodeStats:
    """One node's execution in a traced step; times in seconds since the epoch.

    A node the optimizer fused into one kernel with others (``OptimizerOptions.fusion``)
    still has its own stat: ``kernel`` names the fused kernel (after its last node, as
    TF names fused nodes; "" for a node that ran its own kernel), and the members of one
    kernel run split its time into equal consecutive shares, in the kernel's order (one
    loop computes them all, so they cannot be timed apart).  ``output_shapes`` are the
    shapes of the values the node produced (the profiler completes unknown static
    shapes with them); a fused kernel's members have none but its last.
    """

    node: str
    op: str
    device: str
    start: float
    duration: float
    thread: int = 0
    kernel: str = ""
    output_shapes: tuple = ()


@dataclasses.dataclass(frozen=True)
class NodeExecStats:
    """One node's stat under TF's NodeExecStats field names (microseconds; ``all_start``
    since the epoch, the ``*_rel_micros`` after it), as TF1 code reads them."""

    node_name: str
    timeline_label: str
    all_start_micros: int
    op_start_rel_micros: int
    op_end_rel_micros: int
    all_end_rel_micros: int
    thread_id: int

    @property
    def all_start_nanos(self) -> int:
        return self.all_start_micros * 1000

    @classmethod
    def of(cls, s: NodeStats) -> "NodeExecStats":
        duration = int(round(s.duration * 1e6))
        return cls(node_name=s.node, timeline_label=f"{s.node} = {s.op}()",
                   all_start_micros=int(s.start * 1e6), op_start_rel_micros=0,
                   op_end_rel_micros=duration, all_end_rel_micros=duration,
                   thread_id=s.thread)


@dataclasses.dataclass(frozen=True)
class DeviceStepStats:
    """One device's stats in a step (TF's DeviceStepStats)."""

    device: str
    node_stats: list


class StepStats(list):
    """A traced step's ``NodeStats``, in the order they ran; ``dev_stats`` reads them
    as TF's StepStats proto does (one ``DeviceStepStats`` per device, in the order the
    devices first ran a node), for TF1 code that walks ``run_metadata.step_stats``."""

    @property
    def dev_stats(self) -> list:
        by_device: dict = {}
        for s in self:
            by_device.setdefault(s.device, []).append(NodeExecStats.of(s))
        return [DeviceStepStats(d, nodes) for d, nodes in by_device.items()]


class RunMetadata:
    """Receives step stats from a traced run; ``chrome_trace()`` renders them."""

    def __init__(self):
        self._lock = threading.Lock()
        self.step_stats: StepStats = StepStats()
        self.partition_graphs: list = []

    def add(self, stats: list[NodeStats]) -> None:
        with self._lock:
            self.step_stats.extend(stats)

    def clear(self) -> None:
        with self._lock:
            self.step_stats.clear()

    def devices(self) -> set[str]:
        return {s.device for s in self.step_stats}

    def chrome_trace(self) -> str:
        """Trace Event Format JSON, loadable in chrome://tracing or Perfetto.

        One process per device, one complete ("X") event per node.  A fused kernel is an
        event of its own, named after the kernel, whose ``args`` list its ``members``
        and their ``ops``; its members' events nest inside it.
        """
        with self._lock:
            stats = list(self.step_stats)
        devices = sorted({s.device for s in stats})
        pid_of = {d: i for i, d in enumerate(devices)}
        events = [{"name": "process_name", "ph": "M", "pid": pid_of[d], "tid": 0,
                   "args": {"name": d}} for d in devices]
        for group in _kernel_runs(stats):
            first = group[0]
            if first.kernel:
                events.append({
                    "name": first.kernel, "cat": "fused", "ph": "X",
                    "pid": pid_of[first.device], "tid": first.thread, "ts": first.start * 1e6,
                    "dur": sum(s.duration for s in group) * 1e6,
                    "args": {"members": [s.node for s in group], "ops": [s.op for s in group],
                             "device": first.device}})
            for s in group:
                args = {"op": s.op, "node": s.node, "device": s.device}
                if s.kernel:
                    args["kernel"] = s.kernel
                events.append({
                    "name": s.node, "cat": s.op, "ph": "X", "pid": pid_of[s.device],
                    "tid": s.thread, "ts": s.start * 1e6, "dur": s.duration * 1e6,
                    "args": args})
        return json.dumps({"traceEvents": events, "displayTimeUnit": "ms"})


def _kernel_runs(stats: list) -> list:
    """``stats`` cut into runs of one kernel each: a lone node, or the consecutive
    members of one fused kernel run (same kernel, device and thread)."""
    runs: list = []
    for s in stats:
        previous = runs[-1][-1] if runs else None
        if (s.kernel and previous is not None and previous.kernel == s.kernel
                and previous.device == s.device and previous.thread == s.thread
                and s.node not in {p.node for p in runs[-1]}):
            runs[-1].append(s)
        else:
            runs.append([s])
    return runs
