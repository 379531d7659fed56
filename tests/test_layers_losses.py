"""``ds.layers``, ``ds.losses`` and the collections: TF1's names, variables and values.

Values are checked against numpy (or, for the convolution and pooling layers, against
the ``ds.nn`` ops they are made of, which test_nn_conv checks against numpy); variable
names against TF1's (``dense/kernel``, ``dense_1/bias``...).  A run against TF1 2.21's
``tf.compat.v1.layers`` and ``losses`` on the same weights gave the same names, losses
and gradients (max difference 1e-6); TF is not a test dependency.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.unsupported import UnsupportedTF1Error


def names(variables) -> list:
    return [v.op.name for v in variables]


def run_initialized(make_session, fetches, feed=None):
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    return sess, sess.run(fetches, feed)


# --- layers ---------------------------------------------------------------------------------

def test_dense_layers_name_their_variables_as_tf1_and_compute_x_w_plus_b(make_session, rng):
    x = ds.placeholder(ds.float32, (None, 5))
    h = ds.layers.dense(x, 4, activation=ds.nn.relu)
    y = ds.layers.dense(h, 3, name="out", bias_initializer=ds.constant_initializer(0.25))
    again = ds.layers.dense(h, 3, name="out", reuse=True)       # shares out/kernel, out/bias
    plain = ds.layers.dense(x, 2, use_bias=False, trainable=False)
    assert names(ds.trainable_variables()) == ["dense/kernel", "dense/bias", "out/kernel",
                                               "out/bias"]
    assert names(ds.global_variables())[-1] == "dense_1/kernel"
    assert y.shape.as_list() == [None, 3] and plain.shape.as_list() == [None, 2]
    value = rng.standard_normal((6, 5)).astype(np.float32)
    sess, (k1, b1, k2, b2, k3, got, shared, no_bias) = run_initialized(
        make_session, ds.global_variables() + [y, again, plain], {x: value})
    want = np.maximum(value @ k1 + b1, 0) @ k2 + b2
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(shared, got)
    np.testing.assert_allclose(no_bias, value @ k3, rtol=1e-5, atol=1e-6)
    assert not b1.any() and (b2 == 0.25).all()                    # biases start at 0
    limit = np.sqrt(6 / (5 + 4))                                  # Glorot-uniform kernels
    assert np.abs(k1).max() <= limit and k1.std() > limit / 4


def test_dense_over_a_rank_3_input_multiplies_its_last_axis(make_session, rng):
    x = ds.placeholder(ds.float32, (2, 3, 4))
    y = ds.layers.dense(x, 5)
    value = rng.standard_normal((2, 3, 4)).astype(np.float32)
    _, (kernel, bias, got) = run_initialized(make_session, ds.global_variables() + [y],
                                             {x: value})
    assert got.shape == (2, 3, 5) and y.shape.as_list() == [2, 3, 5]
    np.testing.assert_allclose(got, value @ kernel + bias, rtol=1e-5, atol=1e-6)


def test_dense_over_a_batch_of_unknown_size_reads_it_at_run_time(make_session, rng):
    x = ds.placeholder(ds.float32, (None, 3, 4))
    y = ds.layers.dense(x, 5)
    value = rng.standard_normal((2, 3, 4)).astype(np.float32)
    _, (kernel, bias, got) = run_initialized(make_session, ds.global_variables() + [y],
                                             {x: value})
    assert y.shape.as_list() == [None, 3, 5] and got.shape == (2, 3, 5)
    np.testing.assert_allclose(got, value @ kernel + bias, rtol=1e-5, atol=1e-6)


def test_a_regularizer_adds_its_loss_to_the_regularization_collection(make_session):
    x = ds.placeholder(ds.float32, (None, 3))
    ds.layers.dense(x, 2, kernel_regularizer=lambda w: 0.5 * ds.reduce_sum(w * w))
    penalty = ds.losses.get_regularization_loss()
    assert len(ds.get_collection(ds.GraphKeys.REGULARIZATION_LOSSES)) == 1
    _, (kernel, got) = run_initialized(make_session, [ds.global_variables()[0], penalty])
    np.testing.assert_allclose(got, 0.5 * (kernel ** 2).sum(), rtol=1e-5)


def test_layer_regularizers_are_named_for_their_weights_as_tf1():
    # what TF 2.21's compat.v1 (tf_keras's legacy layers) named them: <layer>/<weight>/
    # Regularizer, a layer object called twice adding its penalty once
    r = lambda w: 1e-2 * ds.nn.l2_loss(w)  # noqa: E731
    x = ds.ones([2, 4, 4, 3])
    with ds.variable_scope("critic", reuse=ds.AUTO_REUSE):
        h = ds.layers.conv2d(x, 2, 3, kernel_regularizer=r, bias_regularizer=r)
        h = ds.layers.batch_normalization(h, gamma_regularizer=r, beta_regularizer=r)
    dense = ds.layers.Dense(3, kernel_regularizer=r, name="dense_obj")
    dense(ds.layers.flatten(h))
    dense(ds.layers.flatten(h))
    ds.layers.dense(x, 2, activity_regularizer=r)
    assert [t.op.name for t in ds.losses.get_regularization_losses()] == [
        "critic/conv2d/kernel/Regularizer/mul", "critic/conv2d/bias/Regularizer/mul",
        "critic/batch_normalization/gamma/Regularizer/mul",
        "critic/batch_normalization/beta/Regularizer/mul", "dense_obj/kernel/Regularizer/mul",
        "dense/ActivityRegularizer/truediv"]


def test_conv_and_pooling_layers_are_the_nn_ops_with_their_variables(make_session, rng):
    x = ds.placeholder(ds.float32, (None, 8, 8, 3))
    c = ds.layers.conv2d(x, 4, 3, padding="same", activation=ds.nn.relu,
                         bias_initializer=ds.constant_initializer(0.5))
    strided = ds.layers.conv2d(x, 2, (3, 2), strides=(2, 1), name="strided",
                               bias_initializer=ds.constant_initializer(-1.0))
    pooled = ds.layers.max_pooling2d(c, 2, 2)
    averaged = ds.layers.average_pooling2d(c, (3, 3), 2, padding="same")
    kernel, bias, k2, b2 = ds.global_variables()
    assert names([kernel, bias, k2, b2]) == ["conv2d/kernel", "conv2d/bias", "strided/kernel",
                                             "strided/bias"]
    assert kernel.shape.as_list() == [3, 3, 3, 4] and k2.shape.as_list() == [3, 2, 3, 2]
    assert strided.shape.as_list() == [None, 3, 7, 2]
    assert pooled.shape.as_list() == [None, 4, 4, 4]
    assert averaged.shape.as_list() == [None, 4, 4, 4]
    by_hand = [ds.nn.relu(ds.nn.conv2d(x, kernel, [1, 1, 1, 1], "SAME") + bias),
               ds.nn.conv2d(x, k2, [1, 2, 1, 1], "VALID") + b2]
    by_hand += [ds.nn.max_pool(by_hand[0], [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
                ds.nn.avg_pool(by_hand[0], [1, 3, 3, 1], [1, 2, 2, 1], "SAME")]
    value = rng.standard_normal((2, 8, 8, 3)).astype(np.float32)
    _, got = run_initialized(make_session, [c, strided, pooled, averaged] + by_hand, {x: value})
    for layer, hand in zip(got[:4], got[4:]):
        np.testing.assert_allclose(layer, hand, rtol=1e-6)
    assert got[0].min() == 0 and got[0].max() > 0


@pytest.mark.parametrize("rank", [2, 3])
@pytest.mark.parametrize("padding", ["same", "valid"])
def test_transposed_conv_layers_grow_each_side_as_keras_does(rank, padding, rng):
    """Size 3, kernel 3, stride 2: "same" gives 3 * 2 = 6, "valid" 3 * 2 + (3 - 2) = 7,
    statically and, for a spatial size known only when fed, at run time; the values are
    the nn op's with that output shape."""
    layer, op = ((ds.layers.conv2d_transpose, ds.nn.conv2d_transpose) if rank == 2 else
                 (ds.layers.conv3d_transpose, ds.nn.conv3d_transpose))
    want = 6 if padding == "same" else 7
    x_value = rng.standard_normal((2, *[3] * rank, 4)).astype(np.float32)
    known = ds.constant(x_value)
    unknown = ds.placeholder(ds.float32, [None, *[None] * rank, 4])
    y = layer(known, 5, 3, strides=2, padding=padding, use_bias=False, name="known")
    z = layer(unknown, 5, 3, strides=2, padding=padding, use_bias=False, name="unknown")
    assert y.shape.as_list() == [2, *[want] * rank, 5]
    assert z.shape.as_list() == [None, *[None] * rank, 5]
    kernel = ds.global_variables()[0]
    reference = op(known, kernel, [2, *[want] * rank, 5], strides=[1, *[2] * rank, 1],
                   padding=padding.upper())
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(ds.global_variables()[1].assign(kernel))
        got, fed, expected = sess.run([y, z, reference], {unknown: x_value})
    assert fed.shape == got.shape == (2, *[want] * rank, 5)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fed, expected, rtol=1e-5, atol=1e-5)


def test_flatten_keeps_the_batch_and_multiplies_the_rest(make_session):
    x = ds.placeholder(ds.float32, (None, 2, 3, 4))
    loose = ds.placeholder(ds.float32, (None, None, 2))
    flat, flat_loose = ds.layers.flatten(x), ds.layers.flatten(loose)
    assert flat.shape.as_list() == [None, 24]
    value = np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4)
    sess = make_session()
    got, got_loose = sess.run([flat, flat_loose], {x: value, loose: value.reshape(2, 12, 2)})
    np.testing.assert_array_equal(got, value.reshape(2, 24))
    np.testing.assert_array_equal(got_loose, value.reshape(2, 24))


def test_dropout_applies_only_while_training(make_session):
    x = ds.constant(np.ones((50, 40), np.float32))
    training = ds.placeholder(ds.bool, ())
    off, on = ds.layers.dropout(x, 0.5), ds.layers.dropout(x, 0.5, training=True)
    chosen = ds.layers.dropout(x, 0.5, training=training)
    sess = make_session()
    np.testing.assert_array_equal(sess.run(off), np.ones((50, 40)))
    for out in (sess.run(on), sess.run(chosen, {training: True})):
        assert set(np.unique(out)) == {0.0, 2.0} and 0.4 < (out == 0).mean() < 0.6
    np.testing.assert_array_equal(sess.run(chosen, {training: False}), np.ones((50, 40)))
    grad, = ds.gradients(ds.reduce_sum(chosen * 3.0), [x])        # through either branch
    np.testing.assert_array_equal(sess.run(grad, {training: False}), np.full((50, 40), 3.0))
    trained = sess.run(grad, {training: True})
    assert set(np.unique(trained)) == {0.0, 6.0}


def test_what_layers_do_not_take_is_a_clear_error():
    x = ds.placeholder(ds.float32, (None, 8, 8, 3))
    with pytest.raises(ValueError, match="'channels_last' or 'channels_first'"):
        ds.layers.conv2d(x, 2, 3, data_format="NHWC")      # channels_first: test_channels_first
    with pytest.raises(ValueError, match="strides > 1 together with dilation_rate > 1"):
        ds.layers.conv2d(x, 2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="padding must be 'valid' or 'same'"):
        ds.layers.max_pooling2d(x, 2, 2, padding="full")
    with pytest.raises(ValueError, match="kernel_size must be a positive int"):
        ds.layers.conv2d(x, 2, (3, 0))
    with pytest.raises(ValueError, match="last dimension of inputs .* must be known"):
        ds.layers.dense(ds.placeholder(ds.float32, (None, None)), 3)
    with pytest.raises(ValueError, match="`virtual_batch_size` must be a positive integer"):
        ds.layers.batch_normalization(ds.placeholder(ds.float32, (None, 3)),   # TF's error
                                      virtual_batch_size=0)
    with pytest.raises(UnsupportedTF1Error, match="tf.layers.experimental"):
        ds.layers.experimental.SyncBatchNormalization()


def test_a_layered_convnet_learns(make_session, rng):
    images = rng.standard_normal((32, 6, 6, 1)).astype(np.float32)
    labels = (images[:, :3].sum((1, 2, 3)) > images[:, 3:].sum((1, 2, 3))).astype(np.int32)
    x = ds.placeholder(ds.float32, (None, 6, 6, 1))
    y = ds.placeholder(ds.int32, (None,))
    h = ds.layers.conv2d(x, 4, 3, padding="same", activation=ds.nn.relu)
    h = ds.layers.flatten(ds.layers.max_pooling2d(h, 2, 2))
    training = ds.placeholder(ds.bool, ())
    logits = ds.layers.dense(ds.layers.dropout(h, 0.1, training=training), 2)
    loss = ds.losses.sparse_softmax_cross_entropy(y, logits)
    train = ds.train.AdamOptimizer(0.02).minimize(ds.losses.get_total_loss())
    assert_training_halves_the_loss(make_session(), train, loss, training,
                                    {x: images, y: labels}, steps=40)


def assert_training_halves_the_loss(sess, train, loss, training, feed, steps):
    """``steps`` runs of ``train`` (``training`` fed True) at least halve ``loss`` as
    evaluated with ``training`` False."""
    sess.run(ds.global_variables_initializer())
    first = sess.run(loss, {**feed, training: False})
    for _ in range(steps):
        sess.run(train, {**feed, training: True})
    assert sess.run(loss, {**feed, training: False}) < 0.5 * first


def numpy_batch_norm(x, axis, gamma, beta, mean, variance, epsilon):
    shape = [1] * x.ndim
    shape[axis] = -1
    return (x - mean.reshape(shape)) / np.sqrt(variance.reshape(shape) + epsilon) * \
        gamma.reshape(shape) + beta.reshape(shape)


@pytest.mark.parametrize("shape,axis", [((6, 3, 3, 4), -1), ((5, 3, 2, 4), 1), ((8, 3), -1),
                                        ((4, 3, 5), 1)], ids=str)
def test_batch_normalization_trains_on_batch_statistics_and_moves_its_averages(
        make_session, rng, shape, axis):
    """4-D inputs over axis 3 or 1 take the fused op, whose moving variance averages the
    batch variance with Bessel's correction; others the population variance (TF1's)."""
    batches = [(rng.standard_normal(shape) * 2 + 1).astype(np.float32) for _ in range(3)]
    x = ds.placeholder(ds.float32, shape)
    training = ds.placeholder(ds.bool, ())
    init = ds.constant_initializer(np.linspace(0.5, 1.5, shape[axis]))
    y_train = ds.layers.batch_normalization(x, axis=axis, momentum=0.75, epsilon=0.01,
                                            training=True, gamma_initializer=init)
    y_infer = ds.layers.batch_normalization(x, axis=axis, training=False, name="batch_normalization",
                                            reuse=True)
    y_flag = ds.layers.batch_normalization(x, axis=axis, training=training, momentum=0.75,
                                           epsilon=0.01, name="batch_normalization", reuse=True)
    updates = ds.get_collection(ds.GraphKeys.UPDATE_OPS)
    # the layers reusing the variables open name scopes of their own ("_1", "_2")
    assert [op.name for op in updates] == [f"batch_normalization{s}/AssignMovingAvg{t}"
                                           for s in ("", "_2") for t in ("", "_1")]
    assert names(ds.trainable_variables()) == ["batch_normalization/gamma",
                                               "batch_normalization/beta"]
    assert names(ds.global_variables())[2:] == ["batch_normalization/moving_mean",
                                                "batch_normalization/moving_variance"]
    gamma, beta, moving_mean, moving_variance = ds.global_variables()
    sess = make_session()
    sess.run(ds.global_variables_initializer())
    axes = tuple(a for a in range(len(shape)) if a != axis % len(shape))
    fused = len(shape) == 4
    want_mean, want_var = np.zeros(shape[axis]), np.ones(shape[axis])
    g = np.linspace(0.5, 1.5, shape[axis])
    for batch in batches:
        got, _, _ = sess.run([y_train] + updates[:2], {x: batch})
        mean, var = batch.mean(axes, dtype=np.float64), batch.var(axes, dtype=np.float64)
        np.testing.assert_allclose(got, numpy_batch_norm(batch, axis, g, 0 * g, mean, var, 0.01),
                                   rtol=1e-4, atol=1e-5)
        n = batch.size // shape[axis]
        want_mean -= (want_mean - mean) * 0.25
        want_var -= (want_var - (var * n / (n - 1) if fused else var)) * 0.25
    np.testing.assert_allclose(sess.run(moving_mean), want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sess.run(moving_variance), want_var, rtol=1e-5)
    inferred = numpy_batch_norm(batches[0], axis, g, 0 * g, want_mean, want_var, 0.001)
    np.testing.assert_allclose(sess.run(y_infer, {x: batches[0]}), inferred, rtol=1e-4,
                               atol=1e-5)
    # a bool tensor: false normalizes with the moving averages and leaves them alone
    got, *_ = sess.run([y_flag] + updates[2:], {x: batches[0], training: False})
    np.testing.assert_allclose(got, numpy_batch_norm(batches[0], axis, g, 0 * g, want_mean,
                                                     want_var, 0.01), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(sess.run(moving_mean), want_mean, rtol=1e-5, atol=1e-6)
    sess.run(updates[2:], {x: batches[1], training: True})
    mean = batches[1].mean(axes, dtype=np.float64)
    np.testing.assert_allclose(sess.run(moving_mean), want_mean - (want_mean - mean) * 0.25,
                               rtol=1e-5, atol=1e-6)


def test_batch_normalization_of_float16_keeps_float32_variables_and_refuses_bad_arguments():
    y = ds.layers.batch_normalization(ds.placeholder(ds.float16, (None, 4, 4, 3)),
                                      training=True, center=False, scale=False)
    assert y.dtype == ds.float16
    assert [(v.op.name, v.dtype) for v in ds.global_variables()] == [
        ("batch_normalization/moving_mean", ds.float32),
        ("batch_normalization/moving_variance", ds.float32)]
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got = sess.run(y, {"Placeholder:0": np.arange(96, dtype=np.float16).reshape(2, 4, 4, 3)})
    np.testing.assert_allclose(got.astype(np.float64).mean((0, 1, 2)), 0, atol=2e-3)
    with pytest.raises(ValueError, match="invalid keys for `renorm_clipping`"):
        ds.layers.batch_normalization(y, renorm=True, renorm_clipping={"r": 1.0})
    with pytest.raises(ValueError, match="must be known"):
        ds.layers.batch_normalization(ds.placeholder(ds.float32, (2, None)))
    with pytest.raises(ValueError, match="known rank"):
        ds.layers.batch_normalization(ds.placeholder(ds.float32, None))
    with pytest.raises(ValueError, match="axis 4 is out of range"):
        ds.layers.batch_normalization(y, axis=4)


def test_a_batch_normalized_convnet_learns(make_session, rng):
    images = rng.standard_normal((32, 6, 6, 1)).astype(np.float32) * 3 + 2
    labels = (images[:, :3].sum((1, 2, 3)) > images[:, 3:].sum((1, 2, 3))).astype(np.int32)
    x = ds.placeholder(ds.float32, (None, 6, 6, 1))
    y = ds.placeholder(ds.int32, (None,))
    training = ds.placeholder(ds.bool, ())
    h = ds.layers.conv2d(x, 4, 3, padding="same", use_bias=False)
    h = ds.nn.relu(ds.layers.batch_normalization(h, training=training, momentum=0.5))
    logits = ds.layers.dense(ds.layers.flatten(h), 2)
    logits = ds.layers.batch_normalization(logits, training=training, momentum=0.5)
    loss = ds.losses.sparse_softmax_cross_entropy(y, logits)
    with ds.control_dependencies(ds.get_collection(ds.GraphKeys.UPDATE_OPS)):
        train = ds.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    assert_training_halves_the_loss(make_session(), train, loss, training,
                                    {x: images, y: labels}, steps=30)


# --- losses ---------------------------------------------------------------------------------

def log_softmax(x):
    shifted = x.astype(np.float64) - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def sigmoid_xent(x, z):
    x = x.astype(np.float64)
    return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))


def test_losses_weight_and_reduce_as_tf1(make_session, rng):
    logits_v = rng.standard_normal((6, 4)).astype(np.float32)
    labels_v = rng.integers(0, 4, 6).astype(np.int32)
    weights_v = np.array([1.0, 0.5, 0.0, 2.0, 1.0, 0.0], np.float32)
    target_v = rng.standard_normal((6, 4)).astype(np.float32)
    logits, labels = ds.constant(logits_v), ds.constant(labels_v)
    weights, target = ds.constant(weights_v), ds.constant(target_v)
    onehot = np.eye(4, dtype=np.float32)[labels_v]
    R = ds.losses.Reduction
    built = {
        "sparse": ds.losses.sparse_softmax_cross_entropy(labels, logits),
        "sparse weighted": ds.losses.sparse_softmax_cross_entropy(labels, logits, weights),
        "smoothed": ds.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.2),
        "sigmoid": ds.losses.sigmoid_cross_entropy(onehot, logits, weights=2.0),
        "mse mean": ds.losses.mean_squared_error(target, logits, reduction=R.MEAN,
                                                 weights=ds.reshape(weights, (6, 1))),
        "mse sum": ds.losses.mean_squared_error(target, logits, reduction=R.SUM),
        "mse batch": ds.losses.mean_squared_error(target, logits,
                                                  reduction=R.SUM_OVER_BATCH_SIZE),
        "all weights 0": ds.losses.mean_squared_error(target, logits, weights=0.0),
        "negative weights": ds.losses.compute_weighted_loss(    # divided as they sum
            ds.constant([1.0, 2.0]), weights=[1.0, -3.0], reduction=R.MEAN),
        "none": ds.losses.mean_squared_error(target, logits, reduction=R.NONE,
                                             loss_collection=None),
    }
    xent = -(onehot * log_softmax(logits_v)).sum(-1)
    smooth = onehot * 0.8 + 0.05
    squares = (logits_v.astype(np.float64) - target_v) ** 2
    want = {
        "sparse": xent.mean(),
        "sparse weighted": (xent * weights_v).sum() / 4,          # 4 weights are not 0
        "smoothed": (-(smooth * log_softmax(logits_v)).sum(-1)).mean(),
        "sigmoid": (2 * sigmoid_xent(logits_v, onehot)).sum() / 24,
        "mse mean": (squares * weights_v[:, None]).sum() / (4 * weights_v.sum()),
        "mse sum": squares.sum(),
        "mse batch": squares.sum() / 24,
        "all weights 0": 0.0,
        "negative weights": (1.0 - 6.0) / (1.0 - 3.0),
        "none": squares,
    }
    got = make_session().run(built)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=1e-6, err_msg=key)
    assert len(ds.losses.get_losses()) == 9                       # not the one kept out
    assert ds.get_collection(ds.GraphKeys.LOSSES, scope="mean_squared") == \
        [built["mse mean"], built["mse sum"], built["mse batch"], built["all weights 0"]]


def test_the_regression_and_margin_losses_are_tf1s(make_session, rng):
    p_v = rng.random((4, 3)).astype(np.float32)
    z_v = (rng.random((4, 3)) > 0.5).astype(np.float32)
    y_v = (rng.standard_normal((4, 3)) * 2).astype(np.float32)
    w_v = np.array([[1.0], [0.5], [0.0], [2.0]], np.float32)
    unit = lambda v: v / np.linalg.norm(v.astype(np.float64), axis=1, keepdims=True)  # noqa
    R = ds.losses.Reduction
    built = {
        "absolute": ds.losses.absolute_difference(y_v, p_v, weights=w_v),
        "huber": ds.losses.huber_loss(y_v, p_v, delta=0.7, reduction=R.NONE),
        "log": ds.losses.log_loss(z_v, p_v),
        "hinge": ds.losses.hinge_loss(z_v, y_v, weights=w_v, reduction=R.SUM),
        "cosine": ds.losses.cosine_distance(unit(y_v).astype(np.float32),
                                            unit(p_v).astype(np.float32), axis=1,
                                            reduction=R.NONE),
    }
    e = np.abs(p_v.astype(np.float64) - y_v)
    want = {
        "absolute": (e * w_v).sum() / 9,              # 9 broadcast weights are not 0
        "huber": np.where(e <= 0.7, 0.5 * e ** 2, 0.7 * (e - 0.35)),
        "log": (-z_v * np.log(p_v + 1e-7) - (1 - z_v) * np.log(1 - p_v + 1e-7)).mean(),
        "hinge": (np.maximum(0, 1 - (2 * z_v - 1) * y_v) * w_v).sum(),
        "cosine": 1 - (unit(y_v) * unit(p_v)).sum(1, keepdims=True),
    }
    got = make_session().run(built)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=1e-6, err_msg=key)
    assert got["cosine"].shape == (4, 1)
    with pytest.raises(ValueError, match="specify argument `axis`"):
        ds.losses.cosine_distance(y_v, p_v)
    with pytest.raises(ValueError, match="huber_loss: predictions .* must have the same shape"):
        ds.losses.huber_loss(y_v, p_v[:, :2])


def test_total_loss_sums_the_losses_and_regularization(make_session):
    w = ds.Variable(np.float32(3.0), name="w")
    ds.losses.add_loss(w * 2.0)
    ds.losses.mean_squared_error(ds.constant([1.0, 2.0]), ds.stack([w, w]))
    ds.add_to_collection(ds.GraphKeys.REGULARIZATION_LOSSES, w * w)
    _, (total, plain) = run_initialized(
        make_session, [ds.losses.get_total_loss(),
                       ds.losses.get_total_loss(add_regularization_losses=False)])
    assert plain == pytest.approx(6.0 + (4 + 1) / 2) and total == pytest.approx(plain + 9)
    ds.reset_default_graph()
    with pytest.raises(ValueError, match="No losses"):
        ds.losses.get_total_loss()


def test_reduction_keys_and_validate_are_tf1s():
    # TF 2.21's compat.v1 tuple: its order, the nonzero-weights key twice (two names)
    R = ds.losses.Reduction
    assert R.all() == ("none", "weighted_sum", "weighted_mean", "weighted_sum_over_batch_size",
                       "weighted_sum_by_nonzero_weights", "weighted_sum_by_nonzero_weights")
    assert R.SUM_OVER_NONZERO_WEIGHTS == R.SUM_BY_NONZERO_WEIGHTS
    for key in R.all():
        R.validate(key)
    with pytest.raises(ValueError, match=r"^Invalid Reduction Key mean\. Key should be one of "
                                         r"\('none', 'weighted_sum', "):
        R.validate("mean")


def test_bad_loss_arguments_are_clear_errors():
    logits = ds.placeholder(ds.float32, (None, 3))
    with pytest.raises(ValueError, match="Invalid Reduction Key average"):
        ds.losses.sparse_softmax_cross_entropy(ds.placeholder(ds.int32, (None,)), logits,
                                               reduction="average")
    with pytest.raises(ValueError, match="same shape"):
        ds.losses.mean_squared_error(ds.placeholder(ds.float32, (None, 2)), logits)
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        ds.losses.mean_pairwise_squared_error(ds.ones([3, 4]), ds.ones([3, 4]),
                                              weights=ds.ones([3]))


def test_loss_op_names_are_tf1s():
    # what TF 2.21's compat.v1 named them (a script's get_losses() names); the pairwise
    # loss divides by div_no_nan twice, 'value' and 'value_1', before its 'value_2'
    a, L = np.ones((2, 3), np.float32), ds.losses
    made = [L.absolute_difference(a, a), L.cosine_distance(a, a, axis=1),
            L.softmax_cross_entropy(a, a), L.mean_pairwise_squared_error(a, a),
            L.mean_pairwise_squared_error(a, a), L.huber_loss(a, a, reduction=L.Reduction.SUM),
            L.huber_loss(a, a, reduction=L.Reduction.MEAN)]
    assert [t.op.name for t in made] == [
        "absolute_difference/value", "cosine_distance_loss/value",
        "softmax_cross_entropy_loss/value", "mean_pairwise_squared_error/value_2",
        "mean_pairwise_squared_error_1/value_2", "huber_loss/Sum", "huber_loss_1/value"]


@pytest.mark.parametrize("loss, first, second", [
    ("absolute_difference", "labels", "predictions"), ("huber_loss", "labels", "predictions"),
    ("log_loss", "labels", "predictions"), ("mean_squared_error", "labels", "predictions"),
    ("mean_pairwise_squared_error", "labels", "predictions"),
    ("hinge_loss", "labels", "logits"), ("cosine_distance", "labels", "predictions"),
    ("sigmoid_cross_entropy", "multi_class_labels", "logits"),
    ("softmax_cross_entropy", "onehot_labels", "logits"),
    ("sparse_softmax_cross_entropy", "labels", "logits")])
def test_a_loss_given_none_names_the_argument_as_tf1(loss, first, second):
    # TF1's ValueError (not a TypeError from converting None), the labels checked first
    fn, given = getattr(ds.losses, loss), ds.ones([2, 3])
    extra = {"axis": 1} if loss == "cosine_distance" else {}
    with pytest.raises(ValueError, match=f"^Argument `{first}` must not be None.$"):
        fn(None, None, **extra)
    with pytest.raises(ValueError, match=f"^Argument `{second}` must not be None.$"):
        fn(given, None, **extra)


# --- nn additions ---------------------------------------------------------------------------

def test_sigmoid_cross_entropy_never_overflows_and_has_tf1s_gradient(make_session):
    x_v = np.array([[-100.0, -2.0, 0.0], [0.5, 3.0, 100.0]], np.float32)
    z_v = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 1.0]], np.float32)
    x = ds.constant(x_v)
    loss = ds.nn.sigmoid_cross_entropy_with_logits(labels=z_v, logits=x)
    grad, = ds.gradients(ds.reduce_sum(loss), [x])
    got, got_grad = make_session().run([loss, grad])
    np.testing.assert_allclose(got, sigmoid_xent(x_v, z_v), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_grad, 1 / (1 + np.exp(-x_v.astype(np.float64))) - z_v,
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="same shape"):
        ds.nn.sigmoid_cross_entropy_with_logits(labels=np.zeros(2, np.float32), logits=x)
    positional = ds.nn.sigmoid_cross_entropy_with_logits(z_v, x)     # TF 2.21's compat.v1
    np.testing.assert_array_equal(make_session().run(positional), got)


def test_l2_normalize(make_session, rng):
    v = rng.standard_normal((3, 4)).astype(np.float32)
    rows, columns = ds.nn.l2_normalize(v, axis=1), ds.nn.l2_normalize(v, dim=0)
    zero = ds.nn.l2_normalize(np.zeros(3, np.float32))
    got_rows, got_columns, got_zero = make_session().run([rows, columns, zero])
    np.testing.assert_allclose(got_rows, v / np.linalg.norm(v, axis=1, keepdims=True),
                               rtol=1e-5)
    np.testing.assert_allclose(got_columns, v / np.linalg.norm(v, axis=0), rtol=1e-5)
    np.testing.assert_array_equal(got_zero, np.zeros(3))


def test_a_loss_tensor_is_named_as_tfs(graph):
    """TF1's losses end in ``<loss scope>/value`` (a DivNoNan), so hooks and scripts find
    them by name: ``Sum`` and ``Mul`` for the SUM and NONE reductions (TF 2.21's names)."""
    mse = ds.losses.mean_squared_error
    R = ds.losses.Reduction
    names = [mse([1.0, 2.0], [0.0, 0.0]).name,
             mse([1.0, 2.0], [0.0, 0.0], reduction=R.SUM).name,
             mse([1.0, 2.0], [0.0, 0.0], reduction=R.NONE).name,
             ds.losses.sparse_softmax_cross_entropy([1], [[0.0, 1.0]]).name,
             ds.losses.compute_weighted_loss([1.0, 3.0], [0.0, 2.0]).name]
    assert names == ["mean_squared_error/value:0", "mean_squared_error_1/Sum:0",
                     "mean_squared_error_2/Mul:0", "sparse_softmax_cross_entropy_loss/value:0",
                     "weighted_loss/value:0"]
    found = graph.get_tensor_by_name("sparse_softmax_cross_entropy_loss/value:0")
    assert found.op.type == "DivNoNan"
    with ds.Session() as sess:
        assert sess.run("weighted_loss/value:0") == 6.0
