"""Writes what TensorFlow computes when it parses SequenceExamples and serializes tensors,
for tests/test_sequence_parsing.py.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_sequence_parse.py

It writes, next to this script:

  tf_sequence_parse.json  the serialized SequenceExamples (hex); what TF's
                          parse_single_sequence_example gave for each, and
                          parse_sequence_example for all of them (with the lengths);
                          parse_example with FixedLenSequenceFeature(allow_missing);
                          the errors TF raised (class and message); the bytes of
                          serialize_tensor, serialize_sparse, serialize_many_sparse and
                          decode_json_example (hex) and deserialize_many_sparse's values
  tf_sequence_parse.pb    a GraphDef holding TF's ParseSequenceExampleV2 (placeholders
                          "one" and "batch"), TF 1.x's raw ParseSingleSequenceExample, and
                          SerializeTensor / ParseTensor; Identity outputs named in the
                          json's "graph" entry
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_parsing_ops

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))


def _feature(kind, values):
    if kind == "int64":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    if kind == "float":
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))


def sequence_example(context: dict, lists: dict) -> bytes:
    ex = tf.train.SequenceExample()
    for key, (kind, values) in context.items():
        ex.context.feature[key].CopyFrom(_feature(kind, values))
    for key, (kind, steps) in lists.items():
        fl = ex.feature_lists.feature_list[key]
        for step in steps:
            fl.feature.add().CopyFrom(_feature(kind, step))
    return ex.SerializeToString()


EXAMPLES = [
    sequence_example({"length": ("int64", [3]), "tags": ("bytes", [b"a", b"bc"]),
                      "score": ("float", [0.5])},
                     {"tokens": ("int64", [[4], [5], [6]]),
                      "frames": ("float", [[1, 2], [3, 4], [5, 6]]),
                      "words": ("bytes", [[b"x"], [], [b"y", b"z"]])}),
    sequence_example({"length": ("int64", [1])},
                     {"tokens": ("int64", [[7]]),
                      "words": ("bytes", [[b"w", b"v", b"u"]])}),
    sequence_example({"length": ("int64", [2]), "tags": ("bytes", [b"d"])},
                     {"tokens": ("int64", [[8], [9]]),
                      "frames": ("float", [[0.25, -1]])}),
]


def context_features():
    return {"length": tf.io.FixedLenFeature([], tf.int64),
            "score": tf.io.FixedLenFeature([], tf.float32, default_value=-1.0),
            "tags": tf.io.VarLenFeature(tf.string)}


def sequence_features():
    return {"tokens": tf.io.FixedLenSequenceFeature([], tf.int64),
            "frames": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
            "words": tf.io.VarLenFeature(tf.string)}


def _value(v):
    if isinstance(v, tf.SparseTensorValue):
        return {"indices": v.indices.tolist(), "values": _value(v.values),
                "dense_shape": v.dense_shape.tolist()}
    if isinstance(v, bytes):
        return {"strings": [v.hex()], "shape": []}
    v = np.asarray(v)
    if v.dtype == object:
        return {"strings": [s.hex() for s in v.reshape(-1)], "shape": list(v.shape)}
    if not v.size:                     # (an empty list would lose the shape)
        return {"empty": v.dtype.name, "shape": list(v.shape)}
    return v.tolist()


def _values(d: dict) -> dict:
    return {k: _value(v) for k, v in d.items()}


def _error(sess, fetch, feed) -> dict:
    try:
        sess.run(fetch, feed)
    except tf.errors.OpError as e:
        return {"class": type(e).__name__, "message": e.message}
    raise AssertionError("no error")


def main():
    out = {"examples": [e.hex() for e in EXAMPLES]}
    g = tf.Graph()
    with g.as_default(), tf.Session() as sess:
        one = tf.placeholder(tf.string, [], name="one")
        batch = tf.placeholder(tf.string, [None], name="batch")
        ctx, seq = tf.io.parse_single_sequence_example(
            one, context_features(), sequence_features(), name="single")
        out["single"] = [[_values(d) for d in sess.run([ctx, seq], {one: e})]
                         for e in EXAMPLES]
        bctx, bseq, blen = tf.io.parse_sequence_example(
            batch, context_features(), sequence_features(), name="batched")
        got = sess.run([bctx, bseq, blen], {batch: EXAMPLES})
        out["batched"] = [_values(d) for d in got]
        with_names = tf.io.parse_sequence_example(
            batch, sequence_features={"frames": tf.io.FixedLenSequenceFeature([2], tf.float32)},
            example_names=["first", "second"])
        bad_step = sequence_example({}, {"frames": ("float", [[1, 2], [1, 2, 3]]),
                                         "tokens": ("int64", [[1], [2]])})
        # errors: a required feature list missing, a step of another size, another kind
        required = tf.io.parse_single_sequence_example(
            one, sequence_features={"frames": tf.io.FixedLenSequenceFeature([2], tf.float32)},
            example_name="ex1")
        errors = {
            "missing_list": _error(sess, required, {one: EXAMPLES[1]}),
            "missing_list_batched": _error(sess, with_names, {batch: EXAMPLES[:2]}),
            "step_size_second": _error(sess, tf.io.parse_single_sequence_example(
                one, sequence_features={"frames": tf.io.FixedLenSequenceFeature([2], tf.float32)}),
                {one: bad_step}),
            "list_kind_second": _error(sess, tf.io.parse_sequence_example(
                batch, sequence_features={"tokens": tf.io.FixedLenSequenceFeature([], tf.float32)}),
                {batch: [EXAMPLES[0], bad_step]}),
            "step_size": _error(sess, tf.io.parse_single_sequence_example(
                one, sequence_features={"frames": tf.io.FixedLenSequenceFeature([3], tf.float32)}),
                {one: EXAMPLES[0]}),
            "list_kind": _error(sess, tf.io.parse_single_sequence_example(
                one, sequence_features={"tokens": tf.io.FixedLenSequenceFeature([], tf.float32)}),
                {one: EXAMPLES[0]}),
            "sparse_list_kind": _error(sess, tf.io.parse_single_sequence_example(
                one, sequence_features={"words": tf.io.VarLenFeature(tf.int64)}),
                {one: EXAMPLES[0]}),
            "missing_context": _error(sess, tf.io.parse_single_sequence_example(
                one, context_features={"score": tf.io.FixedLenFeature([], tf.float32)}),
                {one: EXAMPLES[1]}),
            "not_a_proto": _error(sess, ctx, {one: b"\xff\xff"}),
        }
        out["errors"] = errors
        build = {}
        for label, call in {
                "no_features": lambda: tf.io.parse_single_sequence_example(one),
                "unknown_dim": lambda: tf.io.parse_single_sequence_example(
                    one, sequence_features={"x": tf.io.FixedLenSequenceFeature([None], tf.int64)}),
                "seq_in_context": lambda: tf.io.parse_single_sequence_example(
                    one, context_features={"x": tf.io.FixedLenSequenceFeature([], tf.int64)}),
                "example_without_allow_missing": lambda: tf.io.parse_example(
                    batch, {"x": tf.io.FixedLenSequenceFeature([], tf.int64)}),
                "single_not_scalar": lambda: tf.io.parse_single_sequence_example(
                    batch, sequence_features=sequence_features())}.items():
            try:
                call()
                build[label] = None
            except Exception as e:
                build[label] = {"class": type(e).__name__, "message": str(e)}
        out["build_errors"] = build

        # parse_example with FixedLenSequenceFeature(allow_missing=True)
        examples = [tf.train.Example(features=tf.train.Features(feature={
            "x": _feature("float", v)})).SerializeToString() for v in ([1, 2, 3, 4], [5, 6])]
        examples.append(tf.train.Example().SerializeToString())
        parsed = tf.io.parse_example(batch, {
            "x": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True,
                                               default_value=-1.0),
            "s": tf.io.FixedLenSequenceFeature([], tf.string, allow_missing=True)})
        out["example_sequence"] = {"examples": [e.hex() for e in examples],
                                   "parsed": _values(sess.run(parsed, {batch: examples}))}
        one_parsed = tf.io.parse_single_example(one, {
            "x": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)})
        out["example_sequence"]["single"] = _values(sess.run(one_parsed, {one: examples[0]}))
        out["example_sequence"]["odd"] = _error(sess, parsed, {batch: [
            tf.train.Example(features=tf.train.Features(feature={
                "x": _feature("float", [1, 2, 3])})).SerializeToString()]})

        # serialize_tensor / parse_tensor
        tensors = {"f32": np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5,
                   "i64": np.array(-7, np.int64), "i32": np.array([1, -2, 3], np.int32),
                   "f64": np.array([[0.1]], np.float64), "b": np.array([True, False]),
                   "u8": np.array([0, 255], np.uint8), "f16": np.array([1.5, -2], np.float16),
                   "s": np.array([b"ab", b"", b"\x00z"], object),
                   "empty": np.zeros((0, 2), np.float32)}
        serialized = {k: sess.run(tf.io.serialize_tensor(tf.constant(v)))
                      for k, v in tensors.items()}
        out["serialize_tensor"] = {k: v.hex() for k, v in serialized.items()}
        text = tf.placeholder(tf.string, [])
        out["parse_tensor_errors"] = {
            "dtype": _error(sess, tf.io.parse_tensor(text, tf.int32),
                            {text: serialized["f32"]}),
            "garbage": _error(sess, tf.io.parse_tensor(text, tf.float32), {text: b"\xff\x01"}),
        }

        # serialize_sparse / serialize_many_sparse / deserialize_many_sparse
        sp = tf.SparseTensorValue(np.array([[0, 1], [2, 0], [2, 3]], np.int64),
                                  np.array([1.5, -2, 3], np.float32), np.array([3, 4], np.int64))
        spp = tf.sparse_placeholder(tf.float32, name="sp")
        out["serialize_sparse"] = [s.hex() for s in sess.run(tf.io.serialize_sparse(spp),
                                                            {spp: sp})]
        many = sess.run(tf.io.serialize_many_sparse(spp), {spp: sp})
        out["serialize_many_sparse"] = [[s.hex() for s in row] for row in many]
        sp3 = tf.SparseTensorValue(np.array([[0, 0, 1], [1, 1, 0], [1, 1, 2]], np.int64),
                                   np.array([b"a", b"b", b"c"], object),
                                   np.array([2, 2, 3], np.int64))
        spq = tf.sparse_placeholder(tf.string, name="sq")
        many3 = tf.io.serialize_many_sparse(spq)
        back = tf.io.deserialize_many_sparse(many3, tf.string)
        m3, b3 = sess.run([many3, back], {spq: sp3})
        out["serialize_many_sparse_3d"] = [[s.hex() for s in row] for row in m3]
        out["deserialize_many_sparse"] = _value(b3)
        # rows of different shapes: the result is as wide as the widest
        rows = tf.placeholder(tf.string, [None, 3])
        rows_of = [sess.run(tf.io.serialize_sparse(spp), {spp: v}) for v in (
            tf.SparseTensorValue(np.array([[1]], np.int64), np.array([2.0], np.float32),
                                 np.array([3], np.int64)),
            tf.SparseTensorValue(np.array([[0], [4]], np.int64), np.array([5, 6], np.float32),
                                 np.array([5], np.int64)))]
        out["deserialize_rows"] = {
            "rows": [[s.hex() for s in r] for r in rows_of],
            "result": _value(sess.run(tf.io.deserialize_many_sparse(rows, tf.float32),
                                      {rows: np.stack(rows_of)})),
            "dtype_error": _error(sess, tf.io.deserialize_many_sparse(rows, tf.int32),
                                  {rows: np.stack(rows_of)})}

        # decode_json_example
        jsons = ['{"features": {"feature": {"a": {"int64List": {"value": ["1", "-2"]}}, '
                 '"b": {"floatList": {"value": [0.5]}}, '
                 '"c": {"bytesList": {"value": ["eHk="]}}}}}', '{}']
        js = tf.placeholder(tf.string, [None])
        out["decode_json_example"] = {
            "json": jsons,
            "bytes": [b.hex() for b in sess.run(tf.io.decode_json_example(js), {js: jsons})],
            "error": _error(sess, tf.io.decode_json_example(js), {js: ['{"features": 3}']})}

    # a GraphDef holding the ops as TF writes them
    g = tf.Graph()
    names = {}
    with g.as_default():
        one = tf.placeholder(tf.string, [], name="one")
        batch = tf.placeholder(tf.string, [None], name="batch")
        ctx, seq = tf.io.parse_single_sequence_example(one, context_features(),
                                                       sequence_features())
        bctx, bseq, blen = tf.io.parse_sequence_example(batch, context_features(),
                                                        sequence_features())

        def ident(prefix, d):
            for k, v in d.items():
                if isinstance(v, tf.SparseTensor):
                    for part in ("indices", "values", "dense_shape"):
                        tf.identity(getattr(v, part), name=f"{prefix}/{k}/{part}")
                else:
                    tf.identity(v, name=f"{prefix}/{k}")
        ident("single_ctx", ctx)
        ident("single_seq", seq)
        ident("batch_ctx", bctx)
        ident("batch_seq", bseq)
        ident("batch_len", blen)
        cd = tf.constant(np.zeros([0], np.int64))
        raw = gen_parsing_ops.parse_single_sequence_example(
            one, feature_list_dense_missing_assumed_empty=tf.constant(["frames"]),
            context_sparse_keys=[tf.constant("tags")], context_dense_keys=[tf.constant("length")],
            feature_list_sparse_keys=[tf.constant("words")],
            feature_list_dense_keys=[tf.constant("frames"), tf.constant("tokens")],
            context_dense_defaults=[cd], debug_name=tf.constant("raw"),
            context_sparse_types=[tf.string], feature_list_dense_types=[tf.float32, tf.int64],
            context_dense_shapes=[[]], feature_list_sparse_types=[tf.string],
            feature_list_dense_shapes=[[2], []], name="raw")
        tf.identity(raw.context_dense_values[0], name="raw/length")
        tf.identity(raw.context_sparse_values[0], name="raw/tags")
        tf.identity(raw.feature_list_dense_values[0], name="raw/frames")
        tf.identity(raw.feature_list_dense_values[1], name="raw/tokens")
        tf.identity(raw.feature_list_sparse_indices[0], name="raw/words/indices")
        tf.identity(raw.feature_list_sparse_values[0], name="raw/words/values")
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        tf.identity(tf.io.parse_tensor(tf.io.serialize_tensor(x), tf.float32), name="round_trip")
        tf.identity(tf.io.serialize_tensor(x), name="x_bytes")
        names = [n.name for n in g.as_graph_def().node if n.op == "Identity"]
    with open(os.path.join(HERE, "tf_sequence_parse.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
    with g.as_default(), tf.Session() as sess:
        fetched = sess.run([g.get_tensor_by_name(n + ":0") for n in names],
                           {"one:0": EXAMPLES[0], "batch:0": EXAMPLES,
                            "x:0": np.array([[1, 2, 3]], np.float32)})
        out["graph"] = {n: _value(v) for n, v in zip(names, fetched)}
    with open(os.path.join(HERE, "tf_sequence_parse.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
