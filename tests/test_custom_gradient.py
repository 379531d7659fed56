"""TF1's gradient registration: ``ds.custom_gradient`` (its ``variables=`` form too),
``ds.RegisterGradient`` with ``graph.gradient_override_map``, ``ds.NotDifferentiable``,
``ds.hessians``, ``ds.AggregationMethod`` and ``unconnected_gradients``; the
``IdentityN`` node custom_gradient builds, its kernels on every device.

Values are checked against hand-computed derivatives; a gradient-reversal layer trains
with an optimizer in every session type (direct and cluster), with the graph optimizer's
passes on and off.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.identity_n import identity_n
from kernel_cases import DEVICES, F32, F64, I32, check_against_ref, make_node

COVERED = {"IdentityN"}


@ds.custom_gradient
def reverse_gradient(x):
    """A gradient-reversal layer: the identity forward, -dy backward."""
    return ds.identity(x), lambda dy: -dy


@ds.custom_gradient
def log1pexp(x):
    """TF's docstring example: log(1 + e^x) with a gradient that stays finite."""
    e = ds.exp(x)

    def grad(dy):
        return dy * (1.0 - 1.0 / (1.0 + e))
    return ds.log(1.0 + e), grad


def run(fetches, feeds=None, options=None):
    with ds.Session(options=options) as sess:
        sess.run(ds.global_variables_initializer())
        return sess.run(fetches, feeds)


# --- custom_gradient -------------------------------------------------------------------------

def test_custom_gradient_replaces_the_functions_own_gradient():
    x = ds.placeholder(ds.float64, (3,))
    y = log1pexp(x)
    (dx,) = ds.gradients(y, x)
    xs = np.array([-1.0, 0.5, 100.0])
    got_y, got_dx = run([y, dx], {x: xs})
    np.testing.assert_allclose(got_y[:2], np.log1p(np.exp(xs[:2])))
    np.testing.assert_allclose(got_dx, 1.0 - 1.0 / (1.0 + np.exp(xs)))   # 1.0 at 100, no NaN
    assert y.op.type == "IdentityN" and y.op.get_attr("_gradient_op_type").startswith(
        b"CustomGradient-")          # TF's form: bytes


def test_gradient_reversal_and_what_flows_around_it():
    x = ds.placeholder(ds.float32, (2,))
    y = 3.0 * reverse_gradient(x * x)        # d/dx = -3 * 2x
    (dx,) = ds.gradients(y, x)
    np.testing.assert_allclose(run(dx, {x: [1.0, -2.0]}), [-6.0, 12.0])


def test_several_inputs_and_outputs_and_an_unused_output_gets_zeros():
    @ds.custom_gradient
    def pair(a, b):
        def grad(da, db):
            return da * 10.0 + db, db * 100.0
        return [a * b, a + b], grad

    a, b = ds.constant([1.0, 2.0]), ds.constant([3.0, 4.0])
    prod, total = pair(a, b)
    ga, gb = ds.gradients(prod, [a, b])            # d(total) is zeros, not None
    ga2, gb2 = ds.gradients([prod, total], [a, b])
    got = run([prod, total, ga, gb, ga2, gb2])
    np.testing.assert_allclose(got[0], [3.0, 8.0])
    np.testing.assert_allclose(got[1], [4.0, 6.0])
    np.testing.assert_allclose(got[2], [10.0, 10.0])
    np.testing.assert_allclose(got[3], [0.0, 0.0])
    np.testing.assert_allclose(got[4], [11.0, 11.0])
    np.testing.assert_allclose(got[5], [100.0, 100.0])


def test_variables_form_gives_gradients_to_the_variables_used_inside():
    w = ds.Variable([1.0, 2.0], name="w")

    @ds.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            assert variables == [w]
            return dy * w * 2.0, [dy * x * 10.0]
        return x * w, grad

    x = ds.constant([3.0, 5.0])
    y = scaled(x)
    gx, gw = ds.gradients(y, [x, w])
    got_y, got_gx, got_gw = run([y, gx, gw])
    np.testing.assert_allclose(got_y, [3.0, 10.0])
    np.testing.assert_allclose(got_gx, [2.0, 4.0])
    np.testing.assert_allclose(got_gw, [30.0, 50.0])


def test_a_grad_fn_without_variables_is_refused_when_variables_are_used():
    w = ds.Variable(2.0)

    @ds.custom_gradient
    def uses_w(x):
        return x * w, lambda dy: dy

    with pytest.raises(TypeError, match="must accept keyword argument 'variables'"):
        uses_w(ds.constant(1.0))


def test_wrong_gradient_counts_and_keyword_arguments_are_refused():
    w = ds.Variable(2.0)

    @ds.custom_gradient
    def too_few_variable_grads(x):
        return x * w, lambda dy, variables=None: (dy, [])

    @ds.custom_gradient
    def too_many_input_grads(x):
        return x * 2.0, lambda dy: (dy, dy)

    x = ds.constant(1.0)
    with pytest.raises(ValueError, match="gradient for each variable"):
        ds.gradients(too_few_variable_grads(x), x)
    with pytest.raises(ValueError, match="returned 2 gradients for 1 inputs"):
        ds.gradients(too_many_input_grads(x), x)
    with pytest.raises(ValueError, match="keywords arguments"):
        reverse_gradient(x=x)


def _reversal_training_graph():
    g = ds.Graph()
    with g.as_default():
        w = ds.Variable([1.0, 5.0], name="w")
        loss = ds.reduce_sum(ds.square(reverse_gradient(w * 1.0) - 3.0))
        train = ds.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = ds.global_variables_initializer()
    return g, w, train, init


@pytest.mark.parametrize("optimizer", [ds.OptimizerOptions(), ds.OptimizerOptions.none()],
                         ids=["passes-on", "passes-off"])
def test_a_gradient_reversal_layer_trains_away_from_the_target(make_session, optimizer):
    g, w, train, init = _reversal_training_graph()
    sess = make_session(g, optimizer=optimizer)
    sess.run(init)
    want = np.array([1.0, 5.0], np.float32)
    for _ in range(3):
        sess.run(train)
        want = want + 0.1 * 2.0 * (want - 3.0)      # gradient ascent on (w - 3)^2
        np.testing.assert_allclose(sess.run(w), want, rtol=1e-6)


def test_the_override_survives_a_graph_def_round_trip():
    x = ds.placeholder(ds.float32, (2,), name="x")
    ds.identity(reverse_gradient(x), name="y")
    graph_def = ds.get_default_graph().as_graph_def()
    g2 = ds.Graph()
    with g2.as_default():
        ds.import_graph_def(graph_def, name="")
        x2, y2 = g2.get_tensor_by_name("x:0"), g2.get_tensor_by_name("y:0")
        (dx,) = ds.gradients(y2 * 2.0, x2)
        with ds.Session() as sess:
            np.testing.assert_allclose(sess.run(dx, {x2: [1.0, 2.0]}), [-2.0, -2.0])


# --- RegisterGradient, gradient_override_map, NotDifferentiable ------------------------------

@ds.RegisterGradient("TestCubedSquareGrad")
def _cubed_square_grad(op, dy):
    return dy * 3.0 * ds.square(op.inputs[0])       # as if Square were x**3


ds.NotDifferentiable("TestBlockedGrad")


def test_gradient_override_map_uses_a_registered_gradient_inside_the_block_only():
    g = ds.get_default_graph()
    x = ds.constant([1.0, 2.0])
    with g.gradient_override_map({"Square": "TestCubedSquareGrad"}):
        overridden = ds.square(x)
        with g.gradient_override_map({"Square": "TestBlockedGrad"}):
            blocked = ds.square(x)
        overridden_again = ds.square(x)
    plain = ds.square(x)
    assert plain.op.attrs.get("_gradient_op_type") is None
    grads = [ds.gradients(y, x)[0] for y in (overridden, overridden_again, plain)]
    assert ds.gradients(blocked, x) == [None]
    got = run(grads)
    np.testing.assert_allclose(got[0], [3.0, 12.0])
    np.testing.assert_allclose(got[1], [3.0, 12.0])
    np.testing.assert_allclose(got[2], [2.0, 4.0])


def test_registration_errors_are_tfs():
    with pytest.raises(KeyError, match="Registering two gradient with name 'Square'"):
        ds.RegisterGradient("Square")(lambda op, dy: dy)
    with pytest.raises(KeyError, match="TestBlockedGrad"):
        ds.no_gradient("TestBlockedGrad")
    with pytest.raises(TypeError):
        ds.NotDifferentiable(3)
    with pytest.raises(TypeError):
        ds.RegisterGradient(None)
    with pytest.raises(TypeError, match="mapping strings to strings"):
        with ds.get_default_graph().gradient_override_map({"Square": 1}):
            pass
    assert ds.NoGradient is ds.NotDifferentiable is ds.no_gradient


def test_an_unregistered_override_name_is_a_lookup_error_naming_it():
    x = ds.constant(1.0)
    with ds.get_default_graph().gradient_override_map({"Square": "NoSuchGradient"}):
        y = ds.square(x)
    with pytest.raises(LookupError, match="NoSuchGradient"):
        ds.gradients(y, x)


# --- hessians, aggregation_method, unconnected_gradients ------------------------------------

def test_hessians_against_hand_computed_second_derivatives():
    x = ds.placeholder(ds.float64, (3,))
    m = ds.placeholder(ds.float64, (2, 2))
    y = ds.reduce_sum(x ** 3) + x[0] * x[1] + ds.reduce_sum(ds.sin(m)) * x[2]
    hx, hm = ds.hessians(y, [x, m])
    assert hx.shape == (3, 3) and hm.shape == (2, 2, 2, 2)
    xs, ms = np.array([1.0, 2.0, -1.5]), np.array([[0.1, 0.2], [0.3, 0.4]])
    got_x, got_m = run([hx, hm], {x: xs, m: ms})
    np.testing.assert_allclose(got_x, [[6.0, 1.0, 0.0], [1.0, 12.0, 0.0], [0.0, 0.0, -9.0]])
    want_m = np.zeros((2, 2, 2, 2))
    for i in range(2):
        for j in range(2):
            want_m[i, j, i, j] = -np.sin(ms[i, j]) * xs[2]     # d2/dm_ij^2 only
    np.testing.assert_allclose(got_m, want_m)


def test_hessians_of_a_linear_function_are_zeros_and_unknown_shapes_are_refused():
    x = ds.placeholder(ds.float32, (2,))
    (h,) = ds.hessians(3.0 * ds.reduce_sum(x), x)
    np.testing.assert_array_equal(run(h, {x: [1.0, 2.0]}), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="must be fully known"):
        ds.hessians(x, ds.placeholder(ds.float32, (None,)))


def test_aggregation_methods_are_accepted_and_others_refused():
    x = ds.constant([1.0, 2.0])
    y = x * x + x * 3.0
    for method in (ds.AggregationMethod.ADD_N, ds.AggregationMethod.DEFAULT,
                   ds.AggregationMethod.EXPERIMENTAL_TREE,
                   ds.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        (dx,) = ds.gradients(y, x, aggregation_method=method)
        np.testing.assert_allclose(run(dx), [5.0, 7.0])
    with pytest.raises(ValueError, match="Invalid aggregation_method specified 7"):
        ds.gradients(y, x, aggregation_method=7)


def test_unconnected_gradients_none_or_zero():
    x, unused = ds.constant([1.0, 2.0]), ds.constant([[1.0]])
    y = x * 2.0
    assert ds.gradients(y, [x, unused])[1] is None
    zero = ds.gradients(y, [x, unused], unconnected_gradients=ds.UnconnectedGradients.ZERO)[1]
    same = ds.gradients(y, [x, unused], unconnected_gradients="zero")[1]
    np.testing.assert_array_equal(run([zero, same]), [[[0.0]], [[0.0]]])
    with pytest.raises(ValueError, match="unconnected_gradients"):
        ds.gradients(y, x, unconnected_gradients="zeros")


# --- IdentityN --------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_identity_n_kernel_passes_every_input_through(device):
    node = make_node("IdentityN", [F32, I32, F64], F32,
                     output_dtypes=(F32, I32, F64), output_shapes=((2,), (), (1, 2)))
    check_against_ref(device, node, np.array([1.5, -2.0], F32), np.array(7, I32),
                      np.array([[3.0, 4.0]], F64))
    one = make_node("IdentityN", [F32], F32)
    np.testing.assert_array_equal(check_against_ref(device, one, np.array([1.0], F32)), [1.0])


def test_identity_n_in_a_session_and_its_own_gradient():
    a, b = ds.constant([1.0, 2.0]), ds.constant(3, ds.int32)
    x, n = identity_n([a, b])
    assert (x.shape, n.dtype) == (a.shape, ds.int32)
    (da,) = ds.gradients(x * 4.0, a)
    got = run([x, n, da])
    np.testing.assert_array_equal(got[0], [1.0, 2.0])
    assert got[1] == 3
    np.testing.assert_array_equal(got[2], [4.0, 4.0])
    with pytest.raises(ValueError, match="at least one input"):
        identity_n([])


@pytest.mark.parametrize("wrap", ["cond", "while_loop", "map_fn", "scan", "cond_in_while"])
def test_a_custom_gradient_inside_control_flow_is_used(wrap):
    """The override is opened on the branch's (or body's) own graph: it must reach the
    IdentityN built there (it was looked up on the outer graph only: the plain
    gradient, 2x, silently)."""
    @ds.custom_gradient
    def half(t):
        return ds.identity(t), lambda dy: dy * 0.5
    x = ds.constant([1.0, 2.0, 3.0])
    true = ds.constant(True)
    y = {"cond": lambda: ds.cond(true, lambda: half(x * x), lambda: x),
         "while_loop": lambda: ds.while_loop(lambda i, v: i < 1,
                                             lambda i, v: (i + 1, half(v * v)), [0, x])[1],
         "map_fn": lambda: ds.map_fn(lambda v: half(v * v), x),
         "scan": lambda: ds.scan(lambda a, v: half(v * v), x, initializer=ds.constant(0.0)),
         "cond_in_while": lambda: ds.while_loop(
             lambda i, v: i < 1,
             lambda i, v: (i + 1, ds.cond(true, lambda: half(v * v), lambda: v)), [0, x])[1],
         }[wrap]()
    with ds.Session() as sess:
        (grad,) = sess.run(ds.gradients(ds.reduce_sum(y), x))
    np.testing.assert_allclose(grad, [1.0, 2.0, 3.0])               # d(x^2)/dx halved


def test_grad_pass_through_inside_a_cond():
    x = ds.constant([1.0, 2.0, 3.0])
    y = ds.cond(ds.constant(True), lambda: ds.grad_pass_through(ds.round)(x * x), lambda: x)
    with ds.Session() as sess:
        np.testing.assert_allclose(sess.run(ds.gradients(ds.reduce_sum(y), x))[0], [2, 4, 6])
