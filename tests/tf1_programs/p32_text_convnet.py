"""A text convnet as TF1 scripts write one: an embedding lookup, tf.layers.conv1d (same
and valid padding), max- and average-pooling over time, tf.nn.conv1d with a stride and a
dilation, a dilated tf.layers.conv2d, and a few Adam steps; variable names, static shapes, values and losses."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    words = tf.placeholder(tf.int32, [None, 12], name="words")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    table = tf.Variable(rng.standard_normal((20, 6)).astype(np.float32) * 0.5, name="table")
    x = tf.nn.embedding_lookup(table, words)
    init = tf.constant_initializer(rng.standard_normal((3, 6, 8)).astype(np.float32) * 0.3)
    h = tf.layers.conv1d(x, 8, 3, padding="same", activation=tf.nn.relu,
                         kernel_initializer=init, name="conv_a")
    h = tf.layers.max_pooling1d(h, 2, 2)
    g = tf.layers.conv1d(h, 4, 2, kernel_initializer=tf.constant_initializer(0.1),
                         name="conv_b")
    g = tf.layers.average_pooling1d(g, 2, 1, padding="same")
    strided = tf.nn.conv1d(x, tf.constant(rng.standard_normal((2, 6, 3)).astype(np.float32)),
                           stride=2, padding="VALID")
    dilated = tf.nn.conv1d(x, tf.constant(rng.standard_normal((3, 6, 2)).astype(np.float32)),
                           stride=1, padding="SAME", dilations=2)
    image = tf.reshape(x, [-1, 12, 6, 1])
    atrous = tf.layers.conv2d(image, 2, 3, padding="same", dilation_rate=2,
                              kernel_initializer=tf.constant_initializer(0.2), name="atrous")
    features = tf.concat([tf.reduce_max(g, axis=1), tf.reduce_mean(strided, axis=1),
                          tf.reduce_mean(dilated, axis=1),
                          tf.reduce_mean(atrous, axis=[1, 2])], axis=1)
    logits = tf.layers.dense(features, 2, kernel_initializer=tf.constant_initializer(0.05),
                             name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)

    out["variables"] = sorted(v.op.name for v in tf.trainable_variables())
    out["shapes"] = [t.shape.as_list() for t in (h, g, strided, dilated, atrous, features)]
    feed = {words: rng.randint(0, 20, (4, 12)).astype(np.int32),
            labels: np.array([0, 1, 1, 0], np.int64)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["first"] = sess.run([h, g, strided, dilated, atrous], feed)
        out["losses"] = np.array([sess.run([train, loss], feed)[1] for _ in range(5)])
