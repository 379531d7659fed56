"""The Session contract of API.md, run against every session type (``make_session``)."""

from __future__ import annotations

import collections
import json

import numpy as np
import pytest

import devsession as ds
from concurrency import ended_by, run_in_threads


@pytest.fixture
def add_graph():
    g = ds.Graph()
    with g.as_default():
        a = ds.placeholder(ds.float32, (None,), name="a")
        b = ds.placeholder(ds.float32, (None,), name="b")
        c = ds.add(a, b, name="c")
    return g, a, b, c


@pytest.fixture
def int32_graph():
    g = ds.Graph()
    with g.as_default():
        n = ds.placeholder(ds.int32, (None,), name="n")
        m = n + 1
    return g, n, m


A = np.array([1.0, 2.0, 3.0], np.float32)
B = np.array([10.0, 20.0, 30.0], np.float32)


# --- fetch structures --------------------------------------------------------------------

def test_fetch_single_tensor(make_session, add_graph):
    g, a, b, c = add_graph
    sess = make_session(g)
    out = sess.run(c, {a: A, b: B})
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    np.testing.assert_array_equal(out, A + B)


def test_fetch_by_name_and_op(make_session, add_graph):
    g, a, b, c = add_graph
    sess = make_session(g)
    np.testing.assert_array_equal(sess.run("c:0", {"a:0": A, "b:0": B}), A + B)
    assert sess.run("c", {a: A, b: B}) is None
    assert sess.run(c.op, {a: A, b: B}) is None


def test_fetch_nested_structures(make_session, add_graph):
    g, a, b, c = add_graph
    Pair = collections.namedtuple("Pair", "x y")
    sess = make_session(g)
    out = sess.run({"sum": c, "list": [a, (b, c.op)], "pair": Pair(c, "a:0")}, {a: A, b: B})
    assert set(out) == {"sum", "list", "pair"}
    np.testing.assert_array_equal(out["sum"], A + B)
    assert isinstance(out["list"], list) and isinstance(out["list"][1], tuple)
    np.testing.assert_array_equal(out["list"][0], A)
    np.testing.assert_array_equal(out["list"][1][0], B)
    assert out["list"][1][1] is None
    assert isinstance(out["pair"], Pair)
    np.testing.assert_array_equal(out["pair"].y, A)


def test_empty_fetches_come_back_empty(make_session, add_graph):
    g, *_ = add_graph
    sess = make_session(g)
    assert sess.run([]) == []
    assert sess.run(()) == ()
    assert sess.run({}) == {}


def test_same_tensor_fetched_twice_gives_separate_arrays(make_session, add_graph):
    g, a, b, c = add_graph
    sess = make_session(g)
    x, y = sess.run([c, c], {a: A, b: B})
    np.testing.assert_array_equal(x, y)
    x[0] = -1
    assert y[0] == A[0] + B[0]


def test_fetched_arrays_are_the_callers_own(make_session):
    g = ds.Graph()
    with g.as_default():
        k = ds.constant([1.0, 2.0], name="k")
        r = ds.reshape(k, [2, 1])
        v = ds.Variable([5.0, 6.0], name="v")
        x = ds.placeholder(ds.float32, (2,), name="x")
        # A Cast to its own dtype, as imported GraphDefs have: the CPU kernel's view.
        same = {"SrcT": ds.float32, "DstT": ds.float32}
        cast_v = g.create_op("Cast", [v.value()], same, name="cast_v").outputs[0]
        cast_x = g.create_op("Cast", [x], same, name="cast_x").outputs[0]
        init = ds.global_variables_initializer()
    sess = make_session(g)
    sess.run(init)
    for fetch in (k, r, v, cast_v):
        first = sess.run(fetch)
        first[...] = 0
        assert sess.run(fetch).sum() > 0
    fed = np.array([1.0, 2.0], np.float32)
    for fetch, feed in ((k, k), (cast_x, x)):
        out = sess.run(fetch, {feed: fed})
        out[0] = 9
        assert fed[0] == 1.0


# --- feeds --------------------------------------------------------------------------------

def test_feed_python_lists_and_scalars(make_session):
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float64, (), name="x")
        y = x * 2.0
        n = ds.placeholder(ds.int32, (2,), name="n")
    sess = make_session(g)
    assert sess.run(y, {x: 1.5}) == 3.0
    assert sess.run(y, {"x": 2}).dtype == np.float64
    np.testing.assert_array_equal(sess.run(n, {n: [1, 2]}), [1, 2])


def test_prevented_feeds_and_fetches_and_another_graphs_feed_key(make_session):
    """As TF's: feeding a tensor the graph prevents feeding is a ValueError ("may not be
    fed"), fetching a prevented op a ValueError, and a feed key of another graph a
    TypeError ("Cannot interpret feed_dict key as Tensor")."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (), name="x")
        y = x * 2.0
        z = y + 1.0
        hidden = z * 3.0
    g.prevent_feeding(y)
    g.prevent_fetching(hidden.op)
    sess = make_session(g)
    assert sess.run(z, {x: 1.0}) == 3.0
    with pytest.raises(ValueError, match="may not be fed"):
        sess.run(z, {y: 5.0})
    assert sess.run(z, {x: 1.0, z.op.inputs[1]: 2.0}) == 4.0     # others still can be
    with pytest.raises(ValueError, match="not fetchable"):
        sess.run(hidden, {x: 1.0})
    with pytest.raises(ValueError, match="not fetchable"):
        sess.run([z, hidden.op], {x: 1.0})
    with ds.Graph().as_default():
        stranger = ds.placeholder(ds.float32, (), name="x")
    with pytest.raises(TypeError, match=r"^Cannot interpret feed_dict key as Tensor: .*'x:0'"
                                        r".* is not an element of this graph"):
        sess.run(z, {stranger: 1.0})


def test_any_tensor_can_be_fed(make_session):
    g = ds.Graph()
    with g.as_default():
        a = ds.constant([1.0, 2.0])
        b = a * 10.0
        c = b + 1.0
    sess = make_session(g)
    np.testing.assert_array_equal(sess.run(c), [11.0, 21.0])
    np.testing.assert_array_equal(sess.run(c, {b: np.array([0.0, 1.0], np.float32)}), [1.0, 2.0])


def test_wrong_feed_shape_is_value_error(make_session, add_graph):
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 2), name="x")
        y = x + 1.0
    sess = make_session(g)
    with pytest.raises(ValueError, match=r"shape \(3,\).*'x:0'"):
        sess.run(y, {x: np.zeros(3, np.float32)})
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        sess.run(y, {x: np.zeros((2, 3), np.float32)})
    np.testing.assert_array_equal(sess.run(y, {x: np.zeros((1, 2), np.float32)}), [[1, 1]])


def test_wrong_feed_dtype_is_value_error(make_session, int32_graph):
    g, n, m = int32_graph
    sess = make_session(g)
    with pytest.raises(ValueError, match="float64.*'n:0'.*int32"):
        sess.run(m, {n: np.array([1.5, 2.5])})
    with pytest.raises(ValueError):
        sess.run(m, {n: np.array(["a", "b"])})
    np.testing.assert_array_equal(sess.run(m, {n: np.array([1, 2], np.int64)}), [2, 3])


def test_unknown_fetch_and_feed_names(make_session, add_graph):
    g, a, b, c = add_graph
    sess = make_session(g)
    with pytest.raises(ValueError, match="nope:0"):
        sess.run("nope:0")
    with pytest.raises(ValueError, match="Did you mean 'c'"):
        sess.run("cc:0", {a: A, b: B})
    with pytest.raises(TypeError, match="missing:0"):     # a feed key: TypeError, as TF's
        sess.run(c, {"missing:0": A, b: B})
    with pytest.raises(TypeError):
        sess.run(3.5)


def test_unfed_placeholder_names_it(make_session, add_graph):
    g, a, b, c = add_graph
    sess = make_session(g)
    with pytest.raises(ds.errors.InvalidArgumentError, match="placeholder tensor 'b'") as info:
        sess.run(c, {a: A})
    assert info.value.node_name == "b"
    np.testing.assert_array_equal(sess.run(c, {a: A, b: B}), A + B)  # still usable


def test_runtime_shape_error_names_node_and_session_survives(make_session):
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        y = ds.placeholder(ds.float32, (None,), name="y")
        z = ds.add(x, y, name="z")
    sess = make_session(g)
    with pytest.raises(ds.errors.InvalidArgumentError) as info:
        sess.run(z, {x: np.ones(3, np.float32), y: np.ones(4, np.float32)})
    assert info.value.node_name == "z"
    assert "z" in str(info.value)
    np.testing.assert_array_equal(sess.run(z, {x: [1.0], y: [2.0]}), [3.0])


def test_a_run_error_carries_the_op_at_fault_as_tfs(make_session):
    """TF1 code reads ``e.op.name`` (and ``e.node_def``, ``e.error_code``) of the error a
    NaN raises; through run, a callable (its fast path too) and a partial run."""
    g = ds.Graph()
    with g.as_default():
        p = ds.placeholder(ds.float32, (None,), name="p")
        checked = ds.debugging.check_numerics(ds.log(p), "log of p", name="checked")
    sess = make_session(g)
    runs = [lambda: sess.run(checked, {p: [-1.0]}),
            lambda: sess.make_callable(checked, [p])([-1.0]),
            lambda: sess.make_callable(checked, [p])([-1.0], options=ds.RunOptions()),
            lambda: sess.partial_run(sess.partial_run_setup([checked], [p]), checked,
                                     {p: [-1.0]})]
    for run in runs:
        with pytest.raises(ds.errors.InvalidArgumentError, match="log of p") as info:
            run()
        error = info.value
        assert error.op is checked.op and error.node_name == "checked"
        assert error.node_def.name == "checked" and error.error_code == error.code == 3
    assert ds.errors.UnknownError("no node").op is None
    assert ds.errors.UnknownError("no node").node_def is None


# --- variables ------------------------------------------------------------------------------

def test_variables_initialize_assign_and_read(make_session):
    g = ds.Graph()
    with g.as_default():
        v = ds.Variable(np.array([1.0, 2.0], np.float32), name="v")
        w = ds.Variable(3, name="w")
        total = ds.reduce_sum(v) * ds.cast(w, ds.float32)
        assign = v.assign([10.0, 20.0])
        bump = v.assign_add([1.0, 1.0])
        init = ds.global_variables_initializer()
    sess = make_session(g)
    with pytest.raises(ds.errors.FailedPreconditionError, match="uninitialized value v") as info:
        sess.run(total)
    assert info.value.node_name is not None
    sess.run(init)
    assert sess.run(total) == pytest.approx(9.0)
    np.testing.assert_array_equal(sess.run(assign), [10.0, 20.0])
    np.testing.assert_array_equal(sess.run(bump), [11.0, 21.0])
    np.testing.assert_array_equal(sess.run(v), [11.0, 21.0])
    assert sess.run(w) == 3 and sess.run(w).dtype == np.int32
    assert sess.run("v:0").tolist() == [11.0, 21.0]


def test_each_direct_session_has_its_own_variables():
    v = ds.Variable([1.0], name="v")
    init = ds.global_variables_initializer()
    with ds.Session() as s1, ds.Session() as s2:
        s1.run(init)
        s1.run(v.assign([5.0]))
        with pytest.raises(ds.errors.FailedPreconditionError):
            s2.run(v)
        assert s1.run(v).tolist() == [5.0]


def test_reset_clears_variables():
    v = ds.Variable([1.0], name="v")
    with ds.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v).tolist() == [1.0]
        ds.reset(ds.SessionOptions(), containers=["other"])
        assert sess.run(v).tolist() == [1.0]
        ds.reset(ds.SessionOptions())
        with pytest.raises(ds.errors.FailedPreconditionError):
            sess.run(v)


def test_assign_of_wrong_shape_is_invalid_argument(make_session):
    g = ds.Graph()
    with g.as_default():
        v = ds.Variable([1.0, 2.0], name="v")
        p = ds.placeholder(ds.float32, None, name="p")
        a = v.assign(p)
    sess = make_session(g)
    sess.run(v.initializer)
    with pytest.raises(ds.errors.InvalidArgumentError):
        sess.run(a, {p: np.ones(3, np.float32)})
    assert sess.run(v).tolist() == [1.0, 2.0]


# --- random ---------------------------------------------------------------------------------

def test_seeded_random_repeats_per_session_and_changes_per_run(make_session):
    g = ds.Graph()
    with g.as_default():
        u = ds.random_uniform((1000,), seed=7, name="u")
        n = ds.random_normal((1000,), mean=2.0, stddev=0.5, dtype=ds.float64, seed=7, name="n")
    s1, s2 = make_session(g), make_session(g)
    a1, a2 = s1.run(u), s1.run(u)
    b1 = s2.run(u)
    assert not np.array_equal(a1, a2)
    np.testing.assert_array_equal(a1, b1)
    assert a1.dtype == np.float32 and 0 <= a1.min() and a1.max() < 1
    normal = s1.run(n)
    assert normal.dtype == np.float64 and abs(normal.mean() - 2.0) < 0.1


# --- options: timeouts, tracing, placement ---------------------------------------------------

def slow_graph(size, steps):
    """A graph whose one fetch takes a while: ``steps`` products of a size x size matrix."""
    g = ds.Graph()
    with g.as_default():
        x = ds.random_normal((size, size), seed=1)
        for _ in range(steps):
            x = ds.tanh(ds.matmul(x, x))
    return g, x


def test_run_deadline_exceeded(make_session):
    g, x = slow_graph(300, 40)
    sess = make_session(g)
    with pytest.raises(ds.errors.DeadlineExceededError):
        sess.run(x, options=ds.RunOptions(timeout_s=1e-6))
    assert sess.run(x).shape == (300, 300)


def test_operation_timeout_from_session_options(make_session):
    g, x = slow_graph(200, 20)
    with pytest.raises(ds.errors.DeadlineExceededError):
        # A cluster session's creation is bounded by the timeout too (as TF1's), and may
        # be where it passes.
        sess = make_session(g, operation_timeout_s=1e-6)
        sess.run(x)


def test_trace_gives_step_stats_and_chrome_trace(make_session, add_graph):
    g, a, b, c = add_graph
    sess = make_session(g)
    meta = ds.RunMetadata()
    sess.run(c, {a: A, b: B}, options=ds.RunOptions(trace=True), run_metadata=meta)
    nodes = {s.node for s in meta.step_stats}
    assert "c" in nodes
    stat = next(s for s in meta.step_stats if s.node == "c")
    assert stat.op == "Add" and stat.duration >= 0 and "CPU" in stat.device
    trace = json.loads(meta.chrome_trace())
    names = {e["name"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert "c" in names


def test_list_devices_has_cpu(make_session, add_graph):
    sess = make_session(add_graph[0])
    devices = sess.list_devices()
    assert devices[0].device_type == "CPU"
    assert devices[0].name.endswith("device:CPU:0") and devices[0].memory_limit > 0


# --- make_callable, threads, close -----------------------------------------------------------

def test_make_callable(make_session, add_graph):
    g, a, b, c = add_graph
    sess = make_session(g)
    fn = sess.make_callable(c, [a, b])
    np.testing.assert_array_equal(fn(A, B), A + B)
    np.testing.assert_array_equal(fn([1.0], [2.0]), [3.0])
    both = sess.make_callable([c, a], ["a:0", "b:0"])
    got = both(A, B)
    assert isinstance(got, list) and len(got) == 2
    with pytest.raises(TypeError):
        fn(A)
    with pytest.raises(ValueError):
        fn(np.zeros((2, 2), np.float32), B)


def test_eight_threads_run_concurrently(make_session):
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 16), name="x")
        w = ds.constant(np.arange(16 * 4, dtype=np.float32).reshape(16, 4) / 100)
        y = ds.reduce_sum(ds.nn.relu(ds.matmul(x, w) - 1.0), axis=1)
    sess = make_session(g)
    results = {}

    def worker(seed):
        rng = np.random.default_rng(seed)
        for _ in range(30):
            xv = rng.standard_normal((8, 16)).astype(np.float32)
            got = sess.run(y, {x: xv})
            want = np.maximum(xv @ (np.arange(64, dtype=np.float32).reshape(16, 4) / 100)
                              - 1.0, 0).sum(axis=1)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        results[seed] = True

    run_in_threads(worker, 8, timeout=60)
    assert len(results) == 8


def test_closed_session_raises_runtime_error(make_session, add_graph):
    g, a, b, c = add_graph
    sess = make_session(g)
    fn = sess.make_callable(c, [a, b])
    sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.run(c, {a: A, b: B})
    with pytest.raises(RuntimeError, match="closed Session"):
        fn(A, B)
    sess.close()  # closing twice is fine


@pytest.mark.parametrize("size, loops", [(100, 2), (40000, 2), (40000, 5)],
                         ids=["loops", "overlapped loops", "more loops than threads"])
def test_close_cancels_a_step_in_flight(size, loops):
    """As TF1's: a step running on another thread when the session closes stops at its
    loop's next iteration with CancelledError (it ran on to its end, and then read the
    variables close() had cleared: "uninitialized value"; with branches still queued on
    the pool, close() cancelled them and the step raised concurrent.futures' error)."""
    x = ds.placeholder(ds.float32, (size,))        # heavy loop variables: loops overlap
    n = ds.placeholder(ds.int32, ())
    total = ds.Variable(np.zeros(size, np.float32))
    ends = [ds.while_loop(lambda s, i: i < n, lambda s, i: (s + 1.0, i + 1),
                          [x * float(k), ds.constant(0)])[0] for k in range(1, loops + 1)]
    update = ds.assign_add(total, ds.add_n(ends))
    sess = ds.Session(config=ds.ConfigProto(inter_op_parallelism_threads=2))
    sess.run(total.initializer)
    feed = {x: np.ones(size, np.float32)}
    want = sum(k + 2 for k in range(1, loops + 1))
    np.testing.assert_array_equal(sess.run(update, {**feed, n: 2}), np.full(size, want))
    error, seconds = ended_by(lambda: sess.run(update, {**feed, n: 10_000_000}), sess.close,
                              started=lambda: sess._in_flight._running)
    assert isinstance(error, ds.errors.CancelledError), error
    assert "closed" in str(error)
    assert seconds < 10


def test_session_context_manager_sets_defaults():
    a = ds.constant([1.0, 2.0])
    with ds.Session() as sess:
        assert ds.get_default_session() is sess
        np.testing.assert_array_equal((a * 2.0).eval(), [2.0, 4.0])
    assert ds.get_default_session() is None
    assert sess.closed
    assert isinstance(sess, ds.Session)


def test_session_with_graph_def_and_extend():
    g = ds.Graph()
    with g.as_default():
        ds.constant(2.0, name="two")
    sess = ds.new_session(ds.SessionOptions())
    sess.create(g.as_graph_def())
    assert sess.run("two:0") == 2.0
    g2 = ds.Graph()
    with g2.as_default():
        ds.constant(3.0, name="three")
    sess.extend(g2.as_graph_def())
    assert sess.run(["two:0", "three:0"]) == [2.0, 3.0]
    sess.close()


def test_graph_grown_after_first_run(make_session):
    g = ds.Graph()
    with g.as_default():
        a = ds.constant(1.0)
    sess = make_session(g)
    assert sess.run(a) == 1.0
    with g.as_default():
        b = a + 41.0
    assert sess.run(b) == 42.0


def test_integer_feeds_that_do_not_fit_are_rejected(make_session, int32_graph):
    g, n, m = int32_graph
    sess = make_session(g)
    with pytest.raises(ValueError, match="without losing information"):
        sess.run(m, {n: np.array([2**31], np.int64)})
    with pytest.raises(ValueError, match="without losing information"):
        sess.run(m, {n: np.arange(2000.0) + 0.5})
    np.testing.assert_array_equal(sess.run(m, {n: np.array([-1, 7], np.int64)}), [0, 8])
    np.testing.assert_array_equal(sess.run(m, {n: np.arange(2000.0)}), np.arange(1, 2001))


def test_a_sessions_graph_def_is_its_graphs(make_session, add_graph):
    g, a, b, c = add_graph
    graph_def = make_session(g).graph_def
    assert sorted(n.name for n in graph_def.node) == ["a", "b", "c"]
    with ds.Graph().as_default():
        (copy,) = ds.import_graph_def(graph_def, return_elements=["c:0"], name="copy")
        with ds.Session() as sess:
            np.testing.assert_array_equal(sess.run(copy, {"copy/a:0": A, "copy/b:0": B}),
                                          A + B)
