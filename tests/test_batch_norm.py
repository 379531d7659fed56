"""Fused batch norm (FusedBatchNorm, V2, V3; ``ds.nn.fused_batch_norm``): the kernels on
every device against TF's formulas written out in float64 numpy (training and
inference, NHWC and NCHW, V3's NDHWC and NCDHW, the moving-average factor, float16,
empty batches), the gradients against finite differences, and TF's errors at build and
run time.  That TensorFlow computes the same is checked on a graph it froze
(``convnet_bn`` in tests/test_tf_graphdef.py; 5-D: tests/test_batch_norm_5d.py)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from gradient_check import numeric_gradient
from kernel_cases import DEVICES, F16, F32, F64, check_against_ref, make_node, rng_for, run_on

OPS = ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")


def channel_axis(data_format, rank):
    return 1 if data_format in ("NCHW", "NCDHW") else rank - 1


def numpy_fused_batch_norm(x, scale, offset, mean, variance, epsilon, factor, training,
                           data_format):
    """TF's formulas in float64: y and the two statistics outputs."""
    axis = channel_axis(data_format, x.ndim)
    axes = tuple(a for a in range(x.ndim) if a != axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    x64 = x.astype(F64)
    if training:
        n = x.size // x.shape[axis]
        m = x64.mean(axis=axes)
        v = ((x64 - m.reshape(shape)) ** 2).mean(axis=axes)
        corrected = v * n / (n - 1) if n > 1 else v
        stats = ((1 - factor) * mean + factor * m, (1 - factor) * variance + factor * corrected) \
            if factor != 1.0 else (m, corrected)
    else:
        m, v = mean.astype(F64), variance.astype(F64)
        stats = (m, v)
    y = (x64 - m.reshape(shape)) / np.sqrt(v.reshape(shape) + epsilon) * \
        scale.reshape(shape) + offset.reshape(shape)
    return y, stats[0], stats[1]


def node_of(op, x_dtype, attrs):
    param = F64 if x_dtype == F64 else F32
    return make_node(op, [x_dtype, param, param, param, param], x_dtype, attrs)


def inputs_of(rng, x_shape, x_dtype, channels, empty_stats=False):
    param = F64 if x_dtype == F64 else F32
    x = (rng.standard_normal(x_shape) * 3 + 2).astype(x_dtype)
    scale = rng.standard_normal(channels).astype(param)
    offset = rng.standard_normal(channels).astype(param)
    mean = np.zeros(0, param) if empty_stats else rng.standard_normal(channels).astype(param)
    variance = np.zeros(0, param) if empty_stats else \
        rng.uniform(0.5, 2, channels).astype(param)
    return x, scale, offset, mean, variance


CASES = [  # (op, x dtype, training, exponential_avg_factor, data_format, x shape)
    ("FusedBatchNormV3", F32, True, 1.0, "NHWC", (4, 5, 3, 6)),
    ("FusedBatchNormV3", F32, False, 1.0, "NHWC", (4, 5, 3, 6)),
    ("FusedBatchNormV3", F32, True, 0.25, "NHWC", (2, 3, 3, 4)),
    ("FusedBatchNormV3", F64, True, 1.0, "NCHW", (3, 4, 5, 2)),
    ("FusedBatchNormV3", F64, False, 1.0, "NCHW", (3, 4, 5, 2)),
    ("FusedBatchNormV3", F16, True, 1.0, "NHWC", (2, 4, 4, 3)),
    ("FusedBatchNormV2", F32, True, 1.0, "NHWC", (1, 1, 1, 5)),     # one value per channel
    ("FusedBatchNorm", F32, False, 1.0, "NHWC", (2, 1, 1, 1)),
    ("FusedBatchNormV3", F32, True, 1.0, "NDHWC", (2, 3, 4, 2, 5)),
    ("FusedBatchNormV3", F32, False, 1.0, "NDHWC", (2, 3, 4, 2, 5)),
    ("FusedBatchNormV3", F32, True, 0.25, "NCDHW", (3, 4, 2, 3, 2)),
    ("FusedBatchNormV3", F64, False, 1.0, "NCDHW", (2, 3, 1, 2, 5)),
    ("FusedBatchNormV3", F16, True, 1.0, "NCDHW", (2, 3, 2, 2, 3)),
    ("FusedBatchNormV3", F32, True, 0.5, "NDHWC", (1, 1, 1, 1, 4)),   # one value per channel
    ("FusedBatchNormV3", F32, True, 1.0, "NCDHW", (3, 4, 2, 5)),      # 4-D in a 5-D format
]


@pytest.mark.parametrize("op,dtype,training,factor,data_format,shape", CASES, ids=str)
def test_the_reference_is_tfs_formula(op, dtype, training, factor, data_format, shape):
    rng = rng_for(op, dtype, training, factor, data_format, shape)
    channels = shape[channel_axis(data_format, len(shape))]
    inputs = inputs_of(rng, shape, dtype, channels)
    attrs = {"epsilon": 0.01, "exponential_avg_factor": factor, "data_format": data_format,
             "is_training": training}
    got = run_on("REF", node_of(op, dtype, attrs), *inputs)
    assert len(got) == (6 if op == "FusedBatchNormV3" else 5)
    want = numpy_fused_batch_norm(*inputs, 0.01, factor, training, data_format)
    tol = {F16: 5e-3, F32: 2e-5, F64: 1e-12}[dtype]
    assert got[0].dtype == dtype and got[1].dtype == inputs[1].dtype
    for g, w in zip(got[:3], want):
        np.testing.assert_allclose(g.astype(F64), w, rtol=tol, atol=tol)
    if op == "FusedBatchNormV3":
        assert got[5].shape == (0,)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op,dtype,training,factor,data_format,shape", CASES, ids=str)
def test_kernels_match_the_reference(device, op, dtype, training, factor, data_format, shape):
    rng = rng_for("device", op, dtype, training, factor, data_format, shape)
    channels = shape[channel_axis(data_format, len(shape))]
    attrs = {"epsilon": 0.001, "exponential_avg_factor": factor, "data_format": data_format,
             "is_training": training}
    check_against_ref(device, node_of(op, dtype, attrs), *inputs_of(rng, shape, dtype, channels))


@pytest.mark.parametrize("device", ["REF"] + DEVICES)
@pytest.mark.parametrize("data_format,shape", [("NHWC", (3, 2, 2, 4)),
                                               ("NCDHW", (3, 4, 2, 1, 2))])
def test_training_takes_empty_statistics_and_an_empty_batch_gives_nan(device, data_format,
                                                                      shape):
    node = node_of("FusedBatchNormV3", F32, {"is_training": True, "data_format": data_format})
    x, scale, offset, mean, variance = inputs_of(rng_for("empty"), shape, F32, 4,
                                                 empty_stats=True)
    y, batch_mean, batch_var = run_on(device, node, x, scale, offset, mean, variance)[:3]
    want = numpy_fused_batch_norm(x, scale, offset, mean, variance, 0.0001, 1.0, True,
                                  data_format)
    np.testing.assert_allclose(y, want[0], rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(batch_var, want[2], rtol=2e-5)
    y, batch_mean, batch_var = run_on(device, node, np.zeros((0,) + shape[1:], F32), scale,
                                      offset, mean, variance)[:3]
    assert y.shape == (0,) + shape[1:]
    assert np.isnan(batch_mean).all() and np.isnan(batch_var).all() and batch_mean.shape == (4,)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("data_format,shape", [("NHWC", (2, 3, 2, 3)), ("NCHW", (2, 3, 2, 3)),
                                               ("NDHWC", (2, 2, 3, 1, 3)),
                                               ("NCDHW", (2, 3, 2, 1, 2))])
def test_gradients_match_finite_differences(training, data_format, shape):
    """``sum(y * weights)``'s gradients with respect to x, scale and offset."""
    rng = rng_for("grad", training, data_format)
    x, scale, offset, mean, variance = inputs_of(rng, shape, F64, 3)
    weights = rng.standard_normal(shape)
    xs = [ds.placeholder(ds.float64, v.shape) for v in (x, scale, offset)]
    y, _, _ = ds.nn.fused_batch_norm(*xs, mean=mean, variance=variance, epsilon=0.01,
                                     data_format=data_format, is_training=training)
    loss = ds.reduce_sum(y * weights)
    point = [x, scale, offset]
    _assert_gradients_are_central_differences(loss, xs, point, atol=1e-7)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("data_format,shape", [("NHWC", (2, 3, 2, 3)), ("NCHW", (2, 3, 2, 3)),
                                               ("NCDHW", (2, 3, 2, 1, 2))])
def test_gradients_of_the_gradient_match_finite_differences(training, data_format, shape):
    """A gradient penalty's second order (WGAN-GP through a batch-normed critic): the
    batch statistics depend on x, so ``sum(dx * dx * v)`` does through them too."""
    rng = rng_for("grad2", training, data_format)
    x, scale, offset, mean, variance = inputs_of(rng, shape, F64, 3)
    weights, v = rng.standard_normal(shape), rng.standard_normal(shape)
    xs = [ds.placeholder(ds.float64, p.shape) for p in (x, scale)]
    y, _, _ = ds.nn.fused_batch_norm(*xs, offset, mean=mean, variance=variance, epsilon=0.01,
                                     data_format=data_format, is_training=training)
    dx, = ds.gradients(ds.reduce_sum(ds.sin(y) * weights), xs[:1])
    penalty = ds.reduce_sum(dx * dx * v)
    point = [x, scale]
    _assert_gradients_are_central_differences(penalty, xs, point, atol=1e-6)


def _assert_gradients_are_central_differences(loss, xs, point, atol):
    """``loss``'s gradients with respect to the placeholders ``xs`` at ``point`` (their
    values) against central differences of ``loss``, each input varied alone."""
    with ds.Session() as sess:
        grads = sess.run(ds.gradients(loss, xs), dict(zip(xs, point)))
        for k, grad in enumerate(grads):
            def loss_at(value, k=k):
                return sess.run(loss, {**dict(zip(xs, point)), xs[k]: value})
            np.testing.assert_allclose(grad, numeric_gradient(loss_at, point[k]), rtol=1e-5,
                                       atol=atol, err_msg=f"input {k}")


def test_statistics_get_no_gradient_and_float16_is_differentiated_in_float32():
    x = ds.placeholder(ds.float16, (2, 2, 2, 3))
    y, m, v = ds.nn.fused_batch_norm(x, np.ones(3, np.float32), np.zeros(3, np.float32))
    dx, = ds.gradients(ds.reduce_sum(y * y), [x])
    assert dx.dtype == ds.float16
    mean = ds.placeholder(ds.float32, (3,))
    _, m, v = ds.nn.fused_batch_norm(ds.ones((1, 2, 2, 3)), ds.ones(3), ds.zeros(3),
                                     mean=mean, variance=ds.ones(3), is_training=False)
    assert ds.gradients(m + v, [mean]) == [None]
    xv = rng_for("f16").standard_normal((2, 2, 2, 3)).astype(F16)
    with ds.Session() as sess:
        got = sess.run(dx, {x: xv})
    assert np.isfinite(got).all() and got.dtype == F16


def test_build_time_errors_are_tfs():
    x = ds.placeholder(ds.float32, (2, 4, 4, 3))
    c3, c4 = np.ones(3, np.float32), np.ones(4, np.float32)
    with pytest.raises(ValueError, match="must be 4-D"):
        ds.nn.fused_batch_norm(ds.placeholder(ds.float32, (2, 3)), np.ones(3, np.float32),
                               np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="4 elements but x .* 3 channels"):
        ds.nn.fused_batch_norm(x, c4, c4)
    with pytest.raises(ValueError, match="`mean` and `variance` must be a 1D tensor"):
        ds.nn.fused_batch_norm(x, c3, c3, is_training=False)
    with pytest.raises(TypeError, match="scale .* float64; for float32 x it must be float32"):
        ds.nn.fused_batch_norm(x, ds.constant(np.ones(3)), c3)
    with pytest.raises(ValueError, match="data_format 'NCDHW'"):
        ds.nn.fused_batch_norm(x, c3, c3, data_format="NCDHW")
    g = ds.get_default_graph()
    with pytest.raises(TypeError, match="FusedBatchNorm: float32"):
        g.create_op("FusedBatchNorm", [ds.placeholder(ds.float64, (1, 1, 1, 2))] +
                    [ds.constant(np.ones(2))] * 4)
    y, m, v = ds.nn.fused_batch_norm(ds.placeholder(ds.float32, (None, 4, 4, None)), c3, c3)
    assert y.shape.as_list() == [None, 4, 4, 3] and m.shape.as_list() == [3]   # as TF


def test_run_time_errors_name_the_node():
    x = ds.placeholder(ds.float32, None)
    scale = ds.placeholder(ds.float32, None)
    y, _, _ = ds.nn.fused_batch_norm(x, scale, np.zeros(3, np.float32), name="bn")
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="bn.*4-dimensional") as info:
            sess.run(y, {x: np.ones((2, 3), np.float32), scale: np.ones(3, np.float32)})
        assert info.value.node_name == "bn"
        with pytest.raises(InvalidArgumentError, match="bn.*scale must have the same number"):
            sess.run(y, {x: np.ones((1, 2, 2, 3), np.float32), scale: np.ones(2, np.float32)})
        got = sess.run(y, {x: np.ones((1, 2, 2, 3), np.float32), scale: np.ones(3, np.float32)})
        np.testing.assert_array_equal(got, np.zeros((1, 2, 2, 3), np.float32))
