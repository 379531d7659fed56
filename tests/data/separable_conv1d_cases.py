"""The ``tf.layers.separable_conv1d`` / ``SeparableConv1D`` programs
tests/data/make_tf_separable_conv1d.py records from TensorFlow (legacy Keras layers) and
tests/test_separable_conv1d.py runs in devsession, written once against the TF1 module
each side passes (``tf``: ``tensorflow.compat.v1`` or ``devsession``).  Variables get
values made from their names and shapes (``fill``), so both sides agree; each case
fetches the output, the variables' names and the gradient of ``sum(output**2)`` with
respect to the input."""

import numpy as np

X = np.cos(np.arange(2 * 9 * 3) * 0.9).reshape(2, 9, 3).astype(np.float32)


def fill(name: str, shape) -> np.ndarray:
    n = int(np.prod(shape))
    return (0.5 * np.sin(np.arange(n) * 0.71 + len(name))).reshape(shape).astype(np.float32)


CASES = {
    "same_strided": lambda tf, x: tf.layers.separable_conv1d(
        x, 4, 3, strides=2, padding="same", depth_multiplier=2),
    "valid_dilated": lambda tf, x: tf.layers.separable_conv1d(
        x, 2, 2, dilation_rate=3, activation=tf.nn.relu, name="sep"),
    "channels_first": lambda tf, x: tf.layers.separable_conv1d(
        tf.transpose(x, [0, 2, 1]), 3, 3, data_format="channels_first", use_bias=False),
    "causal": lambda tf, x: tf.layers.separable_conv1d(x, 2, 3, padding="causal",
                                                        dilation_rate=2),
    "class": lambda tf, x: tf.layers.SeparableConv1D(5, 1, depth_multiplier=3)(x),
    "size_one": lambda tf, x: tf.layers.separable_conv1d(x[:, :1], 2, 1),
}


def run(tf, name: str) -> dict:
    with tf.Graph().as_default():
        x = tf.constant(X)
        y = CASES[name](tf, x)
        dx, = tf.gradients(tf.reduce_sum(y * y), [x])
        names = [v.op.name for v in tf.global_variables()]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in tf.global_variables():
                sess.run(tf.assign(v, fill(v.op.name, v.shape.as_list())))
            out, grad = sess.run([y, dx])
    return {"output": out, "grad": grad, "names": names}
