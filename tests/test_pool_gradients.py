"""A max-pool's gradient, the ReLU's gradient before it and the bias's gradient folded
into one kernel (``optimizer/pool_gradients.py``, ``_MaxPoolReluGrad``): where it
applies, where it must not, and that every gradient is the one the ops give apart."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.nn_conv import MAX_POOL_RELU_GRAD
from fold_training import sgd_losses

F32 = np.float32


def conv_layer(rng, *, bias="add", pool=(2, 2, "SAME"), shape=(3, 9, 8, 2), dtype=F32,
               bias_value=-0.3):
    """x -> pool(relu(conv(x) + b)) -> a weighted sum; (graph, x, loss, [w, b])."""
    k, stride, padding = pool
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(dtype, shape, name="x")
        w = ds.Variable(rng.standard_normal((3, 3, shape[3], 4)).astype(dtype), name="w")
        b = ds.Variable(np.full(4, bias_value, dtype), name="b")
        h = ds.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
        if bias == "add":
            h = h + b
        elif bias == "bias_add":
            h = ds.nn.bias_add(h, b)
        pooled = ds.nn.max_pool(ds.nn.relu(h), ksize=[1, k, k, 1],
                                strides=[1, stride, stride, 1], padding=padding)
        weights = rng.standard_normal(pooled.shape.dims[1:]).astype(dtype)
        loss = ds.reduce_sum(pooled * weights)
    return g, x, loss, [w, b]


def gradients(fusion: bool, **model):
    """(the plan's steps, dloss/dw, dloss/db) with the optimizer's fusion on or off."""
    rng = np.random.default_rng(4)
    g, x, loss, params = conv_layer(rng, **model)
    with g.as_default():
        grads = [t for t in ds.gradients(loss, params) if t is not None]
    data = rng.standard_normal(x.shape.dims).astype(x.dtype.np)
    options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
    with ds.Session(graph=g, options=options) as sess:
        sess.run(ds.variables_initializer(params))
        values = sess.run(grads, {x: data})
        steps = sess._prepare((x,), tuple(grads), ()).plan.steps
    return steps, values


def folds(steps) -> list:
    return [s for s in steps if s.op_type == MAX_POOL_RELU_GRAD]


@pytest.mark.parametrize("bias", ["add", "bias_add"])
@pytest.mark.parametrize("pool", [(2, 2, "SAME"), (3, 3, "SAME"), (2, 2, "VALID"),
                                  (3, 2, "SAME")], ids=str)
def test_the_fold_gives_the_gradients_of_the_ops_apart(bias, pool):
    """A negative bias leaves windows whose maximum is 0 after the ReLU: they must pass
    nothing (the mask at the first maximum is 0), so ties at zero are exercised too."""
    steps, folded = gradients(True, bias=bias, pool=pool)
    _, apart = gradients(False, bias=bias, pool=pool)
    (fold,) = folds(steps)
    assert [op for _, op in fold.members] == [
        "MaxPoolGrad", "Greater", "Cast", "Mul", "Sum" if bias == "add" else "BiasAddGrad"]
    for got, want in zip(folded, apart):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.count_nonzero(apart[1]) == apart[1].size   # the bias's gradient is real


def test_without_a_bias_the_fold_has_one_output_and_float64_folds_too():
    steps, folded = gradients(True, bias=None, dtype=np.float64)
    _, apart = gradients(False, bias=None, dtype=np.float64)
    (fold,) = folds(steps)
    assert [op for _, op in fold.members][-1] == "Mul"
    assert not [s for s in steps if s.op_type == "_Output"]
    np.testing.assert_allclose(folded[0], apart[0], rtol=1e-12, atol=1e-12)


def train(fusion: bool, steps: int = 6):
    """Losses of a few SGD steps on the layer, and the first step's trace."""
    rng = np.random.default_rng(8)
    g, x, loss, params = conv_layer(rng)
    with g.as_default():
        objective = ds.square(loss)
    data = rng.standard_normal(x.shape.dims).astype(F32)
    return sgd_losses(g, {x: data}, loss, params, 1e-4, steps, fusion, objective)


def test_a_training_convnet_traces_every_folded_node_and_learns_the_same():
    losses, metadata = train(fusion=True)
    apart, unfolded = train(fusion=False)
    assert not any(s.kernel for s in unfolded.step_stats)     # apart means apart
    np.testing.assert_allclose(losses, apart, rtol=1e-4)
    assert abs(losses[-1]) < 0.5 * abs(losses[0])
    kernels = {s.node: s.kernel for s in metadata.step_stats}
    fold = kernels["gradients/Relu_grad/Mul"]
    assert fold and {node for node, kernel in kernels.items() if kernel == fold} == {
        "gradients/MaxPool_grad/MaxPoolGrad", "gradients/Relu_grad/Greater",
        "gradients/Relu_grad/Cast", "gradients/Relu_grad/Mul", "gradients/add_grad/Sum"}


@pytest.mark.parametrize("mask_op", ["Greater", "Cast"])
def test_what_is_fetched_or_read_elsewhere_stays_apart(mask_op):
    rng = np.random.default_rng(6)
    g, x, loss, (w, b) = conv_layer(rng)
    with g.as_default():
        dw, db = ds.gradients(loss, [w, b])
    routed = g.get_operation_by_name("gradients/MaxPool_grad/MaxPoolGrad").outputs[0]
    mask = g.get_operation_by_name(f"gradients/Relu_grad/{mask_op}").outputs[0]
    data = rng.standard_normal(x.shape.dims).astype(F32)
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        sess.run(ds.variables_initializer([w, b]))
        assert not folds(sess._prepare((x,), (dw, routed), ()).plan.steps)
        # a fetched mask is still computed apart (and the fold still applies)
        steps = sess._prepare((x,), (dw, db, mask), ()).plan.steps
        (fold,) = folds(steps)
        members = [op for _, op in fold.members]
        assert "Greater" not in members and ("Cast" in members) == (mask_op == "Greater")
        got = sess.run([dw, db, mask], {x: data})
    with ds.Session(graph=g, options=ds.SessionOptions(
            device="cpu", optimizer=ds.OptimizerOptions(fusion=False))) as sess:
        sess.run(ds.variables_initializer([w, b]))
        want = sess.run([dw, db, mask], {x: data})
    for a, e in zip(got, want):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("masked, threshold", [("z", 0.0), ("x", 0.5)])
def test_a_mask_that_is_not_a_relus_of_the_pools_input_does_not_fold(masked, threshold):
    """MaxPoolGrad(x, ...) * (z > 0) or * (x > 0.5), written by hand: the window's
    maximum being positive says nothing about those masks."""
    rng = np.random.default_rng(2)
    attrs = {"ksize": (1, 2, 2, 1), "strides": (1, 2, 2, 1), "padding": "VALID"}
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(F32, (1, 4, 4, 2), name="x")
        z = ds.placeholder(F32, (1, 4, 4, 2), name="z")
        dy = ds.placeholder(F32, (1, 2, 2, 2), name="dy")
        y = ds.nn.max_pool(x, attrs["ksize"], attrs["strides"], "VALID")
        routed = g.create_op("MaxPoolGrad", [x, y, dy], attrs, name="routed").outputs[0]
        masked = {"x": x, "z": z}[masked]
        out = routed * ds.cast(ds.greater(masked, threshold), ds.float32)
    feeds = {x: rng.standard_normal((1, 4, 4, 2)).astype(F32),
             z: rng.standard_normal((1, 4, 4, 2)).astype(F32),
             dy: np.ones((1, 2, 2, 2), F32)}
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        assert not folds(sess._prepare((x, z, dy), (out,), ()).plan.steps)
        got, routed_value = sess.run([out, routed], feeds)
    np.testing.assert_array_equal(got, routed_value * (feeds[masked] > threshold))


def test_a_relu_that_is_not_the_pools_input_does_not_fold():
    """relu(pool(h)): the ReLU's gradient masks the pooled values, not the pool's input."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(F32, (2, 6, 6, 3), name="x")
        pooled = ds.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        other = ds.nn.relu(x)                    # the same shape as the pool's gradient
        loss = ds.reduce_sum(ds.nn.relu(pooled)) + ds.reduce_sum(other * other)
        (dx,) = ds.gradients(loss, [x])
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        assert not folds(sess._prepare((x,), (dx,), ()).plan.steps)


def test_float16_stays_apart():
    steps, _ = gradients(True, dtype=np.float16)
    assert not folds(steps)


def test_a_window_whose_maximum_is_nan_passes_nothing_as_apart():
    """relu(NaN) is NaN, the pool's maximum then NaN, and the ReLU's mask (NaN > 0) 0:
    the folded pass must drop that window's gradient as the ops apart do."""
    rng = np.random.default_rng(12)
    g, x, loss, params = conv_layer(rng)
    with g.as_default():
        grads = ds.gradients(loss, params)
    data = rng.standard_normal(x.shape.dims).astype(F32)
    data[0, 3, 4, 1] = np.nan
    values = []
    for fusion in (True, False):
        options = ds.SessionOptions(device="cpu",
                                    optimizer=ds.OptimizerOptions(fusion=fusion))
        with ds.Session(graph=g, options=options) as sess:
            sess.run(ds.variables_initializer(params))
            values.append(sess.run(grads, {x: data}))
            if fusion:
                assert folds(sess._prepare((x,), tuple(grads), ()).plan.steps)
    for got, want in zip(*values):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("pool", [(2, 2, "VALID"), (2, 1, "VALID")], ids=["tiling",
                                                                          "overlapping"])
@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_a_non_finite_gradient_at_a_non_positive_maximum_stays_nan_as_apart(pool, bad):
    """Apart, the ReLU's gradient is dy * 0 there, NaN for an infinite or NaN dy (TF's
    ReluGrad too); the fold must not drop it to 0 (a helper's review found it did)."""
    k, stride, padding = pool
    values = []
    for fusion in (True, False):
        g = ds.Graph()
        with g.as_default():
            x = ds.placeholder(F32, (1, 2, 2, 1))
            w = ds.placeholder(F32, (1, 1, 1, 1))
            b = ds.Variable(np.zeros(1, F32), name="b")
            p = ds.nn.max_pool(ds.nn.relu(x + b), [1, k, k, 1], [1, stride, stride, 1],
                               padding)
            gx, gb = ds.gradients(ds.reduce_sum(p * w), [x, b])
        options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
        with ds.Session(graph=g, options=options) as sess:
            sess.run(ds.variables_initializer([b]))
            feed = {x: -np.ones((1, 2, 2, 1), F32), w: np.full((1, 1, 1, 1), bad, F32)}
            values.append(sess.run([gx, gb], feed))
            if fusion:
                assert folds(sess._prepare((x, w), (gx, gb), ()).plan.steps)
    for got, want in zip(*values):
        np.testing.assert_array_equal(got, want)        # NaN where apart has NaN
    assert np.isnan(values[1][0]).any()


def test_a_bias_sum_with_control_inputs_stays_apart():
    rng = np.random.default_rng(13)
    g, x, loss, (w, b) = conv_layer(rng)
    with g.as_default():
        dw, db = ds.gradients(loss, [w, b])
        counter = ds.Variable(0.0, name="counter")
        bump = ds.assign_add(counter, 1.0)
        mask_grad = g.get_operation_by_name("gradients/Relu_grad/Mul").outputs[0]
        with g.control_dependencies([bump]):
            db_after = ds.reduce_sum(mask_grad, axis=[0, 1, 2])
    data = rng.standard_normal(x.shape.dims).astype(F32)
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        sess.run(ds.variables_initializer([w, b, counter]))
        plan = sess._prepare((x,), (dw, db_after), ()).plan
        (fold,) = folds(plan.steps)
        assert [op for _, op in fold.members][-1] == "Mul"
        got, summed = sess.run([db, db_after], {x: data})
        assert sess.run(counter) == 1.0
    np.testing.assert_allclose(summed, got, rtol=1e-5, atol=1e-5)
