"""The workloads of ``devsession bench``, as data, and the suites that group them.

A ``Workload`` says what to compute, never how to time it (that is ``runner.py``):

* ``make_data(rng)`` makes its inputs once per run: the arrays fed on every step
  (``Data.feeds``, named by ``Data.names``) and the arrays baked into graphs as
  constants (``Data.consts``, e.g. an MLP's weights);
* ``graph(api, data)`` builds the graph with a TF1-style module, ``devsession`` or
  ``tf.compat.v1`` (the same builder serves both: ported TF1 code only changes its
  import), and returns ``(fetch, [placeholders])``;
* ``array(xp, feeds, consts)`` is the computation over an array namespace: with numpy
  it is the reference every result is checked against, and the numpy, cupy and
  ``jax.numpy`` (under ``jax.jit``) peers run it too;
* ``numexpr`` is ``(expression, float32 constants)`` where numexpr can express it;
* ``work`` and ``unit`` turn a step time into a throughput (GB/s moved, GFLOP/s, steps/s).

Workloads that are not one graph over local devices (process start-up, copies between
host and GPU, the two-worker gRPC transfer) set ``measure`` instead: a function of the
runner's context that returns result rows itself (``startup.py``, ``transfers.py``).

Suites: ``small`` (seconds; CI's smoke test), ``default`` (about a minute on a 2-core
machine) and ``full`` (all rounds for the big workloads, a bigger softmax and sum, 5 warm start-ups, TF1's start-up, and a 128 MiB gRPC transfer).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import (cluster_training, input_pipeline, recurrent_training, separable, startup,
               training, transfers)
from .workload import Data, Workload

__all__ = ["Data", "Workload", "SUITES", "get_suite", "tiny", "chain", "matmul", "softmax",
           "reduce_sum", "mlp"]

F32 = np.float32


def _normal(rng, shape, scale=1.0):
    values = rng.standard_normal(shape, dtype=F32)
    if scale != 1.0:
        values *= F32(scale)
    return values


# --- tiny graph: the per-step overhead ------------------------------------------------------

def tiny(n: int = 4) -> Workload:
    def make_data(rng):
        return Data((_normal(rng, n), _normal(rng, n)), ("a", "b"))

    def graph(api, data):
        a = api.placeholder(api.float32, (None,), name="a")
        b = api.placeholder(api.float32, (None,), name="b")
        return api.add(a, b, name="c"), [a, b]

    return Workload(
        name="tiny", title=f"c = a + b, {n} float32 fed each step (per-step overhead)",
        unit="steps/s", work=1.0, make_data=make_data, graph=graph,
        array=lambda xp, feeds, consts: feeds[0] + feeds[1], numexpr=("a + b", {}),
        apis=("make_callable", "run"), params={"n": n})


# --- elementwise chain ------------------------------------------------------------------------

CHAIN = "relu(x*1.5+0.25)*sigmoid(x)+0.5*x*x"


def chain(n: int, label: str, max_repeats: int | None = None) -> Workload:
    def make_data(rng):
        return Data((_normal(rng, n),), ("x",))

    def graph(api, data):
        x = api.placeholder(api.float32, (None,), name="x")
        return api.nn.relu(x * 1.5 + 0.25) * api.nn.sigmoid(x) + 0.5 * x * x, [x]

    def array(xp, feeds, consts):
        x = feeds[0]
        return xp.maximum(x * 1.5 + 0.25, 0) * (1 / (1 + xp.exp(-x))) + 0.5 * x * x

    f = F32
    expr = ("where(x*k15 + k025 > k0, x*k15 + k025, k0) * (k1 / (k1 + exp(-x))) + k05*x*x",
            {"k15": f(1.5), "k025": f(0.25), "k0": f(0), "k1": f(1), "k05": f(0.5)})
    return Workload(
        name=f"chain_{label.lower()}",
        title=f"{CHAIN}, {label} float32 (GB/s = 8 bytes/element)",
        unit="GB/s", work=8 * n / 1e9, make_data=make_data, graph=graph, array=array,
        numexpr=expr, max_repeats=max_repeats, params={"n": n})


# --- matmul -------------------------------------------------------------------------------

def matmul(n: int, max_repeats: int | None = None) -> Workload:
    def make_data(rng):
        return Data((_normal(rng, (n, n)), _normal(rng, (n, n))), ("a", "b"))

    def graph(api, data):
        a = api.placeholder(api.float32, (n, n), name="a")
        b = api.placeholder(api.float32, (n, n), name="b")
        return api.matmul(a, b), [a, b]

    return Workload(
        name=f"matmul_{n}", title=f"matmul {n}x{n} @ {n}x{n} float32", unit="GFLOP/s",
        work=2 * n ** 3 / 1e9, make_data=make_data, graph=graph,
        array=lambda xp, feeds, consts: feeds[0] @ feeds[1], rtol=1e-3, atol=1e-3,
        max_repeats=max_repeats, params={"n": n})


# --- row softmax ----------------------------------------------------------------------------

def softmax(rows: int, cols: int) -> Workload:
    def make_data(rng):
        return Data((_normal(rng, (rows, cols), 4.0),), ("x",))

    def graph(api, data):
        x = api.placeholder(api.float32, (None, cols), name="x")
        return api.nn.softmax(x), [x]

    def array(xp, feeds, consts):
        x = feeds[0]
        e = xp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return Workload(
        name=f"softmax_{rows}x{cols}", title=f"row softmax ({rows}, {cols}) float32 "
        f"(GB/s = 8 bytes/element)", unit="GB/s", work=8 * rows * cols / 1e9,
        make_data=make_data, graph=graph, array=array, rtol=1e-4, atol=1e-7,
        params={"rows": rows, "cols": cols})


# --- reduction ------------------------------------------------------------------------------

def reduce_sum(n: int, label: str) -> Workload:
    def make_data(rng):
        return Data((rng.random(n, dtype=F32),), ("x",))

    def graph(api, data):
        x = api.placeholder(api.float32, (None,), name="x")
        return api.reduce_sum(x), [x]

    # float32 sums of millions of terms differ with the summation order (numpy's is
    # pairwise); 1e-4 relative still catches a dropped or doubled block
    return Workload(
        name=f"sum_{label.lower()}",
        title=f"sum of {label} float32 (GB/s = 4 bytes/element)",
        unit="GB/s", work=4 * n / 1e9, make_data=make_data, graph=graph,
        array=lambda xp, feeds, consts: feeds[0].sum(), numexpr=("sum(x)", {}),
        rtol=1e-4, atol=0.0, params={"n": n})


# --- MLP forward pass -----------------------------------------------------------------------

def mlp(batch: int = 256, sizes: tuple = (784, 1024, 1024, 10)) -> Workload:
    layers = list(zip(sizes[:-1], sizes[1:]))

    def make_data(rng):
        consts = []
        for a, b in layers:
            consts += [_normal(rng, (a, b), 1 / np.sqrt(a)), _normal(rng, (b,), 0.1)]
        return Data((_normal(rng, (batch, sizes[0])),), ("x",), tuple(consts))

    def graph(api, data):
        x = api.placeholder(api.float32, (None, sizes[0]), name="x")
        h = x
        for i in range(len(layers)):
            w, b = data.consts[2 * i], data.consts[2 * i + 1]
            h = api.matmul(h, api.constant(w, name=f"w{i}")) + api.constant(b, name=f"b{i}")
            h = api.nn.relu(h) if i < len(layers) - 1 else api.nn.softmax(h, name="probs")
        return h, [x]

    def array(xp, feeds, consts):
        h = feeds[0]
        for i in range(len(layers)):
            h = h @ consts[2 * i] + consts[2 * i + 1]
            if i < len(layers) - 1:
                h = xp.maximum(h, 0)
        e = xp.exp(h - h.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    flops = 2 * batch * sum(a * b for a, b in layers)
    return Workload(
        name=f"mlp_{batch}", title=f"MLP forward, batch {batch}, "
        f"{'-'.join(map(str, sizes))}, relu, softmax", unit="GFLOP/s", work=flops / 1e9,
        make_data=make_data, graph=graph, array=array, rtol=1e-3, atol=1e-6,
        params={"batch": batch, "sizes": list(sizes)})


# --- suites -------------------------------------------------------------------------------

def _small() -> list[Workload]:
    return [tiny(), chain(100_000, "100k"), matmul(128), softmax(256, 64),
            reduce_sum(100_000, "100k"), mlp(16, (784, 64, 64, 10)),
            *transfers.copies(1 << 20), transfers.grpc_transfer(1 << 16),
            transfers.grpc_tiny_step(), cluster_training.mlp_train_ps(16, (784, 64, 64, 10)),
            training.mlp_train(16, (784, 64, 64, 10)), separable.separable_train(2),
            recurrent_training.lstm_train(4, 5, 16, 50), input_pipeline.pipeline(1000, 32),
            startup.startup(warm_runs=1, cold_runs=1, peers=("numpy",))]


def _default() -> list[Workload]:
    # one step of the 100M chain or the 4096 matmul takes 0.2-1.5 s per contender here:
    # 3 timed rounds keep the suite near a minute
    return [tiny(), chain(10_000_000, "10M"), chain(100_000_000, "100M", max_repeats=3),
            matmul(1024), matmul(4096, max_repeats=3), softmax(4096, 1024),
            reduce_sum(10_000_000, "10M"), mlp(256),
            training.mlp_train(), training.convnet_train(), separable.separable_train(),
            recurrent_training.lstm_train(),
            input_pipeline.pipeline(), *transfers.copies(1 << 26), transfers.grpc_transfer(1 << 22),
            transfers.grpc_tiny_step(), cluster_training.mlp_train_ps(),
            startup.startup(warm_runs=3, cold_runs=1, peers=("numpy", "jax"))]


def _full() -> list[Workload]:
    return [tiny(), chain(10_000_000, "10M"), chain(100_000_000, "100M"), matmul(1024),
            matmul(4096), softmax(4096, 1024),
            softmax(16384, 4096), reduce_sum(10_000_000, "10M"),
            reduce_sum(100_000_000, "100M"), mlp(256), training.mlp_train(),
            training.convnet_train(), separable.separable_train(),
            recurrent_training.lstm_train(), input_pipeline.pipeline(), *transfers.copies(1 << 28),
            transfers.grpc_transfer(1 << 22), transfers.grpc_transfer(1 << 25),
            transfers.grpc_tiny_step(), cluster_training.mlp_train_ps(),
            startup.startup(warm_runs=5, cold_runs=2, peers=("numpy", "jax", "tf1"))]


SUITES: dict[str, Callable[[], list[Workload]]] = {
    "small": _small, "default": _default, "full": _full}


def get_suite(name: str) -> list[Workload]:
    """The workloads of suite ``name``; ValueError naming the suites for an unknown one."""
    try:
        return SUITES[name]()
    except KeyError:
        raise ValueError(f"unknown suite {name!r}; suites: {', '.join(SUITES)}") from None
