"""Every op of API.md built through the graph API, run in each session type, against numpy."""

from __future__ import annotations


import numpy as np
import pytest

import devsession as ds

FLOATS = [np.float32, np.float64]


def run(make_session, build, *arrays, dtype=None):
    """Build ``build(*placeholders)`` in a fresh graph, run it with ``arrays`` fed."""
    g = ds.Graph()
    with g.as_default():
        phs = [ds.placeholder(ds.as_dtype(a.dtype), a.shape, name=f"in{i}")
               for i, a in enumerate(arrays)]
        out = build(*phs)
    return make_session(g).run(out, dict(zip(phs, arrays)))


def rand(rng, shape, dtype, positive=False):
    x = rng.standard_normal(shape)
    if positive:
        x = np.abs(x) + 0.1
    return x.astype(dtype)


UNARY = {
    "negative": (ds.negative, np.negative, False),
    "abs": (ds.abs, np.abs, False),
    "exp": (ds.exp, np.exp, False),
    "log": (ds.log, np.log, True),
    "sqrt": (ds.sqrt, np.sqrt, True),
    "square": (ds.square, np.square, False),
    "tanh": (ds.tanh, np.tanh, False),
    "sigmoid": (ds.sigmoid, lambda x: 1 / (1 + np.exp(-x)), False),
    "relu": (ds.nn.relu, lambda x: np.maximum(x, 0), False),
    "identity": (ds.identity, lambda x: x, False),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (3, 5)])
def test_unary(make_session, name, dtype, shape, rng):
    op, ref, positive = UNARY[name]
    x = rand(rng, shape, dtype, positive)
    got = run(make_session, op, x)
    assert got.dtype == dtype and got.shape == shape
    np.testing.assert_allclose(got, ref(x), rtol=2e-6 if dtype == np.float32 else 1e-12,
                               atol=1e-7)


BINARY = {
    "add": (ds.add, np.add), "subtract": (ds.subtract, np.subtract),
    "multiply": (ds.multiply, np.multiply), "divide": (ds.divide, np.divide),
    "maximum": (ds.maximum, np.maximum), "minimum": (ds.minimum, np.minimum),
    "pow": (ds.pow, np.power),
}
SHAPE_PAIRS = [((7,), (7,)), ((3, 1), (1, 4)), ((5, 4), (4,)), ((), (7,)),
               ((2, 1, 3), (1, 4, 1)), ((0, 3), (3,))]


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_binary_broadcasting(make_session, name, dtype, shapes, rng):
    op, ref = BINARY[name]
    x, y = rand(rng, shapes[0], dtype, name == "pow"), rand(rng, shapes[1], dtype)
    got = run(make_session, op, x, y)
    want = ref(x, y)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_arithmetic(make_session, dtype):
    x = np.array([[-7, 3, 0], [5, -2, 9]], dtype)
    y = np.array([2, -3, 4], dtype)
    got = run(make_session, lambda a, b: [a + b, a - b, a * b, ds.maximum(a, b), -a, ds.abs(a),
                                          ds.square(a), a / b], x, y)
    np.testing.assert_array_equal(got[0], x + y)
    np.testing.assert_array_equal(got[1], x - y)
    np.testing.assert_array_equal(got[2], x * y)
    np.testing.assert_array_equal(got[3], np.maximum(x, y))
    np.testing.assert_array_equal(got[4], -x)
    np.testing.assert_array_equal(got[5], np.abs(x))
    np.testing.assert_array_equal(got[6], x * x)
    assert got[7].dtype == np.float64
    np.testing.assert_allclose(got[7], x / y)
    assert all(g.dtype == dtype for g in got[:7])


def test_comparisons_and_where(make_session, rng):
    x, y = rand(rng, (4, 3), np.float32), rand(rng, (3,), np.float32)
    got = run(make_session, lambda a, b: [a < b, a <= b, a > b, a >= b, ds.equal(a, a),
                                          ds.where(a > b, a, b)], x, y)
    for value, want in zip(got, [x < y, x <= y, x > y, x >= y, x == x, np.where(x > y, x, y)]):
        assert value.dtype == want.dtype
        np.testing.assert_array_equal(value, want)


@pytest.mark.parametrize("src,dst", [(np.float32, np.int32), (np.float64, np.float32),
                                     (np.int32, np.float64), (np.float32, np.bool_),
                                     (np.bool_, np.float32), (np.int64, np.int32)])
def test_cast(make_session, src, dst):
    x = (np.array([-2.7, -0.5, 0.0, 0.4, 3.9, 100.0]) if np.dtype(src).kind == "f"
         else np.array([-3, 0, 1, 7, 0, 2])).astype(src)
    got = run(make_session, lambda a: ds.cast(a, dst), x)
    assert got.dtype == dst
    np.testing.assert_array_equal(got, x.astype(dst))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul(make_session, dtype, ta, tb, rng):
    a = rand(rng, (5, 3) if not ta else (3, 5), dtype)
    b = rand(rng, (3, 4) if not tb else (4, 3), dtype)
    got = run(make_session, lambda x, y: ds.matmul(x, y, transpose_a=ta, transpose_b=tb), a, b)
    want = (a.T if ta else a) @ (b.T if tb else b)
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_batched_matmul_and_operator(make_session, rng):
    a, b = rand(rng, (2, 5, 3), np.float32), rand(rng, (3, 4), np.float32)
    np.testing.assert_allclose(run(make_session, lambda x, y: x @ y, a, b), a @ b, rtol=1e-5)


REDUCTIONS = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max,
              "reduce_min": np.min}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), [1, 2]], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
def test_reductions(make_session, name, axis, keepdims, dtype, rng):
    x = (rand(rng, (3, 4, 5), np.float64) * 10).astype(dtype)
    got = run(make_session, lambda a: getattr(ds, name)(a, axis=axis, keepdims=keepdims), x)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    want = REDUCTIONS[name](x, axis=np_axis, keepdims=keepdims)
    if name == "reduce_mean" and dtype == np.int32:
        want = np.trunc(np.sum(x, axis=np_axis, keepdims=keepdims) / (x.size / np.size(want)))
    assert got.dtype == dtype and got.shape == want.shape
    # A float32 sum of values ~10 that nearly cancels is off by a few ulps of the terms,
    # not of the (small) result: allow that much absolute error.
    atol = 1e-5 * np.abs(x).max() if dtype == np.float32 else 0
    np.testing.assert_allclose(got, want.astype(dtype), rtol=1e-5, atol=atol)


def test_large_float32_sum_is_accurate(make_session, rng):
    x = rng.random(1_000_003).astype(np.float32)
    got = run(make_session, lambda a: ds.reduce_sum(a), x)
    assert abs(float(got) - x.astype(np.float64).sum()) / x.sum() < 1e-6


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argmax(make_session, axis, rng):
    x = rand(rng, (6, 7), np.float32)
    got = run(make_session, lambda a: ds.argmax(a, axis=axis), x)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.argmax(x, axis=axis))


def test_shape_ops(make_session, rng):
    x, y = rand(rng, (2, 3, 4), np.float32), rand(rng, (2, 1, 4), np.float32)
    got = run(make_session, lambda a, b: [ds.reshape(a, [-1, 4]), ds.reshape(a, [6, -1]),
                                          ds.transpose(a), ds.transpose(a, [1, 0, 2]),
                                          ds.concat([a, b], axis=1), ds.concat([a, a], -1)],
              x, y)
    want = [x.reshape(-1, 4), x.reshape(6, -1), x.transpose(), x.transpose(1, 0, 2),
            np.concatenate([x, y], 1), np.concatenate([x, x], -1)]
    for value, expected in zip(got, want):
        np.testing.assert_array_equal(value, expected)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_is_stable(make_session, dtype, rng):
    x = rand(rng, (4, 9), dtype) * 1e4
    got = run(make_session, lambda a: [ds.nn.softmax(a), ds.softmax(a, axis=0)], x)
    for value, axis in zip(got, (-1, 0)):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        assert np.isfinite(value).all()
        np.testing.assert_allclose(value, e / e.sum(axis=axis, keepdims=True), rtol=1e-5,
                                   atol=1e-30)


def test_constants_no_op_group_and_math_namespace(make_session):
    g = ds.Graph()
    with g.as_default():
        c = ds.constant(np.arange(6).reshape(2, 3), dtype=ds.float64)
        total = ds.math.reduce_sum(ds.math.multiply(c, 2.0))
        nothing = ds.no_op()
        both = ds.group(total, nothing)
    sess = make_session(g)
    assert sess.run(total) == 30.0
    assert sess.run([both, nothing]) == [None, None]


def test_mlp_forward_against_numpy(make_session):
    from devsession.benchmarks.suites import mlp

    workload = mlp(16, (20, 32, 8))
    data = workload.make_data(np.random.default_rng(0))
    g = ds.Graph()
    with g.as_default():
        y, placeholders = workload.graph(ds, data)
    got = make_session(g).run(y, dict(zip(placeholders, data.feeds)))
    np.testing.assert_allclose(got, workload.reference(data), rtol=1e-5, atol=1e-6)


def test_a_variable_read_under_control_dependencies_runs_after_them(make_session):
    # TF1's idiom: `with tf.control_dependencies([inc]): tf.identity(v)` sees the increment
    v = ds.Variable(0, name="v")
    inc = ds.assign_add(v, 1)
    with ds.control_dependencies([inc]):
        read_after = ds.identity(v)
        plus_ten = v + 10
    loss = ds.cast(v, ds.float32)                     # outside: the plain read
    sess = make_session()
    sess.run(v.initializer)
    assert [int(sess.run(read_after)) for _ in range(3)] == [1, 2, 3]
    assert int(sess.run(plus_ten)) == 14
    assert float(sess.run(loss)) == 4.0


def test_read_value_under_control_dependencies_runs_after_them(make_session):
    # WGAN-GP scripts' checksum after the critic step: `v.read_value()` in the block is a
    # new read (TF1's identity of the ref), not the snapshot made with the variable
    v = ds.Variable([1.0, 2.0], name="v")
    inc = ds.assign_add(v, [1.0, 1.0])
    with ds.control_dependencies([inc]):
        after = ds.reduce_sum(v.read_value())
    assert after.op.inputs[0].op.control_inputs == (inc.op,)
    assert v.read_value() is v.value()                # outside: the plain snapshot
    sess = make_session()
    sess.run(v.initializer)
    assert [float(sess.run([inc, after])[1]) for _ in range(3)] == [5.0, 7.0, 9.0]
    assert float(sess.run(after)) == 11.0


def test_a_read_under_control_dependencies_inside_a_cond_or_loop_body(make_session):
    # the same idiom inside a branch or a loop body reads after the body's increment
    def branch():
        with ds.control_dependencies([ds.assign_add(v, 5.0)]):
            return ds.identity(v)

    def body(t, seen):
        with ds.control_dependencies([ds.assign_add(v, 1.0)]):
            return t + 1, seen + ds.identity(v)
    with ds.device("/job:worker/task:1"):   # on a cluster: the variable and its bodies together
        v = ds.Variable(1.0, name="v")
        branched = ds.cond(ds.constant(True), branch, lambda: ds.identity(v))
        _, seen = ds.while_loop(lambda t, seen: t < 3, body,
                                [ds.constant(0), ds.constant(0.0)])
    sess = make_session()
    sess.run(v.initializer)
    assert float(sess.run(branched)) == 6.0
    assert float(sess.run(seen)) == 7.0 + 8.0 + 9.0


def test_placeholder_with_default_flows_its_input_unless_fed(make_session):
    keep = ds.placeholder_with_default(1.0, (), name="keep")
    x = ds.placeholder_with_default(np.ones((2, 3), np.float32), (None, 3))
    y = keep * ds.reduce_sum(x)
    assert keep.op.type == "PlaceholderWithDefault" and x.shape.as_list() == [None, 3]
    dx, = ds.gradients(y, [x])
    sess = make_session()
    assert sess.run(y) == 6.0
    assert sess.run(y, {keep: 0.5, x: np.ones((4, 3), np.float32)}) == 6.0
    np.testing.assert_array_equal(sess.run(dx, {keep: 2.0}), np.full((2, 3), 2.0))
    with pytest.raises(ValueError, match="not compatible with the placeholder's shape"):
        ds.placeholder_with_default(np.ones(3, np.float32), (2,))


def test_a_control_edge_from_a_fed_placeholder_is_met_by_the_feed(make_session):
    """As TF: the feed stands for the placeholder's op (unfed, it is the usual error)."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, [2])
        with ds.control_dependencies([x.op]):
            y = ds.constant(3.0) * 2.0
    sess = make_session(g)
    assert sess.run(y, {x: [1.0, 2.0]}) == 6.0
    with pytest.raises(ds.errors.InvalidArgumentError, match="must feed a value"):
        sess.run(y)
