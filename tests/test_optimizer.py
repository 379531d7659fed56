"""The graph optimizer: passes change plans, never results."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.optimizer import fusion
from devsession.options import OptimizerOptions
from concurrency import run_in_threads

ALL_OFF = OptimizerOptions.none()


def plan_of(sess, fetches, feeds=()):
    fetches = fetches if isinstance(fetches, (list, tuple)) else [fetches]
    return sess._prepare(tuple(feeds), tuple(fetches), ()).plan


def op_types(plan):
    return [s.op_type for s in plan.steps]


def chain_graph():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        y = ds.nn.relu(x * 1.5 + 0.25) * ds.nn.sigmoid(x) + 0.5 * x * x
    return g, x, y


def test_chain_becomes_one_kernel_with_same_result():
    g, x, y = chain_graph()
    xv = np.random.default_rng(0).standard_normal(100_003).astype(np.float32)
    with ds.Session(graph=g) as fused, \
            ds.Session(graph=g, options=ds.SessionOptions(optimizer=ALL_OFF)) as plain:
        assert op_types(plan_of(fused, y, [x])).count("_FusedElementwise") == 1
        assert "_FusedElementwise" not in op_types(plan_of(plain, y, [x]))
        np.testing.assert_array_equal(fused.run(y, {x: xv}), plain.run(y, {x: xv}))


def test_a_fused_integer_division_by_zero_is_its_members_error():
    """A zero divisor inside a fused region is the error of the member that divided, as
    TF's unfused kernels raise it (FloorDiv's InvalidArgumentError, TruncateMod's
    InternalError), where the loop had given 0; without one the values are numpy's."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.int32, (None,), name="x")
        y = ds.placeholder(ds.int32, (None,), name="y")
        quotient = ds.math.floordiv(x * 2 + 1, y - 1, name="quotient")
        z = ds.truncatemod(quotient + 3, y, name="remainder") * 3
    xv = np.array([1, -2, 3], np.int32)
    with ds.Session(graph=g) as sess:
        assert op_types(plan_of(sess, z, [x, y])) == ["Const", "Const", "Const",
                                                     "_FusedElementwise"]
        yv = np.array([2, -3, 4], np.int32)
        want = np.fmod(np.floor_divide(xv * 2 + 1, yv - 1) + 3, yv) * 3
        np.testing.assert_array_equal(sess.run(z, {x: xv, y: yv}), want)
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match="^FloorDiv node 'quotient': Integer division by zero$") as e:
            sess.run(z, {x: xv, y: [2, 1, 4]})
        assert e.value.node_name == "quotient"
        with pytest.raises(ds.errors.InternalError, match="^TruncateMod node 'remainder': "
                           r"Unexpected error in binary operator \(only integer div") as e:
            sess.run(z, {x: xv, y: [2, 0, 4]})
        assert e.value.node_name == "remainder"


def test_a_fused_integer_pow_with_a_negative_exponent_is_its_members_error():
    """An integer Pow inside a fused region with a negative exponent is TF's CPU error for
    that member, as unfused; a float Pow of a negative exponent is no error."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.int32, (None,), name="x")
        y = ds.placeholder(ds.int32, (None,), name="y")
        z = ds.pow(x * 2 + 1, y - 1, name="power") * 3 + ds.cast(
            ds.pow(ds.cast(x, ds.float32) + 1.5, ds.cast(y, ds.float32) - 4), ds.int32)
    xv = np.array([1, -2, 3], np.int32)
    with ds.Session(graph=g) as sess:
        assert op_types(plan_of(sess, z, [x, y])).count("_FusedElementwise") == 1
        yv = np.array([2, 1, 4], np.int32)
        want = (xv * 2 + 1) ** (yv - 1) * 3 + ((xv + 1.5) ** (yv - 4.0)).astype(np.int32)
        np.testing.assert_array_equal(sess.run(z, {x: xv, y: yv}), want)
        with pytest.raises(ds.errors.InvalidArgumentError, match="^Pow node 'power': "
                           "Integers to negative integer powers are not allowed$") as e:
            sess.run(z, {x: xv, y: [2, 0, 4]})
        assert e.value.node_name == "power"


def test_fetched_intermediate_is_not_fused_away():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None,), name="x")
        a = ds.exp(x * 2.0)
        b = ds.tanh(a + 1.0)
    with ds.Session(graph=g) as sess:
        xv = np.linspace(-1, 1, 11, dtype=np.float32)
        av, bv = sess.run([a, b], {x: xv})
        np.testing.assert_allclose(av, np.exp(xv * 2), rtol=1e-6)
        np.testing.assert_allclose(bv, np.tanh(np.exp(xv * 2) + 1), rtol=1e-6)


def test_diamond_is_one_region():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float64, (None,), name="x")
        s = x * 3.0
        y = ds.sqrt(ds.abs(s)) + ds.square(s)
    with ds.Session(graph=g) as sess:
        plan = plan_of(sess, y, [x])
        assert op_types(plan) == ["_FusedElementwise"] or \
            op_types(plan).count("_FusedElementwise") == 1 and len(plan.steps) <= 4
        xv = np.array([-2.0, 0.0, 5.0])
        np.testing.assert_allclose(sess.run(y, {x: xv}), np.sqrt(np.abs(3 * xv)) + (3 * xv) ** 2)


def test_cse_merges_duplicates():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 4), name="x")
        w = ds.constant(np.ones((4, 3), np.float32))
        y = ds.matmul(x, w) + ds.matmul(x, w)
    on = ds.SessionOptions(optimizer=OptimizerOptions(fusion=False))
    with ds.Session(graph=g, options=on) as sess:
        assert op_types(plan_of(sess, y, [x])).count("MatMul") == 1
        np.testing.assert_array_equal(sess.run(y, {x: np.ones((2, 4), np.float32)}),
                                      np.full((2, 3), 8.0, np.float32))


def test_constant_folding_and_its_cap():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (3,), name="x")
        k = ds.exp(ds.constant([0.0, 1.0, 2.0])) * 2.0
        big = ds.constant(1.0) + ds.constant(np.zeros(1 << 21, np.float32))
        y = x + k
    with ds.Session(graph=g) as sess:
        plan = plan_of(sess, [y, big], [x])
        folded = [s for s in plan.steps if s.op_type == "Const"]
        assert any(s.name == k.op.name for s in folded)
        assert any(s.op_type in ("Add", "AddV2", "_FusedElementwise") and s.name == big.op.name
                   for s in plan.steps)  # 2M elements: over the cap, left to run
        yv, bigv = sess.run([y, big], {x: np.zeros(3, np.float32)})
        np.testing.assert_allclose(yv, np.exp([0.0, 1.0, 2.0]) * 2, rtol=1e-6)
        assert bigv.shape == (1 << 21,) and bigv[0] == 1.0


def test_constant_folding_keeps_what_a_constant_waits_for():
    """A constant computation with control inputs still waits for them: folded into a
    Const, it ran without them (a NaN check before a check of a constant never ran)."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (2,), name="x")
        checked = ds.check_numerics(ds.log(x), "log")
        with ds.control_dependencies([checked]):
            after = ds.check_numerics(ds.constant([1.0, 2.0]), "constant")
            k = ds.constant(3.0)
        doubled = k * 2.0
    with ds.Session(graph=g) as sess:
        for fetch in (after, doubled):
            with pytest.raises(ds.errors.InvalidArgumentError, match="log : Tensor had NaN"):
                sess.run(fetch, {x: [-1.0, 2.0]})
        assert sess.run(doubled, {x: [1.0, 2.0]}) == 6.0


def test_fetched_results_are_never_overwritten_by_reused_buffers():
    g, x, y = chain_graph()
    with ds.Session(graph=g) as sess:
        step = sess.make_callable(y, [x])
        inputs = [np.full(1 << 16, v, np.float32) for v in (0.5, 1.0, 2.0, 3.0)]
        kept = [step(v) for v in inputs]
        for v, out in zip(inputs, kept):
            want = np.maximum(v * 1.5 + 0.25, 0) / (1 + np.exp(-v)) + 0.5 * v * v
            np.testing.assert_allclose(out, want, rtol=1e-6)


def test_reused_buffers_are_safe_across_threads():
    g, x, y = chain_graph()
    with ds.Session(graph=g) as sess:
        step = sess.make_callable(y, [x])

        def work(seed):
            v = np.random.default_rng(seed).standard_normal(1 << 17).astype(np.float32)
            want = np.maximum(v * 1.5 + 0.25, 0) / (1 + np.exp(-v)) + 0.5 * v * v
            for _ in range(15):
                np.testing.assert_allclose(step(v), want, rtol=2e-6, atol=1e-6)

        run_in_threads(work, 6, timeout=120)


# --- results identical with passes on and off, on random graphs ---------------------------

UNARY = [ds.negative, ds.abs, ds.exp, ds.tanh, ds.sigmoid, ds.nn.relu, ds.square,
         lambda t: ds.sqrt(ds.abs(t)), lambda t: ds.log(ds.abs(t) + 1.0)]
BINARY = [ds.add, ds.subtract, ds.multiply, ds.maximum, ds.minimum,
          lambda a, b: ds.divide(a, ds.abs(b) + 1.0),
          lambda a, b: ds.where(a > b, a, b)]


def random_graph(seed: int, dtype):
    rng = np.random.default_rng(seed)
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(dtype, (None, 5), name="x")
        b = ds.placeholder(dtype, (5,), name="b")
        values = [x, b, ds.constant(rng.standard_normal(5).astype(dtype.np)),
                  ds.constant(float(rng.standard_normal()), dtype=dtype)]
        for _ in range(int(rng.integers(4, 14))):
            if rng.random() < 0.4:
                op = UNARY[int(rng.integers(len(UNARY)))]
                values.append(op(values[int(rng.integers(len(values)))]))
            else:
                op = BINARY[int(rng.integers(len(BINARY)))]
                i, j = rng.integers(len(values), size=2)
                values.append(op(values[int(i)], values[int(j)]))
        if rng.random() < 0.3:
            values.append(ds.reduce_sum(values[-1]))
        fetches = [values[-1], values[int(rng.integers(4, len(values)))]]
    return g, x, b, fetches


@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("dtype", [ds.float32, ds.float64])
def test_random_graphs_identical_with_passes_on_and_off(seed, dtype):
    g, x, b, fetches = random_graph(seed, dtype)
    rng = np.random.default_rng(seed + 1000)
    feeds = {x: rng.standard_normal((7, 5)).astype(dtype.np),
             b: rng.standard_normal(5).astype(dtype.np)}
    results = []
    for optimizer in (OptimizerOptions(), ALL_OFF, OptimizerOptions(fusion=False),
                      OptimizerOptions(constant_folding=False,
                                       common_subexpression_elimination=False)):
        with ds.Session(graph=g, options=ds.SessionOptions(optimizer=optimizer)) as sess:
            results.append(sess.run(fetches, feeds))
    for other in results[1:]:
        for got, want in zip(other, results[0]):
            np.testing.assert_array_equal(got, want)


def test_buffer_pool_reuses_a_dropped_buffer_and_never_a_held_one():
    from devsession.kernels.buffer_pool import BufferPool

    pool = BufferPool()
    first = pool.take((1 << 16,), np.float32)
    pool.give(first)
    address = first.ctypes.data
    del first
    second = pool.take((1 << 16,), np.float32)
    assert second.ctypes.data == address          # nobody held it: reused
    pool.give(second)
    third = pool.take((1 << 16,), np.float32)      # `second` is still held here
    assert third.ctypes.data != second.ctypes.data
    small = pool.take((4,), np.float32)
    pool.give(small)
    assert pool.take((4,), np.float32) is not small  # small arrays are just allocated
    capped = BufferPool(max_bytes=1 << 18)
    capped.give(capped.take((1 << 17,), np.float32))   # 512 KB: above the cap
    assert capped._buffers == []                       # never kept, so never reused


def test_pooled_buffers_start_on_a_cache_line_and_a_view_of_a_view_holds_them():
    """Kernels' vectors load from pooled buffers without straddling cache lines, and a
    caller who keeps only a view of a view of a result still keeps the buffer from
    reuse (numpy refers such views to the memory's owner, which is not the buffer)."""
    from devsession.kernels.buffer_pool import BufferPool, aligned, aligned_empty

    pool = BufferPool()
    first = pool.take((64, 1024), np.float32)
    assert first.ctypes.data % 64 == 0 and first.flags.c_contiguous and first.flags.writeable
    first[...] = 1.0
    pool.give(first)
    address = first.ctypes.data
    kept = first[1:].reshape(-1)[::2]
    del first
    second = pool.take((64, 1024), np.float32)
    assert second.ctypes.data != address           # `kept` still sees the first buffer
    second[...] = 2.0
    assert (kept == 1.0).all()
    del kept
    pool.give(second)
    assert pool.take((64, 1024), np.float32).ctypes.data == address  # now free: reused

    for shape, dtype in [((3, 5), np.float64), ((), np.int32)]:
        empty = aligned_empty(shape, dtype)
        assert (empty.shape, empty.dtype, empty.ctypes.data % 64) == (shape, dtype, 0)
    assert aligned_empty((0, 4), np.float32).shape == (0, 4)
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)[:, ::-1].transpose(0, 2, 1)
    copy = aligned(x)
    assert copy.ctypes.data % 64 == 0 and copy.flags.c_contiguous
    np.testing.assert_array_equal(copy, x)
    assert aligned(copy) is copy


def test_fusion_and_codegen_parse_one_thread_at_a_time(monkeypatch):
    """Sessions planning in several threads (cluster tasks in one process) parse fused
    expressions one at a time: CPython 3.11's ast conversion is not thread-safe
    ("SystemError: AST constructor recursion depth mismatch", seen registering graphs)."""
    import ast
    import threading
    import time

    from devsession.kernels.codegen import frontend

    import sys

    inside, most, ours, lock = [0], [0], [0], threading.Lock()
    real_parse = ast.parse

    def watched(*args, **kwargs):
        if sys._getframe(1).f_code is not frontend.parse.__code__:
            return real_parse(*args, **kwargs)     # CPython's own (inspect): not ours
        with lock:
            ours[0] += 1
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.002)              # give another thread the chance to come in
        try:
            return real_parse(*args, **kwargs)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(frontend.ast, "parse", watched)
    fusion._with_slots.cache_clear()     # fusion parses each op's template once
    # each thread its own activation: templates and programs of its own to parse
    activations = [(ds.nn.relu, lambda v: np.maximum(v, 0)), (ds.tanh, np.tanh),
                   (ds.nn.softplus, lambda v: np.log1p(np.exp(v))), (ds.abs, np.abs)]

    def plan_and_run(i):
        g = ds.Graph()
        activation, reference = activations[i]
        with g.as_default():
            x = ds.placeholder(ds.float32, (None,))
            y = activation(x * (1.5 + i) + 0.25) * ds.sigmoid(x)
        with ds.Session(graph=g) as sess:
            np.testing.assert_allclose(sess.run(y, {x: np.ones(3, np.float32)}),
                                       reference(1.75 + i) / (1 + np.exp(-1)),
                                       rtol=1e-5)

    run_in_threads(plan_and_run, 4, timeout=120)
    assert ours[0] >= 8 and most[0] == 1        # fusion and codegen, each in every thread
