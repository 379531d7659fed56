"""Graphs as objects: get_*_by_name, as_graph_def/import_graph_def, control_dependencies, group, make_callable."""

import numpy as np


def main(tf, out):
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(2.0, name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        c = tf.multiply(a, b, name="c")
        d = tf.add(c, 1.0, name="d")
        out["default_inside_is_g"] = tf.get_default_graph() is g
    out["default_outside_is_g"] = tf.get_default_graph() is g
    out["op_names"] = [op.name for op in g.get_operations()]
    out["op_types"] = [op.type for op in g.get_operations()]
    out["tensor_by_name"] = g.get_tensor_by_name("c:0").name
    out["op_by_name"] = [g.get_operation_by_name("d").type, g.get_operation_by_name("d").name]
    out["c_inputs"] = [t.name for t in c.op.inputs]
    out["d_outputs"] = [t.name for t in d.op.outputs]
    out["tensor_graph_is_g"] = c.graph is g
    gd = g.as_graph_def()
    out["graph_def_nodes"] = [[n.name, n.op, list(n.input)] for n in gd.node]

    with tf.Session(graph=g) as sess:
        out["run_in_g"] = sess.run(d, {b: 4.0})
        out["run_by_names"] = sess.run(["d:0", "c:0"], {"b:0": 0.5})
        f = sess.make_callable(d, feed_list=[b])
        out["make_callable"] = [f(1.0), f(-2.0)]
        f2 = sess.make_callable([c, d], feed_list=[b])
        out["make_callable_list"] = f2(3.0)

    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="imported")
        out["imported_names"] = [op.name for op in g2.get_operations()]
        with tf.Session() as sess:
            out["imported_run"] = sess.run("imported/d:0", {"imported/b:0": 10.0})
    g3 = tf.Graph()
    with g3.as_default():
        five = tf.constant(5.0, name="five")
        (d_imp,) = tf.import_graph_def(gd, input_map={"b:0": five}, return_elements=["d:0"],
                                       name="m")
        out["input_map_name"] = d_imp.name
        with tf.Session() as sess:
            out["input_map_run"] = sess.run(d_imp)

    # control dependencies, identity and group in the default graph
    v = tf.Variable(0, name="v")
    u = tf.Variable(100, name="u")
    inc = tf.assign_add(v, 1)
    with tf.control_dependencies([inc]):
        read_after_inc = tf.identity(v)
        plus_ten = v + 10
    both = tf.group(tf.assign_add(v, 5), tf.assign_sub(u, 1))
    noop = tf.no_op(name="nothing")
    out["group_type"] = both.type
    out["control_inputs"] = [op.name for op in read_after_inc.op.control_inputs]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["identity_after_inc"] = [int(sess.run(read_after_inc)) for _ in range(3)]
        out["plus_ten"] = sess.run(plus_ten)
        out["group_fetch"] = sess.run(both)
        out["after_group"] = sess.run([v, u])
        out["noop_fetch"] = sess.run([noop, v])
        out["op_name_fetch"] = sess.run("nothing")
