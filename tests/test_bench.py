"""``devsession bench``: the small suite through the CLI (a smoke test: structure and
correctness, never timings), its argument errors, the GPU-fallback report, the goals
logic and the chunked comparison with numpy."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import devsession as ds
from devsession.benchmarks import goals, peers, runner, suites
from devsession.benchmarks.contenders import parse_targets
from devsession.cli import main

HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
GRAPH_WORKLOADS = [w.name for w in suites.get_suite("small") if w.measure is None]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """One run of the small suite on the CPU (with a plot when matplotlib is there)."""
    folder = tmp_path_factory.mktemp("bench")
    argv = ["bench", "--suite", "small", "--repeats", "2", "--device", "cpu",
            "--json", str(folder / "bench.json"), "--no-progress"]
    if HAS_MATPLOTLIB:
        argv += ["--plot", str(folder / "bench.png")]
    status = main(argv)
    with open(folder / "bench.json") as f:
        report = json.load(f)
    return status, report, folder


def _workload(report, name):
    return next(w for w in report["workloads"] if w["name"] == name)


def test_small_suite_runs_and_every_workload_is_reported(small_run):
    status, report, _ = small_run
    assert status == 0
    assert report["schema"] == 1 and report["suite"] == "small" and report["repeats"] == 2
    assert [w["name"] for w in report["workloads"]] == \
        [w.name for w in suites.get_suite("small")]
    assert report["targets"] == [{"label": "cpu", "device": "cpu",
                                  "factory": "DIRECT_SESSION"}]
    assert any(p.startswith("numpy ") for p in report["peers"])
    assert report["command"].startswith("devsession bench --suite small --repeats 2")


@pytest.mark.parametrize("name", GRAPH_WORKLOADS)
def test_graph_workloads_have_our_rows_and_numpy_rows_that_match(small_run, name):
    _, report, _ = small_run
    workload = _workload(report, name)
    assert workload["skipped"] is None
    rows = {r["contender"]: r for r in workload["rows"]}
    ours = rows["devsession cpu"]
    assert ours["side"] == "ours" and ours["factory"] == "DIRECT_SESSION"
    assert ours["device"] == "CPU:0" and ours["api"] == "make_callable"
    assert ours["matches_numpy"] is True and ours["error"] is None
    assert len(ours["times_s"]) == 2 and ours["steady_s"] > 0 and ours["first_run_s"] > 0
    assert ours["throughput"] > 0 and ours["vs_numpy"] > 0
    assert rows["numpy"]["side"] == "peer" and rows["numpy"]["matches_numpy"] is True
    for row in workload["rows"]:
        assert row["error"] is None, row
        assert row["matches_numpy"] is True, row


def test_tiny_graph_is_timed_with_run_and_make_callable(small_run):
    _, report, _ = small_run
    apis = {r["api"] for r in _workload(report, "tiny")["rows"] if r["side"] == "ours"}
    assert apis == {"make_callable", "run"}


def test_copies_need_a_gpu_and_grpc_needs_a_server(small_run):
    _, report, _ = small_run
    for name in ("copy_h2d", "copy_d2h", "copy_d2d"):
        assert "GPU" in _workload(report, name)["skipped"]
    grpc = next(w for w in report["workloads"] if w["name"].startswith("grpc_transfer"))
    assert grpc["skipped"] is None                   # ds.Server exists: never skipped
    ours = [r for r in grpc["rows"] if r["side"] == "ours"]
    assert len(ours) == 2 and all(r["matches_numpy"] for r in ours)


def _context(targets, **kwargs):
    kwargs = {"repeats": 2, "min_batch_s": 0.0005, "settle_s": 0.0,
              "warn": lambda message: None, **kwargs}
    return runner.Context(targets=parse_targets(targets),
                          peers=peers.load_peers(["numpy"], False), **kwargs)


def test_grpc_is_skipped_only_without_a_server(monkeypatch):
    from devsession.benchmarks import transfers

    def refuse(*args, **kwargs):
        raise RuntimeError("address already in use")

    monkeypatch.setattr(ds, "Server", refuse)
    result = runner.run_workload(transfers.grpc_transfer(16), _context(["cpu"]))
    assert result["skipped"] is None
    (row,) = result["rows"]
    assert row["side"] == "ours" and "address already in use" in row["error"]
    from devsession.benchmarks.bench import _our_failures
    assert _our_failures([result])                   # so `devsession bench` exits 1
    monkeypatch.setattr(ds, "Server", None)            # a build without the gRPC runtime
    result = runner.run_workload(transfers.grpc_transfer(16), _context(["cpu"]))
    assert result["skipped"].startswith("gRPC session not available") and not result["rows"]


def test_the_last_timed_result_is_checked_too():
    from devsession.benchmarks.contenders import Contender

    workload = suites.chain(1000, "1k")
    data = workload.make_data(np.random.default_rng(0))
    expected = workload.reference(data)
    calls = []

    def run():                     # right at first, wrong once buffers are "reused"
        calls.append(1)
        return expected if len(calls) < 3 else expected * 2

    rows = runner.measure(workload, [Contender("flaky", "ours", run)], expected,
                          _context(["cpu"], repeats=1))
    (row,) = rows
    assert row["matches_numpy"] is False and row["error"] is None
    assert "last timed step differs from numpy" in row["notes"]
    calls.clear()                  # a training step rightly differs later: first step only
    training = dataclasses.replace(workload, stateful=True)
    (row,) = runner.measure(training, [Contender("trains", "ours", run)], expected,
                            _context(["cpu"], repeats=1))
    assert row["matches_numpy"] is True


def test_a_gpu_row_leaves_its_result_on_the_gpu_and_checks_a_fetching_run():
    import cupy_standin
    from devsession.benchmarks import contenders

    with cupy_standin.installed() as cupy:
        workload = suites.chain(4096, "4k")
        data = workload.make_data(np.random.default_rng(0))
        context = _context(["gpu:0"], has_gpu=True)
        (ours,) = contenders.devsession_contenders(workload, data, context.targets[0], context)
        assert ours.run() is None                    # the output op ran as a target
        assert isinstance(ours.check(), np.ndarray)  # fetched to the host
        ours.close()
        result = runner.run_workload(workload, context)
    row = next(r for r in result["rows"] if r["side"] == "ours")
    assert row["device"] == "GPU:0" and row["matches_numpy"] is True, row
    assert any("stays on the GPU" in note for note in row["notes"])
    assert cupy.ndarray is not np.ndarray


def test_goals_match_device_kinds_exactly():
    assert [goals.device_kind(d) for d in ("CPU:0", "CPU", "worker:1/GPU:0", "gpu", "CUDA",
                                            "worker:0/CPU:0+worker:1/CPU:0", "CPU:0+GPU:0",
                                            "", None)] == \
        ["CPU", "CPU", "GPU", "GPU", "GPU", "CPU", None, None, None]
    # names that are no device: a cluster's tasks, a copy's direction
    assert {goals.device_kind(d) for d in ("worker:0 -> worker:1", "client -> worker:1",
                                           "worker:0 + worker:1", "ps + 2 workers",
                                           "worker:1", "tpu:0")} == {None}
    matmul = "GPU: matmul 1024 >= 90% of cupy.matmul"
    chain = "chain 10M float32 on CPU >= 1x JAX jit"
    results = [_result("matmul_1024", [_r("devsession gpu:0", "ours", 0.01,
                                          device="CPU:0+GPU:0"),
                                       _r("cupy", "peer", 0.01, device="GPU:0", factory="")]),
               _result("chain_10m", [_r("devsession cpu", "ours", 0.01, device="CPU:0"),
                                     _r("jax jit", "peer", 0.02, device="GPU", factory="")])]
    judged = {g["goal"]: g for g in goals.evaluate(goals.GOALS, results)}
    assert judged[matmul]["holds"] is None and "no devsession row on GPU" in \
        judged[matmul]["detail"]
    assert judged[chain]["holds"] is None and "jax jit ran on GPU, not on CPU" in \
        judged[chain]["detail"]
    results[0]["rows"][0]["device"] = "GPU:0"
    results[1]["rows"][1]["device"] = "CPU"
    judged = {g["goal"]: g for g in goals.evaluate(goals.GOALS, results)}
    assert judged[matmul]["holds"] is True and judged[chain]["holds"] is True


def test_startup_runs_cold_and_warm_processes(small_run):
    _, report, _ = small_run
    rows = {r["contender"]: r for r in _workload(report, "startup")["rows"]}
    for name in ("devsession cpu (cold caches)", "devsession cpu (warm caches)", "numpy"):
        assert rows[name]["matches_numpy"] is True, rows[name]
        assert rows[name]["steady_s"] > rows[name]["import_s"] > 0
    assert rows["devsession cpu (warm caches)"]["graph_nodes"] == 20


def test_our_start_up_processes_keep_their_bytecode_even_where_writing_it_is_off(tmp_path):
    # where PYTHONDONTWRITEBYTECODE is set, a "warm" start would compile every module
    from devsession.benchmarks.startup import caches_env

    env = caches_env(dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), str(tmp_path))
    subprocess.run([sys.executable, "-c", "import colorsys"], env=env, check=True)
    assert list((tmp_path / "bytecode").rglob("colorsys*.pyc"))
    assert env["NUMBA_CACHE_DIR"] == env["DEVSESSION_CACHE_DIR"] == str(tmp_path)


def test_goals_are_judged_or_marked_not_applicable(small_run):
    _, report, _ = small_run
    judged = {g["goal"]: g for g in report["goals"]}
    assert len(judged) == len(goals.GOALS)
    assert judged["tiny graph c = a + b: sess.run <= 50 us"]["holds"] in (True, False)
    chain = judged["chain 10M float32 on CPU >= 1x JAX jit"]
    assert chain["holds"] is None and chain["detail"].startswith("n/a")


def test_table_names_every_workload(small_run, capsys):
    # the table went to stdout while the fixture ran; re-render it from the report
    from devsession.benchmarks.report import format_table

    _, report, _ = small_run
    table = format_table(report)
    for w in report["workloads"]:
        assert w["name"] in table
    assert "MISMATCH" not in table and "ERROR" not in table


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib is not installed (the plot extra)")
def test_plot_is_a_png(small_run):
    _, _, folder = small_run
    with open(folder / "bench.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_names_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)    # import matplotlib -> ImportError
    status = main(["bench", "--suite", "small", "--plot", str(tmp_path / "p.png")])
    assert status == 2
    assert "devsession[plot]" in capsys.readouterr().err
    assert not (tmp_path / "p.png").exists()


@pytest.mark.parametrize("argv, message", [
    (["--device", "tpu:0"], "Devices here: cpu"),
    (["--device", "/job:worker/task:1"], "not a local CPU or GPU device"),
    (["--suite", "huge"], "suites: small, default, full"),
    (["--peers", "numpy,torch"], "unknown peer(s) torch"),
    (["--repeats", "0"], "--repeats must be at least 1"),
])
def test_bad_arguments_exit_cleanly(argv, message, capsys):
    assert main(["bench", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("devsession bench: ValueError: ") and message in err
    assert "Traceback" not in err


def test_missing_peers_are_listed_not_fatal(monkeypatch):
    monkeypatch.setitem(peers._MODULES, "jax", "no_such_module_for_devsession_tests")
    loaded = peers.load_peers(["numpy", "jax", "cupy"], has_gpu=False, gpu_reason="hidden")
    assert loaded["numpy"].available
    assert loaded["jax"].describe() == "jax: not installed"
    assert "no GPU" in loaded["cupy"].describe()
    assert peers.parse_peers("jax,tf") == ["numpy", "jax", "tf1"]


def _run_tiny(targets):
    context = runner.Context(targets=parse_targets(targets),
                             peers=peers.load_peers(["numpy"], False), repeats=1,
                             min_batch_s=0.0005, settle_s=0.0, warn=lambda message: None)
    return runner.run_workload(suites.tiny(), context)


def test_each_timed_batch_follows_settle_s_of_untimed_steps(monkeypatch):
    """Before each timed batch a contender keeps stepping, untimed, for ``settle_s``: the
    previous contender's spinning BLAS threads go idle while its own stay awake."""
    from devsession.benchmarks.contenders import Contender

    steps, log = [], []
    contenders = [Contender(name, "ours" if name == "a" else "peer",
                            (lambda name=name: steps.append(name) or np.float32(1.0)),
                            reference=name == "b") for name in ("a", "b")]
    lead_in, timed_batch = runner._lead_in, runner._timed_batch

    def logged_lead_in(c, row, context):
        before, start = len(steps), time.perf_counter()
        lead_in(c, row, context)
        log.append(("lead-in", c.name, time.perf_counter() - start, len(steps) - before))

    def logged_batch(c, row, context):
        log.append(("batch", c.name))
        return timed_batch(c, row, context)

    monkeypatch.setattr(runner, "_lead_in", logged_lead_in)
    monkeypatch.setattr(runner, "_timed_batch", logged_batch)
    context = _context(["cpu"], settle_s=0.03, min_batch_s=0.0)
    rows = runner.measure(suites.tiny(), contenders, np.float32(1.0), context)
    assert all(r["error"] is None and len(r["times_s"]) == 2 for r in rows), rows
    assert len(log) == 8
    for lead, batch in zip(log[::2], log[1::2]):
        assert lead[0] == "lead-in" and batch == ("batch", lead[1])
        assert lead[2] >= 0.03 and lead[3] >= 2, lead


def test_gpu_request_without_gpu_reports_the_cpu_it_ran_on(monkeypatch):
    from devsession import devices

    monkeypatch.setenv("DEVSESSION_VISIBLE_GPUS", "")
    devices.forget_gpu_probe()
    try:
        result = _run_tiny(["gpu:0"])
    finally:
        devices.forget_gpu_probe()
    ours = [r for r in result["rows"] if r["side"] == "ours"]
    assert len(ours) == 2
    for row in ours:
        assert row["requested"] == "gpu:0" and row["device"] == "CPU:0"
        assert "asked for gpu:0, ran on CPU:0" in row["notes"]
        assert row["matches_numpy"] is True


def test_fake_gpu_rows_say_they_ran_on_the_gpu():
    from fake_gpu import fake_gpus

    with fake_gpus(1):
        result = _run_tiny(["gpu:0"])
    ours = [r for r in result["rows"] if r["side"] == "ours"]
    assert ours and all("GPU:0" in r["device"] and r["matches_numpy"] for r in ours)


def test_compare_checks_every_chunk():
    expected = np.linspace(0, 1, 10_001, dtype=np.float32)
    assert runner.compare(expected.copy(), expected, 1e-6, 0.0, chunk=1000) == (True, 0.0)
    wrong = expected.copy()
    wrong[-1] += 0.5
    ok, worst = runner.compare(wrong, expected, 1e-6, 0.0, chunk=1000)
    assert not ok and worst == pytest.approx(0.5)
    nan = expected.copy()
    nan[5] = np.nan
    assert runner.compare(nan, expected, 1e-3, 1e-3)[0] is False


def _result(name, rows, skipped=None):
    return {"name": name, "skipped": skipped, "rows": rows}


def _r(contender, side, steady, unit="GB/s", api="make_callable", device="CPU:0",
       factory="DIRECT_SESSION"):
    return {"contender": contender, "side": side, "steady_s": steady, "throughput": 1 / steady,
            "unit": unit, "api": api, "device": device, "factory": factory}


def test_goal_ratios_limits_and_missing_pieces():
    results = [
        _result("chain_10m", [_r("devsession cpu", "ours", 0.010),
                              _r("jax jit", "peer", 0.020, device="CPU", factory="")]),
        _result("softmax_4096x1024", [_r("devsession cpu", "ours", 0.010),
                                      _r("jax jit", "peer", 0.005, factory="")]),
        _result("tiny", [_r("devsession cpu (run)", "ours", 60e-6, api="run")]),
        _result("sum_10m", [], skipped="not today"),
    ]
    judged = {g["goal"]: g for g in goals.evaluate(goals.GOALS, results)}
    chain = judged["chain 10M float32 on CPU >= 1x JAX jit"]
    assert chain["holds"] is True and chain["value"] == pytest.approx(2.0)
    assert judged["row softmax (4096, 1024) on CPU >= 1x JAX jit"]["holds"] is False
    run = judged["tiny graph c = a + b: sess.run <= 50 us"]
    assert run["holds"] is False and "60.0 us" in run["detail"]
    assert "skipped: not today" in judged["sum of 10M float32 on CPU >= 1x numpy"]["detail"]
    assert judged["tiny graph: make_callable <= 1x JAX jit dispatch"]["holds"] is None
    assert judged["matmul 1024 float32 on CPU >= 0.95x numpy"]["detail"] == \
        "n/a: matmul_1024 is not in this suite"


def test_gpu_bench_runs_on_the_cupy_standin(monkeypatch):
    """A smoke run of benchmarks/gpu_bench.py's parts (small sizes) on the stand-in, so
    its Python runs in CI before its first GPU; cupy.random is numpy's there."""
    import types

    import cupy_standin
    from devsession.benchmarks import gpu_bench

    with cupy_standin.installed() as cupy:
        rng = np.random.default_rng(0)
        monkeypatch.setattr(cupy, "random", types.SimpleNamespace(
            standard_normal=lambda n, dtype=np.float32: cupy.asarray(
                rng.standard_normal(n).astype(dtype))), raising=False)
        chain = gpu_bench.bench_copy_and_chain(10_000)
        matmul = gpu_bench.bench_matmul(64)
        copies = gpu_bench.bench_transfers(1 << 16)
        ops = gpu_bench.check_ops()
    assert "_FusedElementwise" in chain["chain"]["steps"]
    assert chain["chain"]["max_rel_error_vs_cupy"] < gpu_bench.CHECK_RTOL["chain"]
    assert matmul["matmul"]["max_rel_error_vs_cupy"] < gpu_bench.CHECK_RTOL["matmul"]
    assert {"h2d", "d2h", "h2d_cupy_pageable"} <= set(copies)
    assert ops and all(result.get("equal") for result in ops.values()), ops


def test_cluster_rows_run_on_a_grpc_target_and_match_numpy():
    """The tiny two-worker step, data-parallel training on ps + 2 workers (its tasks as
    worker processes and as servers of this process; the small suite skips it without
    ``--device grpc``), and both training steps one after the
    other on the same server (a variable named as the previous workload's, of another
    shape, must not meet it there)."""
    from devsession.benchmarks import cluster_training, training, transfers

    context = runner.Context(targets=parse_targets(["grpc"]), peers=peers.load_peers(
        ["numpy"], False), repeats=1, min_batch_s=0.001, settle_s=0.0)
    try:
        for workload in (transfers.grpc_tiny_step(),
                         cluster_training.mlp_train_ps(16, (784, 64, 64, 10)),
                         training.mlp_train(16, (784, 64, 64, 10)), training.convnet_train(2)):
            result = runner.run_workload(workload, context)
            ours = [r for r in result["rows"] if r["side"] == "ours"]
            expected = ([cluster_training.OURS[True], cluster_training.OURS[False]]
                        if workload.name == "mlp_train_ps" else [ours[0]["contender"]])
            assert not result["skipped"] and [r["contender"] for r in ours] == expected, result
            assert all(r["matches_numpy"] and r["throughput"] > 0 for r in ours), ours
    finally:
        context.close()


TRANSFER_GOALS = {"gRPC: 16 MiB worker to worker >= 1x TF1": "worker->worker",
                  "gRPC: 16 MiB client to worker >= 1x TF1": "client->worker"}


def _transfer_results(our_device, tf1_device):
    """A grpc_transfer_16mib result: ours 10 ms, TF1's 15 ms, for both directions."""
    rows = []
    for direction in TRANSFER_GOALS.values():
        rows += [_r(f"devsession grpc {direction}", "ours", 0.010, device=our_device,
                    factory="GRPC_SESSION"),
                 _r(f"tf1 {direction}", "peer", 0.015, api="grpc",
                    device=tf1_device(direction), factory="")]
    return [_result("grpc_transfer_16mib", rows)]


def test_tf1s_transfer_rows_are_judged_on_the_cpu_as_ours():
    """The 16 MiB goals compare TF1's rows (named with ``TF1_DEVICES``) with ours (as our
    probe names them): both read as CPU rows, so the goals give a verdict; a TF1 row named
    by something that is no device kind (as these rows once were) reads n/a."""
    from devsession.benchmarks import transfers

    assert set(transfers.TF1_DEVICES) == set(TRANSFER_GOALS.values())
    probed = "worker:0/CPU:0+worker:1/CPU:0"
    judged = {g["goal"]: g for g in goals.evaluate(goals.GOALS, _transfer_results(
        probed, lambda direction: transfers.TF1_DEVICES[direction]))}
    for goal in TRANSFER_GOALS:
        assert judged[goal]["holds"] is True, judged[goal]
        assert judged[goal]["value"] == pytest.approx(1.5)
    no_device = {"worker->worker": "worker:0 -> worker:1", "client->worker": "client -> worker:1"}
    judged = {g["goal"]: g for g in goals.evaluate(goals.GOALS, _transfer_results(
        probed, no_device.get))}
    for goal, direction in TRANSFER_GOALS.items():
        assert judged[goal]["holds"] is None and judged[goal]["value"] is None
        assert judged[goal]["detail"] == \
            f"n/a: tf1 {direction} ran on {no_device[direction]}, not on CPU as ours"


def test_rows_with_no_device_kind_are_judged_only_by_goals_that_span_devices():
    """A cluster row ("ps + 2 workers") has no device kind: the cluster goals, which say
    their rows span devices, judge it by name; any other goal reads n/a for it, even
    when the peer's row has no device kind either."""
    ps = "gRPC: data-parallel MLP training on ps + 2 worker processes >= 1x TF1"
    ps_one_process = "gRPC: the same, its three tasks servers of one process >= 1x TF1"
    tiny = "gRPC: tiny two-worker step >= 1x TF1"
    assert {g.text for g in goals.GOALS if g.spans_devices} == {ps, ps_one_process, tiny}
    assert all(g.ours for g in goals.GOALS if g.spans_devices)      # matched by name
    results = [
        _result("mlp_train_ps", [_r(ours, "ours", 0.05, device="ps + 2 workers",
                                    factory="GRPC_SESSION")
                                 for ours in ("devsession grpc ps+2 processes",
                                              "devsession grpc ps+2 workers")]
                + [_r("tf1 ps+2 processes", "peer", 0.06, api="grpc",
                      device="ps + 2 workers", factory=""),
                   _r("tf1 ps+2 workers", "peer", 0.04, api="grpc", device="ps + 2 workers",
                      factory="")]),
        _result("grpc_tiny_step", [_r("devsession grpc two-worker step", "ours", 0.001,
                                      device="worker:0 + worker:1", factory="GRPC_SESSION"),
                                   _r("tf1 two-worker step", "peer", 0.0005, api="grpc",
                                      device="worker:0 + worker:1", factory="")]),
    ]
    judged = {g["goal"]: g for g in goals.evaluate(goals.GOALS, results)}
    assert judged[ps]["holds"] is True and judged[ps]["value"] == pytest.approx(1.2)
    assert judged[ps_one_process]["holds"] is False
    assert judged[ps_one_process]["value"] == pytest.approx(0.8)
    assert judged[tiny]["holds"] is False and judged[tiny]["value"] == pytest.approx(0.5)
    # the 16 MiB goals are judged per device kind: ours on no one kind (a task's CPU and
    # another's GPU), TF1's on none either, is no verdict
    mixed = "worker:0/CPU:0+worker:1/GPU:0"
    judged = {g["goal"]: g for g in goals.evaluate(goals.GOALS, _transfer_results(
        mixed, lambda direction: "ps + 2 workers"))}
    for goal, direction in TRANSFER_GOALS.items():
        assert judged[goal]["holds"] is None and judged[goal]["value"] is None
        assert judged[goal]["detail"] == \
            f"n/a: devsession grpc {direction} ran on {mixed}, not on CPU"
