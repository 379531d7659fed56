"""Channels-first (NCHW, NCW, NCDHW) convolutions, poolings and tf.layers against
TensorFlow 2.21 (tests/data/tf_channels_first*.{pb,npz}, made by
tests/data/make_tf_channels_first.py from the builders of tests/channels_first_cases.py,
which this test runs with ``ds``).

devsession builds them from its NHWC ops between two transposes
(``ops/nn_channels_first.py``, ``layers_formats.py``): the values and gradients are
TF's; TF's own NCHW nodes in a GraphDef import the same way (``tf_graph.py``).
"""

import os

import numpy as np
import pytest

import devsession as ds
from tests.channels_first_cases import FILTER_OF, INPUT_OF, data, layers_model, nn_ops
from tests.tf_recorded import DATA, run_recorded

NN = np.load(os.path.join(DATA, "tf_channels_first.npz"))
LAYERS = np.load(os.path.join(DATA, "tf_channels_first_layers.npz"))


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


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
