"""``devsession demo``: one small model on every local device, checked against numpy.

Builds an MLP forward pass (batch 256, 784-1024-1024-10, relu, softmax) and an
elementwise chain, runs them in a direct session per local device (a GPU request on a
machine without one shows the CPU fallback), checks every result against numpy and
prints first-run time (kernel compile or disk-cache load) apart from the steady-state
median.
"""

from __future__ import annotations

import json
import statistics
import time

import numpy as np

__all__ = ["run_demo", "build_mlp", "build_chain"]


def build_mlp(graph, batch=256, sizes=(784, 1024, 1024, 10), seed=0):
    import devsession as ds

    rng = np.random.default_rng(seed)
    weights = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)
               for a, b in zip(sizes[:-1], sizes[1:])]
    biases = [rng.standard_normal(b).astype(np.float32) * 0.1 for b in sizes[1:]]
    with graph.as_default():
        x = ds.placeholder(ds.float32, (None, sizes[0]), name="x")
        h = x
        for i, (w, b) in enumerate(zip(weights, biases)):
            h = ds.matmul(h, ds.constant(w, name=f"w{i}")) + ds.constant(b, name=f"b{i}")
            h = ds.nn.relu(h) if i < len(weights) - 1 else ds.nn.softmax(h, name="probs")

    def reference(xv):
        hv = xv
        for i, (w, b) in enumerate(zip(weights, biases)):
            hv = hv @ w + b
            if i < len(weights) - 1:
                hv = np.maximum(hv, 0)
            else:
                hv = np.exp(hv - hv.max(axis=1, keepdims=True))
                hv /= hv.sum(axis=1, keepdims=True)
        return hv

    inputs = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    return x, h, inputs, reference


def build_chain(graph, n=1_000_000, seed=1):
    import devsession as ds

    with graph.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        y = ds.nn.relu(x * 1.5 + 0.25) * ds.nn.sigmoid(x) + 0.5 * x * x

    def reference(xv):
        return np.maximum(xv * 1.5 + 0.25, 0) * (1 / (1 + np.exp(-xv))) + 0.5 * xv * xv

    return x, y, np.random.default_rng(seed).standard_normal(n).astype(np.float32), reference


def _time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_demo(json_path: str | None = None, repeats: int = 20) -> int:
    import devsession as ds
    from .devices import gpu_unavailable_reason, list_local_devices

    requests = [d.short_name.lower() for d in list_local_devices()]
    if not any(r.startswith("gpu") for r in requests):
        requests.append("gpu:0")  # shows the CPU fallback
        print(f"no GPU here ({gpu_unavailable_reason()}); 'gpu:0' will fall back to the CPU\n")
    rows, ok = [], True
    for name, builder in (("mlp 256x784-1024-1024-10", build_mlp),
                          ("chain relu/sigmoid 1M", build_chain)):
        graph = ds.Graph()
        x, y, inputs, reference = builder(graph)
        expected = reference(inputs)
        numpy_s = _time(lambda: reference(inputs), repeats)
        for request in requests:
            with ds.Session(graph=graph, options=ds.SessionOptions(device=request)) as sess:
                start = time.perf_counter()
                got = sess.run(y, {x: inputs})
                first_s = time.perf_counter() - start
                step = sess.make_callable(y, [x])
                steady_s = _time(lambda: step(inputs), repeats)
                device = sess.list_devices()[-1].short_name
            match = bool(np.allclose(got, expected, rtol=1e-4, atol=1e-5))
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
