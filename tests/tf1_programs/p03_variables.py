"""tf.Variable, assign/assign_add/assign_sub, initializers, trainable and global lists."""

import numpy as np


def main(tf, out):
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="weights")
    b = tf.Variable(tf.zeros([3]), name="bias")
    counter = tf.Variable(0, name="counter", trainable=False)
    scale = tf.Variable(2.5, dtype=tf.float64, name="scale")
    unnamed = tf.Variable([1, 2])
    unnamed2 = tf.Variable([3, 4])

    out["global_names"] = [v.name for v in tf.global_variables()]
    out["trainable_names"] = [v.name for v in tf.trainable_variables()]
    out["base_dtypes"] = [v.dtype.base_dtype.name for v in (w, b, counter, scale, unnamed)]
    out["tf1_ref_dtype_name"] = w.dtype.name            # TF1 ref variables say float32_ref
    out["static_shapes"] = [w.shape.as_list(), b.shape.as_list(), counter.shape.as_list()]
    out["op_names"] = [w.op.name, unnamed.op.name, unnamed2.op.name, w.initializer.name]

    y = tf.matmul(tf.ones([1, 2]), w) + b                 # variables used as tensors
    with tf.Session() as sess:
        try:
            sess.run(w)
            out["uninitialized_read"] = "no error"
        except tf.errors.FailedPreconditionError as e:
            out["uninitialized_read"] = type(e).__name__
        sess.run(tf.global_variables_initializer())
        out["y"] = sess.run(y)
        out["assign_returns"] = sess.run(w.assign(w * 2.0))
        out["assign_add_returns"] = sess.run(b.assign_add([1.0, 2.0, 3.0]))
        out["assign_sub_returns"] = sess.run(tf.assign_sub(b, [0.5, 0.5, 0.5]))
        out["tf_assign_returns"] = sess.run(tf.assign(counter, 5))
        inc = tf.assign_add(counter, 1)
        seen = [int(sess.run(inc)) for _ in range(3)]
        out["counter_increments"] = seen
        out["scale_assign_mul"] = sess.run(scale.assign(scale * 4.0))
        out["y_after_updates"] = sess.run(y)
        out["read_all"] = sess.run([w, b, counter, scale])
        sess.run(tf.initialize_all_variables())           # old spelling: resets everything
        out["after_reinit"] = sess.run([w, b, counter, scale])
        sess.run(counter.initializer)
        out["single_initializer"] = sess.run(counter)
    with tf.Session() as fresh:                          # each session has its own values
        fresh.run(tf.global_variables_initializer())
        out["fresh_session_counter"] = fresh.run(counter)
