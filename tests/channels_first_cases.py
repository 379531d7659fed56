"""The channels-first graphs tests/test_channels_first.py checks, built with the TF1 module
they are given (``tf``: TensorFlow in tests/data/make_tf_channels_first.py, which records
TF's values, ``ds`` in the test), so both build exactly the same graphs."""

import numpy as np


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
