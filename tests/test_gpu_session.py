"""Sessions on a real GPU: the same results as the CPU, data kept on the device, mixed
graphs, the memory cap, memory freed on close, GPU:1, threads.

Skipped with "no CUDA device" where there is none (CI); ``ci/gpu-check`` runs them.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from concurrency import run_in_threads
from devsession.devices import gpu_devices, local_device_name
from devsession.errors import ResourceExhaustedError

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not gpu_devices(), reason="no CUDA device")]

HOST, GPU0 = "CPU:0", "GPU:0"


def session(device="gpu:0", graph=None, **options):
    return ds.Session(graph=graph, options=ds.SessionOptions(device=device, **options))


def only_plan(sess):
    plans = list(sess._steps.values())
    assert len(plans) == 1
    return plans[0].plan


def mlp(batch=64, sizes=(784, 512, 10), seed=0):
    rng = np.random.default_rng(seed)
    x = ds.placeholder(ds.float32, (None, sizes[0]), name="x")
    h = x
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = (rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)
        h = ds.matmul(h, ds.constant(w)) + ds.constant(rng.standard_normal(b)
                                                       .astype(np.float32))
        h = ds.nn.relu(h) if i < len(sizes) - 2 else ds.nn.softmax(h, name="probs")
    return x, h, rng.standard_normal((batch, sizes[0])).astype(np.float32)


def test_same_results_as_the_cpu_and_data_stays_on_the_gpu():
    x, probs, xv = mlp()
    am = ds.argmax(probs, axis=1)
    with session("cpu") as cpu_sess:
        want = cpu_sess.run([probs, am], {x: xv})
    with session("gpu:0") as sess:
        metadata = ds.RunMetadata()
        got = sess.run([probs, am], {x: xv}, options=ds.RunOptions(trace=True),
                       run_metadata=metadata)
        plan = only_plan(sess)
        assert set(sess.placement().values()) <= {local_device_name("GPU", 0)}
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(got[1], want[1])
    assert all(type(v) is np.ndarray for v in got)
    moved = [(s.name, s.device) for s in plan.steps if s.op_type == "_Transfer"]
    assert sorted(d for _, d in moved) == [HOST, HOST, GPU0]   # x in; probs, argmax out
    assert {st.device for st in metadata.step_stats if st.op != "_Transfer"} == {GPU0}


def test_mixed_graph_on_cpu_and_gpu():
    x = ds.placeholder(ds.float32, (None, 8), name="x")
    with ds.device("gpu:0"):
        h = ds.nn.tanh(ds.matmul(x, ds.constant(np.eye(8, dtype=np.float32) * 0.5)))
    s = ds.reduce_sum(h, axis=1, keepdims=True)        # on the CPU
    with ds.device("gpu:0"):
        z = ds.nn.softmax(h * s)
    xv = np.random.default_rng(1).standard_normal((16, 8)).astype(np.float32)
    hv = np.tanh(xv * 0.5)
    t = hv * hv.sum(axis=1, keepdims=True)
    e = np.exp(t - t.max(axis=1, keepdims=True))
    with session("cpu") as sess:
        np.testing.assert_allclose(sess.run(z, {x: xv}), e / e.sum(axis=1, keepdims=True),
                                   rtol=1e-5, atol=1e-6)
        plan = only_plan(sess)
    devices = {st.name: st.device for st in plan.steps if st.op_type != "_Transfer"}
    assert devices[s.op.name] == HOST and devices[z.op.name] == GPU0
    assert len([st for st in plan.steps if st.op_type == "_Transfer"]) == 4


def test_cupy_feeds_are_used_without_a_copy_and_large_copies_are_exact():
    import cupy

    x = ds.placeholder(ds.float32, (None,), name="x")
    y = x * 2.0
    big = np.random.default_rng(2).standard_normal(6_000_000).astype(np.float32)  # 24 MB
    with session("gpu:0") as sess:
        np.testing.assert_array_equal(sess.run(y, {x: big}), big * 2)   # pinned both ways
        np.testing.assert_array_equal(sess.run(y, {x: cupy.asarray(big)}), big * 2)
        odd = big[:1_000_003]
        np.testing.assert_array_equal(sess.run(x, {x: odd}), odd)
        np.testing.assert_array_equal(sess.run(y, {x: big[::2]}), big[::2] * 2)


def test_variables_random_and_assign_on_the_gpu():
    def run_on(device):
        graph = ds.Graph()
        with graph.as_default(), ds.device(device):
            v = ds.Variable(np.arange(4, dtype=np.float32), name="v")
            step = v.assign_add(ds.random_uniform((4,), seed=3))
            init = ds.global_variables_initializer()
        with session("cpu", graph=graph) as sess:
            sess.run(init)
            values = [sess.run(step) for _ in range(3)]
            placed = sess.placement()[step.op.name]
        return values, placed

    on_cpu, placed_cpu = run_on("cpu:0")
    on_gpu, placed_gpu = run_on("gpu:0")
    np.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-6)
    assert placed_gpu == local_device_name("GPU", 0)
    assert placed_cpu == local_device_name("CPU", 0)


def test_memory_cap_raises_resource_exhausted_then_the_session_goes_on():
    a = ds.placeholder(ds.float32, (None, 1), name="a")
    b = ds.placeholder(ds.float32, (1, None), name="b")
    with ds.device("gpu:0"):
        outer = ds.multiply(a, b, name="outer")
    with session("gpu:0", gpu_memory_limit_bytes=256 << 20) as sess:
        gpu = [d for d in sess.list_devices() if d.device_type == "GPU"][0]
        assert gpu.memory_limit == 256 << 20
        big = np.ones((20_000, 1), np.float32)
        with pytest.raises(ResourceExhaustedError) as info:
            sess.run(outer, {a: big, b: big.T})
        assert info.value.node_name == "outer"
        assert "1,600,000,000 bytes" in str(info.value) and "GPU:0" in str(info.value)
        del info
        small = np.ones((100, 1), np.float32)
        np.testing.assert_array_equal(sess.run(outer, {a: small, b: small.T}),
                                      np.ones((100, 100), np.float32))


def test_closing_a_session_frees_its_device_memory():
    import cupy

    from devsession.kernels.cuda import memory as cuda_memory

    pool = cupy.get_default_memory_pool()
    cupy.cuda.Device(0).synchronize()
    before = cuda_memory.pool_stats(0)
    with ds.device("gpu:0"):
        v = ds.Variable(np.zeros((64, 1024, 1024), np.float32), name="big")   # 256 MiB
        c = ds.constant(np.ones((1024, 1024), np.float32))                   # 4 MiB
        total = ds.reduce_max(v + c)
    sess = session("gpu:0")
    sess.run(v.initializer)
    assert float(sess.run(total)) == 1.0
    assert pool.used_bytes() >= before["used_bytes"] + (256 << 20)
    sess.close()
    after = cuda_memory.pool_stats(0)
    assert after["used_bytes"] <= before["used_bytes"] + (1 << 20)
    assert after["total_bytes"] <= before["total_bytes"] + (1 << 20)


@pytest.mark.skipif(len(gpu_devices()) < 2, reason="needs two CUDA devices")
def test_second_gpu():
    x = ds.placeholder(ds.float32, (None,), name="x")
    with ds.device("gpu:0"):
        a = ds.exp(x)
    with ds.device("gpu:1"):
        b = a * 3.0
    xv = np.linspace(-1, 1, 1001, dtype=np.float32)
    with session("gpu:1") as sess:
        np.testing.assert_allclose(sess.run(b, {x: xv}), np.exp(xv) * 3, rtol=1e-6)
        assert sess.placement()[b.op.name] == local_device_name("GPU", 1)


def test_eight_threads_share_a_gpu_session():
    x, probs, xv = mlp(batch=32)
    with session("cpu") as cpu:
        want = cpu.run(probs, {x: xv})
    with session("gpu:0") as sess:
        step = sess.make_callable(probs, feed_list=[x])

        def work(thread):
            for _ in range(10):
                np.testing.assert_allclose(step(xv), want, rtol=1e-4, atol=1e-6)

        run_in_threads(work, 8, together=True)


def test_log_device_placement_and_the_default_device(caplog):
    import logging

    x, probs, xv = mlp(batch=4)
    with caplog.at_level(logging.INFO, logger="devsession.placement"):
        with session("", log_device_placement=True) as sess:        # "" = GPU:0 here
            sess.run(probs, {x: xv})
    logged = [r.getMessage() for r in caplog.records if r.name == "devsession.placement"]
    assert any(m.startswith("probs: ") and m.endswith("device:GPU:0") for m in logged)
