"""``devsession bench``: graph workloads on every device, beside numpy, numexpr, TF1 and JAX.

    devsession bench                                   # default suite, every local device
    devsession bench --suite small --device cpu --device gpu:0 --json out.json --plot out.png
    devsession bench --peers numpy,jax --repeats 9

Modules: ``suites`` (the workloads, as data), ``contenders`` (our sessions per device and
factory), ``peers`` (numpy / numexpr / TF1 / JAX / cupy adapters, imported lazily),
``runner`` (first run apart from steady state, interleaved rounds, medians), ``startup``
and ``transfers`` (the workloads that are not one local graph), ``goals`` (issue 5's
targets), ``report`` (table, JSON, plot), ``progress`` (the bar on stderr).

Exit status: 0, or 1 when one of our rows failed or did not match numpy (peers'
failures are reported but do not fail the run); bad arguments raise ValueError, which
the CLI turns into status 2.
"""

from __future__ import annotations

import os
import sys
import time

from . import goals as goals_module
from .contenders import parse_targets
from .peers import load_peers, parse_peers
from .progress import make_progress
from .report import (check_plot_available, environment, format_table, git_commit, write_json,
                     write_plot)
from .runner import Context, run_suite
from .suites import get_suite

__all__ = ["run_bench"]

# Steps shorter than this are timed in batches; a smaller batch keeps the small suite fast.
MIN_BATCH_S = {"small": 0.002, "default": 0.02, "full": 0.05}
SETTLE_S = {"small": 0.0, "default": 0.15, "full": 0.15}   # small: a smoke run


def run_bench(devices=None, suite: str = "default", repeats: int = 5, json_path=None,
              plot_path=None, peers: str | None = None, progress: bool = True,
              out=None) -> int:
    """Run a suite and report it; returns the exit status.

    Raises ValueError for an unknown suite, device or peer, a repeat count below 1, or
    ``plot_path`` without matplotlib installed.
    """
    out = out or sys.stdout
    if repeats < 1:
        raise ValueError(f"--repeats must be at least 1, got {repeats}")
    workloads = get_suite(suite)
    targets = parse_targets(devices)
    peer_names = parse_peers(peers)
    if plot_path:
        check_plot_available()

    import devsession as ds

    # Steady-state figures are of the compiled kernels, so this process's sessions
    # compile on their first run (the startup workload measures the default itself).
    os.environ.setdefault("DEVSESSION_KERNEL_COMPILE", "eager")
    if any(t.grpc for t in targets) and getattr(ds, "Server", None) is None:
        raise ValueError("--device grpc: gRPC session not available (devsession has no "
                         "ds.Server)")
    from devsession.devices import gpu_devices, gpu_unavailable_reason

    started = time.perf_counter()
    gpu_reason = gpu_unavailable_reason()
    has_gpu = bool(gpu_devices()) and any(t.is_gpu and not t.grpc for t in targets)
    for t in targets:
        if t.is_gpu and not gpu_devices():
            print(f"note: {t.label} asked for, but there is no GPU here ({gpu_reason}); its "
                  f"session falls back to the CPU, and its rows say so", file=sys.stderr)
    loaded = load_peers(peer_names, has_gpu, gpu_reason)
    context = Context(targets=targets, peers=loaded, repeats=repeats,
                      min_batch_s=MIN_BATCH_S.get(suite, 0.02),
                      settle_s=SETTLE_S.get(suite, 0.15), has_gpu=has_gpu,
                      gpu_reason=gpu_reason)
    context.progress = make_progress(context.units(workloads), enabled=progress)
    try:
        results = run_suite(workloads, context)
    finally:
        context.progress.close()
        context.close()

    report = {
        "schema": 1,
        "command": _command(devices, suite, repeats, json_path, plot_path, peers),
        "suite": suite, "repeats": repeats, "min_batch_s": context.min_batch_s,
        "commit": git_commit(), "devsession_version": ds.__version__,
        "started_unix": time.time() - (time.perf_counter() - started),
        "machine": environment(),
        "targets": [{"label": t.label, "device": t.device,
                     "factory": "GRPC_SESSION" if t.grpc else "DIRECT_SESSION"}
                    for t in targets],
        "peers": [p.describe() for p in loaded.values()],
        "peer_versions": {p.name: (p.version if p.available else None) for p in loaded.values()},
        "workloads": results,
        "goals": goals_module.evaluate(goals_module.GOALS, results),
        "elapsed_s": time.perf_counter() - started,
    }
    print(format_table(report), file=out)
    if json_path:
        write_json(report, json_path)
        print(f"figures written to {json_path}", file=out)
    if plot_path:
        write_plot(report, plot_path)
        print(f"plot written to {plot_path}", file=out)
    return 1 if _our_failures(results) else 0


def _command(devices, suite, repeats, json_path, plot_path, peers) -> str:
    """The command line that reproduces this run (canonical flag order)."""
    words = ["devsession", "bench", "--suite", suite, "--repeats", str(repeats)]
    for d in devices or ():
        words += ["--device", d]
    if peers:
        words += ["--peers", peers]
    if json_path:
        words += ["--json", str(json_path)]
    if plot_path:
        words += ["--plot", str(plot_path)]
    return " ".join(words)


def _our_failures(results: list[dict]) -> list[str]:
    return [f"{w['name']}: {r['contender']}" for w in results for r in w["rows"]
            if r["side"] == "ours" and (r.get("error") or r.get("matches_numpy") is False)]
