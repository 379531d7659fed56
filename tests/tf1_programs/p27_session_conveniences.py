"""ConfigProto set after construction, InteractiveSession with an explicit graph, eval/run, old initializer names."""

import numpy as np


def main(tf, out):
    config = tf.ConfigProto()
    config.gpu_options.allow_growth = True
    config.allow_soft_placement = True
    config.intra_op_parallelism_threads = 2
    out["config_reads_back"] = [config.allow_soft_placement, config.gpu_options.allow_growth,
                                config.intra_op_parallelism_threads]
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        w = tf.Variable(3, name="w")
        total = tf.reduce_sum(v) * tf.cast(w, tf.float32)
        bump = tf.group(v.assign_add([1.0, 1.0]), w.assign_add(1))
        init_some = tf.initialize_variables([v])
        all_vars = [x.name for x in tf.all_variables()]
        init_all = tf.initialize_all_variables()
    out["all_variables"] = all_vars
    sess = tf.InteractiveSession(graph=g, config=config)
    out["graph_is_default"] = tf.get_default_graph() is g
    out["session_graph_is_g"] = sess.graph is g
    init_all.run()
    out["total"] = total.eval()
    bump.run()
    out["after_bump"] = total.eval()
    init_some.run()
    out["after_partial_init"] = sess.run([v, w])
    with g.as_default():
        p = tf.placeholder(tf.float32, [2])
        scaled = v * p
    out["eval_feed"] = scaled.eval(feed_dict={p: np.array([10.0, -1.0], np.float32)})
    sess.close()
    out["default_graph_restored"] = tf.get_default_graph() is not g
    with tf.Session(graph=g, config=tf.ConfigProto(log_device_placement=False,
                                                   device_count={"GPU": 0})) as other:
        other.run(init_all)
        out["other_total"] = other.run(total)
