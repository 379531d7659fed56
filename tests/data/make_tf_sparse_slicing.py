"""Writes what TensorFlow computes with the sparse ops that cut, join, reduce and combine
SparseTensors, for tests/test_sparse_slicing.py.  Run with TensorFlow installed (not a
test):

    /work/peers/bin/python tests/data/make_tf_sparse_slicing.py

It writes, next to this script, tf_sparse_slicing.pb / .npz: a GraphDef of
SparseConcat (with and without expand_nonconcat_dim), SparseSlice, SparseSplit,
SparseFillEmptyRows, SparseReduceMax, SparseReduceMaxSparse, SparseReduceSumSparse,
SparseSoftmax, SparseSparseMaximum/Minimum and TF1's composites (retain, transpose,
expand_dims, eye, reset_shape, to_indicator, merge) over sparse_placeholders "sp" (an
unsorted [3, 4] matrix), "sq" (a sorted one), "sr" (a [2, 2] matrix), "ids" (int64) and
"st" (a [2, 3, 4] tensor), with its feeds and TF's fetched values
(tests/tf_recorded.py's layout), and under "grad:<name>:<i>" the gradients TF computes
of sum(output values ** 2 * weights) for the values.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))

SP = {"indices": np.array([[2, 0], [0, 1], [1, 3], [0, 0], [2, 2]], np.int64),
      "values": np.array([1.5, -2.0, 3.0, 0.5, -4.0], np.float32),
      "shape": np.array([3, 4], np.int64)}
SQ = {"indices": np.array([[0, 0], [0, 1], [1, 2], [2, 1], [2, 2]], np.int64),
      "values": np.array([-3.0, 1.25, -0.5, 2.0, -6.0], np.float32),
      "shape": np.array([3, 4], np.int64)}
SR = {"indices": np.array([[0, 1], [1, 0]], np.int64),
      "values": np.array([7.0, 8.0], np.float32), "shape": np.array([2, 2], np.int64)}
IDS = {"indices": np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], np.int64),
       "values": np.array([4, 1, 0, 2, 2, 5], np.int64), "shape": np.array([4, 3], np.int64)}
ST = {"indices": np.array([[0, 0, 1], [0, 2, 3], [1, 1, 0], [1, 1, 2], [1, 2, 1]], np.int64),
      "values": np.array([1.0, -1.0, 2.0, 0.25, 3.0], np.float32),
      "shape": np.array([2, 3, 4], np.int64)}


def main():
    feeds = {}
    for name, value in (("sp", SP), ("sq", SQ), ("sr", SR), ("ids", IDS), ("st", ST)):
        feeds.update({f"{name}/{k}": v for k, v in value.items()})
    graph = tf.Graph()
    with graph.as_default():
        sp = tf.sparse_placeholder(tf.float32, name="sp")
        sq = tf.sparse_placeholder(tf.float32, name="sq")
        sr = tf.sparse_placeholder(tf.float32, name="sr")
        ids = tf.sparse_placeholder(tf.int64, name="ids")
        st = tf.sparse_placeholder(tf.float32, name="st")
        known = tf.SparseTensor(sq.indices, sq.values, tf.constant([3, 4], tf.int64))
        sorted_sp = tf.sparse.reorder(sp)
        split = tf.sparse.split(sp_input=sp, num_split=3, axis=1)
        filled, empty = tf.sparse.fill_empty_rows(
            tf.SparseTensor(ids.indices, tf.cast(ids.values, tf.float32), ids.dense_shape),
            -1.0)
        sparse_outs = {
            "concat_1": tf.sparse.concat(1, [sp, sq, sr], expand_nonconcat_dim=True),
            "concat_0": tf.sparse.concat(0, [sp, sq]),
            "concat_neg": tf.sparse.concat(-1, [sq, sp]),
            "slice": tf.sparse.slice(sp, [0, 1], [2, 5]),
            "slice_3d": tf.sparse.slice(st, [1, 1, 0], [1, 2, 3]),
            "split_0": split[0], "split_1": split[1], "split_2": split[2],
            "split_3d": tf.sparse.split(sp_input=st, num_split=2, axis=-1)[1],
            "fill": filled,
            "fill_3d": tf.sparse.fill_empty_rows(sq, 9.0)[0],
            "max_sparse_1": tf.sparse.reduce_max_sparse(sp, 1),
            "max_sparse_keep": tf.sparse.reduce_max_sparse(st, [0, 2], keepdims=True),
            "sum_sparse_0": tf.sparse.reduce_sum_sparse(sp, 0),
            "softmax": tf.sparse.softmax(sorted_sp),
            "softmax_3d": tf.sparse.softmax(st),
            "maximum": tf.sparse.maximum(sorted_sp, sq),
            "minimum": tf.sparse.minimum(sorted_sp, sq),
            "retain": tf.sparse.retain(sp, [True, False, True, True, False]),
            "transpose": tf.sparse.transpose(sp),
            "transpose_3d": tf.sparse.transpose(st, [2, 0, 1]),
            "transpose_known": tf.sparse.transpose(known),
            "expand_0": tf.sparse.expand_dims(known, 0),
            "expand_neg": tf.sparse.expand_dims(known, -1),
            "eye": tf.sparse.eye(3, 5),
            "eye_square": tf.sparse.eye(2, dtype=tf.int32),
            "reset": tf.sparse.reset_shape(sp),
            "reset_to": tf.sparse.reset_shape(known, [4, 6]),
            "merge": tf.sparse_merge(ids, tf.SparseTensor(ids.indices, tf.range(6.0),
                                                          ids.dense_shape), 7),
        }
        outs = {"fill_empty": empty,
                "max_1": tf.sparse.reduce_max(sp, 1),
                "max_0_keep": tf.sparse.reduce_max(sp, 0, keepdims=True),
                "max_all": tf.sparse.reduce_max(st),
                "max_3d": tf.sparse.reduce_max(st, [-1, 1]),
                "indicator": tf.sparse.to_indicator(ids, 6)}
        for key, value in sparse_outs.items():
            for part in ("indices", "values", "dense_shape"):
                outs[f"{key}_{part}"] = getattr(value, part)
        graph_def = graph.as_graph_def()
        weights = {}
        grads = {}
        for key, inputs in (("slice", [sp.values]), ("slice_3d", [st.values]),
                            ("fill_3d", [sq.values]), ("softmax", [sp.values]),
                            ("softmax_3d", [st.values])):
            values = sparse_outs[key].values
            weight = tf.range(1.0, tf.cast(tf.size(values), tf.float32) + 1.0)
            weights[key] = weight
            grads[key] = tf.gradients(tf.reduce_sum(values ** 2 * weight), inputs)
        fill_default = sparse_outs["fill_3d"]
        grads["fill_default"] = tf.gradients(
            tf.reduce_sum(fill_default.values ** 2), [fill_default.values.op.inputs[3]])
        with tf.Session() as sess:
            feed = {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()}
            values = sess.run(outs, feed)
            grad_values = sess.run(grads, feed)
    names = {k: t.name for k, t in outs.items()}
    with open(os.path.join(HERE, "tf_sparse_slicing.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                           [-1 if d is None else d for d in t.shape.as_list()],
                                           np.int64) for t in outs.values()}
    gradients = {f"grad:{k}:{i}": v for k, vs in grad_values.items() for i, v in enumerate(vs)}
    np.savez(os.path.join(HERE, "tf_sparse_slicing.npz"),
             **{f"feed:{k}": v for k, v in feeds.items()},
             **{f"fetch:{names[k]}": v for k, v in values.items()}, **static, **gradients)
    print(f"{len(outs)} fetches, {len(gradients)} gradients written")


if __name__ == "__main__":
    main()
