"""ds.cond, ds.case, ds.while_loop: values against numpy on every session type, TF1's
side-effect semantics, build-time errors, run-time errors, the optimizer's and the
tracer's view of If/While nodes, and GraphDef round trips.  Gradients:
test_control_flow_grad.py; the TF-recorded programs: test_control_flow_programs.py."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import devsession as ds
from devsession.errors import DeadlineExceededError, InvalidArgumentError


def scalar(dtype=ds.float32, name=None):
    return ds.placeholder(dtype, (), name=name)


# --- cond ------------------------------------------------------------------------------------

def test_cond_runs_the_chosen_branch(make_session, rng):
    x = ds.placeholder(ds.float32, (None, 3), name="x")
    p = scalar(ds.bool, "p")
    y = ds.cond(p, lambda: ds.reduce_sum(x * x, axis=1), lambda: ds.reduce_max(x, axis=1) - 1.0)
    assert (y.dtype, y.shape.as_list(), y.op.type) == (ds.float32, [None], "StatelessIf")
    sess = make_session()
    xv = rng.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_allclose(sess.run(y, {x: xv, p: True}), (xv * xv).sum(1), rtol=1e-6)
    np.testing.assert_allclose(sess.run(y, {x: xv, p: False}), xv.max(1) - 1.0, rtol=1e-6)


def test_branch_shapes_merge_to_the_most_specific_common_shape():
    p = scalar(ds.bool)

    def zeros(*shape):
        return lambda: ds.constant(np.zeros(shape, np.float32))
    assert ds.cond(p, zeros(2, 3), zeros(4, 3)).shape.as_list() == [None, 3]
    assert ds.cond(p, zeros(2, 3), zeros(4)).shape.ndims is None


def test_nested_cond_and_structures(make_session):
    x = scalar(name="x")
    nested = ds.cond(x > 0.0,
                     lambda: ds.cond(x > 5.0, lambda: ds.constant(2), lambda: ds.constant(1)),
                     lambda: ds.constant(0))
    pair = ds.cond(x < 10.0, lambda: (x + 1.0, [ds.constant(1)]),
                   lambda: (x - 1.0, [ds.constant(2)]))
    Point = collections.namedtuple("Point", "a b")
    named = ds.cond(x > 0.0, lambda: Point(x, {"k": x * 2.0}), lambda: Point(-x, {"k": x}))
    single = ds.cond(x > 0.0, lambda: [x], lambda: [-x])
    strict = ds.cond(x > 0.0, lambda: [x], lambda: [-x], strict=True)
    assert isinstance(pair, tuple) and isinstance(pair[1], list)
    assert isinstance(named, Point) and isinstance(single, ds.Tensor)
    assert isinstance(strict, list) and len(strict) == 1
    sess = make_session()
    assert [int(sess.run(nested, {x: v})) for v in (-1.0, 1.0, 7.0)] == [0, 1, 2]
    got = sess.run(pair, {x: 20.0})
    assert isinstance(got, tuple) and float(got[0]) == 19.0 and int(got[1][0]) == 2
    got = sess.run(named, {x: -3.0})
    assert isinstance(got, Point) and float(got.a) == 3.0 and float(got.b["k"]) == -3.0
    assert float(sess.run(single, {x: -2.0})) == 2.0


def test_three_levels_of_nesting_capture_through_each_level(make_session):
    x, y = scalar(name="x"), scalar(name="y")
    def level(depth):
        if depth == 0:
            return x * y
        return ds.cond(x > float(depth), lambda: level(depth - 1) + y, lambda: x - float(depth))
    out = level(3)
    sess = make_session()
    for xv, yv in [(5.0, 2.0), (2.5, 1.0), (1.5, 3.0), (0.5, 4.0)]:
        def want(depth):
            if depth == 0:
                return xv * yv
            return want(depth - 1) + yv if xv > depth else xv - depth
        assert float(sess.run(out, {x: xv, y: yv})) == pytest.approx(want(3))


def test_only_the_taken_branch_has_effects_and_outside_ops_always_run(make_session):
    x = scalar(name="x")
    with ds.device("/job:worker/task:1"):   # on a cluster: the variables and the conds together
        inside, outside = ds.Variable(0, name="inside"), ds.Variable(0, name="outside")

        def counted_double():
            bump = inside.assign_add(1)
            with ds.control_dependencies([bump]):
                return x + x

        y = ds.cond(x > 0.0, counted_double, lambda: x - 1.0)
        bump_outside = ds.assign_add(outside, 1)           # built OUTSIDE the branches
        y2 = ds.cond(x > 0.0, lambda: ds.cast(bump_outside, ds.float32), lambda: ds.constant(-1.0))
        unused = ds.cond(x > 0.0, lambda: (ds.assign_add(inside, 100), x)[1], lambda: x)
    assert y.op.type == "If" and y2.op.type == "StatelessIf"
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    assert float(sess.run(y, {x: -3.0})) == -4.0 and int(sess.run(inside)) == 0
    assert float(sess.run(y, {x: 3.0})) == 6.0 and int(sess.run(inside)) == 1
    assert float(sess.run(y2, {x: -3.0})) == -1.0 and int(sess.run(outside)) == 1
    # an op inside a branch that the branch's result does not need does not run (TF1)
    assert float(sess.run(unused, {x: 3.0})) == 3.0 and int(sess.run(inside)) == 1


def test_branch_reading_variables_and_returning_operations(make_session):
    v = ds.Variable(np.array([1.0, 2.0], np.float32), name="v")
    p = scalar(ds.bool, "p")
    read = ds.cond(p, lambda: v * 2.0, lambda: ds.identity(v))
    done = ds.cond(p, lambda: ds.group(v.initializer), lambda: ds.no_op())
    assert done.dtype == ds.bool
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(read, {p: True}), [2.0, 4.0])
    np.testing.assert_array_equal(sess.run(read, {p: False}), [1.0, 2.0])
    assert bool(sess.run(done, {p: True})) is True and bool(sess.run(done, {p: False})) is False


def test_outer_control_dependencies_become_control_inputs_of_the_if():
    x = scalar()
    marker = ds.no_op(name="marker")

    def branch():
        with ds.control_dependencies([marker]):
            return ds.identity(x)
    y = ds.cond(x > 0.0, branch, lambda: x)
    assert marker in y.op.control_inputs


# --- case ------------------------------------------------------------------------------------

def test_case_first_true_default_and_exclusive(make_session):
    k = scalar(ds.int32, "k")
    cased = ds.case([(ds.equal(k, 0), lambda: ds.constant(10.0)),
                     (ds.equal(k, 1), lambda: ds.constant(20.0))],
                    default=lambda: ds.constant(-1.0))
    first = ds.case([(k > 0, lambda: ds.constant(1)), (k > 1, lambda: ds.constant(2))],
                    default=lambda: ds.constant(0), exclusive=False)
    exclusive = ds.case([(k > 0, lambda: ds.constant(1)), (k > 1, lambda: ds.constant(2))],
                        default=lambda: ds.constant(0), exclusive=True)
    no_default = ds.case([(ds.equal(k, 0), lambda: ds.constant(5)),
                          (ds.equal(k, 1), lambda: ds.constant(6))])
    as_dict = ds.case({k < 0: lambda: ds.constant(-1)}, default=lambda: ds.constant(1))
    sess = make_session()
    assert [float(sess.run(cased, {k: v})) for v in (0, 1, 5)] == [10.0, 20.0, -1.0]
    assert [int(sess.run(first, {k: v})) for v in (0, 1, 3)] == [0, 1, 1]
    assert [int(sess.run(exclusive, {k: v})) for v in (0, 1)] == [0, 1]
    with pytest.raises(InvalidArgumentError, match="exclusive"):
        sess.run(exclusive, {k: 3})
    assert [int(sess.run(no_default, {k: v})) for v in (0, 1)] == [5, 6]
    with pytest.raises(InvalidArgumentError, match="None of conditions"):
        sess.run(no_default, {k: 2})
    assert [int(sess.run(as_dict, {k: v})) for v in (-3, 3)] == [-1, 1]


def test_case_argument_errors():
    k = scalar(ds.int32)
    with pytest.raises(TypeError, match="must be a list"):
        ds.case(k > 0)
    with pytest.raises(TypeError, match="2-tuple"):
        ds.case([(k > 0, lambda: k, 3)])
    with pytest.raises(TypeError, match="type bool"):
        ds.case([(k, lambda: k)])
    with pytest.raises(TypeError, match="callable"):
        ds.case([(k > 0, k)])


# --- while_loop ------------------------------------------------------------------------------

def test_counter_and_placeholder_bounded_loops(make_session):
    i_end, total = ds.while_loop(lambda i, s: i < 10, lambda i, s: (i + 1, s + i * i),
                                 [ds.constant(0), ds.constant(0)])
    n = scalar(ds.int32, "n")
    _, fib, _ = ds.while_loop(lambda k, a, b: k < n, lambda k, a, b: [k + 1, b, a + b],
                              [ds.constant(0), ds.constant(0, ds.int64), ds.constant(1, ds.int64)])
    assert (i_end.dtype, fib.dtype) == (ds.int32, ds.int64)
    sess = make_session()
    assert [int(v) for v in sess.run([i_end, total])] == [10, 285]
    assert [int(sess.run(fib, {n: m})) for m in (0, 1, 2, 10, 50)] == [0, 1, 1, 55, 12586269025]


def test_shape_invariants_let_a_tensor_grow(make_session):
    j0, rows0 = ds.constant(1), ds.constant(np.ones((1, 2), np.float32))

    def grow(j, rows):
        last = ds.reshape(ds.reduce_max(rows, axis=0), (1, 2))
        return j + 1, ds.concat([rows, last * 2.0 + ds.cast(j, ds.float32)], axis=0)
    j_end, grown = ds.while_loop(lambda j, rows: j < 5, grow, [j0, rows0],
                                 shape_invariants=[j0.get_shape(), ds.TensorShape([None, 2])])
    assert grown.shape.as_list() == [None, 2]
    sess = make_session()
    np.testing.assert_array_equal(sess.run(grown), [[1, 1], [3, 3], [8, 8], [19, 19], [42, 42]])
    assert int(sess.run(j_end)) == 5


def test_a_sparse_tensor_is_a_cond_result_with_the_true_branchs_static_shape(make_session):
    flag = ds.placeholder(ds.bool, [])
    values = ds.Variable([1.0, 2.0])
    a = ds.SparseTensor([[0, 1], [1, 0]], values, [2, 2])
    b = ds.SparseTensor([[1, 1]], values[:1] * 5.0, [2, 3])
    chosen, count = ds.cond(flag, lambda: (a, ds.constant(2)), lambda: (b, ds.constant(1)))
    assert isinstance(chosen, ds.SparseTensor)
    assert chosen.shape.as_list() == [2, 2]              # TF's: the true branch's spec
    assert chosen.indices.shape.as_list() == [None, 2]
    (grad,) = ds.gradients(ds.reduce_sum(chosen.values * 3.0), values)
    sess = make_session()
    sess.run(values.initializer)
    got = sess.run([chosen, count, grad], {flag: True})
    np.testing.assert_array_equal(got[0].indices, [[0, 1], [1, 0]])
    np.testing.assert_array_equal(got[0].values, [1.0, 2.0])
    np.testing.assert_array_equal(got[2], [3.0, 3.0])
    got = sess.run([ds.sparse.to_dense(chosen), count, grad], {flag: False})
    np.testing.assert_array_equal(got[0], [[0, 0, 0], [0, 5, 0]])
    np.testing.assert_array_equal(got[2], [15.0, 0.0])
    with pytest.raises(ValueError, match="same nested structure"):
        ds.cond(flag, lambda: a, lambda: ds.constant([1.0]))


def test_a_sparse_tensor_loop_variable_may_change_its_number_of_values(make_session):
    a = ds.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])

    def body(i, sp):          # one more value each time, the dense shape kept
        extra = ds.SparseTensor([[0, 0]], [ds.cast(i, ds.float32)], [2, 2])
        return i + 1, ds.sparse.add(sp, extra)
    _, out = ds.while_loop(lambda i, sp: i < 3, body, [ds.constant(0), a])
    assert isinstance(out, ds.SparseTensor) and out.shape.as_list() == [2, 2]
    assert out.indices.shape.as_list() == [None, 2] and out.values.shape.as_list() == [None]
    _, moved = ds.while_loop(lambda i, sp: i < 2,
                             lambda i, sp: (i + 1, ds.sparse.reshape(sp, [1, 4])),
                             [ds.constant(0), a],
                             shape_invariants=[ds.TensorShape([]), ds.TensorShape([2])])
    assert moved.shape.as_list() == [None, None]       # the rank of the invariant
    sess = make_session()
    got = sess.run(out)
    np.testing.assert_array_equal(got.indices, [[0, 0], [0, 1], [1, 0]])
    np.testing.assert_array_equal(got.values, [3.0, 1.0, 2.0])
    np.testing.assert_array_equal(sess.run(moved).dense_shape, [1, 4])
    with pytest.raises(ValueError, match="Expected a shape with 1 dimension"):
        ds.while_loop(lambda i, sp: i < 2, lambda i, sp: (i + 1, sp), [ds.constant(0), a],
                      shape_invariants=[ds.TensorShape([]), ds.TensorShape([None, 2])])
    with pytest.raises(ValueError, match="same nested structure"):
        ds.while_loop(lambda i, sp: i < 2, lambda i, sp: (i + 1, sp.values),
                      [ds.constant(0), a])


def test_maximum_iterations_single_and_nested_loop_vars(make_session):
    x = scalar(name="x")
    doubled = ds.while_loop(lambda t: t < 1000.0, lambda t: t * 2.0, [x], maximum_iterations=3)
    alone = ds.while_loop(lambda t: t < 100.0, lambda t: t + 7.0, x)
    i, (a, b) = ds.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, (p[0] * 2.0, p[1] + i)),
                              [ds.constant(0), (x, ds.constant(0))])
    capped = ds.while_loop(lambda i, p: i < 10, lambda i, p: [i + 1, (p[0] + 1.0, p[1])],
                           [ds.constant(0), (x, ds.constant(5))], maximum_iterations=4)
    with pytest.raises(TypeError, match="list against tuple"):   # as TF1: the body's containers
        ds.while_loop(lambda i, p: i < 10, lambda i, p: (i + 1, (p[0] + 1.0, p[1])),
                      [ds.constant(0), (x, ds.constant(5))], maximum_iterations=4)
    assert isinstance(doubled, ds.Tensor) and isinstance(alone, ds.Tensor)
    sess = make_session()
    assert float(sess.run(doubled, {x: 1.0})) == 8.0      # three iterations, not ten
    assert float(sess.run(doubled, {x: 600.0})) == 1200.0  # the cond stops it first
    assert float(sess.run(alone, {x: 3.0})) == 101.0
    assert [float(v) for v in sess.run([i, a, b], {x: 1.5})] == [3, 12.0, 3]
    got = sess.run(capped, {x: 0.0})
    assert isinstance(got, list) and int(got[0]) == 4 and isinstance(got[1], tuple)
    assert (float(got[1][0]), int(got[1][1])) == (4.0, 5)


def test_loops_with_variables_conds_inside_and_loops_inside_conds(make_session):
    with ds.device("/job:worker/task:1"):
        v = ds.Variable(np.array([1.0, 2.0], np.float32), name="v")
        counter = ds.Variable(0, name="counter")
        _, acc = ds.while_loop(lambda t, acc: t < 3, lambda t, acc: (t + 1, acc + v),
                               [ds.constant(0), ds.constant(np.zeros(2, np.float32))])

        def count_body(t):
            with ds.control_dependencies([ds.assign_add(counter, 1)]):
                return t + 1
        counted = ds.while_loop(lambda t: t < 4, count_body, [ds.constant(0)])
    x = scalar(name="x")
    collatz = ds.while_loop(
        lambda n, steps: n > 1.0,
        lambda n, steps: (ds.cond(ds.equal(n - 2.0 * ds.cast(ds.cast(n / 2.0, ds.int32),
                                                             ds.float32), 0.0),
                                  lambda: n / 2.0, lambda: 3.0 * n + 1.0), steps + 1),
        [x, ds.constant(0)])
    branchy = ds.cond(x > 0.0, lambda: ds.while_loop(lambda t: t < x, lambda t: t + 3.0, [0.0]),
                      lambda: x)
    assert counted.op.type == "While" and acc.op.type == "StatelessWhile"
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(acc), [3.0, 6.0])
    assert int(sess.run(counted)) == 4 and int(sess.run(counter)) == 4
    assert int(sess.run(collatz, {x: 27.0})[1]) == 111
    assert [float(sess.run(branchy, {x: v})) for v in (7.0, -2.0)] == [9.0, -2.0]


# --- build-time errors -----------------------------------------------------------------------

def test_cond_build_errors():
    x = scalar()
    p = x > 0.0
    with pytest.raises(ValueError, match="same type"):
        ds.cond(p, lambda: ds.constant(1.0), lambda: ds.constant(1))
    with pytest.raises(ValueError, match="Incompatible return values"):
        ds.cond(p, lambda: (x, x), lambda: x)
    with pytest.raises(TypeError, match="Incompatible return types"):
        ds.cond(p, lambda: [x, x], lambda: (x, x))
    with pytest.raises(TypeError, match="bool tensor"):
        ds.cond(x, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="Python bool"):
        ds.cond(True, lambda: x, lambda: x)
    with pytest.raises(ValueError, match="scalar"):
        ds.cond(ds.placeholder(ds.bool, (2,)), lambda: x, lambda: x)
    with pytest.raises(ValueError, match="must have a return value"):
        ds.cond(p, lambda: None, lambda: x)
    with pytest.raises(TypeError, match="callable"):
        ds.cond(p, x, lambda: x)
    with pytest.raises(ValueError, match="from inside a control-flow construct.*lambda"):
        ds.cond(p, lambda: ds.Variable(ds.zeros([2])) * x, lambda: x)


def test_while_build_errors():
    i0 = ds.constant(0)
    rows = ds.constant(np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="enters the loop with shape .*shape_invariants"):
        ds.while_loop(lambda r: ds.reduce_sum(r) < 9.0, lambda r: ds.concat([r, r], 0), [rows])
    with pytest.raises(TypeError, match="type int32, but has type float32"):
        ds.while_loop(lambda i: i < 3, lambda i: ds.cast(i, ds.float32), [i0])
    with pytest.raises(TypeError, match="bool"):
        ds.while_loop(lambda i: i, lambda i: i + 1, [i0])
    with pytest.raises(ValueError, match="not compatible with the initial shape"):
        ds.while_loop(lambda r: ds.constant(True), lambda r: r, [rows],
                      shape_invariants=[ds.TensorShape([3, 2])])
    with pytest.raises(ValueError, match="same nested structure"):
        ds.while_loop(lambda i, j: i < 3, lambda i, j: (i + 1,), [i0, i0])
    with pytest.raises(TypeError, match="callable"):
        ds.while_loop(lambda i: i < 3, None, [i0])


# --- run-time behaviour ----------------------------------------------------------------------

def test_a_predicate_of_the_wrong_shape_at_run_time_names_the_node():
    p = ds.placeholder(ds.bool, None, name="p")
    y = ds.cond(p, lambda: ds.constant(1), lambda: ds.constant(2), name="pick")
    with ds.Session() as sess:
        assert int(sess.run(y, {p: True})) == 1
        with pytest.raises(InvalidArgumentError, match="'pick'.*scalar") as info:
            sess.run(y, {p: [True, False]})
    assert info.value.node_name == "pick"


def test_an_endless_loop_stops_at_the_deadline(make_session):
    forever = ds.while_loop(lambda t: t >= 0.0, lambda t: t + 1.0, [ds.constant(0.0)])
    sess = make_session()
    with pytest.raises(DeadlineExceededError):
        sess.run(forever, options=ds.RunOptions(timeout_s=0.3))


def test_a_trace_shows_the_control_flow_node_and_what_its_functions_ran(make_session):
    x = scalar(name="x")
    y = ds.cond(x > 0.0, lambda: ds.exp(x, name="grow"), lambda: x, name="gate")
    loop = ds.while_loop(lambda t: t < 3, lambda t: t + 1, [ds.constant(0)], name="spin")
    sess = make_session()
    meta = ds.RunMetadata()
    sess.run([y, loop], {x: 1.0}, options=ds.RunOptions(trace=True), run_metadata=meta)
    nodes = [s.node for s in meta.step_stats]
    assert any(n.endswith("gate") for n in nodes) and any(n.endswith("spin") for n in nodes)
    assert any(n.endswith("gate/then/grow") for n in nodes)
    assert sum(n.endswith("spin/body/add") for n in nodes) == 3


def test_variables_made_inside_a_cond_or_loop_live_in_the_graph(make_session):
    """As TF1's: a variable made while a branch or body is traced (get_variable in a
    decoder loop, batch norm in both branches of a cond, reusing) is made in the graph
    itself, under the cond's name scope, its initializer outside; a tensor initial value
    from inside is TF's error (a lambda works)."""
    p = ds.placeholder(ds.bool, [])
    x = ds.ones([2, 3])
    y = ds.cond(p, lambda: x + ds.Variable(lambda: ds.fill([3], 2.0), name="vv"), lambda: x)
    body = lambda i, h: (i + 1, ds.matmul(h, ds.get_variable(          # noqa: E731
        "w", [3, 3], initializer=ds.constant_initializer(0.5))))
    _, looped = ds.while_loop(lambda i, h: i < 3, body, [0, ds.ones([2, 3])])
    xb = ds.placeholder(ds.float32, [4, 3])
    bn = ds.cond(p, lambda: ds.layers.batch_normalization(xb, training=True, name="bn"),
                 lambda: ds.layers.batch_normalization(xb, training=False, name="bn",
                                                       reuse=True))
    assert [v.op.name for v in ds.global_variables()] == [
        "cond/vv", "w", "bn/gamma", "bn/beta", "bn/moving_mean", "bn/moving_variance"]
    session = make_session()
    session.run(ds.global_variables_initializer())
    got, loop = session.run([y, looped], {p: True})
    np.testing.assert_array_equal(got, np.full((2, 3), 3.0))
    np.testing.assert_allclose(loop, np.full((2, 3), 3.375))
    batch = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    normed = (batch - batch.mean(0)) / np.sqrt(batch.var(0) + 1e-3)
    np.testing.assert_allclose(session.run(bn, {p: True, xb: batch}), normed, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(session.run(bn, {p: False, xb: batch}), batch / np.sqrt(1.001),
                               rtol=1e-5)
