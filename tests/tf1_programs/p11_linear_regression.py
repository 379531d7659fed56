"""Linear regression y = 3x + 2 with GradientDescentOptimizer: loss every 10 steps, final W and b."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    xs = rng.uniform(-1.0, 1.0, size=(64, 1)).astype(np.float32)
    ys = (3.0 * xs + 2.0 + 0.1 * rng.standard_normal((64, 1))).astype(np.float32)

    X = tf.placeholder(tf.float32, [None, 1], name="X")
    Y = tf.placeholder(tf.float32, [None, 1], name="Y")
    W = tf.Variable(tf.zeros([1, 1]), name="W")
    b = tf.Variable(tf.zeros([1]), name="b")
    pred = tf.matmul(X, W) + b
    loss = tf.reduce_mean(tf.square(pred - Y))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

    curve = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(100):
            if step % 10 == 0:
                curve.append(float(sess.run(loss, {X: xs, Y: ys})))
            result = sess.run(train_op, {X: xs, Y: ys})
        out["train_op_fetch"] = result
        out["loss_every_10_steps"] = curve
        out["final_loss"] = float(sess.run(loss, {X: xs, Y: ys}))
        out["W"] = sess.run(W)
        out["b"] = sess.run(b)
        out["prediction_at_0_5"] = sess.run(pred, {X: [[0.5]]})
