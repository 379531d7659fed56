"""Workloads that move data: host<->GPU copies, and a two-worker gRPC transfer on loopback.

Both include themselves only where they apply:

* ``copies``: only when a GPU session runs (a real GPU, not a CPU fallback).
  ``copy_h2d`` feeds a host array to a graph summing it on the GPU (the sum is tiny
  next to the copy), ``copy_d2h`` fetches a GPU variable to the host, and ``copy_d2d``
  times ``cupy``'s device-to-device copy: the bandwidth the GPU goals are measured
  against.  Peers: cupy's own copies, and numpy's host memcpy.
* ``grpc_transfer``: a cluster of two workers on 127.0.0.1 (``ds.ClusterSpec``, one
  ``ds.Server`` per task); a variable on ``/job:worker/task:0`` is summed on
  ``/job:worker/task:1``, so every step ships it between the workers; a second row
  feeds the array from the client instead.  The peer is the same graph on a two-worker
  TF1 cluster (``tf.compat.v1.train.Server``; TF cannot stop its servers, so they live
  until the process exits).  Only without ``ds.Server`` is the workload skipped (the
  reason: "gRPC session not available"); a cluster that fails to start is an error row
  of ours, so ``devsession bench`` exits non-zero.

* ``grpc_tiny_step``: the same two workers; a scalar made on task 1 (the identity of a
  constant: a constant itself would be copied to its reader instead of sent) added to
  one on task 0 and fetched: the per-step cost of a step that spans two tasks.  Peer: the
  same graph on TF1's two workers.

Throughput is GB/s of the array moved per step (steps/s for the tiny step).
"""

from __future__ import annotations

import functools
import time

import numpy as np

from devsession.distributed.local_processes import free_ports

from .workload import Data, Workload

from .contenders import Contender, cupy_or_none, ran_on
from .runner import error_row, measure

__all__ = ["copies", "grpc_transfer", "grpc_tiny_step"]

GRPC_UNAVAILABLE = "gRPC session not available"


def _data(n: int):

    return lambda rng: Data((rng.random(n, dtype=np.float32),), ("x",))


# --- host <-> GPU copies ----------------------------------------------------------------------

def copies(nbytes: int) -> list:

    n = nbytes // 4
    label = f"{nbytes / 2**20:.0f} MiB"
    common = dict(unit="GB/s", work=nbytes / 1e9, make_data=_data(n), requires="gpu",
                  rtol=1e-4, atol=0.0, params={"bytes": nbytes})
    return [
        Workload(name="copy_h2d", title=f"host -> GPU copy of {label} (fed, summed on GPU)",
                 measure=functools.partial(_measure_copy, "h2d"), **common),
        Workload(name="copy_d2h", title=f"GPU -> host copy of {label} (a GPU variable fetched)",
                 measure=functools.partial(_measure_copy, "d2h"), **common),
        Workload(name="copy_d2d", title=f"GPU -> GPU copy of {label} (cupy; the GPU goals' "
                 f"reference bandwidth)", measure=functools.partial(_measure_copy, "d2d"),
                 **common),
    ]


def _measure_copy(direction: str, workload, context):
    cp = cupy_or_none()
    if cp is None and direction == "d2d":
        return "needs cupy (pip install 'devsession[cuda]')"
    data = workload.make_data(np.random.default_rng(context.seed))
    x = data.feeds[0]
    expected = x.sum()
    host_sum = lambda r: np.asarray(np.asarray(r).sum())          # noqa: E731
    contenders, failed = [], []
    gpu_targets = [t for t in context.targets if t.is_gpu and not t.grpc]
    for target in gpu_targets if direction != "d2d" else []:
        try:
            contenders.append(_ours_copy(direction, target, x, host_sum))
        except Exception as e:
            failed.append(error_row(f"devsession {target.label}", "ours", e))
    if cp is not None:
        xd = cp.asarray(x)
        cp.cuda.runtime.deviceSynchronize()
        peer = {"h2d": functools.partial(cp.asarray, x), "d2h": xd.get,
                "d2d": xd.copy}[direction]
        device_sum = lambda r: np.asarray(cp.asnumpy(r).sum())   # noqa: E731
        contenders.append(Contender(
            "cupy", "peer", peer, sync=lambda r: cp.cuda.runtime.deviceSynchronize(),
            to_host=host_sum if direction == "d2h" else device_sum, api="copy",
            device="GPU:0"))
    contenders.append(Contender("numpy", "peer", x.copy, to_host=host_sum, api="host memcpy",
                                device="CPU"))
    return measure(workload, contenders, expected, context) + failed


def _ours_copy(direction: str, target, x: np.ndarray, host_sum) -> Contender:
    import devsession as ds

    start = time.perf_counter()
    graph = ds.Graph()
    with graph.as_default():
        if direction == "h2d":
            fed = ds.placeholder(ds.float32, (None,), name="x")
            fetch, feeds = ds.reduce_sum(fed), [fed]
        else:
            v = ds.Variable(x, name="v")
            fetch, feeds = v.value(), []
    sess = ds.Session(graph=graph, options=ds.SessionOptions(device=target.device))
    if direction == "d2h":
        sess.run(ds.variables_initializer([v]))
    step = sess.make_callable(fetch, feeds)
    run = functools.partial(step, x) if direction == "h2d" else step
    to_host = (lambda r: np.asarray(r)) if direction == "h2d" else host_sum
    feed_dict = dict(zip(feeds, [x])) if feeds else None
    return Contender(f"devsession {target.label}", "ours", run, to_host=to_host,
                     requested=target.label, device=target.device, factory="DIRECT_SESSION",
                     api="make_callable", setup_s=time.perf_counter() - start,
                     probe_device=functools.partial(ran_on, sess, fetch, feed_dict),
                     close=sess.close)


# --- two workers over gRPC ------------------------------------------------------------------

def grpc_transfer(n: int):

    size = f"{n * 4 // 2**20} MiB" if n * 4 >= 2**20 else f"{n * 4 // 2**10} KiB"
    return Workload(
        name="grpc_transfer_" + size.replace(" ", "").lower(),
        title=f"two gRPC workers on loopback: {size} float32 from task 0 summed on task 1", unit="GB/s", work=n * 4 / 1e9, make_data=_data(n),
        measure=_measure_grpc, rtol=1e-4, atol=0.0, params={"n": n, "bytes": n * 4})


def grpc_tiny_step():
    return Workload(
        name="grpc_tiny_step", title="two gRPC workers on loopback: a scalar made on task 1 "
        "added to one on task 0, fetched (per-step cost across tasks)", unit="steps/s",
        work=1.0, make_data=lambda rng: Data((), ()), measure=_measure_grpc, rtol=0.0,
        atol=0.0, params={"tasks": 2})


def _measure_grpc(workload, context):
    import devsession as ds

    if getattr(ds, "Server", None) is None or getattr(ds, "ClusterSpec", None) is None:
        return f"{GRPC_UNAVAILABLE} (devsession has no ds.Server / ds.ClusterSpec)"
    tiny = workload.name == "grpc_tiny_step"
    x = None if tiny else workload.make_data(np.random.default_rng(context.seed)).feeds[0]
    servers = []
    try:
        cluster = ds.ClusterSpec({"worker": [f"127.0.0.1:{p}" for p in free_ports(2)]})
        for task in range(2):
            servers.append(ds.Server(cluster, job_name="worker", task_index=task))
        contenders = _ours_grpc(ds, servers[0].target, x)
    except Exception as e:      # ds.Server exists, so this is a failure, not a skip
        _stop(servers)
        context.warn(f"{workload.name}: the two-worker cluster failed to start: "
                     f"{type(e).__name__}: {e}")
        return [error_row("devsession grpc (cluster set-up)", "ours", e, requested="grpc",
                          factory="GRPC_SESSION")]
    if not tiny:
        contenders.append(Contender("numpy", "peer", x.sum, api="local sum (no transfer)",
                                    device="CPU"))
    failed = []
    tf1 = context.peers.get("tf1")
    if tf1 is not None and tf1.available:
        try:
            contenders += _tf1_grpc(tf1.module, x)
        except Exception as e:
            failed.append(error_row("tf1", "peer", e))
    try:
        return measure(workload, contenders, np.float32(3.0) if tiny else x.sum(),
                       context) + failed
    finally:
        _stop(servers)


def _two_worker_graph(api, x: np.ndarray):
    """(variable, worker->worker sum, placeholder, client->worker sum) in the default graph."""
    with api.device("/job:worker/task:0"):
        v = api.Variable(x, name="v")
    with api.device("/job:worker/task:1"):
        moved = api.reduce_sum(v, name="sum_moved")
    fed = api.placeholder(api.float32, (None,), name="x")
    with api.device("/job:worker/task:1"):
        fed_sum = api.reduce_sum(fed, name="sum_fed")
    return v, moved, fed, fed_sum


def _tiny_graph(api):
    """A scalar made on task 1 plus a constant on task 0 (= 3.0), in the default graph."""
    with api.device("/job:worker/task:0"):
        here = api.constant(1.0, name="tiny0")
    with api.device("/job:worker/task:1"):
        there = api.identity(api.constant(2.0), name="tiny1")   # a value made there
    with api.device("/job:worker/task:0"):
        return api.add(here, there, name="tiny")


def _ours_grpc(ds, target: str, x: np.ndarray | None) -> list[Contender]:
    """Our rows: the tiny step when ``x`` is None, else the two transfers of ``x``."""
    start = time.perf_counter()
    graph = ds.Graph()
    options = ds.SessionOptions(target=target, device="cpu")
    if x is None:
        with graph.as_default():
            tiny = _tiny_graph(ds)
        sess = ds.Session(target=target, graph=graph, options=options)
        return [Contender("devsession grpc two-worker step", "ours", sess.make_callable(tiny),
                          requested="grpc", factory="GRPC_SESSION", api="make_callable",
                          device="worker:0 + worker:1", close=sess.close,
                          setup_s=time.perf_counter() - start)]
    with graph.as_default():
        v, moved, fed, fed_sum = _two_worker_graph(ds, x)
    sess = ds.Session(target=target, graph=graph, options=options)
    sess.run(v.initializer)
    setup = time.perf_counter() - start
    common = dict(requested="grpc", factory="GRPC_SESSION", api="make_callable",
                  setup_s=setup)
    return [Contender("devsession grpc worker->worker", "ours", sess.make_callable(moved),
                      device="worker:0 -> worker:1", close=sess.close,
                      probe_device=functools.partial(ran_on, sess, moved, None), **common),
            Contender("devsession grpc client->worker", "ours",
                      functools.partial(sess.make_callable(fed_sum, [fed]), x),
                      device="client -> worker:1",
                      probe_device=functools.partial(ran_on, sess, fed_sum, {fed: x}),
                      **common)]


# Where TF1's transfer rows ran, named as our rows' probes name devices (TF1's graphs are
# pinned to its CPUs, as ours run with device="cpu"), so the goals match its rows to ours
# by device kind.
TF1_DEVICES = {"worker->worker": "worker:0/CPU:0+worker:1/CPU:0",
               "client->worker": "worker:1/CPU:0"}


def _tf1_grpc(tf, x: np.ndarray | None) -> list[Contender]:
    v1 = tf.compat.v1
    start = time.perf_counter()
    cluster = v1.train.ClusterSpec({"worker": [f"127.0.0.1:{p}" for p in free_ports(2)]})
    servers = [v1.train.Server(cluster, job_name="worker", task_index=i) for i in range(2)]
    graph = tf.Graph()
    if x is None:
        with graph.as_default(), v1.device("/device:CPU:0"):   # a GPU build stays on CPUs
            tiny = _tiny_graph(v1)
        sess = v1.Session(servers[0].target, graph=graph)
        return [Contender("tf1 two-worker step", "peer", sess.make_callable(tiny), api="grpc",
                          device="worker:0 + worker:1", close=sess.close,
                          setup_s=time.perf_counter() - start)]
    with graph.as_default(), v1.device("/device:CPU:0"):
        v, moved, fed, fed_sum = _two_worker_graph(v1, x)
    sess = v1.Session(servers[0].target, graph=graph)
    sess.run(v.initializer)
    setup = time.perf_counter() - start
    return [Contender("tf1 worker->worker", "peer", sess.make_callable(moved), api="grpc",
                      device=TF1_DEVICES["worker->worker"], setup_s=setup,
                      close=sess.close),
            Contender("tf1 client->worker", "peer",
                      functools.partial(sess.make_callable(fed_sum, [fed]), x), api="grpc",
                      device=TF1_DEVICES["client->worker"], setup_s=setup)]


def _stop(servers) -> None:
    for server in servers:
        try:
            server.stop()
        except Exception:
            pass
