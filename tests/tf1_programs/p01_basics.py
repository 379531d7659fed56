"""Constants, placeholders fed by tensor and by name, a configured Session, dtype rules."""

import numpy as np


def main(tf, out):
    a = tf.constant(3.0)
    b = tf.constant(4)
    c = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="c")
    x = tf.placeholder(tf.float32, shape=[None, 2], name="x")
    y = tf.matmul(x, c) + a
    z = tf.reduce_sum(y * 2 - 1, axis=1, name="z")
    anon = tf.reduce_sum(y)
    d64 = tf.constant(np.array([1.5, 2.5]))            # numpy float64 stays float64
    i64 = tf.constant(2, dtype=tf.int64)

    out["names"] = [a.name, b.name, c.name, x.name, y.name, z.name, anon.name, d64.name]
    out["op_types"] = [a.op.type, x.op.type, y.op.type, z.op.type]
    out["dtypes"] = [t.dtype.name for t in (a, b, c, x, y, z, d64, d64 * 3.0, i64 * 3,
                                            tf.constant(True), tf.constant([1, 2]))]
    out["static_shapes"] = [a.shape.as_list(), x.shape.as_list(), y.shape.as_list(),
                            z.shape.as_list()]

    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False,
                            device_count={"GPU": 0}, intra_op_parallelism_threads=1,
                            inter_op_parallelism_threads=1,
                            gpu_options=tf.GPUOptions(allow_growth=True))
    feed = np.array([[1.0, 0.0], [0.5, -1.0], [2.0, 3.0]], dtype=np.float32)
    with tf.device("/device:GPU:0"):    # no GPU here: soft placement moves it to the CPU
        on_gpu = tf.multiply(c, 10.0)
    with tf.Session(config=config) as sess:
        sa = sess.run(a)
        out["scalar_fetch_type"] = type(sa).__name__
        out["a"] = sa
        out["b"] = sess.run(b)
        out["a_plus_cast_b"] = sess.run(a + tf.cast(b, tf.float32))
        out["y"] = sess.run(y, feed_dict={x: feed})
        out["z_by_name"] = sess.run("z:0", feed_dict={"x:0": feed})
        fetched = sess.run({"y": y, "pair": (a, b), "list": [z]}, feed_dict={x: feed})
        out["dict_fetch_keys"] = sorted(fetched.keys())
        out["dict_fetch_pair_is_tuple"] = isinstance(fetched["pair"], tuple)
        out["dict_fetch_list"] = fetched["list"]
        # any tensor can be fed, not only placeholders
        out["y_with_a_fed"] = sess.run(y, feed_dict={x: feed[:1], a: 100.0})
        out["python_ops"] = sess.run([a ** 2, -a, abs(-a), a / 2, a // 2, a % 2,
                                      x @ c, x < 1.0, x >= 0.5], feed_dict={x: feed[:1]})
        out["comparisons"] = sess.run([tf.equal(b, 4), tf.not_equal(b, 4), tf.less(a, 3.0),
                                       tf.less_equal(a, 3.0), tf.greater(a, 1.0),
                                       tf.greater_equal(a, 4.0)])
        out["empty_list_fetch"] = sess.run([])
        out["empty_tuple_fetch"] = sess.run(())
        out["empty_dict_fetch"] = sess.run({})
        out["op_fetch"] = sess.run(tf.no_op())
        out["float64_times_three"] = sess.run(d64 * 3.0)
        out["int64_times_three"] = sess.run(i64 * 3)
        out["soft_placed"] = sess.run(on_gpu)
        out["add_n"] = sess.run(tf.add_n([a, a, tf.constant(1.0)]))
        out["ops_in_graph_before_close"] = len(tf.get_default_graph().get_operations()) > 0
    try:
        sess.run(a)
        out["closed_session_error"] = "no error"
    except RuntimeError as e:
        out["closed_session_error"] = type(e).__name__ + ": " + str(e)
