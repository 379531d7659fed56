"""The ``startup`` workload: how long a fresh process takes to give its first result.

Each run is a new ``python -c`` process that imports devsession and runs a 20-node graph
once on the CPU (three matmul+bias+relu layers, a softmax, a row sum), printing how long
the import and the first run took and the result, which is checked against numpy here.
The wall time of the whole process (interpreter start included) is the figure.

* **cold**: ``NUMBA_CACHE_DIR``, ``DEVSESSION_CACHE_DIR`` and Python's bytecode cache
  (``PYTHONPYCACHEPREFIX``) point to empty temporary folders, so no kernel and no module
  is compiled yet: by default (``kernel_compile="background"``)
  the run uses the reference kernels while numba compiles on a background thread, which
  the exit stops;
* **cold, eager compile**: the same with ``DEVSESSION_KERNEL_COMPILE=eager``: every
  kernel is generated and compiled before the first result (what a cold start cost
  before the tiers, and what a session that must run compiled code at once pays);
* **warm**: folders holding the compiled kernels and modules (a priming process ran the
  graph and waited for ``sess.wait_compiled()``, untimed), what every run after a
  compiled one on a machine sees.

Our processes always write bytecode, even where ``PYTHONDONTWRITEBYTECODE`` is set (as
on the machines these figures come from): otherwise an editable install compiles its
~580 modules from source in every process, about a second, while the peers' wheels
carry the ``.pyc`` files pip compiled when it installed them.

Peers run the same computation in the same kind of fresh process: numpy (no compile),
``jax.jit`` and a TF1 session; their import time is most of their start-up.  Runs are
interleaved, round by round, like every other workload.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from .runner import summarize
from .workload import Workload

__all__ = ["startup", "measure_startup", "caches_env", "SCRIPTS"]

_COMMON = '''
import json, time
t0 = time.perf_counter()
import numpy as np
{imports}
t1 = time.perf_counter()
X = (np.arange(8 * 64, dtype=np.float32).reshape(8, 64) / 512).astype(np.float32)
W = ((np.arange(64 * 64) % 7 - 3).reshape(64, 64) * 0.01).astype(np.float32)
{body}
t2 = time.perf_counter()
print(json.dumps({{"import_s": t1 - t0, "first_run_s": t2 - t1, "nodes": nodes,
                  "result": np.asarray(out).tolist()}}))
'''

_GRAPH = '''
def build(api):
    x = api.placeholder(api.float32, (None, 64), name="x")
    w = api.constant(W, name="w")
    h = x
    for i in range(3):
        h = api.nn.relu(api.matmul(h, w) + 0.1)
    return x, api.reduce_sum(api.nn.softmax(h * 2.0 - 1.0), axis=1)
g = api.Graph()
with g.as_default():
    x, y = build(api)
nodes = len(g.get_operations())
'''

_ARRAY = '''
def compute(xp, x, w):
    h = x
    for i in range(3):
        h = xp.maximum(h @ w + 0.1, 0)
    z = h * 2.0 - 1.0
    e = xp.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).sum(axis=1)
nodes = 20
'''

SCRIPTS = {
    "devsession": _COMMON.format(imports="import devsession as api", body=_GRAPH + '''
with api.Session(graph=g, options=api.SessionOptions(device="cpu")) as sess:
    out = sess.run(y, {x: X})
'''),
    "devsession-prime": _COMMON.format(imports="import devsession as api", body=_GRAPH + '''
with api.Session(graph=g, options=api.SessionOptions(device="cpu")) as sess:
    out = sess.run(y, {x: X})
    assert sess.wait_compiled(300), "the background compile did not finish"
'''),
    "numpy": _COMMON.format(imports="", body=_ARRAY + "out = compute(np, X, W)\n"),
    "jax": _COMMON.format(imports="import jax, jax.numpy as jnp", body=_ARRAY + '''
out = jax.jit(lambda x, w: compute(jnp, x, w))(X, W).block_until_ready()
'''),
    "tf1": _COMMON.format(imports="import tensorflow as tf\napi = tf.compat.v1",
                          body=_GRAPH + '''
with api.Session(graph=g) as sess:
    out = sess.run(y, {x: X})
'''),
}
_PEER_NAMES = {"numpy": "numpy", "jax": "jax jit", "tf1": "tf1"}


def _reference() -> np.ndarray:
    namespace: dict = {"np": np}
    exec(_ARRAY, namespace)
    x = (np.arange(8 * 64, dtype=np.float32).reshape(8, 64) / 512).astype(np.float32)
    w = ((np.arange(64 * 64) % 7 - 3).reshape(64, 64) * 0.01).astype(np.float32)
    return namespace["compute"](np, x, w)


def startup(warm_runs: int = 3, cold_runs: int = 1, peers=("numpy", "jax")):
    return Workload(
        name="startup", title="fresh process: import + first run of a 20-node graph "
        "(wall time of the whole process)", unit="s", measure=measure_startup,
        rtol=1e-4, atol=1e-6,
        params={"warm_runs": warm_runs, "cold_runs": cold_runs, "peers": list(peers)})


def _run_script(name: str, env: dict) -> tuple[float, dict]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", SCRIPTS[name]], env=env, capture_output=True,
                          text=True, timeout=600)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{name} start-up script failed ({done.returncode}): "
                           f"{done.stderr.strip().splitlines()[-1:] or ''}")
    return wall, json.loads(done.stdout.strip().splitlines()[-1])


def measure_startup(workload, context) -> list[dict]:
    params = workload.params
    expected = _reference()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL=os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2"))
    env.pop("DEVSESSION_KERNEL_COMPILE", None)    # the default, whatever this process uses
    rows = {"cold": _row("devsession cpu (cold caches)", "ours"),
            "cold_eager": _row("devsession cpu (cold caches, eager compile)", "ours"),
            "warm": _row("devsession cpu (warm caches)", "ours")}
    peers = [p for p in params["peers"]
             if p in context.peers and context.peers[p].available]
    for p in peers:
        rows[p] = _row(_PEER_NAMES[p], "peer")
    caches = tempfile.mkdtemp(prefix="devsession-bench-cache-")
    try:
        ours_env = caches_env(env, caches)
        eager_env = dict(ours_env, DEVSESSION_KERNEL_COMPILE="eager")
        for i in range(max(1, params["cold_runs"])):
            for key, script_env in (("cold", ours_env), ("cold_eager", eager_env)):
                shutil.rmtree(caches, ignore_errors=True)
                os.makedirs(caches)
                _sample(rows[key], "devsession", script_env, expected, workload, context,
                        keep=params["cold_runs"] > 0)
        _sample(rows["warm"], "devsession-prime", ours_env, expected, workload, context,
                keep=False)
        for r in range(params["warm_runs"]):
            order = ["warm"] + peers
            shift = r % len(order)
            for key in order[shift:] + order[:shift]:
                script = "devsession" if key == "warm" else key
                _sample(rows[key], script, ours_env if key == "warm" else env, expected,
                        workload, context)
    finally:
        shutil.rmtree(caches, ignore_errors=True)
    out = []
    for key, row in rows.items():
        if key.startswith("cold") and params["cold_runs"] == 0:
            continue
        for field in ("import_s", "child_first_run_s"):
            samples = row.pop(f"_{field}")
            row[field] = statistics.median(samples) if samples else None
        if row["import_s"] is not None:
            row["notes"].append(f"inside the process: import {row['import_s']:.3f} s, "
                                f"first run {row['child_first_run_s']:.3f} s (medians)")
        out.append(summarize(workload, row))
    for row in out:
        row["throughput"] = None
        row["vs_numpy"] = None
    return out


def caches_env(env: dict, caches: str) -> dict:
    """``env`` with every cache of ours (numba's, devsession's, Python's bytecode) in
    ``caches``, and bytecode written there whatever ``env`` says."""
    ours = dict(env, NUMBA_CACHE_DIR=caches, DEVSESSION_CACHE_DIR=caches,
                PYTHONPYCACHEPREFIX=os.path.join(caches, "bytecode"))
    ours.pop("PYTHONDONTWRITEBYTECODE", None)
    return ours


def _row(name: str, side: str) -> dict:
    return {"contender": name, "side": side, "api": "subprocess", "requested": "cpu",
            "device": "CPU:0" if side == "ours" else "CPU", "factory":
            "DIRECT_SESSION" if side == "ours" else "", "setup_s": None, "first_run_s": None,
            "number": 1, "times_s": [], "unit": "s", "matches_numpy": None,
            "max_abs_err": None, "error": None, "notes": [], "_import_s": [],
            "_child_first_run_s": []}


def _sample(row, script, env, expected, workload, context, keep=True) -> None:
    if row["error"]:
        return
    try:
        wall, report = _run_script(script, env)
    except Exception as e:
        row["error"] = f"{type(e).__name__}: {e}"
        context.warn(f"startup: {row['contender']} failed: {row['error']}")
        return
    if not keep:
        return
    row["times_s"].append(wall)
    row["_import_s"].append(report["import_s"])
    row["_child_first_run_s"].append(report["first_run_s"])
    result = np.asarray(report["result"], np.float32)
    ok = result.shape == expected.shape and np.allclose(result, expected, rtol=workload.rtol,
                                                        atol=workload.atol)
    if result.shape == expected.shape:
        err = float(np.max(np.abs(result - expected)))
        row["max_abs_err"] = max(err, row["max_abs_err"] or 0.0)
    row["matches_numpy"] = bool(ok) and row["matches_numpy"] is not False
    if script == "devsession" and "graph_nodes" not in row:
        row["graph_nodes"] = report["nodes"]
    if not ok:
        context.warn(f"MISMATCH: startup: {row['contender']} result differs from numpy")
