"""Tiered kernels (``runtime/tiered.py``): with ``kernel_compile="background"`` a plan's
first runs use the numpy reference kernels while numba compiles on a background thread,
then the compiled plan takes over; results and state are the same either way.

The conftest makes every other test compile eagerly; these ask for the tiers.  The
background compiles of one process share one worker thread, so the tests wait for
their own steps (``wait_compiled``).  What a fresh process does (cold caches, exit in
the middle of a compile) is checked in subprocesses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.kernels.registry import registered_ops
from devsession.runtime import tiered

WAIT_S = 240     # a cold compile on a slow, shared machine


@pytest.fixture(autouse=True)
def own_kernel_cache(tmp_path, monkeypatch):
    """Markers of compiled plans (and generated sources) in a folder of the test's own."""
    monkeypatch.setenv("DEVSESSION_CACHE_DIR", str(tmp_path / "kernels"))


def background_session(graph, **options):
    sess = ds.Session(graph=graph, options=ds.SessionOptions(
        device="cpu", kernel_compile="background", **options))
    return sess


def mlp_graph(dtype=ds.float32, x_shape=(None, 16)):
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(dtype, x_shape, name="x")
        w = ds.constant(np.linspace(-1, 1, 16 * 8).reshape(16, 8), dtype=dtype, name="w")
        h = ds.nn.relu(ds.matmul(x, w) + 0.25)
        y = ds.reduce_sum(ds.nn.softmax(h * 2.0 - 1.0), axis=1, name="y")
    return g, x, y


def numpy_mlp(x):
    w = np.linspace(-1, 1, 16 * 8).reshape(16, 8)
    z = np.maximum(x @ w + 0.25, 0) * 2.0 - 1.0
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).sum(axis=1)


def step_of(sess, feeds, fetches):
    return sess._prepare(tuple(feeds), tuple(fetches), ())


def test_first_run_uses_the_reference_tier_then_the_compiled_plan_takes_over():
    g, x, y = mlp_graph()
    data = np.linspace(-2, 2, 5 * 16, dtype=np.float32).reshape(5, 16)
    with background_session(g) as sess:
        first = sess.run(y, {x: data})
        step = step_of(sess, [x], [y])
        assert isinstance(step, tiered.TieredStep) and step.tier == "reference"
        assert {s.op_type for s in step.plan.steps}.isdisjoint({"_FusedElementwise"})
        np.testing.assert_allclose(first, numpy_mlp(data), rtol=1e-5)

        assert sess.wait_compiled(WAIT_S), step.compile_error
        assert step.tier == "compiled"
        cached = step_of(sess, [x], [y])
        assert not isinstance(cached, tiered.TieredStep)   # the session's cache holds it
        assert "_FusedElementwise" in {s.op_type for s in cached.plan.steps}
        np.testing.assert_allclose(sess.run(y, {x: data}), numpy_mlp(data), rtol=1e-5)


def test_a_compiled_plan_is_built_eagerly_by_the_next_session():
    g, x, y = mlp_graph(ds.float64)
    data = np.ones((3, 16))
    with background_session(g) as sess:
        sess.run(y, {x: data})
        assert sess.wait_compiled(WAIT_S)
    with background_session(g) as sess:
        assert not isinstance(step_of(sess, [x], [y]), tiered.TieredStep)
        np.testing.assert_allclose(sess.run(y, {x: data}), numpy_mlp(data))
    other, x2, y2 = mlp_graph(ds.float32)       # another dtype: another plan
    with background_session(other) as sess:
        assert isinstance(step_of(sess, [x2], [y2]), tiered.TieredStep)


def test_eager_sessions_compile_before_the_first_result(monkeypatch):
    g, x, y = mlp_graph()
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu",
                                                       kernel_compile="eager")) as sess:
        step = step_of(sess, [x], [y])
        assert not isinstance(step, tiered.TieredStep)
        assert "_FusedElementwise" in {s.op_type for s in step.plan.steps}
    monkeypatch.setenv("DEVSESSION_KERNEL_COMPILE", "background")
    assert ds.SessionOptions().kernel_compile == "background"
    monkeypatch.delenv("DEVSESSION_KERNEL_COMPILE")
    assert ds.SessionOptions().kernel_compile == "background"     # the default


@pytest.mark.parametrize("value", ["lazy", "", None])
def test_an_unknown_kernel_compile_mode_is_a_value_error(value, monkeypatch):
    with pytest.raises(ValueError, match="kernel_compile must be one of background, eager"):
        ds.SessionOptions(kernel_compile=value)
    monkeypatch.setenv("DEVSESSION_KERNEL_COMPILE", "sometimes")
    with pytest.raises(ValueError, match="DEVSESSION_KERNEL_COMPILE"):
        ds.SessionOptions()


def test_variables_carry_across_the_swap_and_training_matches_an_eager_session():
    def build():
        g = ds.Graph()
        with g.as_default():
            x = ds.placeholder(ds.float32, (None, 4), name="x")
            labels = ds.placeholder(ds.int32, (None,), name="labels")
            w = ds.Variable(np.linspace(-0.5, 0.5, 12).reshape(4, 3).astype(np.float32),
                            name="w")
            loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=ds.matmul(x, w)))
            train = ds.train.GradientDescentOptimizer(0.5).minimize(loss)
            count = ds.Variable(0, name="count")
            bump = ds.assign_add(count, 1)
            init = ds.global_variables_initializer()
        return g, x, labels, w, loss, train, bump, init

    rng = np.random.default_rng(7)
    data = rng.normal(size=(32, 4)).astype(np.float32)
    targets = rng.integers(0, 3, size=32).astype(np.int32)
    runs = []
    for mode in ("background", "eager"):
        g, x, labels, w, loss, train, bump, init = build()
        with ds.Session(graph=g, options=ds.SessionOptions(device="cpu",
                                                           kernel_compile=mode)) as sess:
            sess.run(init)
            losses, counts = [], []
            for i in range(6):
                if i == 2 and mode == "background":
                    assert sess.wait_compiled(WAIT_S)     # steps 0-1 on the reference tier
                losses.append(sess.run([loss, train], {x: data, labels: targets})[0])
                counts.append(sess.run(bump))
            runs.append((losses, counts, sess.run(w)))
    (bg_losses, bg_counts, bg_w), (eager_losses, eager_counts, eager_w) = runs
    assert bg_counts == eager_counts == [1, 2, 3, 4, 5, 6]
    np.testing.assert_allclose(bg_losses, eager_losses, rtol=1e-5)
    np.testing.assert_allclose(bg_w, eager_w, rtol=1e-5, atol=1e-6)


def test_cluster_partitions_start_on_the_reference_tier_and_train_as_eager_ones(monkeypatch):
    """A worker takes ``$DEVSESSION_KERNEL_COMPILE`` for the partitions it is given: a
    fresh worker's first step ran its partition's numba compiles on the serving thread
    (2.6 s for a small MLP on cold caches, 20 s for bigger graphs).  With "background"
    the first steps run the reference kernels (nothing fused), the compiled plans take
    over, and training matches eager workers."""
    from devsession.distributed.local_processes import free_ports

    rng = np.random.default_rng(3)
    data = rng.normal(size=(32, 6)).astype(np.float32)
    targets = rng.integers(0, 3, size=32).astype(np.int32)
    runs = {}
    for mode in ("background", "eager"):
        monkeypatch.setenv("DEVSESSION_KERNEL_COMPILE", mode)
        ports = free_ports(2)
        spec = ds.ClusterSpec({"ps": [f"127.0.0.1:{ports[0]}"],
                               "worker": [f"127.0.0.1:{ports[1]}"]})
        servers = [ds.Server(spec, job_name="ps", task_index=0),
                   ds.Server(spec, job_name="worker", task_index=0)]
        try:
            g = ds.Graph()
            with g.as_default(), ds.device(ds.train.replica_device_setter(cluster=spec)):
                x = ds.placeholder(ds.float32, (None, 6), name="x")
                labels = ds.placeholder(ds.int32, (None,), name="labels")
                w = ds.Variable(np.linspace(-0.5, 0.5, 18).reshape(6, 3).astype(np.float32))
                hidden = ds.nn.relu(ds.matmul(x, w) * 2.0 + 0.1)
                loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=labels, logits=hidden))
                train = ds.train.AdamOptimizer(0.1).minimize(loss)
                init = ds.global_variables_initializer()
            with ds.Session(servers[1].target, graph=g) as sess:
                sess.run(init)
                losses, fused = [], []
                for i in range(6):
                    if i == 2 and mode == "background":     # steps 0-1 on the reference tier
                        for server in servers:
                            for registered in list(server.worker._graphs.values()):
                                if isinstance(registered.step, tiered.TieredStep):
                                    assert registered.step.settled.wait(WAIT_S)
                                    assert registered.step.tier == "compiled"
                    metadata = ds.RunMetadata()
                    losses.append(sess.run([loss, train], {x: data, labels: targets},
                                           options=ds.RunOptions(trace=True),
                                           run_metadata=metadata)[0])
                    fused.append(any(s.kernel for s in metadata.step_stats))
                runs[mode] = losses, fused, sess.run(w)
        finally:
            for server in servers:
                server.stop(grace=0)
    (bg_losses, bg_fused, bg_w), (eager_losses, eager_fused, eager_w) = \
        runs["background"], runs["eager"]
    assert bg_fused == [False, False, True, True, True, True]
    assert eager_fused == [True] * 6
    np.testing.assert_allclose(bg_losses, eager_losses, rtol=1e-5)
    np.testing.assert_allclose(bg_w, eager_w, rtol=1e-5, atol=1e-6)
    assert bg_losses[-1] < bg_losses[0]


def test_a_callable_made_before_the_swap_runs_the_compiled_plan_after_it():
    g, x, y = mlp_graph()
    data = np.linspace(-1, 1, 4 * 16, dtype=np.float32).reshape(4, 16)
    with background_session(g) as sess:
        fn = sess.make_callable(y, [x], accept_options=True)

        def fused_kernels():
            metadata = ds.RunMetadata()
            out = fn(data, options=ds.RunOptions(trace=True), run_metadata=metadata)
            np.testing.assert_allclose(out, numpy_mlp(data), rtol=1e-5)
            return {s.kernel for s in metadata.step_stats if s.kernel}

        assert fused_kernels() == set()                 # reference tier: nothing fused
        assert sess.wait_compiled(WAIT_S)
        assert fused_kernels()                          # the fused kernels ran


def test_a_bad_feed_on_the_reference_tier_is_the_same_error_as_compiled():
    g, x, y = mlp_graph(x_shape=(None, None))      # only the kernel can tell
    for mode in ("background", "eager"):
        with ds.Session(graph=g, options=ds.SessionOptions(device="cpu",
                                                           kernel_compile=mode)) as sess:
            with pytest.raises(InvalidArgumentError, match="MatMul"):
                sess.run(y, {x: np.ones((2, 16), np.float32)[:, :5]})
            good = np.ones((2, 16), np.float32)
            np.testing.assert_allclose(sess.run(y, {x: good}), numpy_mlp(good), rtol=1e-5)
            assert sess.wait_compiled(WAIT_S)


def test_wait_compiled_times_out_and_ignores_plans_never_run():
    g, x, y = mlp_graph()
    with background_session(g) as sess:
        sess.make_callable(y, [x])                      # built, never run: nothing to wait for
        assert sess.wait_compiled(0)


def test_the_cpu_has_a_kernel_for_exactly_the_reference_ops():
    # Placement asks the reference registry about the CPU (direct_session._has_kernel);
    # the optimizer's own ops (only the compiled tier optimizes) are never placed.
    from devsession.ops.linalg import MATMUL_BIAS, MATMUL_RELU_GRAD
    from devsession.ops.nn_conv import CONV2D_BIAS, MAX_POOL_RELU_GRAD
    from devsession.ops.training import MATMUL_ADAM, MATMUL_GRADIENT_DESCENT

    assert registered_ops("CPU") == registered_ops("REF") | {
        "_FusedElementwise", MATMUL_GRADIENT_DESCENT, MATMUL_ADAM, MAX_POOL_RELU_GRAD,
        CONV2D_BIAS, MATMUL_BIAS, MATMUL_RELU_GRAD}


def test_stand_ins_keep_small_values_and_the_layout_of_big_ones():
    small = np.arange(6, dtype=np.int32)
    small.flags.writeable = False                   # a constant: numba types it apart
    kept = tiered._stand_in(small)
    assert kept is not small and np.array_equal(kept, small) and not kept.flags.writeable
    big = np.ones((100, 100), np.float32)     # a strided half still has 5000 elements
    for value, c, f in ((big, True, False), (np.asfortranarray(big), False, True),
                        (big[:, ::2], False, False)):
        made = tiered._stand_in(value).make()
        assert made.shape == value.shape and made.dtype == value.dtype
        assert (made.flags.c_contiguous, made.flags.f_contiguous) == (c, f)
        assert not made.any() and made.flags.writeable
    big.flags.writeable = False
    assert not tiered._stand_in(big).make().flags.writeable


def run_script(source: str, cache_dir) -> dict:
    env = dict(os.environ, DEVSESSION_CACHE_DIR=str(cache_dir), NUMBA_CACHE_DIR=str(cache_dir),
               DEVSESSION_KERNEL_COMPILE="background")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(source)], env=env,
                          capture_output=True, text=True, timeout=WAIT_S, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


GRAPH_SCRIPT = """
    import json
    import numpy as np
    import devsession as ds
    from devsession.kernels import background_compile
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 16), name="x")
        w = ds.constant(np.linspace(-1, 1, 16 * 8).reshape(16, 8), dtype=ds.float32)
        y = ds.reduce_sum(ds.nn.softmax(ds.nn.relu(ds.matmul(x, w) + 0.25) * 2.0 - 1.0), 1)
    data = np.linspace(-2, 2, 5 * 16, dtype=np.float32).reshape(5, 16)
    sess = ds.Session(graph=g, options=ds.SessionOptions(device="cpu"))
    out = sess.run(y, {x: data})
"""


def test_a_fresh_process_exits_cleanly_in_the_middle_of_the_background_compile(tmp_path):
    report = run_script(GRAPH_SCRIPT + """
    print(json.dumps({"out": out.tolist(),
                      "compiling": background_compile.worker_thread().is_alive()}))
    """, tmp_path)
    assert report["compiling"]          # the exit came while the worker was busy
    data = np.linspace(-2, 2, 5 * 16, dtype=np.float32).reshape(5, 16)
    np.testing.assert_allclose(report["out"], numpy_mlp(data), rtol=1e-5)


def test_warming_compiles_every_kernel_the_compiled_runs_need(tmp_path):
    # In a fresh process (nothing compiled yet): after the swap, running the compiled
    # plan compiles nothing more with numba.
    report = run_script(GRAPH_SCRIPT + """
    assert sess.wait_compiled(600)
    import numba.core.event as event
    compiles = []
    class Count(event.Listener):
        def on_start(self, e): compiles.append(e.data["dispatcher"])
        def on_end(self, e): pass
    with event.install_listener("numba:compile", Count()):
        again = sess.run(y, {x: data})
    print(json.dumps({"compiles": [str(d) for d in compiles],
                      "same": bool(np.allclose(out, again, rtol=1e-5))}))
    """, tmp_path)
    assert report["compiles"] == [] and report["same"]


def test_the_exit_cancels_a_compile_in_flight(tmp_path):
    report = run_script("""
    import json, threading
    from devsession.kernels import background_compile as bc
    started, go, seen = threading.Event(), threading.Event(), {}
    def job(cancelled):
        from numba import njit
        @njit
        def add_one(v):
            return v + 1
        started.set()
        go.wait(60)
        try:
            seen["result"] = add_one(1)
        except BaseException as e:
            seen["result"] = type(e).__name__
            raise
    assert bc.submit(job)
    started.wait(60)
    stopper = threading.Thread(target=bc.shutdown)
    stopper.start()
    while not bc._stop.is_set():
        pass
    go.set()
    stopper.join(60)
    print(json.dumps({"result": seen.get("result"), "alive": bc.worker_thread().is_alive(),
                      "refused": not bc.submit(job)}))
    """, tmp_path)
    assert report == {"result": "CompileCancelled", "alive": False, "refused": True}


def test_warming_an_optimizer_leaves_the_variables_alone_and_compiles_its_update(tmp_path):
    # Adam's update (and the initializer's Assign) write variables: warming runs them on
    # zero-filled copies.  Three steps on the reference tier, then the swap, leave the
    # weights of three eager steps (warming against the session's own variables would
    # re-run the initializer and one step); the next step compiles nothing and matches.
    report = run_script("""
    import json
    import numpy as np
    import numba.core.event as event
    import devsession as ds

    def train(mode):
        g = ds.Graph()
        with g.as_default():
            x = ds.placeholder(ds.float32, (None, 6), name="x")
            w = ds.Variable(np.linspace(-1, 1, 18).reshape(6, 3).astype(np.float32))
            loss = ds.reduce_mean(ds.square(ds.matmul(x, w) - 1.0))
            train = ds.train.AdamOptimizer(0.1).minimize(loss)
        data = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
        sess = ds.Session(graph=g, options=ds.SessionOptions(device="cpu",
                                                             kernel_compile=mode))
        sess.run(ds.variables_initializer(g.get_collection("variables")))
        for _ in range(3):
            sess.run(train, {x: data})
        assert sess.wait_compiled(600)
        after_three = sess.run(w)
        compiles = []
        class Count(event.Listener):
            def on_start(self, e): compiles.append(str(e.data["dispatcher"]))
            def on_end(self, e): pass
        with event.install_listener("numba:compile", Count()):
            sess.run(train, {x: data})
        return after_three, sess.run(w), compiles

    three_bg, four_bg, compiles = train("background")
    three_eager, four_eager, _ = train("eager")
    print(json.dumps({"compiles": compiles,
                      "three": bool(np.allclose(three_bg, three_eager, rtol=1e-5)),
                      "four": bool(np.allclose(four_bg, four_eager, rtol=1e-5))}))
    """, tmp_path)
    assert report == {"compiles": [], "three": True, "four": True}


def test_big_random_draws_take_the_cpus_compiled_draws_on_the_reference_tier(monkeypatch):
    from devsession.kernels.cpu import philox
    from devsession.kernels.reference import stateless_random

    g = ds.Graph()
    with g.as_default():
        big = ds.random_normal([256, tiered.BIG_DRAW // 256], seed=3)
        small = ds.truncated_normal([tiered.BIG_DRAW - 1], seed=3)
        unknown = ds.random_uniform(ds.placeholder_with_default([4, 4], [2]), seed=3)
        samplers = [ds.random_poisson(2.0, [n], seed=3).op for n in (tiered.BIG_SAMPLE,
                                                                     tiered.BIG_SAMPLE - 1)]
    assert tiered.big_draw(big.op) and tiered.big_draw(samplers[0])
    assert not tiered.big_draw(small.op) and not tiered.big_draw(unknown.op)
    assert samplers[1].type == "RandomPoissonV2" and not tiered.big_draw(samplers[1])
    philox._agrees()                   # (checks its draws against the reference's once)
    drawn = []
    for module in (philox, stateless_random):
        for name in ("normal", "truncated_normal", "uniform"):
            draw = getattr(module, name)
            monkeypatch.setattr(module, name, lambda *a, _draw=draw, _where=module.__name__,
                                **k: drawn.append((_where.rsplit(".", 2)[-2], a[2]))
                                or _draw(*a, **k))
    with background_session(g) as sess:
        first = sess.run([big, small, unknown])
        during_first_run = set(drawn)    # (the compiled tier, warming, may draw on after)
        assert step_of(sess, [], [big, small, unknown]).tier == "reference"
    assert {("cpu", tiered.BIG_DRAW), ("reference", 16),
            ("reference", tiered.BIG_DRAW - 1)} <= during_first_run
    assert ("reference", tiered.BIG_DRAW) not in during_first_run
    with ds.Session(graph=g, options=ds.SessionOptions(kernel_compile="eager")) as sess:
        for got, want in zip(first, sess.run([big, small, unknown])):
            np.testing.assert_array_equal(got, want)


def test_big_binomial_and_truncated_normal_draws_take_the_cpus_samplers_on_the_reference_tier(
        monkeypatch):
    # the reference samples these in Python (20-80 us a sample): 8 s for 100000 binomials
    from devsession.kernels.cpu import philox_rates, philox_truncated
    from devsession.kernels.reference import stateless_random_rates

    g = ds.Graph()
    with g.as_default():
        seed = ds.placeholder(ds.int32, [2])
        n = tiered.BIG_SAMPLE
        generator = ds.random.Generator.from_seed(1)
        draws = [ds.random.stateless_binomial([n], seed, 20.0, 0.4),
                 ds.random.stateless_parameterized_truncated_normal([n], seed),
                 generator.binomial([n], 20.0, 0.4),
                 ds.random.stateless_binomial([n - 1], seed, 20.0, 0.4)]
    assert [tiered.big_draw(d.op) for d in draws] == [True, True, True, False]
    philox_rates._agrees(), philox_truncated._agrees()      # (their checks call the reference)
    drawn = []
    for module, name in ((philox_rates, "binomial_samples"),
                         (philox_truncated, "truncated_normal_samples"),
                         (stateless_random_rates, "binomial_samples"),
                         (stateless_random_rates, "truncated_normal_samples")):
        monkeypatch.setattr(module, name, lambda *a, _draw=getattr(module, name),
                            _where=module.__name__.rsplit(".", 2)[-2]:
                            drawn.append((_where, a[-2])) or _draw(*a))
    with background_session(g) as sess:
        sess.run(generator.state.initializer)
        sess.run(draws, {seed: [1, 2]})
        during_first_run = set(drawn)    # (the compiled tier, warming, may draw on after)
        assert step_of(sess, [seed], draws).tier == "reference"
    assert during_first_run >= {("cpu", n), ("reference", n - 1)}
    assert ("reference", n) not in during_first_run
