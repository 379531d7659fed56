"""tf.while_loop: a counter loop, a loop fed by a placeholder, and one growing a tensor."""

import numpy as np


def main(tf, out):
    i0 = tf.constant(0)
    s0 = tf.constant(0)
    i_end, total = tf.while_loop(lambda i, s: i < 10, lambda i, s: (i + 1, s + i * i), [i0, s0])
    out["counter_dtypes"] = [i_end.dtype.name, total.dtype.name]

    n = tf.placeholder(tf.int32, [])
    _, fib, _ = tf.while_loop(lambda k, a, b: k < n,
                              lambda k, a, b: [k + 1, b, a + b],
                              [tf.constant(0), tf.constant(0, tf.int64), tf.constant(1, tf.int64)])

    # a tensor that grows by one row per iteration needs a shape invariant
    j0 = tf.constant(1)
    rows0 = tf.ones([1, 2])

    def grow(j, rows):
        last = rows[-1:]
        return j + 1, tf.concat([rows, last * 2.0 + tf.cast(j, tf.float32)], axis=0)

    j_end, grown = tf.while_loop(lambda j, rows: j < 5, grow, [j0, rows0],
                                 shape_invariants=[j0.get_shape(), tf.TensorShape([None, 2])])
    out["grown_static_shape"] = grown.shape.as_list()

    # a float loop: Newton's iteration for sqrt(a)
    a = tf.constant(10.0)
    _, root = tf.while_loop(lambda t, r: t < 6, lambda t, r: (t + 1, 0.5 * (r + a / r)),
                            [tf.constant(0), tf.constant(1.0)])

    # a loop whose body reads a variable
    v = tf.Variable(np.array([1.0, 2.0], np.float32), name="v")
    _, acc = tf.while_loop(lambda t, acc: t < 3, lambda t, acc: (t + 1, acc + v),
                           [tf.constant(0), tf.zeros([2])])

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["counter"] = sess.run([i_end, total])
        out["fib"] = [int(sess.run(fib, {n: m})) for m in (0, 1, 2, 10, 50)]
        out["grown"] = sess.run(grown)
        out["grown_iterations"] = sess.run(j_end)
        out["newton_sqrt10"] = sess.run(root)
        out["acc"] = sess.run(acc)
