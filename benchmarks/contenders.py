"""Contenders: one prepared way of running a workload's step, ours or a peer's.

A ``Contender`` is what the runner times: ``run()`` does one step with its inputs bound
and returns the result wherever it lives, ``sync(result)`` waits until that result
exists (GPU streams, JAX's async dispatch; a no-op for synchronous contenders), and
``to_host(result)`` makes it a numpy array for the check against numpy.

Our side is a ``Target``: a session factory and a device, e.g. the direct session on
``cpu`` or ``gpu:0``, or the gRPC session on a local server.  ``devsession_contenders``
builds one session per API (``make_callable``, and ``run`` where the workload asks for
it) through the public API only, and after the first run asks the session where the
nodes actually ran (a traced run's step stats; ``list_devices()`` otherwise), so a GPU
request that fell back to the CPU is reported as CPU.

Like for like on a GPU: the cupy and JAX peers leave their results on the device, so a
GPU row does too: its timed step runs the output op as a target (nothing is copied
back), and its ``check`` is a separate run that fetches the output, which the runner
compares with numpy after the first run and after the last timed one.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any, Callable

import numpy as np

__all__ = ["Contender", "Target", "parse_targets", "devsession_contenders", "cupy_or_none",
           "ran_on", "compact_device"]


def _no_sync(result) -> None:
    return None


@dataclasses.dataclass
class Contender:
    name: str                                   # row label, e.g. "devsession cpu"
    side: str                                   # "ours" or "peer"
    run: Callable[[], Any]
    sync: Callable[[Any], None] = _no_sync
    to_host: Callable[[Any], np.ndarray] = np.asarray
    requested: str = ""                         # the device asked for ('' for peers)
    device: str = "CPU"                         # where it ran
    factory: str = ""                           # DIRECT_SESSION / GRPC_SESSION / ''
    api: str = ""                               # make_callable / run / jit / ...
    setup_s: float = 0.0                        # building graph, session, plan, jit wrapper
    probe_device: Callable[[], str] | None = None   # after the first run: where it ran
    close: Callable[[], None] | None = None
    notes: list = dataclasses.field(default_factory=list)
    reference: bool = False                     # its first result is what others must match
    check: Callable[[], Any] | None = None      # a run giving a result to check, when the
                                                # timed ``run`` returns none (a GPU target)


@dataclasses.dataclass(frozen=True)
class Target:
    """Where our side runs: a device under a session factory."""

    label: str          # as the user wrote it, e.g. "cpu", "gpu:0", "grpc:cpu"
    device: str         # SessionOptions.device
    grpc: bool = False  # through a local gRPC server instead of the direct session

    @property
    def is_gpu(self) -> bool:
        return "GPU" in self.device.upper()


def parse_targets(requests: list[str] | None) -> list[Target]:
    """``--device`` values as Targets; default: every local device (direct session).

    ``grpc`` or ``grpc:DEVICE`` runs through the gRPC session factory on a local server.
    Raises ValueError for a device spec that does not parse, or one that names no
    local device type, listing this machine's devices.
    """
    import devsession as ds

    if not requests:
        return [Target(_label(d.short_name), d.short_name.lower())
                for d in ds.list_local_devices()]
    known = ", ".join(d.short_name.lower() for d in ds.list_local_devices())
    targets = []
    for text in requests:
        grpc = text == "grpc" or text.startswith("grpc:")
        device = text[5:] if text.startswith("grpc:") else ("cpu" if grpc else text)
        try:
            spec = ds.DeviceSpec.parse(device)
        except ValueError as e:
            raise ValueError(f"--device {text!r}: {e} Devices here: {known}"
                             f"{' (and grpc, grpc:DEVICE)' if not grpc else ''}.") from None
        if spec.device_type not in ("CPU", "GPU") or spec.job not in (None, "localhost"):
            raise ValueError(f"--device {text!r} is not a local CPU or GPU device; devices "
                             f"here: {known}.")
        if text not in (t.label for t in targets):
            targets.append(Target(text, device, grpc))
    return targets


def _label(short_name: str) -> str:
    """"CPU:0" -> "cpu" (there is one), "GPU:1" -> "gpu:1"."""
    return "cpu" if short_name == "CPU:0" else short_name.lower()


def devsession_contenders(workload, data, target: Target, context, graph_fn=None,
                          initialize: bool = False, to_host=np.asarray) -> list[Contender]:
    """One contender per API the workload asks for, each with its own session.

    ``graph_fn`` builds the graph (default: the workload's ``graph``); with
    ``initialize`` the session runs the graph's variable initializers first (training
    workloads); ``to_host`` turns a step's result into the array checked against numpy."""
    import devsession as ds

    feeds = _device_feeds(data.feeds, target, context)
    # a real GPU, fed cupy arrays: the result stays there, unless each step changes state
    # (training: its loss is fetched every step, as TF1's users do, and that is checked)
    on_device = feeds is not data.feeds and not workload.stateful
    contenders = []
    for api in workload.apis:
        start = time.perf_counter()
        graph = ds.Graph()
        with graph.as_default():
            fetch, placeholders = (graph_fn or workload.graph)(ds, data)
            init = ds.global_variables_initializer() if initialize else None
        options = ds.SessionOptions(device=target.device)
        session_target = context.grpc_target() if target.grpc else ""
        if init is not None and session_target:
            # a cluster keeps variables by name across sessions (TF1's): an earlier
            # workload's "p0" of another shape must not meet this one's
            ds.reset(ds.SessionOptions(target=session_target))
        sess = ds.Session(target=session_target, graph=graph, options=options)
        if init is not None:
            sess.run(init)
        feed_dict = dict(zip(placeholders, feeds))

        def step(fetched, sess=sess, placeholders=placeholders, feed_dict=feed_dict):
            if api == "make_callable":
                return functools.partial(sess.make_callable(fetched, placeholders), *feeds)
            return functools.partial(sess.run, fetched, feed_dict)
        notes = ["fed device (cupy) arrays"] if feeds is not data.feeds else []
        if on_device:
            notes = ["fed device (cupy) arrays; the result stays on the GPU (the step runs "
                     "it as a target) and a fetching run is checked"]
        name = f"devsession {target.label}" + ("" if api == "make_callable" else f" ({api})")
        contenders.append(Contender(
            name=name, side="ours", run=step(_as_targets(fetch) if on_device else fetch),
            check=step(fetch) if on_device else None, to_host=to_host,
            requested=target.label, device=target.device,
            factory="GRPC_SESSION" if target.grpc else "DIRECT_SESSION", api=api,
            setup_s=time.perf_counter() - start,
            probe_device=functools.partial(ran_on, sess, fetch, feed_dict),
            sync=_gpu_sync(target, context), close=sess.close, notes=notes))
    return contenders


def _as_targets(fetch):
    """The ops producing ``fetch`` (a tensor, an op, or a list of them): run as targets,
    they leave their results where they were computed."""
    if isinstance(fetch, (list, tuple)):
        return [_as_targets(f) for f in fetch]
    return getattr(fetch, "op", fetch)


def ran_on(sess, fetch, feed_dict) -> str:
    """The devices a traced step of ``fetch`` ran its nodes on, e.g. "CPU:0".  The copies
    at the step's edges (``_Transfer``: feeds in, the fetch out) are not counted: a GPU
    graph whose result is fetched to the host ran on "GPU:0"."""
    import devsession as ds

    try:
        metadata = ds.RunMetadata()
        sess.run(fetch, feed_dict, options=ds.RunOptions(trace=True), run_metadata=metadata)
        computed = {s.device for s in metadata.step_stats if s.op != "_Transfer"}
        devices = sorted(computed or metadata.devices())
    except Exception:   # a session without tracing: say which devices it has
        devices = []
    if not devices:
        devices = [d.name for d in sess.list_devices()]
    return "+".join(dict.fromkeys(compact_device(d) for d in devices))


def compact_device(name: str) -> str:
    """"/job:worker/replica:0/task:1/device:CPU:0" -> "worker:1/CPU:0"; a local device
    ("/job:localhost/...", or already "CPU:0") -> "CPU:0"."""
    import devsession as ds

    try:
        spec = ds.DeviceSpec.parse(name)
    except ValueError:
        return name
    device = f"{spec.device_type}:{spec.device_index or 0}" if spec.device_type else "?"
    if spec.job in (None, "localhost"):
        return device
    return f"{spec.job}:{spec.task or 0}/{device}"


def cupy_or_none():
    """cupy, or None where it does not import (no GPU, or a simulated one in tests)."""
    try:
        import cupy
    except Exception:
        return None
    return cupy


def _device_feeds(feeds: tuple, target: Target, context) -> tuple:
    """Feeds for a GPU target live on the GPU (the session accepts CUDA arrays), so the
    step times the graph and not the host-to-device copy of its inputs."""
    cupy = cupy_or_none() if target.is_gpu and not target.grpc and context.has_gpu else None
    if cupy is None:
        return feeds
    return tuple(cupy.asarray(a) for a in feeds)


def _gpu_sync(target: Target, context):
    cupy = cupy_or_none() if target.is_gpu and context.has_gpu else None
    if cupy is None:
        return _no_sync

    def sync(result):
        cupy.cuda.runtime.deviceSynchronize()
    return sync
