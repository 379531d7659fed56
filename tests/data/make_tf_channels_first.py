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

import numpy as np

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


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
