"""Reductions with reduction_indices/keep_dims, arg_max/arg_min, range, tensordot, diag, unique."""

import numpy as np


def main(tf, out):
    m = tf.constant(np.array([[3.0, -1.0, 4.0], [1.0, 5.0, -9.0]], dtype=np.float32))
    mi = tf.constant(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32))
    flags = tf.constant([[True, False, True], [True, True, True]])

    r = {
        "sum_all": tf.reduce_sum(m),
        "sum_ri0": tf.reduce_sum(m, reduction_indices=0),
        "sum_ri1_keep": tf.reduce_sum(m, reduction_indices=[1], keep_dims=True),
        "mean_keepdims": tf.reduce_mean(m, axis=1, keepdims=True),
        "mean_int_truncates": tf.reduce_mean(mi),
        "mean_int_rows": tf.reduce_mean(mi, reduction_indices=1),
        "max_neg_axis": tf.reduce_max(m, axis=-1),
        "min_both": tf.reduce_min(m, reduction_indices=[0, 1]),
        "prod_rows": tf.reduce_prod(mi, axis=1),
        "prod_float_keep": tf.reduce_prod(m, reduction_indices=0, keep_dims=True),
        "any_rows": tf.reduce_any(tf.logical_not(flags), axis=1),
        "all_rows": tf.reduce_all(flags, reduction_indices=1),
        "all_everything": tf.reduce_all(flags),
        "arg_max": tf.arg_max(m, 1),
        "arg_min": tf.arg_min(m, 0),
        "argmax_axis0": tf.argmax(m, axis=0),
        "argmin_dimension": tf.argmin(m, dimension=1),
        "argmax_int32_out": tf.argmax(m, axis=1, output_type=tf.int32),
        "range_limit": tf.range(5),
        "range_start_limit_delta": tf.range(3, 18, 4),
        "range_float": tf.range(0.0, 1.0, 0.25),
        "range_negative_delta": tf.range(10, 2, -3),
        "tensordot_axes1": tf.tensordot(m, tf.transpose(m), axes=1),
        "tensordot_axes_pairs": tf.tensordot(m, m, axes=[[1], [1]]),
        "tensordot_axes0_shape": tf.shape(tf.tensordot(tf.ones([2]), tf.ones([3]), axes=0)),
        "diag": tf.diag(tf.constant([1.0, 2.0, 3.0])),
        "det": tf.matrix_determinant(tf.constant([[2.0, 1.0], [1.0, 3.0]])),
        "det_batch": tf.matrix_determinant(tf.constant(np.array(
            [[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [0.0, 8.0]]], dtype=np.float32))),
    }
    uniq_y, uniq_idx = tf.unique(tf.constant([4, 1, 4, 2, 1, 7]))
    count_nonneg = tf.reduce_sum(tf.cast(m >= 0, tf.int32))
    out["dtypes"] = {k: t.dtype.name for k, t in r.items()}
    out["static_shapes"] = {k: t.shape.as_list() for k, t in r.items()}
    out["unique_dtypes"] = [uniq_y.dtype.name, uniq_idx.dtype.name]
    with tf.Session() as sess:
        vals = sess.run(r)
        for k in r:
            out[k] = vals[k]
        out["unique"] = sess.run([uniq_y, uniq_idx])
        out["count_nonneg"] = sess.run(count_nonneg)
