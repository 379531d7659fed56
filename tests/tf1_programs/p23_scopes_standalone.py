"""get_variable/variable_scope sharing, initializers and name_scope names, with only scope and variable ops."""

import numpy as np


def main(tf, out):
    x = tf.constant(np.array([[1.0, -2.0], [0.5, 3.0]], dtype=np.float32))

    def layer(inp, n_out, init):
        w = tf.get_variable("kernel", shape=[inp.shape.as_list()[1], n_out], initializer=init)
        b = tf.get_variable("bias", shape=[n_out], initializer=tf.constant_initializer(0.5))
        return tf.matmul(inp, w) + b

    with tf.variable_scope("net"):
        with tf.variable_scope("fc1"):
            h = layer(x, 3, tf.constant_initializer([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]]))
        with tf.variable_scope("fc2"):
            y = layer(h, 1, tf.ones_initializer())
    with tf.variable_scope("net", reuse=True):
        with tf.variable_scope("fc1"):
            h2 = layer(x * 2.0, 3, None)
    with tf.variable_scope("net/fc2", reuse=True):
        reused_kernel = tf.get_variable("kernel")
    with tf.variable_scope("net") as net_scope:
        pass
    with tf.variable_scope(net_scope, reuse=True):
        via_object = tf.get_variable("fc1/bias")
        out["reentered_scope_name"] = tf.get_variable_scope().name
    out["scope_object_name"] = net_scope.name
    out["reused_names"] = [reused_kernel.name, via_object.name]
    out["op_names"] = [h.op.name, y.op.name, h2.op.name]

    def counter():
        with tf.variable_scope("counter", reuse=tf.AUTO_REUSE):
            return tf.get_variable("n", shape=[], dtype=tf.int32,
                                   initializer=tf.zeros_initializer())
    c1, c2 = counter(), counter()
    out["auto_reuse_same"] = c1 is c2 or c1.name == c2.name

    errors = {}
    try:
        with tf.variable_scope("net/fc1"):
            tf.get_variable("kernel", shape=[2, 3])
    except ValueError as e:
        errors["exists"] = "already exists" in str(e)
    try:
        with tf.variable_scope("net", reuse=True):
            tf.get_variable("missing", shape=[1])
    except ValueError as e:
        errors["missing"] = "does not exist" in str(e)
    try:
        with tf.variable_scope("net/fc2", reuse=True):
            tf.get_variable("kernel", shape=[5, 5])
    except ValueError as e:
        errors["shape"] = type(e).__name__
    out["errors"] = errors

    with tf.variable_scope("defaults", initializer=tf.constant_initializer(7.0)):
        inherited = tf.get_variable("v", shape=[2])
        with tf.variable_scope("inner"):
            nested = tf.get_variable("u", shape=[1])
        overridden = tf.get_variable("o", shape=[1], initializer=tf.zeros_initializer())
    with tf.variable_scope(None, default_name="block"):
        d1 = tf.get_variable("p", shape=[1])
    with tf.variable_scope(None, default_name="block"):
        d2 = tf.get_variable("p", shape=[1])
    out["default_name_scopes"] = [d1.name, d2.name]
    with tf.name_scope("outer_ns"):
        in_ns = tf.get_variable("ignores_name_scope", shape=[], initializer=tf.ones_initializer())
        plain = tf.Variable(1.0, name="follows_name_scope")
        with tf.variable_scope("vs_in_ns"):
            nested_op = tf.add(x, 1.0)
            nested_var = tf.get_variable("w", shape=[], initializer=tf.ones_initializer())
    out["name_scope_interplay"] = [in_ns.name, plain.name, nested_op.op.name, nested_var.name]
    out["global_names"] = [v.name for v in tf.global_variables()]

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["h"] = sess.run(h)
        out["y"] = sess.run(y)
        out["h2_uses_same_weights"] = sess.run(h2)
        out["defaults"] = sess.run([inherited, nested, overridden])
        sess.run(reused_kernel.assign([[2.0], [0.0], [1.0]]))
        out["y_after_assign_via_reuse"] = sess.run(y)
