"""Channels-first (NCHW, NCW, NCDHW) convolutions, poolings and tf.layers against
TensorFlow 2.21 (tests/data/tf_channels_first*.{pb,npz}, made by
tests/data/make_tf_channels_first.py, whose builders are mirrored here with ``ds``).

devsession builds them from its NHWC ops between two transposes
(``ops/nn_channels_first.py``, ``layers_formats.py``): the values and gradients are
TF's; TF's own NCHW nodes in a GraphDef import the same way (``tf_graph.py``).
"""

import os

import numpy as np
import pytest

import devsession as ds
from tests.tf_recorded import DATA, run_recorded

NN = np.load(os.path.join(DATA, "tf_channels_first.npz"))
LAYERS = np.load(os.path.join(DATA, "tf_channels_first_layers.npz"))


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


def data():
    rng = np.random.default_rng(21)

    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    return {"x": normal(2, 3, 6, 7), "f": normal(3, 3, 3, 2), "fd": normal(3, 3, 3, 2),
            "pw": normal(1, 1, 6, 4), "ft": normal(3, 3, 5, 2), "small": normal(2, 2, 3, 4),
            "b": normal(2), "f1": normal(3, 3, 2), "seq": normal(2, 3, 9),
            "img": normal(2, 3, 8, 8), "vol": normal(2, 2, 4, 5, 5)}


FILTER_OF = {"conv": "f", "conv_dilated": "f", "depthwise": "fd", "transpose": "ft",
             "conv1d": "f1"}
INPUT_OF = {"transpose": "small"}      # grad_x: the gradient of this input, else of x


def nn_ops(tf, x, d):
    """The tf.nn calls recorded (``tf``: TF or ``ds``): ({key: output}, {name: filter})."""
    consts = {}

    def c(name):
        if isinstance(name, str):
            if name not in consts:
                consts[name] = tf.constant(d[name], name=name)
            return consts[name]
        return tf.constant(name)
    return consts, {
        "conv": tf.nn.conv2d(x, c("f"), [1, 1, 2, 1], "SAME", data_format="NCHW",
                             name="conv"),
        "conv_dilated": tf.nn.conv2d(x, c("f"), [1, 1, 1, 1], "VALID", data_format="NCHW",
                                     dilations=[1, 1, 2, 1], name="conv_dilated"),
        "bias": tf.nn.bias_add(x[:, :2], c("b"), data_format="NCHW", name="bias"),
        "max_pool": tf.nn.max_pool(x, [1, 1, 3, 2], [1, 1, 2, 2], "SAME",
                                   data_format="NCHW", name="max_pool"),
        "avg_pool": tf.nn.avg_pool(x, [1, 1, 3, 3], [1, 1, 2, 1], "SAME",
                                   data_format="NCHW", name="avg_pool"),
        "depthwise": tf.nn.depthwise_conv2d(x, c("fd"), [1, 1, 1, 1], "SAME",
                                            data_format="NCHW", name="depthwise"),
        "separable": tf.nn.separable_conv2d(x, c("fd"), c("pw"), [1, 1, 1, 1], "VALID",
                                            data_format="NCHW", name="separable"),
        "transpose": tf.nn.conv2d_transpose(c("small"), c("ft"), [2, 5, 5, 8],
                                            [1, 1, 2, 2], "SAME", data_format="NCHW",
                                            name="transpose"),
        "batch_norm": tf.nn.fused_batch_norm(x, c([1.0, 2.0, 0.5]), c([0.1, 0.0, -0.1]),
                                             c([0.2, -0.1, 0.0]), c([1.0, 2.0, 0.5]),
                                             data_format="NCHW", is_training=False,
                                             name="batch_norm")[0],
        "conv1d": tf.nn.conv1d(x[:, :, 0], c("f1"), 1, "SAME", data_format="NCW",
                               name="conv1d"),
    }


def init(tf):
    """An initializer giving every variable a fixed pattern of its shape."""
    def initializer(shape, dtype=None, **unused):
        n = int(np.prod(shape))
        return tf.constant((np.sin(np.arange(n) * 0.7) * 0.4).astype(np.float32).reshape(shape))
    return initializer


def layers_model(tf, d):
    """Channels-first tf.layers: ({key: output}, loss, inputs)."""
    L, first, k = tf.layers, "channels_first", init(tf)
    img, seq, vol = (tf.constant(d[key]) for key in ("img", "seq", "vol"))
    out = {}
    h = out["conv2d"] = L.conv2d(img, 4, 3, padding="same", data_format=first,
                                 activation=tf.nn.relu, kernel_initializer=k,
                                 bias_initializer=k, name="conv2d")
    h = out["batch_norm"] = L.batch_normalization(h, axis=1, training=True, name="bn",
                                                  gamma_initializer=k)
    h = out["max2d"] = L.max_pooling2d(h, 2, 2, data_format=first)
    h = out["separable"] = L.separable_conv2d(h, 3, 3, padding="same", data_format=first,
                                              depthwise_initializer=k,
                                              pointwise_initializer=k, bias_initializer=k,
                                              name="separable")
    h = out["transpose"] = L.conv2d_transpose(h, 2, 3, strides=2, padding="same",
                                              data_format=first, kernel_initializer=k,
                                              bias_initializer=k, name="transpose")
    h = out["avg2d"] = L.average_pooling2d(h, 3, 2, padding="same", data_format=first)
    out["flat"] = L.flatten(h, data_format=first)
    s = out["conv1d"] = L.conv1d(seq, 2, 3, data_format=first, kernel_initializer=k,
                                 bias_initializer=k, name="conv1d")
    s = out["max1d"] = L.max_pooling1d(s, 2, 2, data_format=first)
    out["avg1d"] = L.average_pooling1d(s, 2, 1, data_format=first)
    v = out["conv3d"] = L.conv3d(vol, 2, 2, data_format=first, kernel_initializer=k,
                                 bias_initializer=k, name="conv3d")
    v = out["max3d"] = L.max_pooling3d(v, 2, 1, data_format=first)
    v = out["avg3d"] = L.average_pooling3d(v, 2, 1, padding="same", data_format=first)
    out["transpose3d"] = L.conv3d_transpose(v, 2, 2, strides=2, data_format=first,
                                            kernel_initializer=k, name="transpose3d")
    weights = {key: 0.1 * (i + 1) for i, key in enumerate(sorted(out))}
    loss = tf.add_n([weights[key] * tf.reduce_sum(tf.square(t)) for key, t in out.items()])
    return out, loss, [img, seq, vol]



def test_tfs_nchw_nodes_import_with_tfs_values():
    graph, names, values, data = run_recorded("tf_channels_first")
    for name, value in zip(names, values):
        np.testing.assert_allclose(value, data[f"fetch:{name}"], rtol=1e-5, atol=1e-5,
                                   err_msg=name)
    nchw = [op.type for op in graph.get_operations()
            if op.type in ("Conv2D", "MaxPool", "AvgPool", "DepthwiseConv2dNative",
                           "Conv2DBackpropInput") and op.get_attr("data_format") == "NCHW"]
    assert nchw == []                       # each built as its NHWC op between Transposes
    assert graph.get_operation_by_name("conv").type == "Identity"


def test_nn_builders_give_tfs_values_and_gradients(graph):
    d = data()
    x = ds.placeholder(ds.float32, (None, 3, 6, 7), name="x")
    consts, outs = nn_ops(ds, x, d)
    grads = {key: ds.gradients(ds.reduce_sum(t * t), [consts.get(INPUT_OF.get(key), x)] + (
        [consts[FILTER_OF[key]]] if key in FILTER_OF else [])) for key, t in outs.items()}
    with ds.Session() as sess:
        values, grad_values = sess.run([outs, grads], {x: d["x"]})
    for key, t in outs.items():
        assert t.name == str(NN[f"name:{key}"])           # the result has TF's name
        assert t.shape.as_list() == [None if s < 0 else s for s in NN[f"static:{t.name}"]]
        np.testing.assert_allclose(values[key], NN[f"fetch:{t.name}"], rtol=1e-5, atol=1e-5,
                                   err_msg=key)
        np.testing.assert_allclose(grad_values[key][0], NN[f"grad_x:{key}"], rtol=1e-4,
                                   atol=1e-4, err_msg=key)
        if key in FILTER_OF:
            np.testing.assert_allclose(grad_values[key][1], NN[f"grad_f:{key}"], rtol=1e-4,
                                       atol=1e-4, err_msg=key)


def test_channels_first_layers_give_tfs_values_variables_and_gradients(graph):
    out, loss, inputs = layers_model(ds, data())
    variables = ds.trainable_variables()
    grads = ds.gradients(loss, variables + inputs)
    shapes = {v.op.name: v.shape.as_list() for v in ds.global_variables()}
    assert shapes == {k[4:]: LAYERS[k].tolist() for k in LAYERS if k.startswith("var:")}
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        values, grad_values = sess.run([out, grads])
    for key, value in values.items():
        np.testing.assert_allclose(value, LAYERS[f"out:{key}"], rtol=1e-4, atol=1e-5,
                                   err_msg=key)
    names = [v.op.name for v in variables] + ["img", "seq", "vol"]
    for name, value in zip(names, grad_values):
        np.testing.assert_allclose(value, LAYERS[f"grad:{name}"], rtol=1e-4, atol=1e-4,
                                   err_msg=name)


def test_a_channels_first_layer_keeps_tfs_kernel_shape_and_channel_axis(graph):
    x = ds.placeholder(ds.float32, (None, 3, 8, 8))
    y = ds.layers.conv2d(x, 5, (2, 3), strides=(2, 1), data_format="channels_first")
    assert y.shape.as_list() == [None, 5, 4, 6]
    assert ds.global_variables()[0].shape.as_list() == [2, 3, 3, 5]
    layer = ds.layers.MaxPooling2D(2, 2, data_format="channels_first")
    assert layer(y).shape.as_list() == [None, 5, 2, 3]


def test_what_data_formats_still_refuse():
    with ds.Graph().as_default():
        x = ds.placeholder(ds.float32, (None, 3, 8, 8))
        with pytest.raises(ValueError, match="'channels_last' or 'channels_first'"):
            ds.layers.conv2d(x, 2, 3, data_format="NCHW")
        with pytest.raises(ValueError, match="channels \\(axis 1\\)"):
            ds.layers.conv2d(ds.placeholder(ds.float32, (None, None, 8, 8)), 2, 3,
                             data_format="channels_first")
