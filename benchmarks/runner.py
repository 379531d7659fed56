"""The measuring loop of ``devsession bench``: first run apart from steady state, medians.

For each workload the runner makes the inputs once, computes the numpy reference, and
prepares every contender: our session on each target (``contenders.py``) and each
available peer (``peers.py``).  Then ``measure``:

1. **setup** (graph, session, plan, jit wrapper) and **first run** (kernel compilation
   or cache load, tracing) are timed per contender and reported apart;
2. the first run's result is **checked against numpy** (shape and ``allclose`` with the
   workload's tolerances), and so is the last timed step's (buffers pooled after the
   first run are reused by then; not for a ``stateful`` workload, whose later steps
   rightly differ); a mismatch is reported loudly and marks the row.  A
   contender whose timed step returns nothing (a GPU step run as a target) is checked
   through its ``check`` run instead, at the same two points;
3. an untimed **warm-up round**, after every contender's first run (the first steps
   after the others compiled are often slow for all: thread pools, page faults); it
   also sizes the batch: steps shorter than ``min_batch_s`` are timed ``number`` at a
   time (as ``timeit`` does) so the clock's resolution does not matter;
4. ``repeats`` timed **rounds** (fewer for a workload with ``max_repeats``),
   interleaved: each round times one batch of every contender,
   starting with a different contender each round, so that the noise of a shared
   2-core machine falls on all of them alike.  Before its timed batch a contender runs
   untimed steps for ``settle_s`` (0.15 s by default, at least one step): OpenBLAS's
   threads busy-wait for about 0.1 s after each call, so the contender that follows
   numpy (or anything else on OpenBLAS) would be timed against numpy's spinning
   threads -- the two together, not one after the other -- and a pause instead would
   let every contender's own threads fall asleep before its first timed step.
   ``sync(result)`` runs after every step (GPU streams and JAX's async dispatch finish
   before the clock is read); the garbage collector is off inside a batch.

Rows are plain dicts (the JSON's rows): median, min, max, quartiles and every sample,
so two runs can be diffed.  A contender that fails is a row with ``error`` set; it
never stops the others.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import statistics
import sys
import time
from typing import Callable

import numpy as np

from .contenders import Contender, Target, devsession_contenders
from .peers import Peer, peer_contenders

__all__ = ["Context", "run_suite", "run_workload", "measure", "summarize"]

MAX_NUMBER = 100_000


@dataclasses.dataclass
class Context:
    """What every workload needs to know about this run."""

    targets: list[Target]
    peers: dict[str, Peer]
    repeats: int = 5
    min_batch_s: float = 0.02
    settle_s: float = 0.15
    seed: int = 0
    has_gpu: bool = False
    gpu_reason: str = ""
    progress: object = None
    warn: Callable[[str], None] = lambda message: print(message, file=sys.stderr)
    _grpc_server: object = None

    def rounds(self, workload) -> int:
        """Timed rounds for ``workload``: ``repeats``, capped where one step takes seconds."""
        cap = workload.max_repeats
        return min(self.repeats, cap) if cap else self.repeats

    def units(self, workloads) -> int:
        """Progress units of a suite: set-up plus one per timed round, per workload."""
        return sum(self.rounds(w) + 1 for w in workloads)

    def available_peers(self) -> list[Peer]:
        return [p for p in self.peers.values() if p.available]

    def grpc_target(self) -> str:
        """The target of a one-task local gRPC server, started on first use."""
        if self._grpc_server is None:
            import devsession as ds

            server_cls = getattr(ds, "Server", None)
            if server_cls is None:
                raise RuntimeError("gRPC session not available (devsession has no ds.Server)")
            self._grpc_server = server_cls.create_local_server()
        return self._grpc_server.target

    def close(self) -> None:
        if self._grpc_server is not None:
            self._grpc_server.stop()
            self._grpc_server = None


def run_suite(workloads: list, context: Context) -> list[dict]:
    return [run_workload(w, context) for w in workloads]


def run_workload(workload, context: Context) -> dict:
    """Measure one workload; returns its result dict (``rows``, or ``skipped`` and why)."""
    start = time.perf_counter()
    result = {"name": workload.name, "title": workload.title, "unit": workload.unit,
              "params": workload.params, "skipped": None, "rows": [], "elapsed_s": None}
    try:
        if workload.requires == "gpu" and not context.has_gpu:
            result["skipped"] = f"needs a GPU target ({context.gpu_reason or 'none asked for'})"
        elif workload.measure is not None:
            outcome = workload.measure(workload, context)
            if isinstance(outcome, str):
                result["skipped"] = outcome
            else:
                result["rows"] = outcome
        else:
            result["rows"] = _graph_workload(workload, context)
    except Exception as e:   # a broken workload is a row that says so; the suite goes on
        result["rows"].append(error_row(f"{workload.name} (whole workload)", "ours", e))
        context.warn(f"{workload.name} failed: {type(e).__name__}: {e}")
    finally:
        _advance(context, workload.name,
                 context.rounds(workload) + 1 - _done(context, workload.name))
        gc.collect()
        result["elapsed_s"] = time.perf_counter() - start
    if result["skipped"]:
        context.warn(f"{workload.name}: skipped: {result['skipped']}")
    return result


def _graph_workload(workload, context: Context) -> list[dict]:
    rng = np.random.default_rng(context.seed)
    data = workload.make_data(rng)
    contenders, failed = [], []
    for target in context.targets:
        try:
            contenders += devsession_contenders(workload, data, target, context)
        except Exception as e:
            failed.append(error_row(f"devsession {target.label}", "ours", e,
                                    requested=target.label))
    for peer in context.available_peers():
        try:
            contenders += peer_contenders(peer, workload, data)
        except Exception as e:
            failed.append(error_row(peer.name, "peer", e))
    # numpy's first run is the reference; computed apart only if numpy has no row
    expected = None if any(c.reference for c in contenders) else workload.reference(data)
    return measure(workload, contenders, expected, context) + failed


def measure(workload, contenders: list[Contender], expected, context: Context) -> list[dict]:
    """Time ``contenders`` (see the module docstring); returns one row each, in order.

    ``expected`` is the numpy result, or None to take it from the first run of the
    contender marked ``reference`` (numpy itself, so the reference is not computed twice).
    """
    rows = {id(c): _row(workload, c) for c in contenders}
    live = []
    try:
        for c in sorted(contenders, key=lambda c: not c.reference):
            ok, result = _first_run(workload, c, rows[id(c)], expected, context)
            if ok and c.reference and expected is None:
                expected = c.to_host(result)
                rows[id(c)].update(matches_numpy=True, max_abs_err=0.0)
            if ok:
                live.append(c)
        result = None                             # not held through the timed rounds
        live.sort(key=contenders.index)
        _advance(context, workload.name, 1)
        for c in live:                            # round 0: warm up, size the batches
            _calibrate(c, rows[id(c)], context)
        rounds = context.rounds(workload)
        for r in range(rounds):
            shift = r % len(live) if live else 0
            for c in live[shift:] + live[:shift]:
                if rows[id(c)]["error"] is None:
                    _lead_in(c, rows[id(c)], context)
                    if rows[id(c)]["error"] is not None:
                        continue
                    last = _timed_batch(c, rows[id(c)], context)
                    if r == rounds - 1 and rows[id(c)]["error"] is None \
                            and not workload.stateful:
                        _check_last(workload, c, rows[id(c)], last, expected, context)
                    del last                  # one step's result alive at a time
            _advance(context, workload.name, 1)
    finally:
        for c in contenders:
            if c.close is not None:
                try:
                    c.close()
                except Exception:
                    pass
    out = [summarize(workload, rows[id(c)]) for c in contenders]
    numpy_s = next((r["steady_s"] for r in out if r["contender"] == "numpy"
                    and r["steady_s"]), None)
    for r in out:
        r["vs_numpy"] = numpy_s / r["steady_s"] if numpy_s and r["steady_s"] else None
    return out


def _row(workload, c: Contender) -> dict:
    return {"contender": c.name, "side": c.side, "api": c.api, "requested": c.requested,
            "device": c.device, "factory": c.factory, "setup_s": c.setup_s,
            "first_run_s": None, "number": 1, "times_s": [], "unit": workload.unit,
            "matches_numpy": None, "max_abs_err": None, "error": None,
            "notes": list(c.notes)}


def error_row(name: str, side: str, error: BaseException, **fields) -> dict:
    row = {"contender": name, "side": side, "api": "", "requested": "", "device": "",
           "factory": "", "setup_s": None, "first_run_s": None, "number": 0, "times_s": [],
           "unit": "", "matches_numpy": None, "max_abs_err": None,
           "error": f"{type(error).__name__}: {error}", "notes": [], "steady_s": None,
           "throughput": None, "vs_numpy": None}
    row.update(fields)
    return row


def _first_run(workload, c: Contender, row: dict, expected, context: Context) -> tuple:
    """Time the first run and check it; returns (ok, the checked result)."""
    try:
        start = time.perf_counter()
        result = c.run()
        c.sync(result)
        row["first_run_s"] = time.perf_counter() - start
        if c.check is not None:
            result = c.check()
            c.sync(result)
        if not (c.reference and expected is None):
            _check(workload, c, row, result, expected, context)
        if c.probe_device is not None:
            row["device"] = c.probe_device()
            if c.requested and "GPU" in c.requested.upper() and "GPU" not in row["device"]:
                row["notes"].append(f"asked for {c.requested}, ran on {row['device']}")
        return True, result
    except Exception as e:
        row["error"] = f"{type(e).__name__}: {e}"
        context.warn(f"{workload.name}: {c.name} failed: {row['error']}")
        return False, None


def _check(workload, c: Contender, row: dict, result, expected, context: Context,
           which: str = "first run") -> None:
    """Compare ``result`` with numpy's; a mismatch marks the row for good."""
    if expected is None:
        return
    actual = c.to_host(result)
    expected = np.asarray(expected)
    if actual.shape != expected.shape:
        ok, error = False, None
        row["notes"].append(f"{which}: shape {actual.shape} != numpy's {expected.shape}")
    else:
        ok, error = compare(actual, expected, workload.rtol, workload.atol)
        if actual.dtype != expected.dtype and which == "first run":
            row["notes"].append(f"dtype {actual.dtype} (numpy: {expected.dtype})")
    row["matches_numpy"] = ok and row["matches_numpy"] is not False
    if error is not None:
        row["max_abs_err"] = max(error, row["max_abs_err"] or 0.0)
    if not ok:
        row["notes"].append(f"{which} differs from numpy")
        context.warn(f"MISMATCH: {workload.name}: {c.name}'s {which} differs from numpy "
                     f"(max abs error {error}, rtol {workload.rtol}, atol {workload.atol}) "
                     f"{' '.join(row['notes'])}")


def _check_last(workload, c: Contender, row: dict, last, expected, context: Context) -> None:
    """Check the last timed step's result (or, for a step run as a target, one more
    fetching run) against numpy."""
    try:
        if c.check is not None:
            last = c.check()
            c.sync(last)
        _check(workload, c, row, last, expected, context, which="last timed step")
    except Exception as e:
        row["error"] = f"{type(e).__name__}: {e}"
        context.warn(f"{c.name} failed in its last check: {row['error']}")


def _calibrate(c: Contender, row: dict, context: Context) -> None:
    """One untimed warm-up step (a few for short steps), which also sizes the batch."""
    try:
        start = time.perf_counter()
        c.sync(c.run())
        once = time.perf_counter() - start
        if once < context.min_batch_s / 10:
            start = time.perf_counter()
            for _ in range(10):
                c.sync(c.run())
            once = (time.perf_counter() - start) / 10
    except Exception as e:
        row["error"] = f"{type(e).__name__}: {e}"
        context.warn(f"{c.name} failed in its warm-up: {row['error']}")
        return
    row["number"] = min(MAX_NUMBER, max(1, math.ceil(context.min_batch_s / max(once, 1e-7))))


def compare(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float,
            chunk: int = 1 << 20) -> tuple[bool, float]:
    """(``allclose``, max absolute error), a chunk at a time: a 100M-element result must
    not cost gigabytes of float64 temporaries."""
    a, e = actual.reshape(-1), expected.reshape(-1)
    ok, worst = True, 0.0
    with np.errstate(all="ignore"):
        for i in range(0, a.size, chunk):
            x, y = a[i:i + chunk].astype(np.float64), e[i:i + chunk].astype(np.float64)
            diff = np.abs(x - y)
            if diff.size:
                worst = max(worst, float(np.max(diff)))
            ok = ok and bool(np.all(diff <= atol + rtol * np.abs(y)))
    return ok, worst


def _lead_in(c: Contender, row: dict, context: Context) -> None:
    """Untimed steps for ``context.settle_s`` (none when it is 0): the previous
    contender's spinning threads go idle while this one's stay awake."""
    if context.settle_s <= 0:
        return
    end = time.perf_counter() + context.settle_s
    try:
        while True:
            c.sync(c.run())
            if time.perf_counter() >= end:
                return
    except Exception as e:
        row["error"] = f"{type(e).__name__}: {e}"
        context.warn(f"{c.name} failed before a timed batch: {row['error']}")


def _timed_batch(c: Contender, row: dict, context: Context):
    """Time one batch; returns the last step's result (None after a failure)."""
    run, sync, number = c.run, c.sync, row["number"]
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number - 1):
            sync(run())               # dropped at once: pooled buffers stay reusable
        result = run()
        sync(result)
        elapsed = time.perf_counter() - start
    except Exception as e:
        row["error"] = f"{type(e).__name__}: {e}"
        context.warn(f"{c.name} failed while timed: {row['error']}")
        return None
    finally:
        if gc_was_enabled:
            gc.enable()
    row["times_s"].append(elapsed / number)
    return result


def summarize(workload, row: dict) -> dict:
    """Add median, min, max, quartiles, spread and throughput to a row of samples."""
    times = row["times_s"]
    if not times:
        row.update(steady_s=None, min_s=None, max_s=None, q1_s=None, q3_s=None,
                   spread=None, throughput=None)
        return row
    median = statistics.median(times)
    q1, _, q3 = (statistics.quantiles(times, n=4, method="inclusive") if len(times) > 1
                 else (median, median, median))
    row.update(steady_s=median, min_s=min(times), max_s=max(times), q1_s=q1, q3_s=q3,
               spread=(q3 - q1) / median if median else 0.0,
               throughput=workload.throughput(median))
    return row


# --- progress bookkeeping: every workload advances the bar by repeats + 1 ----------------

def _advance(context: Context, label: str, steps: int) -> None:
    progress = context.progress
    if progress is not None and steps > 0:
        progress.advance(label, steps)


def _done(context: Context, label: str) -> int:
    progress = context.progress
    return progress.done_for(label) if progress is not None else 0
