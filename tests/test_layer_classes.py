"""TF1's ``tf.layers`` classes: ``Dense(units)(x)`` and its kind build their variables on
the first call and reuse them on later ones, hold them as attributes (``kernel``,
``bias``...), and compute what the functions of the same name compute."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds


def run(fetches, feed=None):
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        return sess.run(fetches, feed)


def test_dense_builds_once_and_shares(graph, rng):
    x = ds.placeholder(ds.float32, (None, 4))
    layer = ds.layers.Dense(3, activation=ds.nn.relu)
    assert not layer.built and layer.name == "dense"
    y1, y2 = layer(x), layer(x * 2.0)
    assert layer.built and layer.scope_name == "dense"
    assert [v.name for v in layer.variables] == ["dense/kernel:0", "dense/bias:0"]
    assert layer.trainable_variables == layer.variables == layer.weights
    assert [v.name for v in ds.global_variables()] == ["dense/kernel:0", "dense/bias:0"]
    assert layer.units == 3 and layer.activation is ds.nn.relu
    feed = rng.normal(size=(5, 4)).astype(np.float32)
    a, b, kernel, bias = run([y1, y2, layer.kernel, layer.bias], {x: feed})
    np.testing.assert_allclose(a, np.maximum(feed @ kernel + bias, 0), rtol=1e-6)
    np.testing.assert_allclose(b, np.maximum(2 * feed @ kernel + bias, 0), rtol=1e-6)


def test_names_and_scopes_as_tf1(graph):
    x = ds.placeholder(ds.float32, (None, 2))
    first, second = ds.layers.Dense(1), ds.layers.Dense(1)
    named, named_again = ds.layers.Dense(1, name="fc"), ds.layers.Dense(1, name="fc")
    for layer in (first, second, named, named_again):
        layer(x)
    assert [first.name, second.name, named.name, named_again.name] == [
        "dense", "dense_1", "fc", "fc"]
    assert [first.scope_name, second.scope_name, named.scope_name,
            named_again.scope_name] == ["dense", "dense_1", "fc", "fc_1"]
    with ds.variable_scope("outer"):
        inner = ds.layers.Dense(1)
        inner(x)
    assert inner.kernel.name == "outer/dense/kernel:0"
    inner(x)                                           # later calls find it anywhere
    assert len(ds.global_variables()) == 10


def test_a_layer_built_inside_a_reusing_scope_shares_the_functions_variables(graph):
    x = ds.placeholder(ds.float32, (None, 2))
    with ds.variable_scope("net"):
        ds.layers.dense(x, 3)
    with ds.variable_scope("net", reuse=True):
        layer = ds.layers.Dense(3)
        layer(x)
    assert layer.kernel.name == "net/dense/kernel:0"
    assert len(ds.global_variables()) == 2 and layer.variables == ds.global_variables()


def test_weights_it_was_told_not_to_have_are_none_and_untrainable_layers(graph):
    x = ds.placeholder(ds.float32, (None, 2))
    no_bias = ds.layers.Dense(2, use_bias=False)
    no_bias(x)
    assert no_bias.bias is None and no_bias.kernel is not None
    frozen = ds.layers.Dense(2, trainable=False)
    frozen(x)
    assert frozen.trainable_variables == [] and len(frozen.non_trainable_variables) == 2
    assert frozen.kernel not in ds.trainable_variables()


def test_before_the_first_call(graph):
    layer = ds.layers.Dense(2)
    with pytest.raises(ValueError, match="has not been used yet"):
        layer.scope_name
    with pytest.raises(AttributeError):
        layer.kernel
    assert layer.variables == []
    with pytest.raises(TypeError, match="Keyword argument not understood: 'unit'"):
        ds.layers.Dense(2, unit=3)


def test_conv_pool_flatten_compute_what_the_functions_do(graph, rng):
    images = rng.normal(size=(2, 6, 6, 3)).astype(np.float32)
    x = ds.placeholder(ds.float32, (None, 6, 6, 3))
    conv = ds.layers.Conv2D(4, 3, strides=1, padding="same", activation=ds.nn.relu)
    h = conv(x)
    pooled = ds.layers.MaxPooling2D(2, 2)(h)
    averaged = ds.layers.AveragePooling2D((3, 3), 3)(h)
    flat = ds.layers.Flatten()(pooled)
    assert conv.kernel.shape == (3, 3, 3, 4) and conv.bias.shape == (4,)
    assert (pooled.shape.as_list(), averaged.shape.as_list(), flat.shape.as_list()) == (
        [None, 3, 3, 4], [None, 2, 2, 4], [None, 36])
    assert pooled.op.name == "max_pooling2d/MaxPool" and flat.op.name == "flatten/Reshape"
    want = ds.nn.relu(ds.nn.bias_add(ds.nn.conv2d(x, conv.kernel, [1, 1, 1, 1], "SAME"),
                                     conv.bias))
    h_, want_, p, a, f = run([h, want, pooled, averaged, flat], {x: images})
    np.testing.assert_allclose(h_, want_, rtol=1e-6)
    np.testing.assert_allclose(p, h_.reshape(2, 3, 2, 3, 2, 4).max(axis=(2, 4)), rtol=1e-6)
    np.testing.assert_allclose(a, h_.reshape(2, 2, 3, 2, 3, 4).mean(axis=(2, 4)), rtol=1e-5)
    np.testing.assert_array_equal(f, p.reshape(2, -1))


def test_one_dimensional_and_other_convolutions(graph):
    seq = ds.placeholder(ds.float32, (None, 10, 2))
    img = ds.placeholder(ds.float32, (None, 5, 5, 2))
    conv1 = ds.layers.Conv1D(3, 3)
    assert conv1(seq).shape.as_list() == [None, 8, 3]
    assert ds.layers.MaxPooling1D(2, 2)(seq).shape.as_list() == [None, 5, 2]
    assert ds.layers.AveragePooling1D(2, 2)(seq).shape.as_list() == [None, 5, 2]
    sep = ds.layers.SeparableConv2D(4, 3, depth_multiplier=2)
    assert sep(img).shape.as_list() == [None, 3, 3, 4]
    assert sep.depthwise_kernel.shape == (3, 3, 2, 2) and sep.pointwise_kernel.shape == (
        1, 1, 4, 4)
    up = ds.layers.Conv2DTranspose(3, 2, strides=2)
    assert up(img).shape.as_list() == [None, 10, 10, 3] and up.kernel.shape == (2, 2, 3, 2)
    assert conv1.kernel.shape == (3, 2, 3)


def test_one_dimensional_pooling_in_the_layers_scope(graph, rng):
    seq = ds.placeholder(ds.float32, (None, 6, 2))
    largest, mean = ds.layers.MaxPooling1D(2, 2), ds.layers.AveragePooling1D(3, 3)
    outputs = [largest(seq), mean(seq), largest(seq)]
    assert [y.op.name for y in outputs] == ["max_pooling1d/Squeeze",
                                             "average_pooling1d/Squeeze",
                                             "max_pooling1d/Squeeze_1"]   # as TF1 names them
    pooled = outputs[0].op.inputs[0].op
    assert pooled.name == "max_pooling1d/MaxPool"
    assert pooled.inputs[0].shape.as_list() == [None, 6, 1, 2]      # Keras's: a width of 1
    assert list(pooled.get_attr("ksize")) == [1, 2, 1, 1]
    values = rng.normal(size=(2, 6, 2)).astype(np.float32)
    got_max, got_mean, _ = run(outputs, {seq: values})
    np.testing.assert_allclose(got_max, values.reshape(2, 3, 2, 2).max(axis=2), rtol=1e-6)
    np.testing.assert_allclose(got_mean, values.reshape(2, 2, 3, 2).mean(axis=2), rtol=1e-6)


def test_dropout_follows_training(graph):
    x = ds.ones((1000,))
    is_training = ds.placeholder(ds.bool, ())
    layer = ds.layers.Dropout(0.25, seed=1)
    off, chosen = layer(x), layer(x, training=is_training)
    on = layer(x, training=True)
    got_off, got_on, chosen_off = run([off, on, chosen], {is_training: False})
    np.testing.assert_array_equal(got_off, 1.0)
    np.testing.assert_array_equal(chosen_off, 1.0)
    assert set(np.unique(got_on)) == {0.0, np.float32(1 / 0.75)}
    assert abs((got_on == 0).mean() - 0.25) < 0.05
    assert layer.rate == 0.25 and layer.variables == []


def test_batch_normalization_updates_its_moving_averages(graph, rng):
    batch = rng.normal(3.0, 2.0, size=(64, 5)).astype(np.float32)
    x = ds.placeholder(ds.float32, (None, 5))
    layer = ds.layers.BatchNormalization(momentum=0.5)
    y = layer(x, training=True)
    assert [v.name.split("/")[-1] for v in layer.variables] == [
        "gamma:0", "beta:0", "moving_mean:0", "moving_variance:0"]
    assert [v.name for v in layer.trainable_variables] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0"]
    assert len(layer.updates) == 2
    assert layer.updates == ds.get_collection(ds.GraphKeys.UPDATE_OPS)
    inference = layer(x)                                 # training=False: the averages
    assert len(layer.updates) == 2 and len(layer.variables) == 4
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        normalized, _ = sess.run([y, layer.updates], {x: batch})
        mean, inferred = sess.run([layer.moving_mean, inference], {x: batch})
    np.testing.assert_allclose(normalized.mean(axis=0), 0.0, atol=1e-5)
    np.testing.assert_allclose(mean, 0.5 * batch.mean(axis=0), rtol=1e-5)
    assert not np.allclose(inferred, normalized)


def test_regularization_losses_are_the_layers(graph):
    x = ds.placeholder(ds.float32, (None, 3))
    layer = ds.layers.Dense(2, kernel_regularizer=lambda w: ds.reduce_sum(w * w))
    layer.apply(x)
    assert layer.losses == ds.get_collection(ds.GraphKeys.REGULARIZATION_LOSSES)
    assert len(layer.losses) == 1
    kernel, penalty = run([layer.kernel, layer.losses[0]])
    assert penalty == pytest.approx((kernel ** 2).sum(), rel=1e-6)


def test_a_penalty_is_added_once_per_variable_however_often_it_is_built(graph):
    x = ds.placeholder(ds.float32, (None, 3))

    def penalty(w):
        return ds.reduce_sum(w * w)
    layer = ds.layers.Dense(2, kernel_regularizer=penalty, bias_regularizer=penalty)
    layer(x), layer(x)
    for reuse in (False, True):                          # the function built again: shared
        with ds.variable_scope("f", reuse=reuse):
            ds.layers.dense(x, 2, kernel_regularizer=penalty)
            ds.layers.batch_normalization(x, gamma_regularizer=penalty)
    with ds.variable_scope("f", reuse=True):
        ds.layers.Dense(2, kernel_regularizer=penalty, name="dense")(x)
    losses = ds.get_collection(ds.GraphKeys.REGULARIZATION_LOSSES)
    assert len(layer.losses) == 2 and len(losses) == 4
    penalized = [layer.kernel, layer.bias, ds.global_variables()[2], ds.global_variables()[4]]
    assert [v.name for v in penalized[2:]] == ["f/dense/kernel:0", "f/batch_normalization/gamma:0"]
    *values, total = run(penalized + [ds.losses.get_regularization_loss()])
    assert total == pytest.approx(sum((v ** 2).sum() for v in values), rel=1e-6)


def test_a_dtype_other_than_the_inputs_is_refused(graph):
    x = ds.placeholder(ds.float32, (None, 3))
    with pytest.raises(ValueError, match="dtype=float64 but is called on"):
        ds.layers.Dense(2, dtype=ds.float64)(x)
    assert ds.layers.Dense(2, dtype=ds.float32)(x).dtype == ds.float32


class Scale(ds.layers.Layer):
    """A TF1 custom layer: one weight per feature, made in build."""

    def build(self, input_shape):
        self.scale = self.add_weight("scale", (int(input_shape[-1]),),
                                     initializer=ds.constant_initializer(2.0),
                                     regularizer=lambda w: ds.reduce_sum(w))
        self.offset = self.add_variable("offset", (), trainable=False,
                                        initializer=ds.zeros_initializer())

    def call(self, inputs):
        return inputs * self.scale + self.offset


def test_a_custom_layer_builds_in_its_scope_once(graph):
    x = ds.placeholder(ds.float32, (None, 3))
    layer = Scale(name="scaler")
    y1, y2 = layer(x), layer(x + 1.0)
    assert [v.name for v in layer.variables] == ["scaler/scale:0", "scaler/offset:0"]
    assert layer.trainable_variables == [layer.scale]
    assert layer.non_trainable_variables == [layer.offset]
    assert len(layer.losses) == 1 and len(ds.global_variables()) == 2
    a, b, penalty = run([y1, y2, layer.losses[0]], {x: [[1.0, 2.0, 3.0]]})
    np.testing.assert_array_equal(a, [[2.0, 4.0, 6.0]])
    np.testing.assert_array_equal(b, [[4.0, 6.0, 8.0]])
    assert penalty == 6.0
    with pytest.raises(ValueError, match="does not support partitioner"):
        Scale().add_weight("w", (1,), partitioner=lambda shape, dtype: [1])


def test_a_call_that_fails_after_build_leaves_the_weights_built(graph):
    class Picky(Scale):
        """Refuses inputs of 3 features, after build made its weights."""

        def call(self, inputs):
            if inputs.shape[0] == 1:
                raise ValueError("not this batch")
            return super().call(inputs)

    layer = Picky(name="picky")
    with pytest.raises(ValueError, match="not this batch"):
        layer(ds.placeholder(ds.float32, (1, 3)))
    y = layer(ds.placeholder(ds.float32, (2, 3)))       # build does not run again
    assert [v.name for v in layer.variables] == ["picky/scale:0", "picky/offset:0"]
    assert len(ds.global_variables()) == 2 and y.shape == (2, 3)


def test_a_layer_made_without_a_name_takes_its_classs_in_snake_case(graph):
    x = ds.placeholder(ds.float32, (None, 3))
    first, second = Scale(), Scale()
    first(x), second(x)
    assert [first.name, second.name] == ["scale", "scale_1"]
    assert [v.name for v in first.variables + second.variables] == [
        "scale/scale:0", "scale/offset:0", "scale_1/scale:0", "scale_1/offset:0"]

    class MyHTTPLayer2D(Scale):
        pass
    assert MyHTTPLayer2D().name == "my_http_layer2d"          # TF's to_snake_case
    assert [ds.layers.Conv2DTranspose(1, 1).name, ds.layers.SeparableConv2D(1, 1).name,
            ds.layers.BatchNormalization().name, ds.layers.AveragePooling1D(1, 1).name] == [
        "conv2d_transpose", "separable_conv2d", "batch_normalization", "average_pooling1d"]


def test_a_custom_layers_weights_take_its_inputs_float_dtype(graph):
    wide = ds.placeholder(ds.float64, (None, 3))
    layer = Scale()
    y = layer(wide)
    assert layer.scale.dtype == ds.float64 and y.dtype == ds.float64
    assert Scale(dtype=ds.float64)(wide).dtype == ds.float64            # the layer's own
    assert Scale()(ds.placeholder(ds.float16, (None, 2))).dtype == ds.float16
    np.testing.assert_array_equal(run(y, {wide: [[1.0, 2.0, 3.0]]}), [[2.0, 4.0, 6.0]])


def test_pooling_and_dense_layers_name_their_ops_as_tf():
    """TF 2.21's (legacy Keras) names: the pooling op in the layer's scope, a dense
    layer's bias a BiasAdd for any input rank."""
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, [2, 8, 8, 3])
        volume = ds.placeholder(ds.float32, [2, 4, 4, 4, 3])
        names = [ds.layers.max_pooling2d(x, 2, 2).name,
                 ds.layers.average_pooling2d(x, 2, 2).name,
                 ds.layers.max_pooling3d(volume, 2, 2).name,
                 ds.layers.max_pooling2d(x, 2, 2, name="p").name,
                 ds.layers.MaxPooling2D(2, 2)(x).name,
                 ds.layers.dense(ds.placeholder(ds.float32, [2, 8, 3]), 4).name]
    assert names == ["max_pooling2d/MaxPool:0", "average_pooling2d/AvgPool:0",
                     "max_pooling3d/MaxPool3D:0", "p/MaxPool:0", "max_pooling2d_1/MaxPool:0",
                     "dense/BiasAdd:0"]


# the shapes TF 2.21's tf.compat.v1.layers (tf_keras) gave for these, in graph mode
OUTPUT_SHAPES = [
    (lambda: ds.layers.Conv3D(4, (1, 3, 3), strides=(1, 2, 2), padding="same"),
     [2, 4, 8, 8, 3], [2, 4, 4, 4, 4]),
    (lambda: ds.layers.Conv3D(4, 3, dilation_rate=(2, 1, 1)), [2, 4, 8, 8, 3], [2, 0, 6, 6, 4]),
    (lambda: ds.layers.Conv3D(4, 3, data_format="channels_first"), [2, 4, 8, 8, 3],
     [2, 4, 6, 6, 1]),
    (lambda: ds.layers.Conv3DTranspose(4, (2, 3, 3), strides=2), [2, 4, 8, 8, 3],
     [2, 8, 17, 17, 4]),
    (lambda: ds.layers.Conv2D(5, 3, strides=2, padding="same"), [None, 8, 8, 3],
     [None, 4, 4, 5]),
    (lambda: ds.layers.Conv2DTranspose(5, 3, strides=2, padding="same"), [None, 8, 8, 3],
     [None, 16, 16, 5]),
    (lambda: ds.layers.Conv1D(5, 3), [None, 10, 3], [None, 8, 5]),
    (lambda: ds.layers.SeparableConv2D(5, 3), [None, 8, 8, 3], [None, 6, 6, 5]),
    (lambda: ds.layers.MaxPooling3D(2, 2), [2, 4, 8, 8, 3], [2, 2, 4, 4, 3]),
    (lambda: ds.layers.AveragePooling3D((1, 2, 2), (1, 2, 2), padding="same"),
     [2, 4, 8, 8, 3], [2, 4, 4, 4, 3]),
    (lambda: ds.layers.MaxPooling1D(2, 2), [None, 10, 3], [None, 5, 3]),
    (lambda: ds.layers.Dense(7), [2, 4, 8, 8, 3], [2, 4, 8, 8, 7]),
    (lambda: ds.layers.Flatten(), [2, 4, 8, 8, 3], [2, 768]),
    (lambda: ds.layers.Flatten(), [None, 4, None], [None, None]),
]


@pytest.mark.parametrize("make,given,want", OUTPUT_SHAPES,
                         ids=[f"{i}" for i in range(len(OUTPUT_SHAPES))])
def test_compute_output_shape_is_tfs_without_building(graph, make, given, want):
    layer = make()
    for shape in (given, tuple(given), ds.TensorShape(given)):
        got = layer.compute_output_shape(shape)
        assert isinstance(got, ds.TensorShape) and got.as_list() == want
    assert not layer.built and layer.variables == []
    if 0 not in want:             # what a call builds (TF refuses a window past the input)
        assert layer(ds.placeholder(ds.float32, given)).shape.as_list() == want


def test_compute_output_shape_of_the_shape_keeping_and_custom_layers(graph):
    for layer in (ds.layers.BatchNormalization(), ds.layers.Dropout(0.5)):
        given = (None, 4, 3)
        assert layer.compute_output_shape(given) is given        # as TF's: as given
    with pytest.raises(ValueError, match="last dimension of the input shape of a Dense"):
        ds.layers.Dense(3).compute_output_shape([2, None])
    with pytest.raises(NotImplementedError, match="compute_output_shape"):
        ds.layers.Layer().compute_output_shape([2, 3])
