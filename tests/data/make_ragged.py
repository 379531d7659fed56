"""Records TF 2.21's values for tests/data/ragged_cases.py into tests/data/ragged.json,
a GraphDef TF wrote with its ragged ops (RaggedRange, RaggedTensorToTensor,
RaggedTensorToSparse) into tests/data/ragged_graph.pb, and one with TF's validate=True
assertions into tests/data/ragged_validated_graph.pb.

    /work/peers/bin/python tests/data/make_ragged.py
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ragged_cases  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))


def encode(value):
    """A fetched value as JSON: ragged, sparse, lists and arrays tagged."""
    if isinstance(value, tf1.ragged.RaggedTensorValue):
        return {"ragged": encode(value.flat_values),
                "splits": [encode(s) for s in value.nested_row_splits]}
    if isinstance(value, tf1.SparseTensorValue):
        return {"sparse": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    array = np.asarray(value)
    if array.dtype.kind in "SOU":
        return {"array": [(v if isinstance(v, bytes) else v.encode()).hex()
                          for v in array.reshape(-1).tolist()],
                "shape": list(array.shape), "dtype": "string"}
    return {"array": array.reshape(-1).tolist(), "shape": list(array.shape),
            "dtype": array.dtype.name}


def static_shape(fetch):
    shape = getattr(fetch, "shape", None)
    if shape is None or isinstance(fetch, list):
        return None
    return None if shape.rank is None else shape.as_list()


def record(cases, errors):
    out = {}
    for name, build in cases.items():
        with tf1.Graph().as_default(), tf1.Session() as sess:
            try:
                fetch = build(tf1)
            except (ValueError, TypeError) as e:
                if not errors:
                    raise
                out[name] = {"error": type(e).__name__, "stage": "build",
                             "message": str(e).split("\n")[0]}
                continue
            try:
                value = sess.run(fetch)
            except tf.errors.OpError as e:
                if not errors:
                    raise
                lines = [ln.strip() for ln in e.message.split("\n") if ln.strip()
                         and not ln.startswith("Graph execution error")]
                if lines[0].startswith("Detected at node"):    # the kernel's own words
                    lines = [ln for ln in lines if not ln.startswith("[[")][-1:]
                out[name] = {"error": type(e).__name__, "stage": "run",
                             "message": lines[0], "node": e.op.name if e.op else None}
                continue
            if errors:
                raise AssertionError(f"{name} did not fail")
            out[name] = {"value": encode(value), "shape": static_shape(fetch)}
    return out


def graph_def():
    """A graph of the ragged ops with placeholders (validate=False: no assertions)."""
    g = tf1.Graph()
    with g.as_default():
        values = tf1.placeholder(tf.float32, [None], name="values")
        splits = tf1.placeholder(tf.int64, [None], name="splits")
        rt = tf.RaggedTensor.from_row_splits(values, splits, validate=False)
        tf.identity(rt.to_tensor(default_value=-1.), name="dense")
        sp = rt.to_sparse()
        tf.identity(sp.indices, name="sparse_indices")
        tf.identity(sp.dense_shape, name="sparse_shape")
        limits = tf1.placeholder(tf.int32, [None], name="limits")
        r = tf.ragged.range(limits)
        tf.identity(r.flat_values, name="range_values")
        tf.identity(r.row_splits, name="range_splits")
        feed = {values: [1., 2., 3.], splits: [0, 2, 2, 3], limits: [2, 0, 3]}
        names = ["dense", "sparse_indices", "sparse_shape", "range_values", "range_splits"]
        with tf1.Session() as sess:
            got = sess.run([n + ":0" for n in names], feed)
    with open(os.path.join(HERE, "ragged_graph.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    return {n: encode(v) for n, v in zip(names, got)}


def validated_graph_def():
    """TF's validate=True assertions (in If ops), a ragged reduction and UnicodeDecode."""
    g = tf1.Graph()
    with g.as_default():
        values = tf1.placeholder(tf.float32, [None], name="values")
        splits = tf1.placeholder(tf.int64, [None], name="splits")
        rt = tf.RaggedTensor.from_row_splits(values, splits)
        tf.identity(tf.reduce_sum(rt, axis=1), name="sums")
        words = tf.strings.unicode_decode(tf.constant(["h\u00e9", "x"]), "UTF-8")
        tf.identity(words.flat_values, name="points")
        with tf1.Session() as sess:
            got = sess.run(["sums:0", "points:0"], {values: [1., 2., 3.], splits: [0, 2, 3]})
    with open(os.path.join(HERE, "ragged_validated_graph.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    return {"sums": encode(got[0]), "points": encode(got[1])}


def main():
    data = {"cases": record(ragged_cases.CASES, False),
            "errors": record(ragged_cases.ERROR_CASES, True),
            "graph": graph_def(), "validated_graph": validated_graph_def()}
    with open(os.path.join(HERE, "ragged.json"), "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
