"""A two-layer MLP (relu, bias_add) with an l2_loss weight penalty on a two-moons-like problem."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    angles = rng.uniform(0, np.pi, 80)
    upper = np.stack([np.cos(angles[:40]), np.sin(angles[:40])], 1)
    lower = np.stack([1.0 - np.cos(angles[40:]), 0.5 - np.sin(angles[40:])], 1)
    feats = (np.concatenate([upper, lower]) + 0.1 * rng.standard_normal((80, 2))).astype(
        np.float32)
    labels = np.concatenate([np.zeros(40), np.ones(40)]).astype(np.int32)

    w1_init = (0.5 * rng.standard_normal((2, 16))).astype(np.float32)
    w2_init = (0.5 * rng.standard_normal((16, 2))).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.int32, [None])
    with tf.name_scope("hidden"):
        w1 = tf.Variable(w1_init, name="weights")
        b1 = tf.Variable(tf.zeros([16]), name="biases")
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
    with tf.name_scope("output"):
        w2 = tf.Variable(w2_init, name="weights")
        b2 = tf.Variable(tf.constant(0.1, shape=[2]), name="biases")
        logits = tf.nn.bias_add(tf.matmul(h, w2), b2)
    xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    l2 = tf.nn.l2_loss(w1) + tf.nn.l2_loss(w2)
    loss = xent + 1e-3 * l2
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    pred = tf.argmax(logits, axis=1, output_type=tf.int32)
    acc = tf.reduce_mean(tf.cast(tf.equal(pred, y), tf.float32))

    out["variable_names"] = [v.name for v in tf.trainable_variables()]
    out["logits_op_type"] = logits.op.type
    feed = {x: feats, y: labels}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["initial_l2"] = float(sess.run(l2))
        out["l2_of_known_tensor"] = sess.run(tf.nn.l2_loss(tf.constant([3.0, 4.0])))
        curve = []
        for step in range(150):
            _, lv = sess.run([train, loss], feed)
            if step % 25 == 0:
                curve.append(float(lv))
        out["loss_every_25_steps"] = curve
        out["final_loss"] = float(sess.run(loss, feed))
        out["final_accuracy"] = float(sess.run(acc, feed))
        out["final_l2"] = float(sess.run(l2))
        out["b2"] = sess.run(b2)
