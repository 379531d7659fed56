"""The ``tf.conv`` cases tests/data/make_tf_conv.py records from TensorFlow 2.21 and
tests/test_raw_ops.py runs in devsession, written once against the TF1 module each is
given (``tf``: ``tensorflow.compat.v1`` or ``devsession``): 2-D and 3-D, extra batch
dimensions, strides, dilations, EXPLICIT padding, int32; and the inputs TF refuses when
the graph is built."""

import numpy as np

X = np.arange(2 * 5 * 5 * 4, dtype=np.float32).reshape(2, 5, 5, 4) / 50 - 1
W = np.arange(3 * 3 * 4 * 6, dtype=np.float32).reshape(3, 3, 4, 6) / 100 - 0.5
X3, W3 = X.reshape(2, 5, 5, 1, 4), W.reshape(3, 3, 1, 4, 6)


def cases(tf) -> dict:
    """{name: a function building the convolution}."""
    return {
        "same": lambda: tf.conv(X, W, [1, 1, 1, 1], "SAME"),
        "valid_strided": lambda: tf.conv(X, W, [1, 2, 1, 1], "VALID"),
        "batch_dims": lambda: tf.conv(X.reshape(1, 2, 5, 5, 4), W, [1, 1, 1, 1], "VALID",
                                      batch_dims=2),
        "explicit": lambda: tf.conv(X, W, [1, 2, 2, 1], "EXPLICIT",
                                    explicit_paddings=[0, 0, 1, 2, 2, 1, 0, 0]),
        "dilated": lambda: tf.conv(X, W, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1]),
        "3d": lambda: tf.conv(X3, W3, [1, 1, 1, 1, 1], "SAME"),
        "3d_batch_dims": lambda: tf.conv(X3.reshape(1, 2, 5, 5, 1, 4), W3, [1, 1, 2, 1, 1],
                                         "SAME", batch_dims=2),
        "int32": lambda: tf.conv(np.arange(9, dtype=np.int32).reshape(1, 3, 3, 1),
                                 np.array([1, -2, 3, 4], np.int32).reshape(2, 2, 1, 1),
                                 [1, 1, 1, 1], "VALID"),
    }


def build_errors(tf) -> dict:
    """{name: a function building something TF refuses with ValueError}."""
    return {
        "rank_3": lambda: tf.conv(X[:, 0], W[0], [1, 1, 1], "SAME"),
        "explicit_3d": lambda: tf.conv(X3, W3, [1, 1, 1, 1, 1], "EXPLICIT",
                                       explicit_paddings=[0, 0, 1, 1, 0, 2, 1, 1, 0, 0]),
    }
