"""Reductions (reduction_indices, keep_dims, prod/any/all, arg_min/arg_max), over known and unknown ranks."""

import numpy as np


def main(tf, out):
    m = tf.constant(np.array([[2.0, -1.0, 4.0], [1.0, 5.0, -9.0]], dtype=np.float32))
    ints = tf.constant(np.array([[7, -7, 3], [-2, 5, 4]], dtype=np.int32))
    flags = tf.constant([[True, False, True], [False, False, True]])
    cube = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    anything = tf.placeholder(tf.float32)            # no shape: rank unknown when built
    r = {
        "sum_ri_list_keep": tf.reduce_sum(m, reduction_indices=[0], keep_dims=True),
        "sum_neg_axis": tf.reduce_sum(cube, axis=-1),
        "mean_int_negative_truncates": tf.reduce_mean(ints, reduction_indices=0),
        "max_two_axes": tf.reduce_max(cube, axis=[0, 2]),
        "min_keepdims": tf.reduce_min(cube, axis=1, keepdims=True),
        "prod_int_all": tf.reduce_prod(ints),
        "prod_rows": tf.reduce_prod(m, 1),
        "any_cols": tf.reduce_any(flags, reduction_indices=0),
        "all_cols_keep": tf.reduce_all(flags, 0, keep_dims=True),
        "arg_min_rows": tf.arg_min(m, 1),
        "argmin_cube": tf.argmin(cube, axis=2),
        "argmax_neg_axis": tf.argmax(cube, axis=-2),
        "argmax_int32": tf.argmax(ints, 0, output_type=tf.int32),
        "unknown_rank_sum": tf.reduce_sum(anything),
        "unknown_rank_mean_axis1": tf.reduce_mean(anything, axis=1),
        "unknown_rank_max_neg": tf.reduce_max(anything, axis=-1, keepdims=True),
        "unknown_rank_argmax": tf.argmax(anything, axis=1),
        "unknown_rank_argmin_neg": tf.argmin(anything, axis=-1),
    }
    out["dtypes"] = {k: t.dtype.name for k, t in r.items()}
    out["ranks"] = {k: t.shape.ndims for k, t in r.items()}
    feed = {anything: np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7}
    with tf.Session() as sess:
        vals = sess.run(r, feed_dict=feed)
        for k in r:
            out[k] = vals[k]
        out["unknown_rank_sum_of_a_vector"] = sess.run(
            r["unknown_rank_sum"], {anything: np.array([1.0, 2.0, 3.5], np.float32)})
        out["unknown_rank_sum_of_a_scalar"] = sess.run(r["unknown_rank_sum"], {anything: 4.0})
    try:
        tf.reduce_sum(m, axis=0, reduction_indices=0)
        out["both_axis_spellings"] = "no error"
    except ValueError as e:
        out["both_axis_spellings"] = type(e).__name__
