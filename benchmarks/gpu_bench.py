"""GPU benchmark for ``ci/gpu-check``: devsession's GPU session beside plain cupy.

Each figure is measured against a peer doing the same work in the same run:

* ``d2d_copy``: cupy copying 100M float32 on the device: the card's practical memory
  bandwidth, the roof for elementwise work (GB/s count bytes read + written).
* ``chain``: ``relu(x*1.5+0.25)*sigmoid(x) + 0.5*x*x`` on 100M float32, fed as a cupy
  array (no host copy), result left on the device (the step runs its output op as a
  target); peers: the same chain as plain cupy calls (one kernel per op) and as one
  hand-written ``cupy.ElementwiseKernel``.
* ``matmul``: 8192^2 float32 (full float32, no TF32) against ``cupy.matmul``.
* ``h2d`` / ``d2h``: 256 MiB through a session's feed/fetch transfers against
  ``cupy.asarray`` / ``ndarray.get`` on pageable memory and a copy from pinned memory.
* ``step_overhead``: a 4-op graph on 1000 floats via ``make_callable`` (feed and fetch
  included) against the same cupy calls plus ``.get()``.
* ``ops``: every GPU op against the CPU on one small input (max abs difference).
* ``train_mlp`` / ``train_convnet``: ``training_curves.compare_training``: the MLP (SGD)
  and the Deep MNIST convnet (Adam) trained from the same weights on the GPU and on the
  CPU; the loss curves must agree within float32 tolerance; steps/s of both.

Warm-up first; the first call (kernel compilation) is reported apart from the steady
state, which is the median of several timed runs.  Our results are checked after the
timed runs (buffers pooled after the first run are reused by then): chain and matmul
against cupy's (``max_rel_error_vs_cupy``; past ``CHECK_RTOL`` the exit status is 1),
copies for equality.  Writes JSON with ``--json``.
Usage: ``python benchmarks/gpu_bench.py [--json FILE] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

GB = 1e9
# Largest relative difference from cupy's result allowed after the timed runs.
CHECK_RTOL = {"chain": 1e-5, "matmul": 1e-4}


def _sync():
    import cupy
    cupy.cuda.Device().synchronize()


def timed(fn, repeat=7, warmup=1) -> dict:
    """{"first_s", "median_s", "runs"}: the first call apart, then the median of ``repeat``."""
    start = time.perf_counter()
    fn()
    _sync()
    first = time.perf_counter() - start
    for _ in range(warmup):
        fn()
    _sync()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        _sync()
        runs.append(time.perf_counter() - start)
    return {"first_s": first, "median_s": statistics.median(runs), "runs": len(runs)}


def gpu_session(graph, **options):
    import devsession as ds
    return ds.Session(graph=graph, options=ds.SessionOptions(device="gpu:0", **options))


def bench_copy_and_chain(n: int) -> dict:
    import cupy

    import devsession as ds

    x_gpu = cupy.random.standard_normal(n, dtype=cupy.float32)
    out = cupy.empty_like(x_gpu)
    copy = timed(lambda: cupy.copyto(out, x_gpu))
    d2d = 2 * x_gpu.nbytes / copy["median_s"] / GB

    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        y = ds.nn.relu(x * 1.5 + 0.25) * ds.nn.sigmoid(x) + 0.5 * x * x
    with gpu_session(graph) as sess:
        run_chain = sess.make_callable(y.op, feed_list=[x])
        ours = timed(lambda: run_chain(x_gpu))
        got = sess.run(y, {x: x_gpu})             # after the timed runs, to check the values
        fused = sorted({s.op_type for step in sess._steps.values() for s in step.plan.steps})

    def plain():
        return cupy.maximum(x_gpu * np.float32(1.5) + np.float32(0.25), np.float32(0)) * \
            (np.float32(1) / (np.float32(1) + cupy.exp(-x_gpu))) + \
            np.float32(0.5) * x_gpu * x_gpu
    cupy_ops = timed(plain)
    kernel = cupy.ElementwiseKernel(
        "float32 x", "float32 y",
        "float r = fmaxf(x * 1.5f + 0.25f, 0.0f); float e = expf(-fabsf(x)); "
        "float s = x >= 0 ? 1.0f / (1.0f + e) : e / (1.0f + e); y = r * s + 0.5f * x * x;",
        "bench_chain")
    handwritten = timed(lambda: kernel(x_gpu, out))
    reference = kernel(x_gpu).get()
    error = float(np.max(np.abs(got - reference) / (1 + np.abs(reference))))
    moved = 2 * x_gpu.nbytes
    return {
        "d2d_copy": {**copy, "GBps": d2d},
        "chain": {**ours, "GBps": moved / ours["median_s"] / GB,
                  "fraction_of_d2d": moved / ours["median_s"] / GB / d2d,
                  "steps": fused, "max_rel_error_vs_cupy": error},
        "chain_cupy_ops": {**cupy_ops, "GBps": moved / cupy_ops["median_s"] / GB},
        "chain_cupy_elementwise_kernel": {**handwritten,
                                          "GBps": moved / handwritten["median_s"] / GB},
        "chain_speedup_vs_cupy_ops": cupy_ops["median_s"] / ours["median_s"],
    }


def bench_matmul(n: int) -> dict:
    import cupy

    import devsession as ds

    a = cupy.random.standard_normal((n, n), dtype=cupy.float32)
    b = cupy.random.standard_normal((n, n), dtype=cupy.float32)
    graph = ds.Graph()
    with graph.as_default():
        pa = ds.placeholder(ds.float32, (n, n), name="a")
        pb = ds.placeholder(ds.float32, (n, n), name="b")
        c = ds.matmul(pa, pb)
    flop = 2.0 * n ** 3
    with gpu_session(graph) as sess:
        run = sess.make_callable(c.op, feed_list=[pa, pb])
        ours = timed(lambda: run(a, b), repeat=5)
        got = sess.run(c, {pa: a, pb: b})         # after the timed runs (pooled buffers)
    peer = timed(lambda: cupy.matmul(a, b), repeat=5)
    want = cupy.matmul(a, b).get()
    error = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-30))
    return {"matmul": {**ours, "TFLOPs": flop / ours["median_s"] / 1e12,
                       "max_rel_error_vs_cupy": error},
            "matmul_cupy": {**peer, "TFLOPs": flop / peer["median_s"] / 1e12}}


def bench_transfers(nbytes: int) -> dict:
    import cupy

    import devsession as ds

    n = nbytes // 4
    host = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    dev = cupy.asarray(host)
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        with ds.device("gpu:0"):
            y = ds.identity(x, name="on_gpu")
    figures = {}
    with ds.Session(graph=graph, options=ds.SessionOptions(device="cpu")) as sess:
        upload = sess.make_callable(y.op, feed_list=[x])          # host feed -> GPU
        figures["h2d"] = timed(lambda: upload(host), repeat=5)
        download = sess.make_callable(y, feed_list=[x])           # GPU (cupy feed) -> host
        figures["d2h"] = timed(lambda: download(dev), repeat=5)
        assert np.array_equal(download(dev), host), "d2h: the fetched copy differs"
        assert np.array_equal(sess.run(y, {x: host}), host), "h2d: the uploaded copy differs"
    figures["h2d_cupy_pageable"] = timed(lambda: cupy.asarray(host), repeat=5)
    figures["d2h_cupy_pageable"] = timed(lambda: dev.get(), repeat=5)
    pinned_mem = cupy.cuda.alloc_pinned_memory(host.nbytes)
    pinned = np.frombuffer(pinned_mem, np.float32, n)
    pinned[:] = host
    target = cupy.empty_like(dev)
    figures["h2d_cupy_from_pinned"] = timed(lambda: target.set(pinned), repeat=5)
    for value in figures.values():
        value["GBps"] = nbytes / value["median_s"] / GB
    return figures


def bench_step_overhead(repeat: int = 300) -> dict:
    import cupy

    import devsession as ds

    xv = np.linspace(-1, 1, 1000, dtype=np.float32)
    x_gpu = cupy.asarray(xv)
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        y = ds.reduce_sum(ds.exp(x) * 2.0 + x, axis=0)
    with ds.Session(graph=graph, options=ds.SessionOptions(device="gpu:0")) as sess:
        step = sess.make_callable(y, feed_list=[x])
        step(x_gpu)

        def ours():
            for _ in range(repeat):
                step(x_gpu)
        ours_t = timed(ours, repeat=3)

    def plain():
        for _ in range(repeat):
            cupy.sum(cupy.exp(x_gpu) * np.float32(2.0) + x_gpu).get()
    peer = timed(plain, repeat=3)
    return {"step_overhead": {"us_per_step": ours_t["median_s"] / repeat * 1e6,
                              "cupy_us_per_step": peer["median_s"] / repeat * 1e6,
                              "ratio": ours_t["median_s"] / peer["median_s"]}}


def check_ops() -> dict:
    """Every GPU op beside the CPU's reference kernels (numpy; the CPU kernel where no
    reference exists) on one input: {op: max abs difference, or the error}."""
    import cupy

    from devsession.device_spec import Device
    from devsession.kernels.registry import KernelNode, lookup_kernel, registered_ops

    f32, i64 = np.dtype(np.float32), np.dtype(np.int64)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((7, 5)).astype(f32)
    y = rng.standard_normal((7, 5)).astype(f32) + 2
    cases = {op: ([x], f32, {}) for op in ("Neg", "Abs", "Square", "Relu", "Exp", "Tanh",
                                            "Sigmoid", "Identity")}
    cases.update({op: ([np.abs(x) + 0.1], f32, {}) for op in ("Log", "Sqrt")})
    cases.update({op: ([x, y], f32, {}) for op in ("Add", "Sub", "Mul", "Maximum",
                                                    "Minimum", "RealDiv")})
    cases["Pow"] = ([np.abs(x) + 0.1, y], f32, {})
    cases.update({op: ([x, y - 2], np.dtype(bool), {}) for op in (
        "Equal", "Less", "LessEqual", "Greater", "GreaterEqual")})
    cases["SelectV2"] = ([x > 0, x, y], f32, {})
    cases["Cast"] = ([x * 10], np.dtype(np.int32), {"DstT": np.dtype(np.int32)})
    cases["MatMul"] = ([x, y.T.copy()], f32, {"transpose_a": False, "transpose_b": False})
    cases.update({op: ([x], f32, {"axis": (1,), "keepdims": False})
                  for op in ("Sum", "Mean", "Max", "Min")})
    cases["ArgMax"] = ([x], i64, {"axis": 1})
    cases["Softmax"] = ([x * 50], f32, {"axis": 1})
    cases["Reshape"] = ([x], f32, {"shape": (5, -1)})
    cases["Transpose"] = ([x], f32, {"perm": (1, 0)})
    cases["ConcatV2"] = ([x, y], f32, {"axis": 0})
    cases["_FusedElementwise"] = ([x, y], f32, {
        "expression": "t0 = i0 * i1 + 1\nt1 = sigmoid(t0)\nt1",
        "input_names": ("i0", "i1"), "members": ("mul", "sigmoid")})
    results = {}
    for op in sorted(registered_ops("GPU")):
        if op not in cases:
            continue
        inputs, out_dtype, attrs = cases[op]
        node = KernelNode(f"check_{op}", op, attrs, tuple(a.dtype for a in inputs),
                          tuple(None for _ in inputs), np.dtype(out_dtype), None,
                          device=Device("GPU", 0))
        try:
            oracle = "REF" if op in registered_ops("REF") else "CPU"
            want = lookup_kernel(op, oracle)(node)(*inputs)
            got = lookup_kernel(op, "GPU")(node)(*[cupy.asarray(a) for a in inputs])
            got = cupy.asnumpy(got)
            same = got.dtype == want.dtype and got.shape == want.shape
            diff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) \
                if got.size else 0.0
            results[op] = {"max_abs_diff": diff, "same_dtype_and_shape": bool(same),
                           "equal": bool(same and diff <= 1e-5 * (1 + np.max(np.abs(want)))
                                         )}
        except Exception as e:       # reported, not fatal: the tests judge
            results[op] = {"error": f"{type(e).__name__}: {e}"}
    missing = sorted(set(cases) - set(results))
    if missing:
        results["_not_registered_on_gpu"] = missing
    return results


def bench_training(steps: int) -> dict:
    from devsession.benchmarks.training_curves import compare_training

    return {f"train_{kind}": compare_training(kind, "gpu:0", steps)
            for kind in ("mlp", "convnet")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    args = parser.parse_args(argv)
    import cupy

    start = time.perf_counter()
    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    report = {"device": name, "cupy": cupy.__version__, "numpy": np.__version__,
              "python": sys.version.split()[0], "figures": {}, "errors": {}}
    n_chain, n_matmul, copy_bytes = (100_000_000, 8192, 256 << 20) if not args.quick else \
        (1_000_000, 1024, 16 << 20)
    parts = [("ops", check_ops), ("copy_and_chain", lambda: bench_copy_and_chain(n_chain)),
             ("matmul", lambda: bench_matmul(n_matmul)),
             ("transfers", lambda: bench_transfers(copy_bytes)),
             ("step_overhead", bench_step_overhead),
             ("training", lambda: bench_training(5 if args.quick else 20))]
    for label, fn in parts:
        t0 = time.perf_counter()
        try:
            result = fn()
            if label == "ops":
                report["ops"] = result
            else:
                report["figures"].update(result)
        except Exception as e:
            import traceback
            report["errors"][label] = f"{type(e).__name__}: {e}"
            traceback.print_exc()
        print(f"[{label}] {time.perf_counter() - t0:.1f}s", flush=True)
        cupy.get_default_memory_pool().free_all_blocks()
    report["seconds"] = time.perf_counter() - start
    print(json.dumps(report, indent=2, default=str))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2, default=str)
    bad_ops = [op for op, r in report.get("ops", {}).items()
               if isinstance(r, dict) and not r.get("equal")]
    if bad_ops:
        print(f"GPU result differs from the CPU for: {', '.join(bad_ops)}")
    wrong = [f"{name} ({fig['max_rel_error_vs_cupy']:.2g})"
             for name, fig in report["figures"].items() if isinstance(fig, dict)
             and fig.get("max_rel_error_vs_cupy", 0.0) > CHECK_RTOL.get(name, 1e-5)]
    if wrong:
        print(f"our result after the timed runs differs from cupy's: {', '.join(wrong)}")
    diverged = [name for name, fig in report["figures"].items() if isinstance(fig, dict)
                and fig.get("curves_match") is False]
    if diverged:
        print(f"the GPU's loss curve differs from the CPU's: {', '.join(diverged)}")
    return 1 if report["errors"] or bad_ops or wrong or diverged else 0


if __name__ == "__main__":
    sys.exit(main())
