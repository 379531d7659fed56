"""tf.cond (untaken branch side effects, outside-op gotcha, nesting), tf.case, gradients through cond."""

import numpy as np


def main(tf, out):
    x = tf.placeholder(tf.float32, [], name="x")
    inside = tf.Variable(0, name="inside_counter")
    outside = tf.Variable(0, name="outside_counter")

    def bump_then_double():
        with tf.control_dependencies([tf.assign_add(inside, 1)]):
            return x * 2.0

    y = tf.cond(x > 0, bump_then_double, lambda: x - 1.0)

    # An op built OUTSIDE the branch functions runs whichever branch is taken.
    bump_outside = tf.assign_add(outside, 1)
    y2 = tf.cond(x > 0, lambda: tf.cast(bump_outside, tf.float32), lambda: tf.constant(-1.0))

    # branches returning several values, and a nested cond
    pair = tf.cond(x < 10.0, lambda: (x + 1.0, tf.constant(1)), lambda: (x - 1.0, tf.constant(2)))
    nested = tf.cond(x > 0,
                     lambda: tf.cond(x > 5.0, lambda: tf.constant(2), lambda: tf.constant(1)),
                     lambda: tf.constant(0))
    out["cond_output_dtype_shape"] = [y.dtype.name, y.shape.as_list()]

    k = tf.placeholder(tf.int32, [])
    cased = tf.case([(tf.equal(k, 0), lambda: tf.constant(10.0)),
                     (tf.equal(k, 1), lambda: tf.constant(20.0))],
                    default=lambda: tf.constant(-1.0))
    # non-exclusive: the first true predicate wins
    first_true = tf.case([(k > 0, lambda: tf.constant(1)), (k > 1, lambda: tf.constant(2))],
                         default=lambda: tf.constant(0), exclusive=False)

    # gradients flow through the branch that was taken
    g = tf.cond(x > 0, lambda: tf.square(x) * 3.0, lambda: tf.tanh(x) + 4.0 * x)
    dg = tf.gradients(g, x)[0]
    w = tf.Variable(2.0, name="w")
    loss = tf.cond(x > 0, lambda: w * x, lambda: w * w)
    dw = tf.gradients(loss, w)[0]

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["y_neg"] = sess.run(y, {x: -3.0})
        out["inside_after_untaken"] = sess.run(inside)
        out["y_pos"] = sess.run(y, {x: 3.0})
        out["inside_after_taken"] = sess.run(inside)
        out["y2_neg"] = sess.run(y2, {x: -3.0})
        out["outside_after_untaken"] = sess.run(outside)
        out["pair"] = [sess.run(pair, {x: 2.0}), sess.run(pair, {x: 20.0})]
        out["pair_is_tuple"] = isinstance(sess.run(pair, {x: 2.0}), tuple)
        out["nested"] = [int(sess.run(nested, {x: v})) for v in (-1.0, 1.0, 7.0)]
        out["case"] = [float(sess.run(cased, {k: v})) for v in (0, 1, 5)]
        out["case_first_true"] = [int(sess.run(first_true, {k: v})) for v in (0, 1, 3)]
        out["grad_pos"] = sess.run(dg, {x: 2.0})
        out["grad_neg"] = sess.run(dg, {x: -0.5})
        out["dloss_dw"] = [float(sess.run(dw, {x: 3.0})), float(sess.run(dw, {x: -3.0}))]
