"""A tiny convnet: conv2d SAME/VALID with strides, max_pool, avg_pool, no-op dropout, a few steps."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    images = rng.uniform(0, 1, (6, 9, 9, 1)).astype(np.float32)
    labels = np.array([0, 1, 2, 0, 1, 2], np.int32)
    k1 = (0.3 * rng.standard_normal((3, 3, 1, 4))).astype(np.float32)
    k2 = (0.3 * rng.standard_normal((3, 3, 4, 6))).astype(np.float32)
    wd = (0.3 * rng.standard_normal((24, 3))).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, 9, 9, 1], name="images")
    y = tf.placeholder(tf.int32, [None])
    K1 = tf.Variable(k1, name="k1")
    K2 = tf.Variable(k2, name="k2")
    WD = tf.Variable(wd, name="wd")
    bd = tf.Variable(tf.zeros([3]), name="bd")

    c1 = tf.nn.relu(tf.nn.conv2d(x, K1, strides=[1, 1, 1, 1], padding="SAME"))      # 9x9x4
    p1 = tf.nn.max_pool(c1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")  # 5x5x4
    c2 = tf.nn.relu(tf.nn.conv2d(p1, K2, strides=[1, 2, 2, 1], padding="VALID"))  # 2x2x6
    c2_same = tf.nn.conv2d(p1, K2, strides=[1, 2, 2, 1], padding="SAME")          # 3x3x6
    p_avg = tf.nn.avg_pool(c1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="VALID")
    p_max_valid = tf.nn.max_pool(c1, ksize=[1, 3, 3, 1], strides=[1, 3, 3, 1], padding="VALID")
    p_avg_same = tf.nn.avg_pool(c1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    flat = tf.reshape(c2, [-1, 24])
    dropped = tf.nn.dropout(flat, rate=0.0)
    dropped_kp = tf.nn.dropout(dropped, keep_prob=1.0)
    logits = tf.matmul(dropped_kp, WD) + bd
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss)

    out["static_shapes"] = {"c1": c1.shape.as_list(), "p1": p1.shape.as_list(),
                            "c2": c2.shape.as_list(), "c2_same": c2_same.shape.as_list(),
                            "p_avg": p_avg.shape.as_list(),
                            "p_max_valid": p_max_valid.shape.as_list(),
                            "p_avg_same": p_avg_same.shape.as_list(),
                            "flat": flat.shape.as_list(), "logits": logits.shape.as_list()}
    feed = {x: images, y: labels}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run({"c1": c1, "p1": p1, "c2": c2, "c2_same": c2_same, "p_avg": p_avg,
                         "p_max_valid": p_max_valid, "p_avg_same": p_avg_same,
                         "flat": flat, "dropped_kp": dropped_kp}, feed)
        out["dropout_is_identity"] = bool(np.array_equal(vals["flat"], vals["dropped_kp"]))
        for k in ("c1", "p1", "c2_same", "p_avg", "p_max_valid", "p_avg_same"):
            out[k + "_sum"] = float(vals[k].sum())
            out[k + "_image0_channel0"] = vals[k][0, :, :, 0]
        out["c2"] = vals["c2"][:2]
        curve = []
        for _ in range(8):
            _, lv = sess.run([train, loss], feed)
            curve.append(float(lv))
        out["loss_curve"] = curve
        out["k1_after"] = sess.run(K1)[:, :, 0, 0]
