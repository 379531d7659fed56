"""tf.layers.separable_conv2d (a depth multiplier, same padding, a dilation, valid
padding with a stride) and tf.nn.depthwise_conv2d under a few Momentum steps: variable
names and shapes, outputs and losses."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    images = tf.constant(rng.standard_normal((2, 9, 9, 3)).astype(np.float32))
    labels = tf.constant(np.array([1, 0], np.int64))
    h = tf.layers.separable_conv2d(
        images, 4, 3, padding="same", depth_multiplier=2, activation=tf.nn.relu,
        depthwise_initializer=tf.constant_initializer(
            rng.standard_normal((3, 3, 3, 2)).astype(np.float32) * 0.3),
        pointwise_initializer=tf.constant_initializer(
            rng.standard_normal((1, 1, 6, 4)).astype(np.float32) * 0.3), name="sep")
    d = tf.layers.separable_conv2d(h, 5, 3, dilation_rate=2,
                                   depthwise_initializer=tf.constant_initializer(0.1),
                                   pointwise_initializer=tf.constant_initializer(0.2),
                                   name="sep_dilated")
    s = tf.layers.separable_conv2d(d, 2, 2, strides=2,
                                   depthwise_initializer=tf.constant_initializer(0.1),
                                   pointwise_initializer=tf.constant_initializer(0.2),
                                   use_bias=False)
    w = tf.constant(rng.standard_normal((2, 2, 2, 3)).astype(np.float32))
    dw = tf.nn.depthwise_conv2d(s, w, [1, 1, 1, 1], "SAME")
    logits = tf.reduce_mean(dw, axis=[1, 2])[:, :2]
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    out["variables"] = sorted([v.op.name, v.shape.as_list()] for v in tf.trainable_variables())
    out["shapes"] = [t.shape.as_list() for t in (h, d, s, dw)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["outputs"] = sess.run([h, d, s, dw])
        out["losses"] = np.array([sess.run([train, loss])[1] for _ in range(4)])
