"""Records TensorFlow 2.21's channels-first (NCHW, NCW, NCDHW) convolutions, poolings and
layers for tests/test_channels_first.py.  Run once, with TensorFlow (not a test):

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/make_tf_channels_first.py

* tf_channels_first.pb / .npz (tests/tf_recorded.py's format): a frozen GraphDef of TF's
  NCHW nodes -- Conv2D (strided, dilated), BiasAdd, MaxPool, AvgPool,
  DepthwiseConv2dNative, separable_conv2d, conv2d_transpose (Conv2DBackpropInput),
  FusedBatchNormV3 (inference) and conv1d's NCW -- with TF's values; besides,
  ``grad_x:<key>`` and ``grad_f:<key>``, TF's gradients of ``sum(out * out)`` with
  respect to the input and the filter, for the test's own ``ds.nn`` builds.
* tf_channels_first_layers.npz: tf.layers built with ``data_format="channels_first"``
  (and ``batch_normalization(axis=1)``), their variables made by ``init`` (a fixed
  pattern, so ``ds`` makes the same): ``out:<key>`` each output, ``var:<name>`` each
  variable's shape, ``grad:<name>`` the gradient of the loss for each variable and input.

TF 2.21's CPU runs these NCHW graphs (its layout optimizer makes them NHWC), so the values
are TF's own; devsession builds the same from NHWC ops between transposes.
"""

import os
import sys

import numpy as np

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))   # tests/: the builders shared with the test
from channels_first_cases import (FILTER_OF, INPUT_OF, data, layers_model,  # noqa: E402
                                  nn_ops)


def main():
    d = data()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, (None, 3, 6, 7), name="x")
        consts, outs = nn_ops(tf, x, d)
        grads = {key: tf.gradients(tf.reduce_sum(t * t), [consts.get(INPUT_OF.get(key), x)] + (
            [consts[FILTER_OF[key]]] if key in FILTER_OF else [])) for key, t in outs.items()}
        with tf.Session() as sess:
            values = sess.run(outs, {x: d["x"]})
            grad_values = sess.run(grads, {x: d["x"]})
        frozen = tf.graph_util.extract_sub_graph(      # the forward nodes alone
            graph.as_graph_def(), [t.op.name for t in outs.values()])
    record = {"feed:x": d["x"]}
    for key, t in outs.items():
        record[f"fetch:{t.name}"] = values[key]
        record[f"static:{t.name}"] = np.array([-1 if s is None else s
                                               for s in t.shape.as_list()])
        record[f"grad_x:{key}"] = grad_values[key][0]
        if len(grad_values[key]) > 1:
            record[f"grad_f:{key}"] = grad_values[key][1]
        record[f"name:{key}"] = np.array(t.name)
    with open(os.path.join(HERE, "tf_channels_first.pb"), "wb") as f:
        f.write(frozen.SerializeToString())
    np.savez(os.path.join(HERE, "tf_channels_first.npz"), **record)
    print(sorted(n.op for n in frozen.node if "data_format" in n.attr))

    with tf.Graph().as_default(), tf.Session() as sess:
        out, loss, inputs = layers_model(tf, d)
        variables = tf.trainable_variables()
        grads = tf.gradients(loss, variables + inputs)
        sess.run(tf.global_variables_initializer())
        values, grad_values = sess.run([out, grads])
        layers = {f"out:{key}": value for key, value in values.items()}
        names = [v.op.name for v in variables] + ["img", "seq", "vol"]
        for name, g in zip(names, grad_values):
            layers[f"grad:{name}"] = g
        for var in tf.global_variables():
            layers[f"var:{var.op.name}"] = np.array(var.shape.as_list())
    np.savez(os.path.join(HERE, "tf_channels_first_layers.npz"), **layers)
    print(sorted(layers))


if __name__ == "__main__":
    main()
