"""Writes a GraphDef TensorFlow 2.21 builds with the ops of this family that devsession
added (SerializeSparse, SerializeManySparse, DeserializeManySparse, DeserializeSparse,
ScatterMul/Div/Min/Max, TensorScatterMin/Max and their gradient, SparseMatMul,
DenseCountSparseOutput, SparseCountSparseOutput, DenseBincount), and what TF computed
from it, for tests/test_sparse_family_graph.py.  Run with TensorFlow installed:

    /work/peers/bin/python tests/data/make_sparse_family_graph.py

It writes sparse_family_graph.pb (outputs are Identity nodes named "out_<k>", variables
initialized by the op "init") and sparse_family_graph.json ({"out_<k>": value}).
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
tf.disable_resource_variables()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))


def _value(v):
    v = np.asarray(v)
    if v.dtype == object:
        return {"strings": [s.hex() for s in v.reshape(-1)], "shape": list(v.shape)}
    return {"list": v.tolist(), "dtype": v.dtype.name, "shape": list(v.shape)}


def build():
    sp = tf.SparseTensor(np.array([[0, 1], [2, 0], [2, 3]], np.int64),
                         tf.constant([1.5, -2.0, 3.0]), np.array([3, 4], np.int64))
    one = tf.io.serialize_sparse(sp)
    many = tf.io.serialize_many_sparse(sp)
    back = tf.io.deserialize_many_sparse(many, tf.float32)
    raw = tf.raw_ops.DeserializeSparse(serialized_sparse=tf.stack([one, one]),
                                       dtype=tf.float32)
    rows = [op(tf.Variable(np.array([[2.0, 4.0], [-1.0, 8.0]], np.float32), name="var"),
               [1, 0], np.array([[3.0, 0.5], [2.0, 2.0]], np.float32))
            for op in (tf.scatter_mul, tf.scatter_div, tf.scatter_min, tf.scatter_max)]
    x = tf.constant([[1.0, 5.0], [2.0, -1.0], [0.0, 0.0]])
    y = tf.constant([[3.0, 4.0], [-1.0, 1.0]])
    top = tf.tensor_scatter_nd_max(x, [[0], [2]], y)
    low = tf.tensor_scatter_nd_min(x, [[0], [2]], y)
    dx, dy = tf.gradients(tf.reduce_sum(top * 3.0) + tf.reduce_sum(low), [x, y])
    product = tf.sparse_matmul(x, y, transpose_b=True, a_is_sparse=True)
    counts = tf.sparse.bincount(tf.constant([[1, 2, 2], [5, 1, 0]]), axis=-1)
    sparse_counts = tf.sparse.bincount(
        tf.SparseTensor(np.array([[0, 1], [1, 3]], np.int64), tf.constant([4, 4]),
                        np.array([2, 5], np.int64)), axis=-1, binary_output=True)
    dense_bincount = tf.math.bincount(tf.constant([3, 1, 3]), minlength=5)
    return [one, many, back.indices, back.values, back.dense_shape, raw[0], raw[1],
            raw[2], *rows, top, low, dx, dy, product, counts.indices, counts.values,
            counts.dense_shape, sparse_counts.values, sparse_counts.dense_shape,
            dense_bincount]


def main():
    g = tf.Graph()
    with g.as_default():
        outs = [tf.identity(t, name=f"out_{k}") for k, t in enumerate(build())]
        init = tf.global_variables_initializer()
        tf.group(init, name="init")
        with tf.Session() as sess:
            sess.run("init")
            values = sess.run(outs)
        ops = sorted({n.op for n in g.as_graph_def().node})
    with open(os.path.join(HERE, "sparse_family_graph.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    with open(os.path.join(HERE, "sparse_family_graph.json"), "w") as f:
        json.dump({"outputs": {f"out_{k}": _value(v) for k, v in enumerate(values)},
                   "ops": ops}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
