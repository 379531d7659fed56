"""The performance goals (issues 5, 9, 11 and 13), as data, judged against one run's results.

A goal compares our median with a peer's measured in the same run (``ratio``: our speed
over theirs must reach it), or with a fixed limit (``max_s``).  A goal whose workload,
device or peer is not in the run is "n/a" with the reason; nothing is guessed.  Devices
match exactly by kind (``device_kind``): our row must have run on the goal's device
(a GPU request that fell back to the CPU, or a row spanning CPU and GPU, is no GPU
row), and the peer's row on the same kind as ours.  A row with no one device kind (a
cluster's "ps + 2 workers", "worker:0 + worker:1") is judged only by a goal that says its
rows span devices (``spans_devices``: the cluster goals), which matches rows by name.

    evaluate(GOALS, results)  ->  [{"goal": ..., "holds": True/False/None, "detail": ...}]
"""

from __future__ import annotations

import dataclasses

__all__ = ["Goal", "GOALS", "evaluate", "device_kind"]


@dataclasses.dataclass(frozen=True)
class Goal:
    text: str
    workload: str
    device: str = "CPU"               # the device type our row must have run on
    api: str = "make_callable"
    ours: str | None = None           # an exact contender name instead of device + api
    peer: str | None = None           # contender name of the peer
    peer_workload: str | None = None  # the peer's row is in another workload (bandwidths)
    ratio: float | None = None        # our throughput / the peer's must be >= ratio
    max_s: float | None = None        # our median must be <= max_s
    spans_devices: bool = False       # rows span a cluster: matched by name, not by kind


GOALS = [
    Goal("chain 10M float32 on CPU >= 1x JAX jit", "chain_10m", peer="jax jit", ratio=1.0),
    Goal("row softmax (4096, 1024) on CPU >= 1x JAX jit", "softmax_4096x1024",
         peer="jax jit", ratio=1.0),
    Goal("sum of 10M float32 on CPU >= 1x numpy", "sum_10m", peer="numpy", ratio=1.0),
    Goal("tiny graph c = a + b: sess.run <= 50 us", "tiny", api="run", max_s=50e-6),
    Goal("tiny graph: make_callable <= 1x JAX jit dispatch", "tiny", peer="jax jit",
         ratio=1.0),
    Goal("matmul 1024 float32 on CPU >= 0.95x numpy", "matmul_1024", peer="numpy",
         ratio=0.95),
    Goal("MLP forward (256, 784-1024-1024-10) >= 1x TF1 session", "mlp_256", peer="tf1",
         ratio=1.0),
    Goal("MLP forward (256, 784-1024-1024-10) >= 1x JAX jit", "mlp_256", peer="jax jit",
         ratio=1.0),
    Goal("MLP training step (256, 784-1024-1024-10, SGD) >= 1.1x TF1 session", "mlp_train",
         peer="tf1", ratio=1.1),
    Goal("MLP training step (256, 784-1024-1024-10, SGD) >= 1.1x JAX jit", "mlp_train",
         peer="jax jit", ratio=1.1),
    Goal("Deep MNIST convnet training step (64, Adam) >= 1x TF1 session", "convnet_train",
         peer="tf1", ratio=1.0),
    Goal("Deep MNIST convnet training step (64, Adam) >= 2x JAX jit", "convnet_train",
         peer="jax jit", ratio=2.0),
    Goal("gRPC: tiny two-worker step >= 1x TF1", "grpc_tiny_step",
         ours="devsession grpc two-worker step", peer="tf1 two-worker step", ratio=1.0,
         spans_devices=True),
    Goal("gRPC: 16 MiB worker to worker >= 1x TF1", "grpc_transfer_16mib",
         ours="devsession grpc worker->worker", peer="tf1 worker->worker", ratio=1.0),
    Goal("gRPC: 16 MiB client to worker >= 1x TF1", "grpc_transfer_16mib",
         ours="devsession grpc client->worker", peer="tf1 client->worker", ratio=1.0),
    Goal("gRPC: data-parallel MLP training on ps + 2 worker processes >= 1x TF1",
         "mlp_train_ps", ours="devsession grpc ps+2 processes",
         peer="tf1 ps+2 processes", ratio=1.0, spans_devices=True),
    Goal("gRPC: the same, its three tasks servers of one process >= 1x TF1", "mlp_train_ps",
         ours="devsession grpc ps+2 workers", peer="tf1 ps+2 workers", ratio=1.0,
         spans_devices=True),
    Goal("warm process start (import + first run of a 20-node graph) < 1.5 s", "startup",
         ours="devsession cpu (warm caches)", max_s=1.5),
    Goal("GPU: chain 10M >= 80% of device-to-device copy bandwidth", "chain_10m",
         device="GPU", peer="cupy", peer_workload="copy_d2d", ratio=0.8),
    Goal("GPU: matmul 1024 >= 90% of cupy.matmul", "matmul_1024", device="GPU", peer="cupy",
         ratio=0.9),
    Goal("GPU: tiny graph step overhead beside cupy (reported, no threshold)", "tiny",
         device="GPU", peer="cupy", ratio=0.0),
]


def evaluate(goals: list[Goal], workloads: list[dict]) -> list[dict]:
    by_name = {w["name"]: w for w in workloads}
    return [dict(goal=g.text, **_judge(g, by_name)) for g in goals]


def _judge(goal: Goal, by_name: dict) -> dict:
    workload = by_name.get(goal.workload)
    if workload is None:
        return _na(f"{goal.workload} is not in this suite")
    if workload["skipped"]:
        return _na(f"{goal.workload} was skipped: {workload['skipped']}")
    ours = _our_row(goal, workload["rows"])
    if ours is None:
        return _na(f"no devsession row on {goal.device} ({goal.api}) in {goal.workload}")
    if not ours.get("steady_s"):
        return _na(f"{ours['contender']} did not finish: {ours.get('error')}")
    kind = device_kind(ours.get("device"))
    if not goal.spans_devices and kind != goal.device:
        return _na(f"{ours['contender']} ran on {ours.get('device') or 'no named device'}, "
                   f"not on {goal.device}")
    if goal.max_s is not None:
        holds = ours["steady_s"] <= goal.max_s
        return {"holds": holds, "value": ours["steady_s"],
                "detail": f"{_fmt_s(ours['steady_s'])} (limit {_fmt_s(goal.max_s)})"}
    peer_workload = by_name.get(goal.peer_workload or goal.workload)
    if peer_workload is None or peer_workload["skipped"]:
        return _na(f"{goal.peer_workload} was not measured")
    named = [r for r in peer_workload["rows"] if r["contender"] == goal.peer
             and r.get("steady_s")]
    peer = next((r for r in named
                 if goal.spans_devices or device_kind(r.get("device")) == kind), None)
    if peer is None:
        if named:
            return _na(f"{goal.peer} ran on {named[0].get('device')}, not on {kind} as ours")
        return _na(f"{goal.peer} was not measured (not installed, or no such row)")
    ratio = ours["throughput"] / peer["throughput"]
    detail = (f"{ratio:.2f}x: {_fmt_tp(ours)} vs {goal.peer} {_fmt_tp(peer)}"
              if goal.peer_workload else
              f"{ratio:.2f}x: {_fmt_s(ours['steady_s'])} vs {goal.peer} "
              f"{_fmt_s(peer['steady_s'])}")
    if goal.ratio == 0.0:
        return {"holds": None, "value": ratio, "detail": detail}
    return {"holds": ratio >= goal.ratio, "value": ratio, "detail": detail}


def _our_row(goal: Goal, rows: list[dict]):
    for row in rows:
        if row["side"] != "ours":
            continue
        if goal.ours is not None:
            if row["contender"] == goal.ours:
                return row
        elif row["api"] == goal.api and device_kind(row.get("device")) == goal.device \
                and row.get("factory") == "DIRECT_SESSION":
            return row
    return None


DEVICE_KINDS = ("CPU", "GPU")


def device_kind(device: str | None) -> str | None:
    """The one device type a row ran on: "CPU:0", "CPU", "worker:1/GPU:0", "gpu" ->
    "CPU"/"GPU"; None for a row on several kinds ("CPU:0+GPU:0"), on none, or named by
    something that is no device ("worker:0 -> worker:1", "ps + 2 workers")."""
    kinds = set()
    for part in (device or "").split("+"):
        name = part.rsplit("/", 1)[-1].split(":", 1)[0].strip().upper()
        kinds.add("GPU" if name == "CUDA" else name)
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind in DEVICE_KINDS else None


def _na(reason: str) -> dict:
    return {"holds": None, "value": None, "detail": f"n/a: {reason}"}


def _fmt_s(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _fmt_tp(row: dict) -> str:
    return f"{row['throughput']:.3g} {row['unit']}"
