"""Softmax regression: softmax_cross_entropy_with_logits (v1), _v2 and the sparse variant."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    centers = np.array([[2.0, 0.0, 0.0, 1.0], [-1.0, 2.0, 0.0, 0.0], [0.0, -2.0, 1.5, -1.0]])
    labels_int = np.repeat(np.arange(3), 20).astype(np.int32)
    feats = (centers[labels_int] + 0.8 * rng.standard_normal((60, 4))).astype(np.float32)
    onehot = np.eye(3, dtype=np.float32)[labels_int]

    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.float32, [None, 3])
    y_int = tf.placeholder(tf.int32, [None])
    W = tf.Variable(tf.zeros([4, 3]), name="W")
    b = tf.Variable(tf.zeros([3]), name="b")
    logits = tf.matmul(x, W) + b
    xent_v1 = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits)
    xent_v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits)
    xent_sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_int, logits=logits)
    loss = tf.reduce_mean(xent_v1)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    probs = tf.nn.softmax(logits)

    # v1 stops gradients into labels; v2 lets them through
    out["grad_wrt_labels_v1"] = str(tf.gradients(tf.reduce_sum(xent_v1), y)[0])
    d_labels_v2 = tf.gradients(tf.reduce_sum(xent_v2), y)[0]
    out["xent_static_shapes"] = [xent_v1.shape.as_list(), xent_sparse.shape.as_list()]

    feed = {x: feats, y: onehot, y_int: labels_int}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        curve = []
        for step in range(60):
            _, l = sess.run([train, loss], feed)
            if step % 10 == 0:
                curve.append(float(l))
        out["loss_every_10_steps"] = curve
        out["accuracy"] = float(sess.run(accuracy, feed))
        v1, v2, sp = sess.run([xent_v1, xent_v2, xent_sparse], feed)
        out["xent_first5"] = v1[:5]
        out["v1_equals_v2"] = bool(np.allclose(v1, v2, rtol=1e-6, atol=1e-7))
        out["v1_equals_sparse"] = bool(np.allclose(v1, sp, rtol=1e-5, atol=1e-6))
        out["W"] = sess.run(W)
        out["b"] = sess.run(b)
        out["probs_row0"] = sess.run(probs, feed)[0]
        out["d_labels_v2_row0"] = sess.run(d_labels_v2, feed)[0]
        # numerically stable with huge logits
        big = tf.constant([[1000.0, 0.0, -1000.0]])
        out["stable_xent"] = sess.run(tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=tf.constant([[0.0, 1.0, 0.0]]), logits=big))
        out["stable_softmax"] = sess.run(tf.nn.softmax(big))
