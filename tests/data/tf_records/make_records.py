"""Writes TFRecord files and Example protos with real TensorFlow, and records what TF
reads back from them.

Run with the peers interpreter (TensorFlow is only needed to regenerate these files):

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/tf_records/make_records.py

It writes, next to this script:
  records.tfrecord             RECORDS framed by tf.io.TFRecordWriter (no compression)
  records.tfrecord.gz          the same records, TFRecordOptions compression "GZIP"
  records.tfrecord.zlib        ... and "ZLIB"
  examples.tfrecord            the serialized tf.train.Examples of EXAMPLES
  parse_graph.pb               a GraphDef: placeholders "one" (a scalar string) and
                               "batch" (a vector) into ParseSingleExample and
                               ParseExampleV2 over FEATURES, outputs "single/<key>" and
                               "batched/<key>" (Identity nodes)
  expected.json                the records (hex), each Example's SerializeToString (hex;
                               also with deterministic=True, which sorts map keys),
                               and what tf.parse_single_example gave for FEATURES
"""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)

HERE = os.path.dirname(os.path.abspath(__file__))

RECORDS = [b"", b"a", b"hello world", bytes(range(256)), b"x" * 1000]

# label: int64 scalar; pixels: 4 floats; name: bytes; ids: 3 int64s; weight: a float
# absent from the second example (its default then applies).
EXAMPLES = [
    {"label": 7, "pixels": [0.5, -1.0, 2.25, 1e-3], "name": b"first", "ids": [1, 2, 3],
     "weight": 0.75},
    {"label": -3, "pixels": [1.0, 2.0, 3.0, 4.0], "name": b"\x00second\xff",
     "ids": [2 ** 40, -1, 0]},
    {"label": 0, "pixels": [0.0, 0.0, 0.0, 0.0], "name": b"", "ids": [9, 8, 7],
     "weight": -2.5},
]


def _example(values: dict):
    feature = {}
    for key, value in values.items():
        if isinstance(value, bytes):
            feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))
        elif isinstance(value, float) or (isinstance(value, list)
                                          and isinstance(value[0], float)):
            floats = value if isinstance(value, list) else [value]
            feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=floats))
        else:
            ints = value if isinstance(value, list) else [value]
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=ints))
    return tf.train.Example(features=tf.train.Features(feature=feature))


def _features():
    return {"label": tf.FixedLenFeature([], tf.int64),
            "pixels": tf.FixedLenFeature([2, 2], tf.float32),
            "name": tf.FixedLenFeature([], tf.string),
            "ids": tf.FixedLenFeature([3], tf.int64),
            "weight": tf.FixedLenFeature([], tf.float32, default_value=1.0)}


def _write(path, records, options=None):
    with tf.io.TFRecordWriter(path, options) as writer:
        for record in records:
            writer.write(record)


def main():
    _write(os.path.join(HERE, "records.tfrecord"), RECORDS)
    for kind, suffix in (("GZIP", "gz"), ("ZLIB", "zlib")):
        _write(os.path.join(HERE, f"records.tfrecord.{suffix}"), RECORDS,
               tf.io.TFRecordOptions(compression_type=kind))
    serialized = [_example(e).SerializeToString() for e in EXAMPLES]
    _write(os.path.join(HERE, "examples.tfrecord"), serialized)

    # what TF reads back: the records of each file, and the parsed examples
    for suffix, kind in (("", ""), (".gz", "GZIP"), (".zlib", "ZLIB")):
        path = os.path.join(HERE, "records.tfrecord" + suffix)
        assert list(tf.io.tf_record_iterator(
            path, tf.io.TFRecordOptions(compression_type=kind))) == RECORDS
    graph = tf.Graph()
    with graph.as_default():
        placeholder = tf.placeholder(tf.string, [], name="one")
        batch = tf.placeholder(tf.string, [None], name="batch")
        parsed = tf.parse_single_example(placeholder, _features())
        batched = tf.parse_example(batch, _features())
        for key in parsed:
            tf.identity(parsed[key], name=f"single/{key}")
            tf.identity(batched[key], name=f"batched/{key}")
        with tf.Session() as sess:
            values = [sess.run(parsed, {placeholder: s}) for s in serialized]
            together = sess.run(batched, {batch: serialized})
        for key, value in together.items():
            assert all(np.array_equal(v[key], value[i]) for i, v in enumerate(values))
    with open(os.path.join(HERE, "parse_graph.pb"), "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    expected = {
        "records": [r.hex() for r in RECORDS],
        "examples": [s.hex() for s in serialized],
        # a map's order on the wire is unspecified; deterministic=True sorts the keys
        "examples_deterministic": [_example(e).SerializeToString(deterministic=True).hex()
                                   for e in EXAMPLES],
        "parsed": [{k: (v.hex() if isinstance(v, bytes) else np.asarray(v).tolist())
                    for k, v in sorted(value.items())} for value in values],
    }
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print("parsed", values)


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main()
