"""Mixed CPU/GPU graphs in one DirectSession, on fake GPUs (tests/fake_gpu.py), in CI.

The fake GPU kernels are the numpy reference kernels, tagged: each checks that its
inputs live on its own device and each transfer checks where its input lives.  So these
tests prove the session's partitioning: transfers exactly at CPU/GPU edges, feeds and
fetches, none between two GPU nodes, a value copied once however many GPU nodes read
it, plain numpy arrays fetched, soft placement of an op without a GPU kernel, and
GPU:0 -> GPU:1 copies.  The real CUDA kernels are tested by test_kernels.py (GPU cases) and
test_gpu_session.py on a machine with a GPU.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import devsession as ds
from devsession.devices import local_device_name
from fake_gpu import HOST, fake_gpus, plan_of
from sessions import assert_fails_without_soft_placement

GPU0, GPU1 = "GPU:0", "GPU:1"


def transfers(plan) -> list:
    return [(s.name, s.device.short_name) for s in plan.steps if s.op_type == "_Transfer"]


def mlp_graph():
    """x (fed) -> [GPU: matmul, +b, relu] -> [CPU: reduce_sum] -> [GPU: *2, softmax]."""
    rng = np.random.default_rng(3)
    w = rng.standard_normal((6, 5)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    x = ds.placeholder(ds.float32, (None, 6), name="x")
    with ds.device("gpu:0"):
        h = ds.nn.relu(ds.matmul(x, ds.constant(w, name="w"), name="mm")
                       + ds.constant(b, name="b"), name="h")
    s = ds.reduce_sum(h, axis=1, keepdims=True, name="s")          # session default: CPU
    with ds.device("gpu:0"):
        z = ds.nn.softmax(ds.multiply(h, s, name="hs") * 0.5, name="z")
    xv = rng.standard_normal((4, 6)).astype(np.float32)
    hv = np.maximum(xv @ w + b, 0)
    t = hv * hv.sum(axis=1, keepdims=True) * np.float32(0.5)
    e = np.exp(t - t.max(axis=1, keepdims=True))
    return x, h, s, z, xv, hv, e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("fusion", [True, False])
def test_mixed_graph_partitions_and_copies_only_at_edges(fusion):
    with fake_gpus(1) as gpu:
        x, h, s, z, xv, hv, expected = mlp_graph()
        optimizer = ds.SessionOptions().optimizer
        optimizer = type(optimizer)(**{**optimizer.__dict__, "fusion": fusion})
        opts = ds.SessionOptions(device="cpu", optimizer=optimizer)
        with ds.Session(options=opts) as sess:
            hs, zs = sess.run([h, z], {x: xv})
            plan = plan_of(sess)
        np.testing.assert_allclose(hs, hv, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(zs, expected, rtol=1e-5, atol=1e-6)
        assert type(hs) is np.ndarray and type(zs) is np.ndarray      # plain host arrays
        # x -> GPU (feed), h -> CPU (for s and for the fetch: one copy serves both),
        # s -> GPU (edge), z -> CPU (fetch).  Nothing between two GPU nodes.
        moved = sorted((name.split("/_to_")[0], device) for name, device in transfers(plan))
        assert moved == sorted([("x:0", GPU0), ("h:0", HOST), ("s:0", GPU0), ("z:0", HOST)])
        assert len(gpu.transfers) == 4
        devices = {st.name: st.device.short_name for st in plan.steps
                   if st.op_type != "_Transfer"}
        assert devices["s"] == HOST
        assert all(d == GPU0 for n, d in devices.items() if n != "s")
        if fusion:
            assert any(st.op_type == "_FusedElementwise" and st.device.short_name == GPU0
                       for st in plan.steps)


def test_gpu_default_session_moves_data_only_at_feeds_and_fetches():
    with fake_gpus(1) as gpu:
        x = ds.placeholder(ds.float32, (None, 3), name="x")
        y = ds.placeholder(ds.float32, (3,), name="y")
        a = x * y + 1.0
        c = ds.concat([ds.transpose(a), ds.reshape(ds.cast(a > 1.5, ds.float32), (3, -1))],
                      axis=1)
        out = ds.reduce_mean(ds.sqrt(ds.abs(c)), axis=0)
        xv = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
        yv = np.array([1, 2, 3], np.float32)
        av = xv * yv + 1
        cv = np.concatenate([av.T, (av > 1.5).astype(np.float32).reshape(3, -1)], axis=1)
        with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
            got = sess.run([out, a], {x: xv, y: yv})
            plan = plan_of(sess)
            placed = sess.placement()
        np.testing.assert_allclose(got[0], np.sqrt(np.abs(cv)).mean(axis=0), rtol=1e-6)
        np.testing.assert_allclose(got[1], av)
        assert sorted(t[:2] for t in gpu.transfers) == sorted(
            [(HOST, GPU0)] * 2 + [(GPU0, HOST)] * 2)
        assert len(transfers(plan)) == 4
        assert set(placed.values()) == {local_device_name("GPU", 0)}


def test_a_value_read_by_many_gpu_nodes_is_copied_once():
    with fake_gpus(1) as gpu:
        x = ds.placeholder(ds.float64, (5,), name="x")
        with ds.device("gpu:0"):
            outs = [ds.exp(x), ds.square(x), ds.maximum(x, 0.0), ds.reduce_max(x, axis=0)]
        xv = np.linspace(-1, 1, 5)
        with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
            got = sess.run(outs, {x: xv})
        for g, e in zip(got, [np.exp(xv), xv * xv, np.maximum(xv, 0), xv.max()]):
            np.testing.assert_allclose(g, e)
        assert len(gpu.transfers_between(HOST, GPU0)) == 1
        assert len(gpu.transfers_between(GPU0, HOST)) == 4


def test_soft_placement_moves_an_op_without_a_gpu_kernel(caplog):
    with fake_gpus(1, without={"Softmax"}) as gpu:
        x, h, s, z, xv, hv, expected = mlp_graph()
        with caplog.at_level(logging.WARNING, logger="devsession"):
            with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
                np.testing.assert_allclose(sess.run(z, {x: xv}), expected, rtol=1e-5,
                                           atol=1e-6)
                placed, notes = sess.placement(z), sess.placement_notes(z)
        assert placed["z"] == local_device_name("CPU", 0)
        assert placed["hs"] == local_device_name("GPU", 0)
        assert "z" in notes and "no GPU kernel" in notes["z"]
        assert any("'z'" in r.getMessage() and "Softmax has no GPU kernel" in r.getMessage()
                   for r in caplog.records)
        assert not any(name == "z" for name, _ in gpu.calls)
        assert_fails_without_soft_placement(z, {x: xv}, match="'z'.*Softmax has no GPU kernel")


def test_string_nodes_stay_on_the_host_of_a_gpu_session():
    # as TF's: no GPU kernel holds strings, so a summary and its tag run on CPU:0 and
    # only the number crosses (the fake GPU refuses string arrays, as cupy does)
    from devsession.proto import summary_pb2

    with fake_gpus(1) as gpu:
        x = ds.placeholder(ds.float32, (3,), name="x")
        total = ds.reduce_sum(x * 2.0, name="total")
        summary = ds.summary.scalar("loss", total)
        with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
            got = summary_pb2.Summary.FromString(sess.run(summary, {x: [1.0, 2.0, 3.0]}))
            placed, notes = sess.placement(summary), sess.placement_notes(summary)
        assert (got.value[0].tag, got.value[0].simple_value) == ("loss", 12.0)
        assert placed["total"] == local_device_name("GPU", 0)
        for name in ("loss/tag", "loss"):         # the tag constant and the summary
            assert placed[name] == local_device_name("CPU", 0)
            assert "no GPU kernel for string or quantized tensors" in notes[name]
        assert ("total", GPU0) in gpu.calls and gpu.transfers_between(GPU0, HOST)
        strict = ds.SessionOptions(device="gpu:0", allow_soft_placement=False)
        with ds.Session(options=strict) as sess, pytest.raises(
                ds.errors.InvalidArgumentError,
                match="no GPU kernel for string or quantized tensors"):
            sess.run(summary, {x: [1.0, 2.0, 3.0]})


def test_quantized_values_stay_on_the_host_of_a_gpu_session():
    # qint8 values are numpy structured arrays, which no device array holds: the Bitcast
    # reading one runs on CPU:0 though Bitcast has a GPU kernel, the float math on GPU:0
    with fake_gpus(1) as gpu:
        x = ds.placeholder(ds.float32, (3,), name="x")
        scaled = ds.multiply(x, 0.5, name="scaled")
        q = ds.quantization.quantize(scaled, -1.0, 1.0, ds.qint8, mode="SCALED", name="q")
        ints = ds.bitcast(q.output, ds.int8, name="ints")
        with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
            got = sess.run(ints, {x: [1.0, -2.0, 0.5]})
            placed, notes = sess.placement(ints), sess.placement_notes(ints)
        assert got.tolist() == [64, -127, 32]
        assert placed["scaled"] == local_device_name("GPU", 0)
        for name in ("q", "ints"):
            assert placed[name] == local_device_name("CPU", 0)
            assert "no GPU kernel for string or quantized tensors" in notes[name]
        assert ("scaled", GPU0) in gpu.calls


def test_second_gpu_gets_a_device_to_device_copy():
    with fake_gpus(2) as gpu:
        x = ds.placeholder(ds.float32, (4,), name="x")
        with ds.device("gpu:0"):
            a = ds.exp(x, name="a")
        with ds.device("gpu:1"):
            b = ds.multiply(a, 3.0, name="b")
        xv = np.arange(4, dtype=np.float32)
        with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
            np.testing.assert_allclose(sess.run(b, {x: xv}), np.exp(xv) * 3, rtol=1e-6)
            assert sess.placement(b)["b"] == local_device_name("GPU", 1)
            assert [d.device_type for d in sess.list_devices()] == ["CPU", "GPU", "GPU"]
        assert gpu.transfers_between(GPU0, GPU1) and gpu.transfers_between(GPU1, HOST)
        assert ("b", GPU1) in gpu.calls and ("a", GPU0) in gpu.calls


def test_variables_live_on_the_gpu_and_assign_is_colocated():
    with fake_gpus(1) as gpu:
        with ds.device("gpu:0"):
            v = ds.Variable(np.ones(3, np.float32), name="v")
        step = v.assign_add(np.full(3, 2, np.float32))        # built outside the scope
        twice = v * 2.0
        with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
            sess.run(ds.global_variables_initializer())
            sess.run(step)
            np.testing.assert_array_equal(sess.run(twice), np.full(3, 6, np.float32))
            assert sess.placement()[step.op.name] == local_device_name("GPU", 0)
        assert (step.op.name, GPU0) in gpu.calls


def test_seeded_random_ops_match_the_cpu():
    def draw(device):
        ds.reset_default_graph()
        with ds.device(device):
            r = ds.random_uniform((3, 4), seed=7) + ds.random_normal((3, 4), seed=8)
        with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
            return [sess.run(r) for _ in range(2)]

    with fake_gpus(1):
        on_gpu = draw("gpu:0")
    on_cpu = draw("cpu:0")
    np.testing.assert_array_equal(on_gpu, on_cpu)
    assert not np.array_equal(on_gpu[0], on_gpu[1])


def test_placement_is_logged_and_traced(caplog):
    with fake_gpus(1):
        x, h, s, z, xv, *_ = mlp_graph()
        opts = ds.SessionOptions(device="cpu", log_device_placement=True)
        with caplog.at_level(logging.INFO, logger="devsession.placement"):
            with ds.Session(options=opts) as sess:
                metadata = ds.RunMetadata()
                sess.run(z, {x: xv}, options=ds.RunOptions(trace=True), run_metadata=metadata)
                plan = plan_of(sess)
        logged = {r.getMessage() for r in caplog.records if r.name == "devsession.placement"}
        for name, p in plan.placements.items():
            assert f"{name}: {local_device_name(p.device.device_type, p.device.index)}" in logged
        assert metadata.devices() == {HOST, GPU0}
        traced = {(st.op, st.device) for st in metadata.step_stats}
        assert ("_Transfer", GPU0) in traced and ("Sum", HOST) in traced
        assert '"GPU:0"' in metadata.chrome_trace()


def test_exactly_one_factory_with_a_gpu():
    from devsession.session_factory import factory_verdicts

    with fake_gpus(2):
        for device in ["", "gpu:0", "gpu:1", "cpu"]:
            opts = ds.SessionOptions(device=device, allow_soft_placement=False)
            accepted = [n for n, (_, v) in factory_verdicts(opts).items() if v.accepted]
            assert accepted == ["DIRECT_SESSION"], device
        with ds.Session(options=ds.SessionOptions(device="")) as sess:
            assert sess.device.short_name == GPU0         # "" = the best local device
        verdict = factory_verdicts(ds.SessionOptions(device="gpu:2",
                                                     allow_soft_placement=False))
        assert "only 2 GPU(s) present" in verdict["DIRECT_SESSION"][1].reason
