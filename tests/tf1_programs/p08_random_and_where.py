"""Seeded random ops with tensor shapes/means/stddevs (shapes and loose stats only), where(cond)."""

import numpy as np


def main(tf, out):
    tf.set_random_seed(1234)
    out["_tol"] = {"normal_mean": {"atol": 0.2}, "normal_std": {"atol": 0.2},
                   "uniform_mean": {"atol": 0.3}, "tn_mean": {"atol": 0.1}}
    z = tf.placeholder(tf.float32, shape=[None, 50], name="z")
    m = tf.constant(3.0)
    v = tf.constant(4.0)
    noise = tf.random_normal(shape=tf.shape(z), mean=m, stddev=tf.sqrt(v))
    lo = tf.placeholder(tf.float32, [])
    hi = lo + 6.0
    uni = tf.random_uniform(tf.shape(z), minval=lo, maxval=hi)
    ints = tf.random_uniform([200], minval=0, maxval=10, dtype=tf.int32)
    seeded = tf.random_normal([4], seed=7)
    tn = tf.truncated_normal([2000], mean=1.0, stddev=0.5)
    fixed = tf.random_normal([3, 4])
    shuffled = tf.random_shuffle(tf.range(10))

    out["static_shapes"] = [noise.shape.as_list(), uni.shape.as_list(), fixed.shape.as_list(),
                            tn.shape.as_list(), shuffled.shape.as_list()]
    out["dtypes"] = [noise.dtype.name, uni.dtype.name, ints.dtype.name, shuffled.dtype.name]

    feed = {z: np.zeros((40, 50), np.float32), lo: -1.0}
    with tf.Session() as sess:
        n, u = sess.run([noise, uni], feed_dict=feed)
        out["normal_shape"] = list(n.shape)
        out["normal_mean"] = float(n.mean())
        out["normal_std"] = float(n.std())
        out["uniform_shape"] = list(u.shape)
        out["uniform_in_range"] = bool(u.min() >= -1.0 and u.max() < 5.0)
        out["uniform_mean"] = float(u.mean())
        iv = sess.run(ints)
        out["int_uniform_in_range"] = bool(iv.min() >= 0 and iv.max() < 10)
        t = sess.run(tn)
        out["tn_within_two_std"] = bool(np.all(np.abs(t - 1.0) <= 2 * 0.5))
        out["tn_mean"] = float(t.mean())
        out["fixed_shape"] = list(sess.run(fixed).shape)
        out["shuffle_sorted"] = np.sort(sess.run(shuffled))
        first = sess.run(seeded)
        second = sess.run(seeded)
        out["seeded_runs_differ"] = bool(not np.array_equal(first, second))
    with tf.Session() as again:
        out["seeded_sequence_repeats_in_new_session"] = bool(
            np.array_equal(again.run(seeded), first) and np.array_equal(again.run(seeded), second))

    x = tf.constant(np.array([[0.5, -1.0, 2.0], [0.0, 3.0, -0.1]], dtype=np.float32))
    idx = tf.where(x > 0)
    idx1 = tf.where(tf.constant([False, True, True, False, True]))
    out["where_dtype"] = idx.dtype.name
    out["where_static_shape"] = idx.shape.as_list()
    with tf.Session() as sess:
        out["where_indices"] = sess.run(idx)
        out["where_1d"] = sess.run(idx1)
