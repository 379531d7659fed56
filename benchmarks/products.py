"""float32 products: ``register_gemm``'s kernels and OpenBLAS called once per numba
thread (``blas_shares``) beside numpy's own BLAS call, on the shapes the training
workloads make (``python -m devsession.benchmarks.products``), and the MLP training
step's floor: its five products in a row on numpy's BLAS (``mlp_step_floor``).

Each shape: each engine's product timed (median of 21 calls, best of 3 batches), then a
0.3 s pause (OpenBLAS's threads busy-wait for ~0.1 s after a call and would slow
whatever follows), numpy's timed the same way, another pause.  Prints ms and GFLOP/s of
each and numpy's time over each engine's.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

# (label, m, k, n, B transposed)
SHAPES = [
    ("Deep MNIST conv2 forward", 12544, 800, 64, False),
    ("Deep MNIST conv2 filter gradient", 800, 12544, 64, False),
    ("Deep MNIST conv2 input gradient", 12544, 64, 800, True),
    ("Deep MNIST fc1 forward", 64, 3136, 1024, False),
    ("Deep MNIST fc1 input gradient", 64, 1024, 3136, True),
    ("MLP layer 2 forward", 256, 1024, 1024, False),
    ("MLP layer 2 input gradient", 256, 1024, 1024, True),
    ("MLP layer 2 weight gradient", 1024, 256, 1024, False),
    ("matmul 1024", 1024, 1024, 1024, False),
]


def median_ms(call, count=21) -> float:
    """The median of ``count`` timed calls in ms, after 3 untimed ones."""
    for _ in range(3):
        call()
    times = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _best_ms(call) -> float:
    return min(median_ms(call) for _ in range(3))


def main() -> int:
    from devsession.kernels.cpu import blas, blas_shares, register_gemm

    if not register_gemm.usable():
        print("register_gemm does not run on this CPU (no AVX-512, or "
              "DEVSESSION_REGISTER_GEMM=0): every product goes to BLAS")
        return 0
    engines = [("register_gemm", register_gemm.gemm_into)]
    if blas_shares.usable():
        engines.append(("blas_shares", blas_shares.gemm_into))
    chosen = blas.plain_products().__name__.rsplit(".", 1)[1]
    print(f"plain products here go to {chosen}; ratios are numpy's time over each engine's")
    rng = np.random.default_rng(0)
    print(f"{'shape':34s} {'m x k x n':>18s}  " +
          "  ".join(f"{name:>16s}" for name, _ in engines) + f"  {'numpy':>16s}  ratios")
    for label, m, k, n, transposed in SHAPES:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = (rng.standard_normal((n, k), dtype=np.float32).T if transposed
             else rng.standard_normal((k, n), dtype=np.float32))
        out = np.empty((m, n), np.float32)
        times = []
        for _, gemm_into in engines:
            times.append(_best_ms(lambda: gemm_into(a, b, out)))
            time.sleep(0.3)
        theirs = _best_ms(lambda: np.matmul(a, b, out=out))
        time.sleep(0.3)
        gflop = 2 * m * k * n / 1e9
        shape = f"{m}x{k}x{n}{' (B.T)' if transposed else ''}"
        rates = "  ".join(f"{ms:6.2f} ms {gflop / ms * 1e3:4.0f} GF/s" for ms in times + [theirs])
        ratios = " ".join(f"{theirs / ms:4.2f}x" for ms in times)
        print(f"{label:34s} {shape:>18s}  {rates}  {ratios}")
    return 0


def mlp_step_products(batch: int = 256, sizes=(784, 1024, 1024)) -> list:
    """(a, b, out) of the MLP training step's five large products: both forward, the two
    weight gradients, the one input gradient its first layer needs."""
    rng = np.random.default_rng(0)
    f32 = np.float32
    x = rng.standard_normal((batch, sizes[0]), dtype=f32)
    w1, w2 = (rng.standard_normal(s, dtype=f32) for s in zip(sizes[:-1], sizes[1:]))
    h1, d2, dh = (rng.standard_normal((batch, n), dtype=f32)
                  for n in (sizes[1], sizes[2], sizes[1]))   # layer 1's out, their gradients
    o1, o2 = np.empty((batch, sizes[1]), f32), np.empty((batch, sizes[2]), f32)
    g1, g2 = np.empty(w1.shape, f32), np.empty(w2.shape, f32)
    return [(x, w1, o1), (h1, w2, o2), (h1.T, d2, g2), (d2, w2.T, dh), (x.T, dh, g1)]


def mlp_step_floor(batch: int = 256, sizes=(784, 1024, 1024)) -> float:
    """The five products of ``mlp_step_products`` one after another on numpy's BLAS,
    into kept buffers: what the step cannot go below at that speed, the bias, ReLU, loss
    and update work left out.  Prints and returns the ms."""
    products = mlp_step_products(batch, sizes)

    def step():
        for a, b, out in products:
            np.matmul(a, b, out=out)
    ms = _best_ms(step)
    gflop = sum(2 * a.shape[0] * a.shape[1] * b.shape[1] for a, b, _ in products) / 1e9
    print(f"MLP step's five products in a row (numpy): {ms:.2f} ms, {gflop:.2f} GFLOP, "
          f"{gflop / ms * 1e3:.0f} GF/s: the step's floor at this BLAS speed")
    return ms


if __name__ == "__main__":
    status = main()
    mlp_step_floor()
    raise SystemExit(status)
