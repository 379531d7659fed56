"""Writes tf_segment_ops.pb (a GraphDef TensorFlow builds with the segment reductions,
partitions and counts: SegmentSum/Mean/Max/Min/Prod, UnsortedSegmentMax/Min/Prod, the
unsorted_segment_mean/sqrt_n composites, SparseSegmentSum/Mean/SqrtN with and without
num_segments, DynamicPartition, DynamicStitch, ParallelDynamicStitch, Bincount,
HistogramFixedWidth and histogram_fixed_width_bins, and TF's gradients of the
differentiable ones) and tf_segment_ops.npz (feeds, TF's values, static shapes), which
tests/test_segment_ops.py imports and runs.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_segment_ops.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

rng = np.random.default_rng(7)
feeds = {
    "data": rng.standard_normal((6, 3)).astype(np.float32),
    "sorted_ids": np.array([0, 0, 2, 2, 2, 5], np.int32),
    "unsorted_ids": np.array([3, -1, 0, 3, 1, 3], np.int32),
    "indices": np.array([5, 0, 0, 2, 4, 1, 3], np.int32),
    "sparse_ids": np.array([0, 0, 1, 3, 3, 3, 4], np.int32),
    "partitions": np.array([2, 0, 2, 1, 0, 2], np.int32),
    "arr": np.array([1, 1, 4, 0, 7, 4, 4], np.int32),
    "values": np.array([-1.0, 0.0, 0.4, 1.0, 1.9, 2.0, 7.5], np.float32),
}
feeds["data"][2, 1] = feeds["data"][3, 1]          # a tie for max/min's gradient
feeds["data"][4, 0] = 0.0                          # a zero for prod's gradient

graph = tf.Graph()
with graph.as_default():
    ph = {k: tf.placeholder(tf.as_dtype(v.dtype), (None,) * v.ndim, name=k)
          for k, v in feeds.items()}
    data, sorted_ids, unsorted_ids = ph["data"], ph["sorted_ids"], ph["unsorted_ids"]
    outs = {
        "segment_sum": tf.math.segment_sum(data, sorted_ids),
        "segment_mean": tf.math.segment_mean(data, sorted_ids),
        "segment_max": tf.math.segment_max(data, sorted_ids),
        "segment_min": tf.math.segment_min(data, sorted_ids),
        "segment_prod": tf.math.segment_prod(data, sorted_ids),
        "unsorted_max": tf.math.unsorted_segment_max(data, unsorted_ids, 5),
        "unsorted_min": tf.math.unsorted_segment_min(data, unsorted_ids, 5),
        "unsorted_prod": tf.math.unsorted_segment_prod(data, unsorted_ids, 5),
        "unsorted_mean": tf.math.unsorted_segment_mean(data, unsorted_ids, 5),
        "unsorted_sqrt_n": tf.math.unsorted_segment_sqrt_n(data, unsorted_ids, 5),
        "sparse_sum": tf.sparse.segment_sum(data, ph["indices"], ph["sparse_ids"]),
        "sparse_mean": tf.sparse.segment_mean(data, ph["indices"], ph["sparse_ids"]),
        "sparse_sqrt_n": tf.sparse.segment_sqrt_n(data, ph["indices"], ph["sparse_ids"]),
        "sparse_sum_n": tf.sparse.segment_sum(data, ph["indices"], ph["sparse_ids"],
                                              num_segments=7),
        "sparse_mean_n": tf.sparse.segment_mean(data, ph["indices"], ph["sparse_ids"],
                                                num_segments=7),
        "sparse_sqrt_n_n": tf.sparse.segment_sqrt_n(data, ph["indices"], ph["sparse_ids"],
                                                    num_segments=7),
        "stitch": tf.dynamic_stitch([tf.constant([0, 4]), tf.constant([[1], [3]])],
                                    [data[:2], tf.reshape(data[2:4], [2, 1, 3])]),
        "parallel_stitch": tf.raw_ops.ParallelDynamicStitch(
            indices=[tf.constant([2, 0]), tf.constant([1])], data=[data[:2], data[2:3]]),
        "bincount": tf.raw_ops.Bincount(arr=ph["arr"], size=6,
                                        weights=tf.zeros([0], tf.float32)),
        "bincount_weighted": tf.raw_ops.Bincount(arr=ph["arr"], size=9,
                                                 weights=tf.cast(ph["arr"], tf.float32)),
        "histogram": tf.histogram_fixed_width(ph["values"], [0.0, 2.0], nbins=4),
        "histogram64": tf.histogram_fixed_width(ph["values"], [0.0, 2.0], nbins=3,
                                                dtype=tf.int64),
        "bins": tf.histogram_fixed_width_bins(ph["values"], [0.0, 2.0], nbins=4),
    }
    parts = tf.dynamic_partition(data, ph["partitions"], 3)
    outs.update({f"partition{k}": p for k, p in enumerate(parts)})
    # losses without broadcasting products, whose gradients TF builds from
    # BroadcastGradientArgs (an op devsession's graphs do without)
    for key in ("segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod",
                "unsorted_max", "unsorted_min", "unsorted_prod", "sparse_sum",
                "sparse_mean", "sparse_sqrt_n", "stitch"):
        out = outs[key]
        if key.startswith("unsorted_m"):
            out = tf.gather(out, [0, 1, 3])            # the segments that have rows
        loss = tf.reduce_sum(tf.sin(out))
        outs[f"grad_{key}"] = tf.gradients(loss, data)[0]
    loss = (tf.reduce_sum(tf.square(parts[0])) + tf.reduce_sum(parts[1])
            + tf.reduce_sum(tf.exp(parts[2])))
    outs["grad_partition"] = tf.gradients(loss, data)[0]

with tf.Session(graph=graph) as sess:
    values = sess.run(outs, {ph[k]: v for k, v in feeds.items()})
names = {k: t.name for k, t in outs.items()}
with open(os.path.join(HERE, "tf_segment_ops.pb"), "wb") as f:
    f.write(graph.as_graph_def().SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_segment_ops.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": np.asarray(v) for k, v in values.items()}, **static)
print(f"{len(outs)} fetches written")
