"""tf.gradients: grad_ys, stop_gradients, tf.stop_gradient, several ys, unreachable xs (None)."""

import numpy as np


def main(tf, out):
    x = tf.placeholder(tf.float32, [], name="x")
    unused = tf.placeholder(tf.float32, [], name="unused")
    y = x ** 3 + 2.0 * x
    grads = tf.gradients(y, [x, unused])
    out["gradients_list_length"] = len(grads)
    out["dy_dx_and_unused"] = ["None" if g is None else "tensor" for g in grads]
    dy, none_grad = grads

    v = tf.constant(np.array([1.0, 2.0, 3.0], np.float32))
    vec = tf.placeholder(tf.float32, [3])
    prod = vec * v
    weighted = tf.gradients(prod, vec, grad_ys=tf.constant([1.0, 10.0, 100.0]))[0]

    a = x * 2.0
    b_ = a + x
    blocked = tf.gradients(b_, x, stop_gradients=[a])[0]
    unblocked = tf.gradients(b_, x)[0]
    sg = tf.gradients(tf.stop_gradient(x * x) + x * x, x)[0]
    both = tf.gradients([x * x, 3.0 * x], x)[0]
    second = tf.gradients(tf.gradients(x ** 4, x)[0], x)[0]

    m = tf.constant(np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]], np.float32))
    w = tf.placeholder(tf.float32, [2, 2])
    mm = tf.reduce_sum(tf.matmul(m, w) ** 2)
    dmm = tf.gradients(mm, w)[0]
    s = tf.placeholder(tf.float32, [4])
    smooth = tf.reduce_sum(tf.nn.softmax(s) * tf.constant([1.0, 2.0, 3.0, 4.0]))
    dsmooth = tf.gradients(smooth, s)[0]
    act = tf.reduce_sum(tf.sigmoid(s) + tf.tanh(s) + tf.nn.relu(s) + tf.maximum(s, 0.5)
                        + tf.reduce_mean(s * s))
    dact = tf.gradients(act, s)[0]
    int_path = tf.gradients(tf.cast(tf.cast(x, tf.int32), tf.float32) * x, x)[0]

    with tf.Session() as sess:
        feed = {x: 2.0, unused: 1.0}
        out["dy_dx"] = sess.run(dy, feed)
        out["unused_grad"] = "None" if none_grad is None else "not None"
        out["grad_ys"] = sess.run(weighted, {vec: [0.0, 0.0, 0.0]})
        out["stop_gradients_arg"] = sess.run(blocked, feed)
        out["without_stop"] = sess.run(unblocked, feed)
        out["stop_gradient_op"] = sess.run(sg, feed)
        out["sum_over_ys"] = sess.run(both, feed)
        out["second_derivative"] = sess.run(second, feed)
        out["matmul_grad"] = sess.run(dmm, {w: [[1.0, 0.0], [0.5, -1.0]]})
        sv = np.array([0.3, -1.0, 2.0, 0.5], np.float32)
        out["softmax_grad"] = sess.run(dsmooth, {s: sv})
        out["activations_grad"] = sess.run(dact, {s: sv})
        out["through_int_cast"] = sess.run(int_path, {x: 2.5})
