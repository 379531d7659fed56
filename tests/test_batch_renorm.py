"""``tf.layers.batch_normalization``'s ``renorm``, ``virtual_batch_size`` and
``adjustment`` against TensorFlow 2.21's (tests/data/tf_batch_renorm.npz, made by
tests/data/make_tf_batch_renorm.py from the models of tests/batch_renorm_cases.py, which
this test builds with ``ds``).

Each case trains a few steps through the layer (its update ops run with the train op),
so the training outputs, the gradients (r and d held constant), the variables after each
step (moving and renorm averages included), the inference output and the layer under a
bool placeholder (false: nothing moves) are all TF's; also the variables' names, shapes,
trainable flags and UPDATE_OPS, and TF's errors for bad arguments.
"""

import os

import numpy as np
import pytest

import devsession as ds
from tests.batch_renorm_cases import CASES, LAYOUT, RECORDED_INPUTS, built, layout, run
from tests.gradient_check import numeric_gradient

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_batch_renorm.npz"))


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


@pytest.mark.parametrize("name", list(CASES))
def test_training_and_inference_are_tfs(graph, name):
    t = built(ds, name, DATA)
    for key, ours in layout(ds, t).items():
        assert ours == list(DATA[f"{name}:{key}"]), key
    with ds.Session() as sess:
        got = run(ds, sess, name, t)
    assert sorted(got) == sorted(k for k in DATA.files if k.startswith(f"{name}:")
                                 and k.split(":")[1] not in RECORDED_INPUTS + LAYOUT)
    for key, value in got.items():
        np.testing.assert_allclose(value, DATA[key], rtol=2e-5, atol=2e-5, err_msg=key)


def test_the_layer_class_holds_the_renorm_variables(graph):
    x = ds.placeholder(ds.float32, (None, 3))
    layer = ds.layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 2.0})
    layer(x, training=True)
    layer(x)
    assert [v.op.name for v in layer.variables] == [
        f"batch_normalization/{n}" for n in ("gamma", "beta", "moving_mean", "moving_variance",
                                             "moving_stddev", "renorm_mean", "renorm_stddev")]
    assert layer.trainable_variables == [layer.gamma, layer.beta]
    assert layer.moving_stddev.op.name == "batch_normalization/moving_stddev"
    assert layer.renorm_stddev.op.name == "batch_normalization/renorm_stddev"
    assert [op.name for op in layer.updates] == ["batch_normalization/AssignMovingAvg_2",
                                                 "batch_normalization/AssignNewValue"]


def test_r_and_d_are_held_constant_for_the_gradients(graph):
    x = ds.placeholder(ds.float32, (4, 2))
    y = ds.layers.batch_normalization(x, training=True, renorm=True)
    ops = {op.name: op for op in graph.get_operations()}
    assert ops["batch_normalization/renorm_r"].type == "StopGradient"
    assert ops["batch_normalization/renorm_d"].type == "StopGradient"
    assert ds.gradients(y, [x])[0] is not None


def test_fused_falls_back_where_tf_does(graph):
    x = ds.placeholder(ds.float32, (4, 2, 2, 3))
    for options in (dict(renorm=True), dict(virtual_batch_size=2),
                    dict(adjustment=lambda shape: (1.0, 0.0))):
        ds.layers.batch_normalization(x, training=True, fused=True, **options)
    ds.layers.batch_normalization(x, training=True, fused=True)
    types = [op.type for op in graph.get_operations()]
    assert types.count("FusedBatchNormV3") == 1


def test_bad_arguments_are_tfs_errors(graph):
    x = ds.placeholder(ds.float32, (4, 3))
    with pytest.raises(ValueError, match=r"Received invalid keys for `renorm_clipping` "
                       r"argument: \{'rmax': 1.0, 'foo': 2.0\}. Supported values: "
                       r"\['rmax', 'rmin', 'dmax'\]"):
        ds.layers.batch_normalization(x, renorm=True, renorm_clipping={"rmax": 1.0, "foo": 2.0})
    with pytest.raises(ValueError, match="invalid keys for `renorm_clipping`"):
        ds.layers.BatchNormalization(renorm=True, renorm_clipping={"dmin": 1.0})
    with pytest.raises(ValueError, match="invalid keys for `renorm_clipping`"):
        ds.layers.batch_normalization(x, renorm=True, renorm_clipping=[("rmax", 2.0)])
    ds.layers.batch_normalization(x, renorm_clipping={"foo": 2.0})   # ignored without renorm
    for size in (0, -1):
        with pytest.raises(ValueError, match="`virtual_batch_size` must be a positive "
                           "integer that divides the true batch size"):
            ds.layers.batch_normalization(x, virtual_batch_size=size)
    for axis in (0, -2):
        with pytest.raises(ValueError, match=r"When using `virtual_batch_size`, the batch "
                           r"dimension must be 0 and thus axis cannot include 0. "
                           r"Received axis=\[0\]"):
            ds.layers.batch_normalization(x, virtual_batch_size=2, axis=axis)
    with pytest.raises(ValueError, match="When using `virtual_batch_size`, adjustment "
                       "cannot be specified"):
        ds.layers.batch_normalization(x, virtual_batch_size=2,
                                      adjustment=lambda shape: (1.0, 0.0))
    with pytest.raises(TypeError, match="virtual_batch_size must be an int"):
        ds.layers.batch_normalization(x, virtual_batch_size=2.0)
    for training in (True, False):      # TF: a ValueError from the Reshape's shape function
        with pytest.raises(ValueError, match="cannot reshape"):
            ds.layers.batch_normalization(x, virtual_batch_size=3, training=training)
    with pytest.raises(ValueError, match=r"Duplicate axis: \(1, 1\)"):
        ds.layers.batch_normalization(x, axis=[1, -1])
    with pytest.raises(TypeError, match="float64 of argument 'x'"):
        ds.layers.batch_normalization(ds.placeholder(ds.float64, (4, 3)), renorm=True)


def test_a_batch_virtual_batches_do_not_divide_fails_at_run_time(graph):
    x = ds.placeholder(ds.float32, (None, 3))
    y = ds.layers.batch_normalization(x, virtual_batch_size=3, training=True)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        assert sess.run(y, {x: np.ones((6, 3), np.float32)}).shape == (6, 3)
        with pytest.raises(ds.errors.InvalidArgumentError, match="cannot reshape"):
            sess.run(y, {x: np.ones((4, 3), np.float32)})


def test_renorm_of_float16_inputs_keeps_float32_variables(graph):
    x = ds.placeholder(ds.float16, (4, 3))
    y = ds.layers.batch_normalization(x, training=True, renorm=True)
    assert y.dtype == ds.float16
    assert {v.dtype for v in ds.global_variables()} == {ds.float32}
    batch = np.arange(12, dtype=np.float16).reshape(4, 3)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got = sess.run(y, {x: batch}).astype(np.float64)
    # the first step: renorm averages at 0 and 1, r = stddev (clipped nowhere), d = mean
    mean, std = batch.mean(0), np.sqrt(batch.var(0) + 1e-3)
    np.testing.assert_allclose(got, (batch - mean) / std * std + mean, rtol=2e-3, atol=2e-2)


def _adjustment(shape):
    channels = ds.cast(ds.range(shape[-1]), ds.float64)
    return 1.0 + 0.1 * channels, 0.2 * ds.ones([shape[-1]], ds.float64)


@pytest.mark.parametrize("options", [dict(virtual_batch_size=2),
                                     dict(virtual_batch_size=3, axis=1),
                                     dict(adjustment=_adjustment)],
                         ids=["virtual", "virtual_axis1", "adjustment"])
def test_gradients_match_finite_differences(graph, options):
    """Virtual batches and adjustment are differentiated through, in float64 (renorm's r
    and d are held constant, so its gradients are checked against TF's above)."""
    rng = np.random.default_rng(3)
    shape = (6, 3, 2) if options.get("axis") == 1 else (6, 3)
    batch, weights = rng.standard_normal(shape) * 2 + 1, rng.standard_normal(shape)
    x = ds.placeholder(ds.float64, shape)
    y = ds.layers.batch_normalization(x, training=True, **options)
    loss = ds.reduce_sum(y * weights)
    grad, = ds.gradients(loss, [x])
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got = sess.run(grad, {x: batch})
        want = numeric_gradient(lambda v: sess.run(loss, {x: v}), batch)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
