"""If/While nodes in the machinery around them: the optimizer (no folding of control
flow, no merging of stateful control flow, fusion on either side), GraphDef round trips
(functions travel inside attrs), GPUs (the fake GPUs of tests/fake_gpu.py check every
value a function's kernels get; the gpu-marked test runs on a real one), and clusters
(captured tensors from other tasks)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import devsession as ds
from devsession.devices import gpu_devices
from devsession.graph_codec import FunctionAttr
from fake_gpu import fake_gpus
from sessions import local_cluster
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)


def op_types(session, fetches, feeds=()):
    fetches = fetches if isinstance(fetches, (list, tuple)) else [fetches]
    return [s.op_type for s in session._prepare(tuple(feeds), tuple(fetches), ()).plan.steps]


# --- optimizer -------------------------------------------------------------------------------

def test_control_flow_is_never_folded_even_on_constants():
    loop = ds.while_loop(lambda t: t < 4, lambda t: t * 2 + 1, [ds.constant(1)])
    pick = ds.cond(ds.constant(True), lambda: ds.constant(3.0), lambda: ds.constant(4.0))
    with ds.Session() as sess:
        assert int(sess.run(loop)) == 7 and float(sess.run(pick)) == 3.0
        assert {"StatelessWhile", "StatelessIf"} <= set(op_types(sess, [loop, pick]))


def test_identical_stateful_conds_both_run_and_stateless_ones_merge():
    x = ds.placeholder(ds.float32, (), name="x")
    counter = ds.Variable(0, name="counter")

    def bump():
        with ds.control_dependencies([ds.assign_add(counter, 1)]):
            return x + 1.0
    a = ds.cond(x > 0.0, bump, lambda: x)
    b = ds.cond(x > 0.0, bump, lambda: x)
    c = ds.cond(x > 0.0, lambda: x * 3.0, lambda: x)
    d = ds.cond(x > 0.0, lambda: x * 3.0, lambda: x)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        assert [float(v) for v in sess.run([a, b, c, d], {x: 2.0})] == [3.0, 3.0, 6.0, 6.0]
        assert int(sess.run(counter)) == 2
        types = op_types(sess, [a, b, c, d], [x])
        assert types.count("If") == 2 and types.count("StatelessIf") == 1


def test_elementwise_ops_on_either_side_fuse_but_never_across_the_if():
    x = ds.placeholder(ds.float32, (None,), name="x")
    before = ds.tanh(x * 2.0 + 1.0)
    y = ds.cond(ds.reduce_sum(x) > 0.0, lambda: before * before - 1.0, lambda: before + 0.5)
    after = ds.exp(y * 0.5) - 2.0
    xv = np.linspace(-1.0, 2.0, 7, dtype=np.float32)
    b = np.tanh(xv * 2 + 1)
    with ds.Session() as sess:
        np.testing.assert_allclose(sess.run(after, {x: xv}), np.exp((b * b - 1) * 0.5) - 2,
                                   rtol=1e-5)
        np.testing.assert_allclose(sess.run(after, {x: -xv}), np.exp((np.tanh(-xv * 2 + 1) + 0.5)
                                                                    * 0.5) - 2, rtol=1e-5)
        types = op_types(sess, after, [x])
        assert types.count("_FusedElementwise") == 2 and "StatelessIf" in types
        then_branch = sess._prepare((x,), (after,), ()).plan
        assert all(s.op_type != "_FusedElementwise" or "If" not in s.name
                   for s in then_branch.steps)


# --- GraphDef --------------------------------------------------------------------------------

def test_functions_survive_a_graph_def_round_trip():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (), name="x")
        v = ds.Variable(1.0, name="v")
        y = ds.cond(x > 0.0, lambda: v.assign_add(x), lambda: x * 2.0, name="y")
        _, z = ds.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * x), [0, 1.0], name="z")
    gd = g.as_graph_def()
    assert isinstance(y.op.attrs["then_branch"], FunctionAttr)
    assert {n.name: n for n in gd.node}["y"].attr["then_branch"].HasField("func")
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(gd.SerializeToString())
    assert imported.get_operation_by_name("y").attrs["then_branch"] == \
        y.op.attrs["then_branch"]
    with ds.Session(graph=imported) as sess:
        sess.run("v/Assign")
        assert float(sess.run("y:0", {"x:0": 2.0})) == 3.0
        assert float(sess.run("y:0", {"x:0": -2.0})) == -4.0
        assert float(sess.run("v:0")) == 3.0
        assert float(sess.run(z.name, {"x:0": 2.0})) == 8.0


# --- devices ---------------------------------------------------------------------------------

def test_on_a_fake_gpu_every_function_value_lives_where_its_kernel_runs():
    with fake_gpus(1) as gpus:
        x = ds.placeholder(ds.float32, (None,), name="x")
        with ds.device("gpu:0"):
            y = ds.cond(ds.reduce_sum(x) > 0.0, lambda: ds.exp(x), lambda: x * x, name="pick")
            _, total = ds.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + x),
                                     [0, x * 0.0],
                                     name="loop")
        with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
            xv = np.array([1.0, -0.5, 2.0], np.float32)
            got_y, got_total = sess.run([y, total], {x: xv})
            positive = list(gpus.calls)
            np.testing.assert_allclose(got_y, np.exp(xv), rtol=1e-6)
            np.testing.assert_allclose(got_total, 3 * xv, rtol=1e-6)
            np.testing.assert_allclose(sess.run(y, {x: -xv}), xv * xv, rtol=1e-6)
            negative = gpus.calls[len(positive):]
            assert type(got_y) is np.ndarray
            plan = sess._prepare((x,), (y, total), ()).plan
            steps = {s.name: s.device.short_name for s in plan.steps}
            assert steps["pick"] == "GPU:0" and steps["loop"] == "GPU:0"
    # The fake kernels record node names; those of the functions' bodies ran on the GPU as
    # often as the functions ran them: then-branch "Exp" once, the loop's condition "Less"
    # four times and its body ("add": i + 1, "add_1": s + x) three times; with x < 0 only
    # the else branch ("mul": x * x) runs, no loop (y alone is fetched).
    assert {device for _, device in gpus.calls} == {"GPU:0"}, gpus.calls
    ran = Counter(name for name, _ in positive)
    assert (ran["Exp"], ran["Less"], ran["add"], ran["add_1"]) == (1, 4, 3, 3), positive
    ran = Counter(name for name, _ in negative)
    assert ran["mul"] == 1 and not {"Exp", "Less", "add", "add_1"} & set(ran), negative


def test_the_cuda_kernels_run_control_flow_on_the_cupy_standin(standin):
    """kernels/cuda/ itself (its Const, transfers, variables) under the drivers."""
    x = ds.placeholder(ds.float32, (None,), name="x")
    with ds.device("gpu:0"):
        v = ds.Variable(np.zeros(3, np.float32), name="v")
        y = ds.cond(ds.reduce_sum(x) > 0.0, lambda: v.assign_add(ds.exp(x)), lambda: x * x)
        i, s = ds.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, ds.tanh(s) + x), [0, x])
        (grad,) = ds.gradients(ds.reduce_sum(s), x)
    xv = np.array([0.5, -0.25, 1.0], np.float32)
    want_s = xv.copy()
    for _ in range(4):
        want_s = np.tanh(want_s) + xv
    with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
        sess.run(ds.global_variables_initializer())
        got_y, got_s, got_i = sess.run([y, s, i], {x: xv})
        assert type(got_y) is np.ndarray and int(got_i) == 4
        np.testing.assert_allclose(got_y, np.exp(xv), rtol=1e-6)
        np.testing.assert_allclose(got_s, want_s, rtol=1e-5)
        np.testing.assert_allclose(sess.run(y, {x: -xv}), xv * xv, rtol=1e-6)
        np.testing.assert_allclose(sess.run(v), np.exp(xv), rtol=1e-6)
        plan = sess._prepare((x,), (y, s, i), ()).plan
        assert {st.device.short_name for st in plan.steps if st.name in ("cond", "while")} \
            == {"GPU:0"}
        dx = sess.run(grad, {x: xv})
    eps, numeric = 1e-3, []
    for k in range(3):
        def f(values):
            out = values.astype(np.float64)
            for _ in range(4):
                out = np.tanh(out) + values
            return out.sum()
        d = np.eye(3)[k] * eps
        numeric.append((f(xv + d) - f(xv - d)) / (2 * eps))
    np.testing.assert_allclose(dx, numeric, rtol=1e-3)


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_devices(), reason="no CUDA device")
def test_on_a_real_gpu_results_match_the_cpu():
    x = ds.placeholder(ds.float32, (None,), name="x")
    v = ds.Variable(np.zeros(3, np.float32), name="v")
    y = ds.cond(ds.reduce_sum(x) > 0.0, lambda: v.assign_add(ds.exp(x)), lambda: x * x)
    i, s = ds.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, ds.tanh(s) + x), [0, x])
    dy, ds_dx = ds.gradients(ds.reduce_sum(y), x)[0], ds.gradients(ds.reduce_sum(s), x)[0]
    xv = np.array([0.5, -0.25, 1.0], np.float32)
    results = {}
    for device in ("cpu", "gpu:0"):
        with ds.Session(options=ds.SessionOptions(device=device)) as sess:
            sess.run(ds.global_variables_initializer())
            results[device] = sess.run([y, s, ds_dx], {x: xv}) + [sess.run(dy, {x: -xv})]
    for a, b in zip(results["cpu"], results["gpu:0"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# --- clusters --------------------------------------------------------------------------------

def test_captured_tensors_come_from_other_tasks():
    servers = local_cluster()
    with ds.device("/job:worker/task:1"):
        a = ds.placeholder(ds.float32, (), name="a")
        scale = ds.exp(a, name="scale")                     # made on task 1
    with ds.device("/job:worker/task:0"):
        b = ds.placeholder(ds.float32, (), name="b")
        y = ds.cond(b > 0.0, lambda: scale * b, lambda: scale - b, name="choose")
        _, acc = ds.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + scale), [0, b])
    options = ds.SessionOptions(target=servers[0].target, device="cpu")
    ds.reset(options)
    sess = ds.new_session(options)
    sess.create(ds.get_default_graph())
    try:
        assert float(sess.run(y, {a: 0.0, b: 2.0})) == 2.0
        assert float(sess.run(y, {a: 0.0, b: -2.0})) == 3.0
        assert float(sess.run(acc, {a: 0.0, b: 1.0})) == 5.0
        meta = ds.RunMetadata()
        sess.run(y, {a: 0.0, b: 2.0}, options=ds.RunOptions(trace=True), run_metadata=meta)
        device_of = {s.node: s.device for s in meta.step_stats}
        assert "task:1" in device_of["scale"] and "task:0" in device_of["choose"]
    finally:
        sess.close()
