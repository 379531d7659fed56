"""Micro-benchmarks of the CPU kernels: ``python benchmarks/kernel_calls.py [out.json]``.

Measures, with numpy as the peer in the same run:

* start-up: in fresh subprocesses, the time to import the CPU kernels, then to build
  and first-call an Add float32 kernel -- once with empty numba/kernel caches (cold:
  code generation + compilation) and once more with the caches just written (warm:
  loaded from disk);
* per-call cost of kernels on small arrays (overhead dominated) and on 1,000,003
  elements (throughput), as medians of several repeats after a warm-up call.

Prints a table and writes the numbers as JSON so that runs can be diffed.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np

_STARTUP = """
import time, json
t0 = time.perf_counter()
import numpy as np
from devsession.kernels.registry import KernelNode, lookup_kernel
builder = lookup_kernel("Add", "CPU")
t1 = time.perf_counter()
f = np.dtype(np.float32)
kernel = builder(KernelNode("add", "Add", {}, (f, f), ((1000,), (1000,)), f, (1000,)))
kernel(np.ones(1000, f), np.ones(1000, f))
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "build_and_first_call_s": t2 - t1}))
"""


def startup() -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, DEVSESSION_CACHE_DIR=cache)
        runs = [json.loads(subprocess.run([sys.executable, "-c", _STARTUP], env=env,
                                          check=True, capture_output=True, text=True).stdout)
                for _ in range(2)]
    return {"cold": runs[0], "warm": runs[1]}


def per_call_us(fn, *args, repeat: int = 7) -> float:
    fn(*args)                                        # warm-up (and compile)
    number = max(1, int(0.05 / max(_once(fn, args), 1e-7)))
    return statistics.median(timeit.repeat(lambda: fn(*args), number=number,
                                           repeat=repeat)) / number * 1e6


def _once(fn, args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def kernels() -> list[dict]:
    from devsession.kernels.registry import KernelNode, lookup_kernel

    f32 = np.dtype(np.float32)

    def cpu(op, n_inputs, attrs=None, out=f32):
        node = KernelNode(op.lower(), op, attrs or {}, (f32,) * n_inputs,
                          (None,) * n_inputs, out, None)
        return lookup_kernel(op, "CPU")(node)

    rng = np.random.default_rng(0)
    rows = []
    for size in (1000, 1_000_003):
        x, y = rng.standard_normal((2, size)).astype(f32)
        cases = [
            ("Add", cpu("Add", 2), np.add, (x, y)),
            ("Sigmoid", cpu("Sigmoid", 1), lambda v: 1 / (1 + np.exp(-v)), (x,)),
            ("Sum", cpu("Sum", 1, {"axis": (0,), "keepdims": False}), np.sum, (x,)),
        ]
        for name, kernel, peer, args in cases:
            rows.append({"op": name, "size": size, "kernel_us": per_call_us(kernel, *args),
                         "numpy_us": per_call_us(peer, *args)})
    return rows


def main(argv: list[str]) -> None:
    result = {"startup": startup(), "kernels": kernels(), "numba_threads": _threads()}
    s = result["startup"]
    print(f"Add float32, fresh process: import {s['cold']['import_s']:.3f}s; build+first "
          f"call cold {s['cold']['build_and_first_call_s']:.3f}s, "
          f"warm {s['warm']['build_and_first_call_s']:.3f}s")
    print(f"{'op':10} {'size':>9} {'kernel us':>10} {'numpy us':>10}")
    for r in result["kernels"]:
        print(f"{r['op']:10} {r['size']:>9} {r['kernel_us']:>10.2f} {r['numpy_us']:>10.2f}")
    if len(argv) > 1:
        with open(argv[1], "w") as f:
            json.dump(result, f, indent=2)


def _threads() -> int:
    from devsession.kernels.cpu.numba_setup import num_threads
    return num_threads()


if __name__ == "__main__":
    main(sys.argv)
