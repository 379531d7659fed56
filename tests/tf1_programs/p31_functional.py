"""TF1's higher-order functions: map_fn (a tensor, a tuple of tensors with dtype, a
result whose shape the graph does not know), scan (with and without an initializer,
reversed), foldl and foldr, and gradients through map_fn and scan."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    rows = rng.standard_normal((4, 3)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    ids = tf.placeholder(tf.int32, [None], name="ids")

    doubled = tf.map_fn(lambda r: r * 2.0 + tf.reduce_sum(r), x)
    pairs = tf.map_fn(lambda e: (e[0] * tf.cast(e[1], tf.float32), tf.reduce_max(e[0])),
                      (x, ids), dtype=(tf.float32, tf.float32))
    cut = tf.placeholder(tf.int32, [], name="cut")
    heads = tf.map_fn(lambda r: r[:cut] * 3.0, x)               # of unknown length
    running = tf.scan(lambda a, r: a + r, x)
    decayed = tf.scan(lambda a, r: a * 0.5 + r, x, initializer=tf.zeros([3]), reverse=True)
    total = tf.foldl(lambda a, r: a + tf.reduce_sum(r), x, initializer=0.0)
    backwards = tf.foldr(lambda a, r: a * 0.5 - r, x)
    loss = tf.reduce_sum(tf.square(doubled)) + tf.reduce_sum(running * decayed) + \
        tf.reduce_sum(heads)
    grad = tf.gradients(loss, x)[0]

    out["static_shapes"] = [doubled.shape.as_list(), pairs[0].shape.as_list(),
                            heads.shape.as_list(), running.shape.as_list()]
    feed = {x: rows, ids: np.array([1, 0, 2, 3], np.int32), cut: 2}
    with tf.Session() as sess:
        names = ["doubled", "pairs", "heads", "running", "decayed", "total", "backwards",
                 "grad"]
        values = sess.run([doubled, list(pairs), heads, running, decayed, total, backwards,
                           grad], feed)
        for key, value in zip(names, values):
            out[key] = value
        out["one_row"] = sess.run(doubled, {x: rows[:1]})
