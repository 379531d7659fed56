"""Writes what TensorFlow 2.21 computes for SparseTensors as strings, for
tests/test_sparse_serialization.py.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_sparse_serialization.py

It writes sparse_serialization.json next to this script: for each case of
sparse_serialization_cases.py, the hex bytes of serialize_sparse and
serialize_many_sparse, what deserialize_many_sparse (and the raw DeserializeSparse) give
back, the static shapes TF infers, and the errors TF raises (class and message).
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

from sparse_serialization_cases import ERRORS, SPARSE, error_rows, sparse_value

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))


def _value(v):
    if isinstance(v, tf.SparseTensorValue):
        return {"indices": v.indices.tolist(), "values": _value(v.values),
                "dense_shape": v.dense_shape.tolist()}
    v = np.asarray(v)
    if v.dtype == object:
        return {"strings": [s.hex() for s in v.reshape(-1)], "shape": list(v.shape)}
    return {"list": v.tolist(), "dtype": v.dtype.name, "shape": list(v.shape)}


def _error(sess, fetch, feed) -> dict:
    try:
        sess.run(fetch, feed)
    except tf.errors.OpError as e:
        # the kernel's own message: after TF's "Node: '<name>'" line, before its "[[" line
        message = e.message.split("\n\t [[")[0]
        node, _, message = message.partition("Node: '")[2].partition("'\n")
        return {"class": type(e).__name__, "node": node, "message": message.strip()}
    raise AssertionError("no error")


def _hex(array):
    return [s.hex() for s in np.asarray(array).reshape(-1)]


def main():
    out = {"cases": {}, "errors": {}, "shapes": {}}
    g = tf.Graph()
    with g.as_default(), tf.Session() as sess:
        for name, case in SPARSE.items():
            value = sparse_value(case)
            sp = tf.SparseTensor(*(tf.constant(a) for a in value))
            one = tf.io.serialize_sparse(sp)
            record = {"one": _hex(sess.run(one))}
            back = tf.raw_ops.DeserializeSparse(serialized_sparse=one,
                                                dtype=sp.dtype)
            record["one_back"] = _value(tf.SparseTensorValue(*sess.run(back)))
            if len(case["shape"]) >= 2:
                many = tf.io.serialize_many_sparse(sp)
                rows = sess.run(many)
                record["many"] = [_hex(r) for r in rows]
                back = tf.io.deserialize_many_sparse(many, sp.dtype, name=name)
                try:
                    record["many_back"] = _value(sess.run(back))
                except tf.errors.OpError:
                    record["many_back"] = _error(sess, back, None)
            out["cases"][name] = record

        # shapes TF infers
        sp = tf.sparse_placeholder(tf.float32, shape=[None, None, None])
        out["shapes"]["serialize_sparse"] = tf.io.serialize_sparse(sp).shape.as_list()
        out["shapes"]["serialize_many_sparse"] = \
            tf.io.serialize_many_sparse(sp).shape.as_list()
        rows = tf.placeholder(tf.string, [None, 3])
        des = tf.io.deserialize_many_sparse(rows, tf.float32, rank=3)
        out["shapes"]["deserialize_many_sparse_rank3"] = [
            des.indices.shape.as_list(), des.values.shape.as_list(),
            des.dense_shape.shape.as_list()]
        des = tf.io.deserialize_many_sparse(rows, tf.float32)
        out["shapes"]["deserialize_many_sparse"] = [
            des.indices.shape.as_list(), des.values.shape.as_list(),
            des.dense_shape.shape.as_list()]
        grid = tf.placeholder(tf.string, [2, 4, 3])
        raw = tf.raw_ops.DeserializeSparse(serialized_sparse=grid, dtype=tf.float32)
        out["shapes"]["deserialize_sparse_2x4"] = [t.shape.as_list() for t in raw]

        # errors
        for name, (kind, case) in ERRORS.items():
            if kind in ("serialize_many_sparse", "serialize_sparse"):
                value = sparse_value(case)
                sp = tf.SparseTensor(*(tf.placeholder_with_default(a, [None] * a.ndim)
                                       for a in value))
                fetch = getattr(tf.io, kind)(sp, name=name)
                out["errors"][name] = _error(sess, fetch, None)
            else:
                strings = error_rows(case, {k: v["one"] for k, v in out["cases"].items()})
                feed = tf.placeholder(tf.string, None)
                fetch = tf.io.deserialize_many_sparse(feed, getattr(tf, case["dtype"]),
                                                      name=name)
                out["errors"][name] = _error(sess, fetch, {feed: strings})
    with open(os.path.join(HERE, "sparse_serialization.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
