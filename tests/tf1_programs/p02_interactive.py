"""InteractiveSession with Tensor.eval() and Operation.run(); the default-session stack."""

import numpy as np


def main(tf, out):
    sess = tf.InteractiveSession()
    out["default_is_interactive"] = tf.get_default_session() is sess
    v = tf.Variable(np.array([1.0, 2.0, 3.0], dtype=np.float32), name="v")
    v.initializer.run()                                   # Operation.run
    total = tf.reduce_sum(v * 2.0)
    out["total_eval"] = total.eval()
    inc = v.assign_add([1.0, 1.0, 1.0])
    inc.op.run()                                          # run without fetching
    out["v_after_op_run"] = v.eval()
    out["inc_eval_returns_new_value"] = inc.eval()
    x = tf.placeholder(tf.float32, [3])
    out["fed_eval"] = (v * x).eval(feed_dict={x: np.array([1.0, 0.0, -1.0], np.float32)})
    tf.global_variables_initializer().run()
    out["v_after_reinit"] = v.eval()
    out["run_via_default"] = tf.get_default_session().run(total)

    # a regular Session made the default with `with`, then with as_default()
    other = tf.Session()
    with other.as_default():
        out["as_default_is_other"] = tf.get_default_session() is other
        tf.global_variables_initializer().run()
        out["eval_in_other"] = total.eval()
    out["back_to_interactive"] = tf.get_default_session() is sess
    out["eval_with_explicit_session"] = total.eval(session=other)
    other.close()
    with tf.Session() as third:
        out["with_block_is_default"] = tf.get_default_session() is third
    sess.close()
    out["default_after_close_is_none"] = tf.get_default_session() is None
