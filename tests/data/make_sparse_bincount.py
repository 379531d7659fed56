"""Writes what TensorFlow 2.21's tf.compat.v1.sparse.bincount computes (its
DenseCountSparseOutput and SparseCountSparseOutput ops), for
tests/test_sparse_bincount.py.  Run with TensorFlow installed:

    /work/peers/bin/python tests/data/make_sparse_bincount.py

It writes sparse_bincount.json next to this script.
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

from sparse_bincount_cases import CASES, ERRORS, RAW, RAW_ERRORS, VALUE_ERRORS

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))


def _input(data, dtype):
    if isinstance(data, dict):
        return tf.SparseTensor(np.array(data["indices"], np.int64).reshape(
                                   -1, len(data["shape"])),
                               np.array(data["values"], dtype),
                               np.array(data["shape"], np.int64))
    return tf.constant(np.array(data, dtype))


def _kwargs(kwargs, data=None):
    """The keyword arguments, weights as a tensor (a SparseTensor with the input's
    indices when the input is sparse, as TF requires)."""
    kwargs = dict(kwargs)
    if "weights" in kwargs:
        weights = np.array(kwargs["weights"], np.float32)
        kwargs["weights"] = _input(dict(data, values=weights), np.float32) \
            if isinstance(data, dict) else tf.constant(weights)
    return kwargs


def _raw(data, dtype, size, weights, binary_output, name):
    """TF's raw DenseBincount or SparseBincount of a RAW case."""
    weights = np.array([] if weights is None else weights,
                       np.float32 if weights and isinstance(np.ravel(weights)[0], float)
                       else np.int32)
    size = tf.constant(np.array(size, dtype))
    if isinstance(data, dict):
        sp = _input(data, dtype)
        return tf.raw_ops.SparseBincount(indices=sp.indices, values=sp.values,
                                         dense_shape=sp.dense_shape, size=size,
                                         weights=weights, binary_output=binary_output,
                                         name=name)
    values = tf.placeholder_with_default(np.array(data, dtype), np.shape(data))
    return tf.raw_ops.DenseBincount(input=values, size=size, weights=weights,
                                    binary_output=binary_output, name=name)


def main():
    out = {"cases": {}, "errors": {}, "value_errors": {}}
    with tf.Graph().as_default(), tf.Session() as sess:
        for name, (data, dtype, kwargs) in CASES.items():
            counted = tf.sparse.bincount(_input(data, dtype), **_kwargs(kwargs, data))
            got = sess.run(counted)
            out["cases"][name] = {"indices": got.indices.tolist(),
                                  "values": got.values.tolist(),
                                  "dtype": got.values.dtype.name,
                                  "dense_shape": got.dense_shape.tolist(),
                                  "op": counted.indices.op.type}
        for name, (data, dtype, kwargs) in ERRORS.items():
            where = tf.placeholder_with_default(np.array(data, dtype), [None])
            try:
                sess.run(tf.sparse.bincount(where, name=name, **_kwargs(kwargs)))
                raise AssertionError("no error")
            except tf.errors.OpError as e:
                message = e.message.split("\n\t [[")[0]
                node, _, message = message.partition("Node: '")[2].partition("'\n")
                out["errors"][name] = {"class": type(e).__name__, "node": node,
                                       "message": message.strip()}
        for name, (data, dtype, kwargs) in VALUE_ERRORS.items():
            try:
                tf.sparse.bincount(_input(data, dtype), **_kwargs(kwargs))
                raise AssertionError("no error")
            except ValueError as e:
                out["value_errors"][name] = str(e)
        out["raw"], out["raw_errors"] = {}, {}
        for name, case in {**RAW, **RAW_ERRORS}.items():
            counts = _raw(*case, name=name)
            if name in RAW:
                got = sess.run(counts)
                out["raw"][name] = {"value": got.tolist(), "dtype": got.dtype.name,
                                    "shape": list(got.shape)}
                continue
            try:
                sess.run(counts)
                raise AssertionError("no error")
            except tf.errors.OpError as e:
                message = e.message.split("\n\t [[")[0]
                node, _, message = message.partition("Node: '")[2].partition("'\n")
                out["raw_errors"][name] = {"class": type(e).__name__, "node": node,
                                           "message": message.strip()}
        # TF1's tf.math.bincount of a SparseTensor: its values counted (DenseBincount)
        sp = _input(CASES["sparse_axis0"][0], np.int32)
        out["math_bincount_sparse"] = sess.run(tf.math.bincount(sp, minlength=6)).tolist()
    with open(os.path.join(HERE, "sparse_bincount.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
