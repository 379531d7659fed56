"""Custom layers the TF1 way: a tf.layers.Layer subclass with build (add_weight with an
initializer, a regularizer and trainable=False for a counter) and call, used twice so its
variables are shared, next to built-in layer objects (tf.layers.Dense, Dropout in
inference, BatchNormalization with training=False); layer.variables / trainable_weights /
non_trainable_weights / losses, the layer's scope name, and training the stack."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(6, 3)).astype(np.float32)
    y_data = rng.normal(size=(6, 2)).astype(np.float32)

    class Scaled(tf.layers.Layer):
        def __init__(self, units, **kwargs):
            super(Scaled, self).__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            depth = int(input_shape[-1])
            self.kernel = self.add_weight(
                "kernel", shape=[depth, self.units],
                initializer=tf.constant_initializer(rng.normal(0, 0.5, (depth, self.units))),
                regularizer=lambda w: 0.01 * tf.reduce_sum(tf.square(w)))
            self.scale = self.add_weight("scale", shape=[], initializer=tf.ones_initializer())
            self.calls = self.add_weight("calls", shape=[], trainable=False,
                                         initializer=tf.zeros_initializer())
            super(Scaled, self).build(input_shape)

        def call(self, inputs):
            return self.scale * tf.matmul(inputs, self.kernel)

    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    scaled = Scaled(4, name="scaled")
    dense = tf.layers.Dense(2, kernel_initializer=tf.constant_initializer(
        rng.normal(0, 0.5, (4, 2))), name="head")
    norm = tf.layers.BatchNormalization(name="norm")
    dropout = tf.layers.Dropout(0.5)
    hidden = tf.nn.relu(scaled(x))
    shared = scaled(x * 2.0)
    prediction = dense(dropout(norm(hidden, training=False), training=False))
    loss = tf.losses.mean_squared_error(y, prediction) + tf.add_n(scaled.losses)
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss)

    out["scaled_variables"] = [v.op.name for v in scaled.variables]
    out["scaled_trainable"] = [v.op.name for v in scaled.trainable_weights]
    out["scaled_non_trainable"] = [v.op.name for v in scaled.non_trainable_weights]
    out["dense_weights"] = [v.op.name for v in dense.weights]
    out["norm_non_trainable"] = [v.op.name for v in norm.non_trainable_variables]
    out["losses"] = len(scaled.losses)
    out["built"] = [scaled.built, dense.built]
    out["output_shapes"] = [hidden.shape.as_list(), prediction.shape.as_list()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["shared_equals_twice"] = bool(np.allclose(
            sess.run(shared, {x: x_data}), 2 * sess.run(scaled(x), {x: x_data})))
        out["training"] = np.array([sess.run([train_op, loss], {x: x_data, y: y_data})[1]
                                    for _ in range(5)])
        out["kernel"] = sess.run(scaled.kernel)
