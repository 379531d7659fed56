"""``devsession demo``: one small model on every local device, checked against numpy.

Takes two of ``devsession bench``'s workloads (``benchmarks/suites.py``), an MLP forward
pass (batch 256, 784-1024-1024-10, relu, softmax) and an elementwise chain, and runs them
in a direct session per local device (a GPU request on a machine without one shows the
CPU fallback); checks every result against numpy and prints the first run (kernel
compile or disk-cache load: the sessions compile eagerly, so the median is of compiled
kernels) apart from the steady-state median.
"""

from __future__ import annotations

import json
import statistics
import time

import numpy as np

__all__ = ["run_demo"]


def _time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_demo(json_path: str | None = None, repeats: int = 20) -> int:
    import devsession as ds
    from .benchmarks import suites
    from .devices import gpu_unavailable_reason, list_local_devices

    requests = [d.short_name.lower() for d in list_local_devices()]
    if not any(r.startswith("gpu") for r in requests):
        requests.append("gpu:0")  # shows the CPU fallback
        print(f"no GPU here ({gpu_unavailable_reason()}); 'gpu:0' will fall back to the CPU\n")
    rows, ok = [], True
    rng = np.random.default_rng(0)
    for name, workload in (("mlp 256x784-1024-1024-10", suites.mlp()),
                           ("chain relu/sigmoid 1M", suites.chain(1_000_000, "1M"))):
        data = workload.make_data(rng)
        graph = ds.Graph()
        with graph.as_default():
            y, placeholders = workload.graph(ds, data)
        expected = workload.reference(data)
        numpy_s = _time(lambda: workload.array(np, data.feeds, data.consts), repeats)
        for request in requests:
            with ds.Session(graph=graph, options=ds.SessionOptions(
                    device=request, kernel_compile="eager")) as sess:
                start = time.perf_counter()
                got = sess.run(y, dict(zip(placeholders, data.feeds)))
                first_s = time.perf_counter() - start
                step = sess.make_callable(y, placeholders)
                steady_s = _time(lambda: step(*data.feeds), repeats)
                device = sess.device.short_name
            match = bool(np.allclose(got, expected, rtol=workload.rtol, atol=workload.atol))
            ok &= match
            rows.append({"graph": name, "requested": request, "ran_on": device,
                         "first_run_ms": first_s * 1e3, "steady_ms": steady_s * 1e3,
                         "numpy_ms": numpy_s * 1e3, "speedup_vs_numpy": numpy_s / steady_s,
                         "matches_numpy": match})
    header = f"{'graph':<26}{'asked':<8}{'ran on':<8}{'first run':>11}{'steady':>10}" \
             f"{'numpy':>10}{'vs numpy':>10}  result"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['graph']:<26}{r['requested']:<8}{r['ran_on']:<8}{r['first_run_ms']:>9.1f}ms"
              f"{r['steady_ms']:>8.2f}ms{r['numpy_ms']:>8.2f}ms{r['speedup_vs_numpy']:>9.2f}x  "
              f"{'matches numpy' if r['matches_numpy'] else 'MISMATCH'}")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f, indent=2)
    return 0 if ok else 1
