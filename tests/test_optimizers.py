"""``ds.train``'s optimizers against TF1's update rules, written out in numpy.

Each optimizer runs several steps on a quadratic loss whose gradient depends on the
variable (so a wrong update compounds), and the variables, slots, beta powers and
global step are compared with a numpy loop of TF1's formulas.  Then: a training loop on
every session type, slot names and devices, ``var_list`` and ``trainable=False``,
learning rates as tensors, the errors TF1 raises at build time, and the assign ops.
"""

from __future__ import annotations

import json
import logging
import os

import numpy as np
import pytest

import devsession as ds
from concurrency import run_in_threads

F32, F64 = np.float32, np.float64
A = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 3.0]])
TARGET = np.array([1.0, -2.0, 0.5])


def quadratic(dtype, start=(0.3, -0.7, 1.1)):
    """w, loss = 0.5 w^T A w - target . w; its gradient is A w - target."""
    w = ds.Variable(np.array(start, dtype), name="w")
    a = ds.constant(A.astype(dtype))
    wc = ds.reshape(w, (3, 1))
    loss = 0.5 * ds.reduce_sum(wc * ds.matmul(a, wc)) - ds.reduce_sum(w * TARGET.astype(dtype))
    return w, loss


def grad_of(w):
    return A.astype(w.dtype) @ w - TARGET.astype(w.dtype)


def steps(train, fetches, n=5):
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        for _ in range(n):
            sess.run(train)
        return sess.run(fetches)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_gradient_descent_steps(dtype):
    w, loss = quadratic(dtype)
    train = ds.train.GradientDescentOptimizer(0.1).minimize(loss)
    got = steps(train, w)
    want = np.array([0.3, -0.7, 1.1], dtype)
    lr = dtype(F32(0.1))                      # a Python float becomes float32, as in TF
    for _ in range(5):
        want = want - grad_of(want) * lr
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == F32 else 1e-12)


@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_momentum_steps(dtype, nesterov):
    w, loss = quadratic(dtype)
    opt = ds.train.MomentumOptimizer(0.05, 0.9, use_nesterov=nesterov)
    train = opt.minimize(loss)
    got_w, got_accum = steps(train, [w, opt.get_slot(w, "momentum")])
    lr, mom = dtype(F32(0.05)), dtype(F32(0.9))
    var, accum = np.array([0.3, -0.7, 1.1], dtype), np.zeros(3, dtype)
    for _ in range(5):
        g = grad_of(var)
        accum = accum * mom + g
        var = var - (g * lr + accum * mom * lr if nesterov else accum * lr)
    tol = 1e-5 if dtype == F32 else 1e-12
    np.testing.assert_allclose(got_w, var, rtol=tol)
    np.testing.assert_allclose(got_accum, accum, rtol=tol)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_adam_steps_and_beta_powers(dtype):
    w, loss = quadratic(dtype)
    opt = ds.train.AdamOptimizer(learning_rate=0.1, beta1=0.8, beta2=0.95, epsilon=1e-3)
    gs = ds.train.get_or_create_global_step()
    assert opt._get_beta_accumulators() == (None, None)
    train = opt.minimize(loss, global_step=gs)
    b1p, b2p = opt._get_beta_accumulators()          # TF1's, which scripts log
    assert (b1p.op.name, b2p.op.name) == ("beta1_power", "beta2_power")
    got = steps(train, [w, opt.get_slot(w, "m"), opt.get_slot(w, "v"), b1p, b2p, gs], n=6)
    lr, b1, b2, eps = (dtype(F32(x)) for x in (0.1, 0.8, 0.95, 1e-3))
    var, m, v = np.array([0.3, -0.7, 1.1], dtype), np.zeros(3, dtype), np.zeros(3, dtype)
    p1, p2 = F32(0.8), F32(0.95)               # the beta powers are float32 variables
    for _ in range(6):
        g = grad_of(var)
        lr_t = lr * np.sqrt(1 - dtype(p2)) / (1 - dtype(p1))
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        var = var - lr_t * m / (np.sqrt(v) + eps)
        p1, p2 = p1 * F32(0.8), p2 * F32(0.95)
    tol = 2e-5 if dtype == F32 else 1e-12
    for value, want in zip(got, [var, m, v]):
        np.testing.assert_allclose(value, want, rtol=tol, atol=1e-7)
    np.testing.assert_allclose(got[3:5], [p1, p2], rtol=1e-6)
    assert got[5] == 6 and got[5].dtype == np.int64


def test_adam_betas_and_epsilon_as_a_variable_a_tensor_or_a_callable():
    """TF1 takes tensors for beta1, beta2 and epsilon: the beta powers' initializers read
    them (a Variable beta too, a callable called); values TensorFlow 2.21 gave."""
    betas = {"variable": lambda: ds.Variable(0.5, trainable=False, name="beta1"),
             "tensor": lambda: ds.constant(0.5, ds.float64), "callable": lambda: lambda: 0.5}
    for kind, make in betas.items():
        with ds.Graph().as_default():
            w = ds.Variable([1.0, 2.0], name="w")
            opt = ds.train.AdamOptimizer(0.1, beta1=make(), beta2=ds.constant(0.9),
                                         epsilon=ds.constant(0.1))
            train = opt.minimize(ds.reduce_sum(w * w))
            got = steps(train, [w] + list(opt._get_beta_accumulators()), n=3)
        np.testing.assert_allclose(got[0], [0.73853135, 1.7200904], rtol=1e-6, err_msg=kind)
        np.testing.assert_allclose(got[1:], [0.5 ** 4, 0.9 ** 4], rtol=1e-6, err_msg=kind)
        assert got[1].dtype == (F64 if kind == "tensor" else F32)   # the beta's dtype


@pytest.mark.parametrize("centered", [False, True])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_rms_prop_steps(dtype, centered):
    w, loss = quadratic(dtype)
    opt = ds.train.RMSPropOptimizer(0.05, decay=0.8, momentum=0.5, epsilon=1e-2,
                                    centered=centered)
    train = opt.minimize(loss)
    names = ["rms", "momentum"] + (["mg"] if centered else [])
    got = steps(train, [w] + [opt.get_slot(w, k) for k in names], n=6)
    lr, rho, mom, eps = (dtype(F32(x)) for x in (0.05, 0.8, 0.5, 1e-2))
    var, ms, moment, mg = np.array([0.3, -0.7, 1.1], dtype), np.ones(3, dtype), \
        np.zeros(3, dtype), np.zeros(3, dtype)
    for _ in range(6):
        g = grad_of(var)
        ms = rho * ms + (1 - rho) * g * g
        mg = rho * mg + (1 - rho) * g
        moment = mom * moment + lr * g / np.sqrt((ms - mg * mg if centered else ms) + eps)
        var = var - moment
    tol = 2e-5 if dtype == F32 else 1e-12
    for value, want in zip(got, [var, ms, moment, mg]):
        np.testing.assert_allclose(value, want, rtol=tol, atol=1e-7)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_adagrad_steps(dtype):
    w, loss = quadratic(dtype)
    opt = ds.train.AdagradOptimizer(0.2, initial_accumulator_value=0.3)
    got = steps(opt.minimize(loss), [w, opt.get_slot(w, "accumulator")])
    lr = dtype(F32(0.2))
    var, accum = np.array([0.3, -0.7, 1.1], dtype), np.full(3, 0.3, dtype)
    for _ in range(5):
        g = grad_of(var)
        accum = accum + g * g
        var = var - lr * g / np.sqrt(accum)
    tol = 2e-5 if dtype == F32 else 1e-12
    np.testing.assert_allclose(got[0], var, rtol=tol)
    np.testing.assert_allclose(got[1], accum, rtol=tol)
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        ds.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_adadelta_steps(dtype):
    w, loss = quadratic(dtype)
    opt = ds.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-4)
    got = steps(opt.minimize(loss), [w, opt.get_slot(w, "accum"),
                                     opt.get_slot(w, "accum_update")])
    lr, rho, eps = (dtype(F32(x)) for x in (1.0, 0.9, 1e-4))
    var, accum, accum_update = np.array([0.3, -0.7, 1.1], dtype), np.zeros(3, dtype), \
        np.zeros(3, dtype)
    for _ in range(5):
        g = grad_of(var)
        accum = accum * rho + g * g * (1 - rho)
        update = np.sqrt(accum_update + eps) / np.sqrt(accum + eps) * g
        var = var - update * lr
        accum_update = accum_update * rho + update * update * (1 - rho)
    tol = 2e-5 if dtype == F32 else 1e-12
    for value, want in zip(got, [var, accum, accum_update]):
        np.testing.assert_allclose(value, want, rtol=tol, atol=1e-9)


TF_FTRL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_ftrl.json")


def ftrl_steps(dtype, config: dict, n=5):
    """TF1's FTRL-proximal in numpy (ApplyFtrl, or ApplyFtrlV2 with shrinkage)."""
    c = {k: dtype(F32(v)) for k, v in config.items()}
    lr, power = c["learning_rate"], -c.get("learning_rate_power", dtype(-0.5))
    l1 = c.get("l1_regularization_strength", 0)
    adjusted = F32(config.get("l2_regularization_strength", 0)) + \
        F32(config.get("beta", 0)) / (F32(2) * F32(config["learning_rate"]))
    l2 = dtype(adjusted)                # float32 tensors, cast to the variable's dtype
    shrinkage = c.get("l2_shrinkage_regularization_strength", 0)
    var, linear = np.array([0.3, -0.7, 1.1], dtype), np.zeros(3, dtype)
    accum = np.full(3, config.get("initial_accumulator_value", 0.1), dtype)   # in dtype, as TF
    for _ in range(n):
        g = grad_of(var)
        new = accum + g * g
        linear = linear + g + 2 * shrinkage * var - (new ** power - accum ** power) / lr * var
        quadratic = new ** power / lr + 2 * l2
        var = np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quadratic, 0)
        accum = new
    return var, accum, linear


@pytest.mark.parametrize("name", ["ftrl", "ftrl_v2_power", "ftrl_fixed_rate"])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_ftrl_steps_are_tensorflows(dtype, name):
    """Against TF's own run (tests/data/make_tf_ftrl.py) and TF1's formula in numpy: L1
    zeroes coordinates, learning_rate_power -0.5 (roots), -0.7 and 0 (a fixed rate),
    shrinkage-type L2 (ApplyFtrlV2) and beta."""
    with open(TF_FTRL) as f:
        recorded = json.load(f)["runs"][name]
    w, loss = quadratic(dtype)
    opt = ds.train.FtrlOptimizer(**recorded["config"])
    train = opt.minimize(loss)
    got = steps(train, [w, opt.get_slot(w, "accum"), opt.get_slot(w, "linear")])
    assert [opt.get_slot(w, k).op.name for k in ("accum", "linear")] == recorded["slot_names"]
    update = "ApplyFtrlV2" if "l2_shrinkage_regularization_strength" in recorded["config"] \
        else "ApplyFtrl"
    assert {op.type for op in ds.get_default_graph().get_operations()} >= {update}
    tol = 2e-5 if dtype == F32 else 1e-12
    for value, want in zip(got, ftrl_steps(dtype, recorded["config"])):
        np.testing.assert_allclose(value, want, rtol=tol, atol=tol)
    if dtype == F32:
        for value, key in zip(got, ("w", "accum", "linear")):
            np.testing.assert_allclose(value, recorded[key], rtol=1e-5, atol=1e-6)


def proximal_steps(dtype, config: dict, adagrad: bool, n=5):
    """TF1's FOBOS steps in numpy (ApplyProximalGradientDescent / ApplyProximalAdagrad)."""
    lr = dtype(F32(config["learning_rate"]))
    l1 = dtype(F32(config.get("l1_regularization_strength", 0.0)))
    l2 = dtype(F32(config.get("l2_regularization_strength", 0.0)))
    var = np.array([0.3, -0.7, 1.1], dtype)
    accum = np.full(3, config.get("initial_accumulator_value", 0.1), dtype)
    for _ in range(n):
        g = grad_of(var)
        if adagrad:
            accum = accum + g * g
        rate = lr / np.sqrt(accum) if adagrad else lr
        prox = var - g * rate
        var = np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0) / (1 + l2 * rate)
    return var, accum


@pytest.mark.parametrize("name", ["proximal_gd_l1", "proximal_gd_l2", "proximal_adagrad_l1",
                                  "proximal_adagrad_l2"])
@pytest.mark.parametrize("dtype", [F32, F64])
def test_proximal_steps_are_tensorflows(dtype, name):
    """Against TF's own run (tests/data/make_tf_ftrl.py) and TF1's formula in numpy: the
    L1 shrinkage (zeroing a coordinate) and the L2 one, with Adagrad's rate or a fixed
    one."""
    with open(TF_FTRL) as f:
        recorded = json.load(f)["runs"][name]
    adagrad = recorded["optimizer"] == "ProximalAdagradOptimizer"
    w, loss = quadratic(dtype)
    opt = getattr(ds.train, recorded["optimizer"])(**recorded["config"])
    train = opt.minimize(loss)
    fetches = [w, opt.get_slot(w, "accumulator")] if adagrad else [w]
    got = steps(train, fetches)
    slots = [opt.get_slot(w, "accumulator").op.name] if adagrad else []
    assert slots == recorded["slot_names"]
    update = "ApplyProximalAdagrad" if adagrad else "ApplyProximalGradientDescent"
    assert update in {op.type for op in ds.get_default_graph().get_operations()}
    want_var, want_accum = proximal_steps(dtype, recorded["config"], adagrad)
    tol = 2e-5 if dtype == F32 else 1e-12
    np.testing.assert_allclose(got[0], want_var, rtol=tol, atol=tol)
    if adagrad:
        np.testing.assert_allclose(got[1], want_accum, rtol=tol)
    if dtype == F32:
        np.testing.assert_allclose(got[0], recorded["w"], rtol=1e-5, atol=1e-6)
        if adagrad:
            np.testing.assert_allclose(got[1], recorded["accumulator"], rtol=1e-5)
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        ds.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)


@pytest.mark.parametrize("argument, message", [
    ({"learning_rate_power": 0.5}, "learning_rate_power 0.500000 needs to be negative or zero"),
    ({"initial_accumulator_value": -0.1}, "initial_accumulator_value -0.100000 needs to be"),
    ({"l1_regularization_strength": -1.0}, "l1_regularization_strength -1.000000 needs"),
    ({"l2_shrinkage_regularization_strength": -1.0}, "l2_shrinkage_regularization_strength"),
])
def test_ftrl_refuses_tf1s_bad_arguments(argument, message):
    with pytest.raises(ValueError, match=message):
        ds.train.FtrlOptimizer(0.1, **argument)


def test_the_other_optimizers_slots_are_named_as_tf_names_them():
    w = ds.Variable(np.ones(2, F32), name="w")
    loss = ds.reduce_sum(w * w)
    rms, centered = ds.train.RMSPropOptimizer(0.1), ds.train.RMSPropOptimizer(0.1, centered=True)
    adagrad, adadelta = ds.train.AdagradOptimizer(0.1), ds.train.AdadeltaOptimizer()
    for opt in (rms, centered, adagrad, adadelta):
        opt.minimize(loss)
    assert [rms.get_slot(w, k).op.name for k in ("rms", "momentum")] == \
        ["w/RMSProp", "w/RMSProp_1"]
    assert [centered.get_slot(w, k).op.name for k in ("rms", "mg", "momentum")] == \
        ["w/RMSProp_2", "w/RMSProp_3", "w/RMSProp_4"]
    assert adagrad.get_slot(w, "accumulator").op.name == "w/Adagrad"
    assert [adadelta.get_slot(w, k).op.name for k in ("accum", "accum_update")] == \
        ["w/Adadelta", "w/Adadelta_1"]
    ops = {op.name: op.type for op in ds.get_default_graph().get_operations()}
    assert ops["RMSProp/update_w/ApplyRMSProp"] == "ApplyRMSProp"
    assert ops["RMSProp_1/update_w/ApplyCenteredRMSProp"] == "ApplyCenteredRMSProp"
    assert ops["Adagrad/update_w/ApplyAdagrad"] == "ApplyAdagrad"
    assert ops["Adadelta/update_w/ApplyAdadelta"] == "ApplyAdadelta"
    assert not any(v.trainable for opt in (rms, adagrad, adadelta) for v in opt.variables())


OPTIMIZERS = {"adam": lambda: ds.train.AdamOptimizer(0.05),
              "rms_prop": lambda: ds.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
              "adagrad": lambda: ds.train.AdagradOptimizer(0.3),
              "ftrl": lambda: ds.train.FtrlOptimizer(0.3, l1_regularization_strength=1e-4)}


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_the_loss_goes_down_on_every_session_type(make_session, optimizer):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((64, 4)).astype(F32)
    yv = np.tanh(xv @ rng.standard_normal((4, 1)).astype(F32))
    graph = ds.Graph()
    with graph.as_default():
        x = ds.placeholder(ds.float32, (None, 4), name="x")
        y = ds.placeholder(ds.float32, (None, 1), name="y")
        with ds.device("/device:CPU:0"):      # variables stay together on a cluster
            w1 = ds.Variable(rng.standard_normal((4, 8)).astype(F32) * 0.5, name="w1")
            b1 = ds.Variable(np.zeros(8, F32), name="b1")
            w2 = ds.Variable(rng.standard_normal((8, 1)).astype(F32) * 0.5, name="w2")
        h = ds.nn.relu(ds.matmul(x, w1) + b1)
        loss = ds.reduce_mean(ds.square(ds.tanh(ds.matmul(h, w2)) - y))
        gs = ds.train.get_or_create_global_step()
        train = OPTIMIZERS[optimizer]().minimize(loss, global_step=gs)
        init = ds.global_variables_initializer()
    sess = make_session(graph)
    sess.run(init)
    first = sess.run(loss, {x: xv, y: yv})
    for _ in range(60):
        sess.run(train, {x: xv, y: yv})
    last = sess.run(loss, {x: xv, y: yv})
    assert last < 0.25 * first, (first, last)
    assert sess.run(gs) == 60


def test_slots_are_named_as_tf_names_them_and_live_with_their_variable():
    with ds.device("/device:CPU:0"):
        w = ds.Variable(np.ones((2, 2), F32), name="w")
    b = ds.Variable(np.ones(2, F32), name="b")
    loss = ds.reduce_sum(ds.matmul(w, ds.reshape(b, (2, 1))))
    with ds.device("/device:GPU:0"):          # the update scope does not move the slots
        adam = ds.train.AdamOptimizer()
        adam.minimize(loss)
        momentum = ds.train.MomentumOptimizer(0.1, 0.9)
        momentum.minimize(loss)
    assert adam.get_slot(w, "m").op.name == "w/Adam"
    assert adam.get_slot(w, "v").op.name == "w/Adam_1"
    assert adam.get_slot(b, "m").op.name == "b/Adam"
    assert momentum.get_slot(w, "momentum").op.name == "w/Momentum"
    assert adam.get_slot_names() == ["m", "v"] and momentum.get_slot_names() == ["momentum"]
    assert adam.get_slot(w, "m").device == w.device == "/device:CPU:0"
    assert momentum.get_slot(b, "momentum").device == b.device == ""
    names = [v.op.name for v in ds.global_variables()]
    assert {"beta1_power", "beta2_power", "w/Adam", "w/Adam_1", "b/Adam_1",
            "w/Momentum"} <= set(names)
    beta1 = [v for v in ds.global_variables() if v.op.name == "beta1_power"][0]
    assert beta1.device == b.device                 # the first variable by name is "b"
    assert [v.op.name for v in ds.trainable_variables()] == ["w", "b"]
    ops = {op.name: op for op in ds.get_default_graph().get_operations()}
    assert ops["Adam/update_w/ApplyAdam"].type == "ApplyAdam"
    assert ops["Momentum/update_b/ApplyMomentum"].type == "ApplyMomentum"
    assert ops["Adam"].type == "NoOp" and ops["Momentum"].type == "NoOp"


def test_global_step_counts_applies():
    w, loss = quadratic(F64)
    assert ds.train.get_global_step() is None
    gs = ds.train.get_or_create_global_step()
    assert ds.train.get_or_create_global_step() is gs is ds.train.get_global_step()
    assert gs.dtype == ds.int64 and not gs.trainable and gs.op.name == "global_step"
    with pytest.raises(ValueError, match="already exists"):
        ds.train.create_global_step()
    train = ds.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=gs)
    assert train.name == "GradientDescent" and train.type == "AssignAdd"
    with ds.Graph().as_default(), ds.variable_scope("Model"):     # TF1's: a get_variable
        scoped = ds.train.get_or_create_global_step()
        assert scoped.op.name == "Model/global_step" and ds.train.get_global_step() is scoped
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        assert sess.run(train) is None
        sess.run(train)
        assert ds.train.global_step(sess, gs) == 2


def test_several_global_steps_are_none_with_an_error_logged_as_tf1(caplog):
    for name in ("step", "step2"):
        ds.add_to_collection(ds.GraphKeys.GLOBAL_STEP, ds.Variable(0, name=name))
    with caplog.at_level(logging.ERROR, "devsession.train"):
        assert ds.train.get_global_step() is None
    assert "Multiple tensors in global_step collection." in caplog.text


@pytest.mark.parametrize("make", [lambda: ds.train.GradientDescentOptimizer(0.1),
                                  lambda: ds.train.AdamOptimizer(0.1)], ids=["sgd", "adam"])
def test_updates_built_in_a_cond_branch_run_only_when_it_is_taken(make):
    """tf.cond(all_finite, lambda: opt.apply_gradients(...), tf.no_op): the updates, the
    beta powers and the global step move only on the steps the branch runs; the slots
    are the graph's variables, made once."""
    w, loss = quadratic(F32)
    x = ds.placeholder(ds.float32, [], name="x")
    opt = make()
    pairs = opt.compute_gradients(loss * x)
    finite = ds.reduce_all(ds.stack([ds.reduce_all(ds.is_finite(g)) for g, _ in pairs]))
    step = ds.train.get_or_create_global_step()
    train = ds.cond(finite, lambda: opt.apply_gradients(pairs, global_step=step), ds.no_op)
    assert {v.op.name for v in opt.variables()} <= \
        {v.op.name for v in ds.global_variables()}
    reference = make()
    plain = reference.apply_gradients(reference.compute_gradients(loss * x, var_list=[w]))
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        before = sess.run(w)
        sess.run(train, {x: np.inf})                      # skipped: nothing moves
        np.testing.assert_array_equal(sess.run(w), before)
        assert sess.run(step) == 0
        sess.run(train, {x: 1.0})
        moved = sess.run(w)
        sess.run(w.assign(before))
        sess.run(plain, {x: 1.0})                         # the same step outside a cond
        np.testing.assert_allclose(moved, sess.run(w), rtol=1e-6)
        assert sess.run(step) == 1


def test_var_list_and_non_trainable_variables():
    a = ds.Variable(np.array([1.0, 2.0]), name="a")
    frozen = ds.Variable(np.array([3.0, 4.0]), name="frozen", trainable=False)
    c = ds.Variable(np.array([5.0, 6.0]), name="c")
    loss = ds.reduce_sum(a * a + frozen * frozen + c * c)
    pairs = ds.train.GradientDescentOptimizer(0.5).compute_gradients(loss)
    assert [v.op.name for _, v in pairs] == ["a", "c"]
    only_c = ds.train.GradientDescentOptimizer(0.5).minimize(loss, var_list=[c])
    everything = ds.train.GradientDescentOptimizer(0.5).minimize(loss)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(only_c)
        np.testing.assert_allclose(sess.run([a, frozen, c]), [[1, 2], [3, 4], [0, 0]])
        sess.run(everything)
        np.testing.assert_allclose(sess.run([a, frozen, c]), [[0, 0], [3, 4], [0, 0]])


def test_learning_rate_can_be_a_tensor_and_gradients_can_be_edited():
    w = ds.Variable(np.array([1.0, -1.0], F32), name="w")
    loss = ds.reduce_sum(w * w)
    lr = ds.placeholder(ds.float32, (), name="lr")
    opt = ds.train.GradientDescentOptimizer(lr)
    pairs = opt.compute_gradients(loss)
    clipped = [(ds.maximum(ds.minimum(g, 1.0), -1.0), v) for g, v in pairs]
    train = opt.apply_gradients(clipped)
    with ds.Session() as sess:
        sess.run(w.initializer)
        sess.run(train, {lr: 0.5})               # grad 2w = [2, -2], clipped to [1, -1]
        np.testing.assert_allclose(sess.run(w), [0.5, -0.5])
        sess.run(train, {lr: 0.25})               # grad [1, -1]
        np.testing.assert_allclose(sess.run(w), [0.25, -0.25])


def test_build_time_errors_are_tf1s():
    opt = ds.train.GradientDescentOptimizer(0.1)
    x = ds.placeholder(ds.float32, (2,))
    with pytest.raises(ValueError, match="No variables to optimize"):
        opt.minimize(ds.reduce_sum(x * x))
    w = ds.Variable(np.ones(2, F32), name="w")
    with pytest.raises(ValueError, match="Invalid type int32"):
        opt.minimize(ds.cast(ds.reduce_sum(w), ds.int32))
    unrelated = ds.Variable(np.ones(2, F32), name="unrelated")
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.minimize(ds.reduce_sum(x * x), var_list=[unrelated])
    with pytest.raises(TypeError, match="ds.Variable"):
        opt.minimize(ds.reduce_sum(w), var_list=[w.value()])
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(TypeError, match="float64"):
        opt.apply_gradients([(ds.constant([1.0, 2.0], ds.float64), w)])
    step = ds.train.get_or_create_global_step()
    with pytest.raises(TypeError, match="global_step"):
        opt.minimize(ds.reduce_sum(w), global_step=step.value())


def test_updates_happen_in_place_unless_a_reader_holds_the_value():
    w = ds.Variable(np.zeros(4, F32), name="w")
    sgd = ds.train.GradientDescentOptimizer(1.0).apply_gradients(
        [(ds.constant(np.ones(4, F32)), w)])
    with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
        sess.run(w.initializer)
        resource = sess.resources.variable("", "w", np.dtype(F32), (4,))
        before = resource.value.ctypes.data                   # (holding it would copy)
        sess.run(sgd)
        assert resource.value.ctypes.data == before           # updated in place
        np.testing.assert_array_equal(resource.value, -np.ones(4))
        held = resource.value                                 # a reader holds it...
        sess.run(sgd)
        np.testing.assert_array_equal(held, -np.ones(4))      # ...and it never changes
        np.testing.assert_array_equal(sess.run(w), -2 * np.ones(4))
        for _ in range(20):     # a read fetched with an update is the old or the new value
            old = sess.run(w)
            got, _ = sess.run([w.value(), sgd])
            assert np.array_equal(got, old) or np.array_equal(got, old - 1)


def test_assign_ops():
    v = ds.Variable(np.array([1.0, 2.0], F32), name="v")
    ops = [ds.assign(v, [5.0, 6.0]), ds.assign_add(v, [1.0, 1.0], use_locking=True),
           ds.assign_sub(v, [0.5, 0.5]), v.assign_sub([1.0, 2.0]),
           ds.assign(v, [7.0, 8.0], validate_shape=True, use_locking=False)]
    assert [op.op.type for op in ops] == ["Assign", "AssignAdd", "AssignSub", "AssignSub",
                                          "Assign"]
    with ds.Session() as sess:
        sess.run(v.initializer)
        got = [sess.run(op) for op in ops]
    np.testing.assert_array_equal(got, [[5, 6], [6, 7], [5.5, 6.5], [4.5, 4.5], [7, 8]])
    with pytest.raises(TypeError, match="Variable"):
        ds.assign(v.value(), [1.0, 2.0])
    with pytest.raises(ValueError):
        ds.assign_sub(v, [1.0, 2.0, 3.0])
    with ds.Session() as sess, pytest.raises(ds.errors.FailedPreconditionError):
        sess.run(ds.assign_sub(v, [1.0, 1.0]))


def test_concurrent_steps_lose_no_update():
    """Updates of one variable from many threads hold its lock: none is lost, and a
    step reading the variable meanwhile sees a whole value (old or new), never a mix."""
    n = 1 << 18                                    # big enough for the parallel loops
    w = ds.Variable(np.zeros(n, F32), name="w")
    sgd = ds.train.GradientDescentOptimizer(1.0).minimize(ds.reduce_sum(w))   # grad: ones
    first = w.value() + 0.0                        # one step reads w twice, with work
    work = ds.reduce_sum(ds.exp(ds.tanh(first))) * 0.0    # in between
    second = w.value() + work
    with ds.Session() as sess:
        sess.run(w.initializer)
        torn = []

        def train():
            for _ in range(25):
                sess.run(sgd)

        def watch():
            for _ in range(40):
                a, b = sess.run([first, second])
                if not np.array_equal(a, b) or a.min() != a.max():
                    torn.append((a, b))

        steps = (train, train, train, watch)
        run_in_threads(lambda i: steps[i](), len(steps), timeout=120, together=True)
        np.testing.assert_array_equal(sess.run(w), np.full(n, -75.0, F32))
        assert not torn


def test_slots_follow_their_variable_when_devices_are_assigned_later():
    # An optimizer's slots carry TF's "_class" colocation attr, so placement puts them
    # with their variable even when the variable's device is only set after the build.
    from devsession.runtime.placement import colocation_root

    w = ds.Variable(np.ones(3, np.float32), name="w")
    loss = ds.reduce_sum(ds.square(w))
    ds.train.AdamOptimizer(0.1).minimize(loss)
    graph = ds.get_default_graph()
    slots = [graph.get_operation_by_name(n) for n in ("w/Adam", "w/Adam_1", "beta1_power")]
    assert all(colocation_root(s) is w.op for s in slots)
    w.op._set_device("/device:CPU:0")
    with ds.Session() as sess:
        assert set(sess.placement().values()) == {ds.list_local_devices()[0].name}


def test_slots_and_averages_are_named_in_the_current_variable_scope_as_tfs():
    """TF1 names a slot (and an EMA shadow) ``<variable scope>/<variable>/<name>``, so a
    model trained under ``variable_scope("m")`` checkpoints ``m/m/w/Adam``: TF 2.21's
    names, which checkpoints from either side must share."""
    with ds.variable_scope("m"):
        w = ds.get_variable("w", [2])
        ds.train.AdamOptimizer(0.1).minimize(ds.reduce_sum(w * w))
        ema = ds.train.ExponentialMovingAverage(0.9)
        ema.apply([w])
    with ds.variable_scope("n"):
        ds.train.AdamOptimizer(0.1).minimize(ds.reduce_sum(w * w))
    with ds.name_scope("ns"):                       # a name scope does not count
        ds.train.MomentumOptimizer(0.1, 0.9).minimize(ds.reduce_sum(w * w))
    assert [v.op.name for v in ds.global_variables()] == [
        "m/w", "m/beta1_power", "m/beta2_power", "m/m/w/Adam", "m/m/w/Adam_1",
        "m/m/w/ExponentialMovingAverage", "n/beta1_power", "n/beta2_power", "n/m/w/Adam",
        "n/m/w/Adam_1", "m/w/Momentum"]
    assert ema.average_name(w) == "m/m/w/ExponentialMovingAverage"


def test_variables_are_the_default_graphs_sorted_by_name():
    """TF1's ``Optimizer.variables()``: the slots and non-slot variables (Adam's beta
    powers) of the default graph, sorted by name (what TF 2.21's compat.v1 listed for
    a centered RMSProp over two variables and an Adam over one)."""
    graph = ds.Graph()
    with graph.as_default():
        v, u = ds.Variable([1.0, 2.0], name="v"), ds.Variable(3.0, name="u")
        loss = ds.reduce_sum(v * v) + u
        rms = ds.train.RMSPropOptimizer(0.1, momentum=0.2, centered=True)
        rms.minimize(loss)
        adam = ds.train.AdamOptimizer(0.1)
        adam.minimize(loss, var_list=[v])
        assert [x.op.name for x in rms.variables()] == [
            "u/RMSProp", "u/RMSProp_1", "u/RMSProp_2", "v/RMSProp", "v/RMSProp_1",
            "v/RMSProp_2"]
        assert [x.op.name for x in adam.variables()] == ["beta1_power", "beta2_power",
                                                         "v/Adam", "v/Adam_1"]
    assert adam.variables() == []                     # another default graph: none of it
