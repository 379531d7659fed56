"""Writes what TensorFlow 2.21 computes for tf.compat.v1's scatter_mul, scatter_div,
scatter_min and scatter_max (on reference variables) and tensor_scatter_nd_min / max (with
their gradients), for tests/test_scatter_more.py.  Run with TensorFlow installed:

    /work/peers/bin/python tests/data/make_scatter_more.py

It writes scatter_more.json next to this script: each case's result (and for the tensor
scatters the gradients of sum(output * weights)), and the errors TF raised.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

from scatter_more_cases import ROW_CASES, ROW_DTYPES, ROW_OPS, TENSOR_CASES, TENSOR_OPS

tf.disable_v2_behavior()
tf.disable_resource_variables()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))


def _error(sess, fetch) -> dict:
    try:
        sess.run(fetch)
    except tf.errors.OpError as e:
        message = e.message.split("\n\t [[")[0]
        node, _, message = message.partition("Node: '")[2].partition("'\n")
        return {"class": type(e).__name__, "node": node, "message": message.strip()}
    raise AssertionError("no error")


def main():
    out = {"rows": {}, "tensor": {}, "errors": {}}
    with tf.Graph().as_default(), tf.Session() as sess:
        for op in ROW_OPS:
            for name, (value, indices, updates) in ROW_CASES.items():
                dtype = ROW_DTYPES[name]
                var = tf.Variable(np.array(value, dtype), name=f"{op}_{name}")
                sess.run(var.initializer)
                result = getattr(tf, op)(var, np.array(indices, np.int32),
                                         np.array(updates, dtype))
                out["rows"][f"{op}/{name}"] = sess.run(result).tolist()
            var = tf.Variable(np.ones((3, 2), np.float32), name=f"{op}_bad")
            sess.run(var.initializer)
            out["errors"][op] = _error(sess, getattr(tf, op)(
                var, [0, 3], np.full((2, 2), 2, np.float32), name=f"{op}_bad_index"))
        for op in TENSOR_OPS:
            for name, (tensor, indices, updates) in TENSOR_CASES.items():
                x = tf.constant(np.array(tensor, np.int32 if name == "int" else np.float32))
                y = tf.constant(np.array(updates, x.dtype.as_numpy_dtype))
                result = getattr(tf, op)(x, np.array(indices, np.int32), y)
                record = {"value": sess.run(result).tolist()}
                if x.dtype.is_floating:
                    weights = np.arange(1, result.shape.num_elements() + 1,
                                        dtype=np.float32).reshape(result.shape.as_list())
                    dx, dy = tf.gradients(tf.reduce_sum(result * weights), [x, y])
                    record["dx"], record["dy"] = (v.tolist() for v in sess.run([dx, dy]))
                out["tensor"][f"{op}/{name}"] = record
            where = tf.placeholder_with_default(np.array([[0], [5]], np.int32), [None, 1])
            out["errors"][op] = _error(sess, getattr(tf, op)(
                tf.zeros([3, 2]), where, tf.ones([2, 2]), name=f"{op}_bad_index"))
    with open(os.path.join(HERE, "scatter_more.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
