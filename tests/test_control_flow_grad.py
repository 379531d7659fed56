"""Gradients through ds.cond and ds.while_loop: each gradient function against float64
finite differences (tests/gradient_check.py), whole graphs through ds.gradients on
every session type, and the gradients devsession refuses to build.

Random ops inside (dropout in a loop): the gradient uses the very values the forward
pass drew (the tests fetch them through an extra loop variable and compute the
gradients in numpy), seeded or not, after 0, 1 or more iterations, in conds, nested
conds and loops, on a cluster whose gradient runs on another task than the loop, from
an imported GraphDef, and on the CUDA module's drivers (cupy's stand-in)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)

@pytest.fixture
def vec(rng):
    """Random float64 vectors of this test's own generator (``rng``)."""
    def draw(n=4, shift=0.0):
        return (rng.standard_normal(n) + shift).astype(np.float64)
    return draw


@pytest.mark.parametrize("shift", [2.0, -2.0], ids=["true_branch", "false_branch"])
def test_if_gradient_function_against_finite_differences(shift, vec):
    def build(x, w):
        return ds.cond(ds.reduce_sum(x) > 0.0,
                       lambda: (ds.tanh(x) * w, x * x, ds.constant(1)),
                       lambda: (x * w * w, ds.exp(x) + w, ds.constant(2)))
    check_op_gradient(build, [vec(shift=shift), vec()])


def test_if_gradient_where_a_branch_ignores_an_input(vec):
    def build(x, w):
        return ds.cond(ds.reduce_sum(x) > 0.0, lambda: x * 3.0, lambda: w + 1.0)
    grads = check_op_gradient(build, [vec(shift=2.0), vec()])   # per input: pred, x, w
    np.testing.assert_array_equal(grads[2], np.zeros(4))


def test_while_gradient_function_against_finite_differences(vec):
    def build(a0, b0, w):
        return ds.while_loop(lambda i, a, b: i < 3,
                             lambda i, a, b: (i + 1, ds.tanh(a) * w + b, b * 0.5 + a * a),
                             [ds.constant(0), a0, b0])
    check_op_gradient(build, [vec(3), vec(3), vec(3)], rtol=1e-5, atol=1e-6)


def test_while_gradient_with_a_growing_tensor_and_no_iterations(vec):
    def grow(x):
        return ds.while_loop(lambda j, r: j < 3,
                             lambda j, r: (j + 1, ds.concat(
                                 [r, ds.reshape(ds.tanh(ds.reduce_sum(r, axis=0)), (1, 2))], 0)),
                             [ds.constant(0), x],
                             shape_invariants=[ds.TensorShape([]), ds.TensorShape([None, 2])])
    check_op_gradient(grow, [vec(2).reshape(1, 2)])

    def never(x, w):
        return ds.while_loop(lambda t, s: t < 0, lambda t, s: (t + 1, s * w), [ds.constant(0), x])
    grads = check_op_gradient(never, [vec(), vec()])   # per input: t0, x, w
    np.testing.assert_array_equal(grads[2], np.zeros(4))


def _numeric_gradient(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.reshape(-1)[i] = eps
        out.reshape(-1)[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return out


def test_gradients_through_nested_control_flow_in_every_session(make_session):
    x = ds.placeholder(ds.float64, (3,), name="x")
    w = ds.constant(np.array([0.5, -1.0, 2.0]), name="w")

    def body(i, s):
        step = ds.cond(ds.reduce_sum(s) > 1.0, lambda: ds.tanh(s) * w, lambda: s * s + x)
        return i + 1, step
    _, looped = ds.while_loop(lambda i, s: i < 3, body, [ds.constant(0), x])
    y = ds.reduce_sum(ds.cond(ds.reduce_sum(x) > 0.0, lambda: looped * x, lambda: ds.exp(looped)))
    (dx,) = ds.gradients(y, [x])

    def f(xv):
        s = xv.copy()
        for _ in range(3):
            s = np.tanh(s) * w_value if s.sum() > 1.0 else s * s + xv
        return float(np.sum(s * xv if xv.sum() > 0 else np.exp(s)))
    w_value = np.array([0.5, -1.0, 2.0])
    sess = make_session()
    for xv in (np.array([0.3, 0.4, 0.2]), np.array([-0.3, 0.1, -0.4]), np.array([0.9, 0.8, 0.7])):
        np.testing.assert_allclose(sess.run(dx, {x: xv}), _numeric_gradient(f, xv),
                                   rtol=1e-5, atol=1e-7)


def test_gradients_reach_outer_constants_and_shapes_still_infer_inside():
    c = ds.constant(np.array([1.0, 2.0, 3.0]), name="c")
    shape = ds.constant(np.array([3, 1], np.int32), name="shape")
    x = ds.placeholder(ds.float64, (3,), name="x")
    y = ds.cond(ds.reduce_sum(x) > 0.0, lambda: ds.reshape(c * x, shape),
                lambda: ds.reshape(c, shape))
    assert y.shape.as_list() == [3, 1]                    # the int operand was copied in
    dc, dx = ds.gradients(ds.reduce_sum(y * y), [c, x])
    with ds.Session() as sess:
        xv, cv = np.array([0.5, 1.0, -0.5]), np.array([1.0, 2.0, 3.0])
        np.testing.assert_allclose(sess.run(dc, {x: xv}), 2 * cv * xv * xv)
        np.testing.assert_allclose(sess.run(dx, {x: xv}), 2 * cv * cv * xv)
        np.testing.assert_allclose(sess.run(dc, {x: -xv}), 2 * cv)


def test_gradients_reach_variables_and_a_training_step_works(make_session):
    x = ds.placeholder(ds.float32, (), name="x")
    w = ds.Variable(2.0, name="w")
    loss = ds.cond(x > 0.0, lambda: w * x, lambda: w * w)
    (dw,) = ds.gradients(loss, w)
    _, powered = ds.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, p * w), [0, 1.0])
    step = ds.train.GradientDescentOptimizer(0.1).minimize(powered)
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    assert [float(sess.run(dw, {x: v})) for v in (3.0, -3.0)] == [3.0, 4.0]
    sess.run(step)                                      # d(w^3)/dw = 3 w^2 = 12
    assert float(sess.run(w)) == pytest.approx(2.0 - 0.1 * 12.0)


def test_gradients_devsession_refuses_or_stops():
    x = ds.placeholder(ds.float32, (2,), name="x")
    counter = ds.Variable(0, name="counter")

    def counting(t):
        with ds.control_dependencies([ds.assign_add(counter, 1)]):
            return t * 1.5
    counted = ds.while_loop(lambda t: ds.reduce_sum(t) < 10.0, counting, [x])
    with pytest.raises(ValueError, match=r"stateful op 'AssignAdd' \(AssignAdd\).*Random ops "
                                         r"are fine.*assigns and other stateful ops are not"):
        ds.gradients(counted, x)
    bumping = ds.cond(ds.reduce_sum(x) > 0.0,
                      lambda: x * ds.cast(ds.assign_add(counter, 1), ds.float32), lambda: x)
    with pytest.raises(ValueError, match="stateful op 'AssignAdd' .*assigns"):
        ds.gradients(bumping, x)
    stopped = ds.while_loop(lambda t: ds.reduce_sum(t) < 10.0, lambda t: t * 1.5, [x],
                            back_prop=False)
    assert ds.gradients(stopped, x) == [None]
    # an effect the gradient does not need is fine: the forward pass (which the gradient
    # reads the output shape of) runs it once, the gradient does not run it again
    bumped = ds.cond(ds.reduce_sum(x) > 0.0, lambda: counting(x), lambda: x * 2.0)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        np.testing.assert_allclose(sess.run(ds.gradients(bumped, x)[0], {x: [1.0, 2.0]}),
                                   [1.5, 1.5])
        assert int(sess.run(counter)) == 1


# --- random ops inside: the gradient computes with what the forward pass drew --------------

W = np.array([0.5, -1.0, 2.0])
KEEP = 0.6


def noisy_loop(seed, loop_device=""):
    """A loop over ``n`` (fed) iterations that multiplies by ``ds.random_uniform`` and
    applies ``ds.nn.dropout``; its third loop variable stacks what each iteration drew
    (the uniform values, then the dropout's factor: 0 or 1 / keep), so that a test sees
    the draws of the very run whose gradients it checks.  The loop (not its gradient)
    is placed on ``loop_device``."""
    x = ds.placeholder(ds.float64, (3,), name="x")
    n = ds.placeholder(ds.int32, (), name="n")
    w = ds.constant(W, name="w")

    def body(i, s, drawn):
        r = ds.random_uniform((3,), dtype=ds.float64, seed=seed)
        dropped = ds.nn.dropout(s, rate=1 - KEEP, seed=seed)
        factor = ds.cast(ds.not_equal(dropped, 0.0), ds.float64) / KEEP
        return (i + 1, ds.tanh(dropped * r) * w + 0.1 * s,
                ds.concat([drawn, ds.reshape(ds.stack([r, factor]), (1, 2, 3))], 0))
    with ds.device(loop_device):
        _, y, drawn = ds.while_loop(
            lambda i, s, drawn: i < n, body, [0, x, ds.zeros((0, 2, 3), ds.float64)],
            shape_invariants=[ds.TensorShape([]), ds.TensorShape([3]),
                              ds.TensorShape([None, 2, 3])])
    dx, dw = ds.gradients(ds.reduce_sum(y * y), [x, w])
    return (x, n), (y, drawn, dx, dw)


def noisy_loop_in_numpy(x, drawn):
    """``noisy_loop``'s y and the gradients of sum(y * y) w.r.t. x and w, given the draws."""
    states = [x]
    for r, factor in drawn:
        states.append(np.tanh(states[-1] * factor * r) * W + 0.1 * states[-1])
    dy, dw = 2 * states[-1], np.zeros(3)
    for (r, factor), s in zip(drawn[::-1], states[-2::-1]):
        t = np.tanh(s * factor * r)
        dw += dy * t
        dy = dy * (W * (1 - t * t) * factor * r + 0.1)
    return states[-1], dy, dw


def run_noisy_loop(sess, feeds, fetches, xv, steps) -> np.ndarray:
    """Run ``noisy_loop`` for ``steps`` iterations, check its values and gradients against
    numpy given the draws fetched in the same run, and return those draws."""
    y, drawn, dx, dw = sess.run(fetches, {feeds[0]: xv, feeds[1]: steps})
    assert drawn.shape == (steps, 2, 3)
    for got, want in zip((y, dx, dw), noisy_loop_in_numpy(xv, drawn)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    return drawn


@pytest.mark.parametrize("seed", [None, 5], ids=["unseeded", "seeded"])
def test_a_loop_with_random_ops_differentiates_with_the_values_it_drew(seed, vec):
    feeds, fetches = noisy_loop(seed)
    xv = vec(3)
    with ds.Session() as sess:
        drawn = [run_noisy_loop(sess, feeds, fetches, xv, steps) for steps in (6, 6, 1, 0)]
    assert not np.array_equal(drawn[0], drawn[1])             # new draws each run
    factors = np.concatenate([drawn[0][:, 1], drawn[1][:, 1]])
    assert 0 < np.mean(factors == 0) < 1                      # dropout dropped some
    if seed is not None:                                      # a new session repeats them
        with ds.Session() as sess:
            again = [run_noisy_loop(sess, feeds, fetches, xv, steps) for steps in (6, 6)]
        np.testing.assert_array_equal(again[0], drawn[0])
        np.testing.assert_array_equal(again[1], drawn[1])


@pytest.mark.parametrize("seed", [None, 2], ids=["unseeded", "seeded"])
def test_a_cond_with_a_random_op_differentiates_with_the_value_it_drew(seed, vec):
    x = ds.placeholder(ds.float64, (3,), name="x")

    def noisy():
        r = ds.random_normal((3,), dtype=ds.float64, seed=seed)
        return ds.tanh(x * r), r
    y, r = ds.cond(ds.reduce_sum(x) > 0.0, noisy, lambda: (x * x, ds.zeros_like(x)))
    (dx,) = ds.gradients(ds.reduce_sum(y), x)
    xv = vec(3, shift=2.0)
    with ds.Session() as sess:
        drawn = []
        for value in (xv, xv):
            got_y, got_r, got_dx = sess.run([y, r, dx], {x: value})
            np.testing.assert_allclose(got_y, np.tanh(value * got_r), rtol=1e-12)
            np.testing.assert_allclose(got_dx, (1 - np.tanh(value * got_r) ** 2) * got_r,
                                       rtol=1e-10)
            drawn.append(got_r)
        np.testing.assert_allclose(sess.run(dx, {x: -xv}), -2 * xv)
    assert not np.array_equal(*drawn)


def nested_noisy_loop():
    """A loop whose body runs a cond with dropout in a branch, then an inner loop
    multiplying by random values; its third loop variable keeps each iteration's
    factor (what dropout kept, times the inner loop's product), so y = x * prod(factors)."""
    x = ds.placeholder(ds.float64, (4,), name="x")

    def inner(j, t, product):
        r = ds.random_uniform((4,), dtype=ds.float64, seed=5)
        return j + 1, t * r, product * r

    def body(i, s, factors):
        dropped = ds.cond(i % 2 > 0, lambda: ds.nn.dropout(s, rate=0.5, seed=3),
                          lambda: s * 1.5)
        _, t, product = ds.while_loop(lambda j, t, p: j < i, inner,
                                      [0, dropped, ds.ones((4,), ds.float64)])
        kept = ds.where(ds.equal(s, 0.0), ds.zeros_like(s), dropped / s)   # 0 stays 0
        factor = ds.stop_gradient(kept * product)
        return i + 1, t, ds.concat([factors, ds.reshape(factor, (1, 4))], 0)
    _, y, factors = ds.while_loop(
        lambda i, s, f: i < 4, body, [0, x, ds.zeros((0, 4), ds.float64)],
        shape_invariants=[ds.TensorShape([]), ds.TensorShape([4]), ds.TensorShape([None, 4])])
    (dx,) = ds.gradients(ds.reduce_sum(y), x)
    return x, y, factors, dx


def test_nested_conds_and_loops_with_random_ops_in_every_session(make_session, vec):
    x, y, factors, dx = nested_noisy_loop()
    sess = make_session()
    xv = vec(4, shift=3.0)
    dropped = []
    for _ in range(3):
        got_y, got_factors, got_dx = sess.run([y, factors, dx], {x: xv})
        product = np.prod(got_factors, axis=0)
        np.testing.assert_allclose(got_y, xv * product, rtol=1e-10)
        np.testing.assert_allclose(got_dx, product, rtol=1e-10)
        dropped.append(product == 0)
    assert 0 < np.mean(dropped) < 1


def test_a_cluster_sends_a_loops_records_to_its_gradient_on_another_task(vec):
    from sessions import local_cluster

    feeds, fetches = noisy_loop(seed=4, loop_device="/job:worker/task:1")
    assert fetches[0].op.device == "/job:worker/task:1"
    (gradient,) = [op for op in ds.get_default_graph().get_operations()
                   if op.type == "_WhileGrad"]
    assert gradient.device == ""                      # the session's: task 0
    target = local_cluster()[0].target
    options = ds.SessionOptions(target=target, device="/job:worker/task:0/cpu:0")
    ds.reset(options)
    with ds.Session(target, options=options) as sess:
        for steps in (4, 0):
            run_noisy_loop(sess, feeds, fetches, vec(3), steps)


def test_a_loop_that_does_not_record_inside_one_that_does_and_graphdefs(vec):
    """A back_prop=False loop drawing random values, nested in a loop differentiated:
    the outer loop records its outputs; a GraphDef of the whole keeps the records, and a
    gradient built on the imported graph uses them."""
    x = ds.placeholder(ds.float64, (3,), name="x")

    def body(i, s, ks):
        _, k = ds.while_loop(lambda j, k: j < 2,
                             lambda j, k: (j + 1, k * ds.random_uniform((3,), dtype=ds.float64)),
                             [0, ds.ones((3,), ds.float64)], back_prop=False)
        return i + 1, ds.tanh(s * k), ds.concat([ks, ds.reshape(k, (1, 3))], 0)
    _, y, ks = ds.while_loop(lambda i, s, ks: i < 3, body, [0, x, ds.zeros((0, 3), ds.float64)],
                             shape_invariants=[ds.TensorShape([]), ds.TensorShape([3]),
                                               ds.TensorShape([None, 3])])
    graph_def, imported = ds.get_default_graph().as_graph_def(), ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph_def, name="")
        names = (x.name, y.name, ks.name)
        copies = [imported.get_tensor_by_name(n) for n in names]
        copies.append(ds.gradients(ds.reduce_sum(copies[1]), copies[0])[0])
    (dx,) = ds.gradients(ds.reduce_sum(y), x)
    xv = vec(3)
    for graph, (x_, y_, ks_, dx_) in ((ds.get_default_graph(), (x, y, ks, dx)),
                                      (imported, copies)):
        with ds.Session(graph=graph) as sess:
            got_y, got_ks, got_dx = sess.run([y_, ks_, dx_], {x_: xv})
        s, ds_dx = xv, np.ones(3)
        for k in got_ks:
            s = np.tanh(s * k)
            ds_dx = ds_dx * (1 - s * s) * k
        np.testing.assert_allclose(got_y, s, rtol=1e-12)
        np.testing.assert_allclose(got_dx, ds_dx, rtol=1e-10)


def test_only_loops_and_conds_with_random_ops_record():
    """Records cost nothing where there is nothing to record (a loop without random ops,
    or with back_prop=False); a loop whose random ops nothing needs, or whose cond alone
    draws, records only its iteration count (its gradient replays the body that many
    times); while_loop and cond return only their own values."""
    x = ds.placeholder(ds.float32, (3,), name="x")
    plain = ds.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2.0), [0, x])
    stopped = ds.while_loop(lambda i, s: i < 3,
                            lambda i, s: (i + 1, s * ds.random_uniform((3,))), [0, x],
                            back_prop=False)

    def unused_draw(i, s):
        ds.random_uniform((3,))             # nothing needs it, so it never runs
        return i + 1, s * 2.0
    unused = ds.while_loop(lambda i, s: i < 3, unused_draw, [0, x])
    noisy = ds.while_loop(lambda i, s: ds.random_uniform(()) < 0.9,
                          lambda i, s: (i + 1, s * 2.0), [0, x])
    picked = ds.cond(ds.reduce_sum(x) > 0.0, lambda: x * ds.random_uniform((3,)), lambda: x)
    for result, outputs in ((plain, 2), (stopped, 2), (unused, 3), (noisy, 3), ([picked], 2)):
        op = result[-1].op
        assert len(op.outputs) == outputs, op.name
        assert ("num_records" in op.attrs) == (outputs > len(result)), op.name
    dx = ds.gradients([ds.reduce_sum(unused[1]), ds.reduce_sum(noisy[1])], x)[0]
    with ds.Session() as sess:
        steps, got_dx = sess.run([noisy[0], dx], {x: [1.0, 2.0, 3.0]})
    np.testing.assert_allclose(got_dx, np.full(3, 8.0 + 2.0 ** steps))


def test_records_on_the_cuda_modules_drivers(standin):
    """kernels/cuda/ records with cupy (the stand-in) and replays them."""
    feeds = ds.placeholder(ds.float32, (3,), name="x")
    with ds.device("gpu:0"):
        def body(i, s, drawn):
            r = ds.random_uniform((3,), seed=2)
            return i + 1, ds.tanh(s * r), ds.concat([drawn, ds.reshape(r, (1, 3))], 0)
        _, y, drawn = ds.while_loop(lambda i, s, d: i < 3, body, [0, feeds, ds.zeros((0, 3))],
                                    shape_invariants=[ds.TensorShape([]), ds.TensorShape([3]),
                                                      ds.TensorShape([None, 3])])
        (dx,) = ds.gradients(ds.reduce_sum(y), feeds)
    xv = np.array([0.5, -0.25, 1.0], np.float32)
    with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
        got_drawn, got_dx = sess.run([drawn, dx], {feeds: xv})
        plan = sess._prepare((feeds,), (dx,), ()).plan
    assert {st.device.short_name for st in plan.steps if st.op_type in ("While", "_WhileGrad")} \
        == {"GPU:0"}
    s, want = xv.astype(np.float64), np.ones(3)
    for r in got_drawn:
        s = np.tanh(s * r)
        want = want * (1 - s * s) * r
    np.testing.assert_allclose(got_dx, want, rtol=1e-5)


def test_a_loop_gradient_of_zero_iterations_is_a_copy_not_the_fed_array():
    x = ds.placeholder(ds.float32, [3])
    dy = ds.placeholder(ds.float32, [3])
    looped = ds.while_loop(lambda v: ds.reduce_sum(v) < -1.0, lambda v: v * 2.0, [x])
    (dx,) = ds.gradients(looped, [x], grad_ys=[dy])
    fed = np.array([1.0, 2.0, 3.0], np.float32)
    with ds.Session() as sess:
        got = sess.run(dx, {x: np.ones(3, np.float32), dy: fed})
    np.testing.assert_array_equal(got, fed)
    assert not np.shares_memory(got, fed)


# --- ds.gradients inside a branch or loop body, with respect to outer tensors ---------------

def test_gradients_inside_a_body_reach_outer_variables_and_differentiate_again():
    """MAML's inner step inside ``map_fn``: ``ds.gradients`` in the loop body with respect
    to a variable of the outer graph (it stands for the Placeholder that captured its
    read), then the outer gradient through that inner gradient (float64 numpy)."""
    xs = np.array([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3]])
    w0, alpha = np.array([0.3, -0.7, 0.4]), 0.5
    w = ds.Variable(w0, name="w")

    def adapt(x):
        (g,) = ds.gradients(ds.reduce_sum(ds.tanh(w * x)), w)
        return ds.reduce_sum(ds.square(w - alpha * g)), g
    losses, inner = ds.map_fn(adapt, ds.constant(xs), dtype=(ds.float64, ds.float64))
    (outer,) = ds.gradients(ds.reduce_sum(losses), w)
    t = np.tanh(w0 * xs)
    fast = w0 - alpha * xs * (1 - t * t)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got_inner, got_outer = sess.run([inner, outer])
    np.testing.assert_allclose(got_inner, xs * (1 - t * t), rtol=1e-12)
    want = (2 * fast * (1 + 2 * alpha * xs * xs * t * (1 - t * t))).sum(0)
    np.testing.assert_allclose(got_outer, want, rtol=1e-12)


def test_gradients_inside_branches_and_nested_bodies_reach_outer_tensors():
    c = ds.placeholder(ds.float64, (2,), name="c")
    v = ds.Variable(np.array([1.0, -2.0]), name="v")
    unused = ds.placeholder(ds.float64, (2,), name="unused")

    def branch():
        (dc,) = ds.gradients(ds.reduce_sum(c * c * c), c)         # an outer placeholder
        assert ds.gradients(ds.reduce_sum(c), unused) == [None]    # never used inside
        assert ds.gradients(ds.reduce_sum(c), unused,
                            unconnected_gradients="zero")[0] is not None

        def body(i, acc):       # nested: a loop in the branch, v of the outermost graph
            return i + 1, acc + ds.gradients(ds.reduce_sum(v * v * acc), v)[0]
        return dc + ds.while_loop(lambda i, acc: i < 2, body, [0, ds.ones([2], ds.float64)])[1]
    def reads_twice():          # v's captured read, and a fresh read after c inside
        with ds.control_dependencies([ds.identity(c)]):
            fresh = v + 0.0
        return ds.gradients(ds.reduce_sum(v * fresh), v)[0]
    y = ds.cond(ds.reduce_sum(c) > 0.0, branch, lambda: c)
    twice = ds.cond(ds.reduce_sum(c) > 0.0, reads_twice, lambda: c)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        cv, vv = np.array([0.5, 1.5]), np.array([1.0, -2.0])
        acc = np.ones(2)
        for _ in range(2):
            acc = acc + 2 * vv * acc
        np.testing.assert_allclose(sess.run(y, {c: cv}), 3 * cv * cv + acc)
        np.testing.assert_allclose(sess.run(twice, {c: cv}), 2 * vv)
    other = ds.Graph()
    with other.as_default():
        stranger = ds.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="'Const:0'.* must be from the same graph as "):
        ds.cond(ds.reduce_sum(c) > 0.0, lambda: ds.gradients(c * 2.0, stranger)[0],
                lambda: c)


def test_a_loop_gradient_differentiated_again_raises_tf1s_type_error():
    """The gradient of a ``map_fn``'s gradient, taken outside the loop: TF1's TypeError
    (it was a silent None); gradients taken inside the body still differentiate."""
    scale = ds.Variable(np.array([1.5, -0.5]), name="scale")
    rows = np.array([[1.0, 2.0], [-0.5, 1.0], [0.3, 0.7]])
    mapped = ds.map_fn(lambda row: ds.reduce_sum(ds.tanh(row * scale)), ds.constant(rows))
    (g,) = ds.gradients(ds.reduce_sum(mapped), scale)
    with pytest.raises(TypeError, match="^Second-order gradient for while loops not "
                                        "supported.$"):
        ds.gradients(g, scale, grad_ys=ds.constant([1.0, -2.0], ds.float64))
    stopped = ds.map_fn(lambda row: ds.reduce_sum(row * scale), ds.constant(rows),
                        back_prop=False)
    assert ds.gradients(ds.gradients(ds.reduce_sum(stopped) + ds.reduce_sum(scale), scale),
                        scale) == [None]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        t = np.tanh(rows * np.array([1.5, -0.5]))
        np.testing.assert_allclose(sess.run(g), (rows * (1 - t * t)).sum(0), rtol=1e-12)


def test_gradients_inside_a_body_refuse_an_x_used_only_through_outer_ops():
    """An outer x the function uses through a tensor computed from it outside: the
    gradient cannot reach back through those outer ops, so ValueError naming that
    tensor rather than a None (or a partial sum) that would be wrong."""
    x = ds.placeholder(ds.float64, (2,), name="x")
    doubled = ds.multiply(x, 2.0, name="doubled")
    held = ds.stop_gradient(x * 3.0, name="held")
    with pytest.raises(ValueError, match="uses 'doubled:0', computed from it outside"):
        ds.cond(ds.reduce_sum(x) > 0.0,
                lambda: ds.gradients(ds.reduce_sum(x * doubled), x)[0], lambda: x)
    # through a stop_gradient the outer path carries no gradient: x's own use counts
    y = ds.cond(ds.reduce_sum(x) > 0.0,
                lambda: ds.gradients(ds.reduce_sum(x * held), x)[0], lambda: x)
    with ds.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: [1.0, 2.0]}), [3.0, 6.0])
