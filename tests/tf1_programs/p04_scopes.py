"""get_variable with variable_scope (reuse=True, AUTO_REUSE), initializers, name_scope names."""

import numpy as np


def main(tf, out):
    x = tf.constant(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], dtype=np.float32))

    def dense(inp, n_out):
        n_in = inp.shape.as_list()[1]
        w = tf.get_variable("w", shape=[n_in, n_out], initializer=tf.constant_initializer(0.1))
        b = tf.get_variable("b", shape=[n_out], initializer=tf.zeros_initializer())
        return tf.matmul(inp, w) + b

    with tf.variable_scope("layer1"):
        h1 = dense(x, 2)
    with tf.variable_scope("layer1", reuse=True):
        h1_again = dense(x, 2)
        w_again = tf.get_variable("w")
    with tf.variable_scope("layer1") as scope:
        scope.reuse_variables()
        h1_third = dense(x, 2)
    out["reuse_same_variable"] = w_again.name
    out["layer1_op_names"] = [h1.op.name, h1_again.op.name, h1_third.op.name]

    def shared_block(inp):
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            g = tf.get_variable("gain", shape=[3], initializer=tf.ones_initializer())
            return inp * g

    s1 = shared_block(x)
    s2 = shared_block(x * 2.0)
    out["shared_op_names"] = [s1.op.name, s2.op.name]

    try:
        with tf.variable_scope("layer1"):
            tf.get_variable("w", shape=[3, 2])
        out["duplicate_get_variable"] = "no error"
    except ValueError as e:
        out["duplicate_get_variable"] = type(e).__name__

    with tf.variable_scope("outer"):
        with tf.variable_scope("inner"):
            out["nested_scope_name"] = tf.get_variable_scope().name
            m = tf.get_variable("m", shape=[2, 2],
                                initializer=tf.constant_initializer([1.0, 2.0, 3.0, 4.0]))
            k = tf.get_variable("k", shape=[2], dtype=tf.int32,
                                initializer=tf.zeros_initializer())
    out["variable_names"] = [v.name for v in tf.global_variables()]

    # name_scope names ops but not get_variable's variables; tf.Variable follows it
    with tf.name_scope("block"):
        p = tf.add(x, 1.0, name="plus")
        q = tf.multiply(p, 2.0)
        v_in_ns = tf.Variable(1.0, name="v")
        gv_in_ns = tf.get_variable("gv", shape=[], initializer=tf.constant_initializer(3.0))
        with tf.name_scope("sub"):
            r = tf.identity(q, name="r")
    with tf.name_scope("block"):
        p2 = tf.add(x, 1.0, name="plus")
    with tf.name_scope("block/"):                     # trailing slash re-enters exactly
        p3 = tf.add(x, 1.0, name="plus3")
    c1 = tf.constant(1.0)
    c2 = tf.constant(2.0)
    c3 = tf.constant(3.0, name="Const")
    out["name_scope_names"] = [p.name, q.name, v_in_ns.name, gv_in_ns.name, r.name, p2.name,
                               p3.name, c1.name, c2.name, c3.name]
    with tf.variable_scope("vs"):
        opv = tf.add(x, 1.0)
        out["variable_scope_op_name"] = opv.op.name

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["h1"] = sess.run(h1)
        out["h1_equal_reused"] = bool(np.array_equal(*sess.run([h1, h1_again])))
        out["shared"] = sess.run([s1, s2])
        out["m_k"] = sess.run([m, k])
        sess.run(tf.assign(w_again, tf.fill([3, 2], 0.5)))
        out["h1_after_assign_through_reuse"] = sess.run(h1)
        out["gv_value"] = sess.run(gv_in_ns)
        out["trainable_count"] = len(tf.trainable_variables())
