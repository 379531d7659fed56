"""Writes tf_explicit_padding.pb and tf_explicit_padding.npz (tests/tf_recorded.py's
format) for tests/test_explicit_padding.py: a GraphDef TensorFlow builds with explicit
padding (``padding`` a list of [before, after] pairs: nodes with padding "EXPLICIT" and
8 ``explicit_paddings``) -- Conv2D (uneven pairs, strides, a dilation, a padding wider
than the window, a 1x1 filter padded, a None batch), conv2d_transpose, NCHW Conv2D and
DepthwiseConv2dNative (TF's CPU runs no NCHW Conv2DBackpropInput), the
Conv2DBackpropInput/Filter ``tf.gradients`` writes for them (a ShapeN, and their own
gradients: second derivatives), DepthwiseConv2dNative and its two backprop ops -- with
the filters as Const nodes, and TF's values.  Run with TensorFlow installed (not a
test):

    /work/peers/bin/python tests/data/make_tf_explicit_padding.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
from graph_recording import record_fetches

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(62)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


PADS = [[0, 0], [1, 2], [2, 0], [0, 0]]          # top 1, bottom 2, left 2, right 0
WIDE = [[0, 0], [4, 0], [1, 3], [0, 0]]          # wider than the 3x3 window
PADS_NCHW = [[0, 0], [0, 0], [1, 2], [2, 0]]
feeds = {"x": normal(2, 6, 7, 3), "dy_t": normal(2, 4, 4, 4)}

graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, (None, 6, 7, 3), name="x")
    dy_t = tf.placeholder(tf.float32, (2, 4, 4, 4), name="dy_t")
    f = tf.constant(normal(3, 3, 3, 4), name="f")
    f1 = tf.constant(normal(1, 1, 3, 2), name="f1")
    fd = tf.constant(normal(3, 2, 3, 2), name="fd")        # depthwise, multiplier 2
    x_nchw = tf.transpose(x, [0, 3, 1, 2])
    outs = {
        "conv": tf.nn.conv2d(x, f, [1, 1, 1, 1], PADS, name="conv"),
        "conv_strided": tf.nn.conv2d(x, f, [1, 2, 3, 1], PADS, name="conv_strided"),
        "conv_dilated": tf.nn.conv2d(x, f, [1, 1, 1, 1], PADS, dilations=[1, 2, 1, 1],
                                     name="conv_dilated"),
        "conv_wide": tf.nn.conv2d(x, f, [1, 1, 1, 1], WIDE, name="conv_wide"),
        "conv_1x1": tf.nn.conv2d(x, f1, [1, 1, 1, 1], PADS, name="conv_1x1"),
        "transposed": tf.nn.conv2d_transpose(dy_t, f, [2, 6, 7, 3], [1, 2, 2, 1], PADS,
                                             name="transposed"),
        "depthwise": tf.nn.depthwise_conv2d(x, fd, [1, 1, 1, 1], PADS, name="depthwise"),
        "depthwise_strided": tf.nn.depthwise_conv2d_native(
            x, fd, [1, 2, 2, 1], WIDE, name="depthwise_strided"),
        # NCHW nodes (the pairs in NCHW order): devsession builds them around NHWC ops
        "conv_nchw": tf.nn.conv2d(x_nchw, f, [1, 1, 2, 1], PADS_NCHW, data_format="NCHW",
                                  name="conv_nchw"),
        "depthwise_nchw": tf.nn.depthwise_conv2d_native(
            x_nchw, fd, [1, 1, 1, 1], PADS_NCHW, data_format="NCHW", name="depthwise_nchw"),
    }
    loss = sum(tf.reduce_sum(tf.square(outs[k])) for k in
               ("conv", "conv_strided", "conv_wide", "depthwise_strided"))
    dx, df, dfd = tf.gradients(loss, [x, f, fd])
    outs.update(dx=dx, df=df, dfd=dfd)
    # second derivatives: the backprop ops' own gradients
    outs["ddx"] = tf.gradients(tf.reduce_sum(dx * dx), x)[0]
    outs["d_transposed"] = tf.gradients(tf.reduce_sum(outs["transposed"] ** 2), dy_t)[0]
    placeholders = {"x": x, "dy_t": dy_t}

graph_def = record_fetches(HERE, "tf_explicit_padding", graph, outs, placeholders, feeds, tf)
ops = {n.op for n in graph_def.node}
for op in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
           "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"):
    assert op in ops, op
explicit = {n.op for n in graph_def.node if n.attr["padding"].s == b"EXPLICIT"}
print(sorted(explicit))
