"""Gradients through ds.cond and ds.while_loop: each gradient function against float64
finite differences (tests/gradient_check.py), whole graphs through ds.gradients on
every session type, and the gradients devsession refuses to build."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient

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
    noisy = ds.cond(ds.reduce_sum(x) > 0.0,
                    lambda: ds.tanh(x + ds.random_normal((2,), seed=1)), lambda: x)
    with pytest.raises(ValueError, match="stateful op .*RandomStandardNormal"):
        ds.gradients(noisy, x)
    counter = ds.Variable(0, name="counter")

    def counting(t):
        with ds.control_dependencies([ds.assign_add(counter, 1)]):
            return t * 1.5
    counted = ds.while_loop(lambda t: ds.reduce_sum(t) < 10.0, counting, [x])
    with pytest.raises(ValueError, match="stateful ops"):
        ds.gradients(counted, x)
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
