"""Writes what TensorFlow 2.21 computes for tf.compat.v1's sparse_mask and sparse_matmul
(with its gradients), for tests/test_sparse_more.py.  Run with TensorFlow installed:

    /work/peers/bin/python tests/data/make_sparse_more.py

It writes sparse_more.json next to this script.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

from sparse_more_cases import MASK_CASES, MATMUL_CASES, matmul_inputs

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = {"mask": {}, "matmul": {}}
    with tf.Graph().as_default(), tf.Session() as sess:
        for name, (values, indices, shape, mask) in MASK_CASES.items():
            slices = tf.IndexedSlices(tf.constant(np.array(values, np.float32)),
                                      tf.constant(np.array(indices, np.int32)),
                                      None if shape is None else tf.constant(shape))
            masked = tf.sparse_mask(slices, np.array(mask, np.int32), name="masked")
            got = sess.run([masked.values, masked.indices])
            out["mask"][name] = {"values": got[0].tolist(), "indices": got[1].tolist(),
                                 "values_name": masked.values.name,
                                 "static": masked.values.shape.as_list()}
        for name, case in MATMUL_CASES.items():
            a_value, b_value = matmul_inputs(case)
            a, b = tf.constant(a_value), tf.constant(b_value)
            product = tf.sparse_matmul(a, b, transpose_a=case["transpose_a"],
                                       transpose_b=case["transpose_b"],
                                       a_is_sparse=case["a_is_sparse"],
                                       b_is_sparse=case["b_is_sparse"])
            weights = np.arange(1, product.shape.num_elements() + 1, dtype=np.float32)
            weights = weights.reshape(product.shape.as_list())
            da, db = tf.gradients(tf.reduce_sum(product * weights), [a, b])
            got = sess.run([product, da, db])
            out["matmul"][name] = {"product": got[0].tolist(), "da": got[1].tolist(),
                                   "db": got[2].tolist(), "op": product.op.type,
                                   "dtype": product.dtype.name}
    with open(os.path.join(HERE, "sparse_more.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
