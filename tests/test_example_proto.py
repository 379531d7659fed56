"""``ds.train.Example`` and its parts (``proto/example.proto``): the bytes TF's
``tf.train.Example`` serializes (tests/data/tf_records/expected.json, written by TF
2.21 with make_records.py's EXAMPLES) are the bytes ours serialize, and parse back to
the same values."""

from __future__ import annotations

import json
import os

import numpy as np

import devsession as ds

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_records")
with open(os.path.join(HERE, "expected.json")) as _f:
    EXPECTED = json.load(_f)

# make_records.py's EXAMPLES, as TF was given them (same feature order)
EXAMPLES = [
    {"label": 7, "pixels": [0.5, -1.0, 2.25, 1e-3], "name": b"first", "ids": [1, 2, 3],
     "weight": 0.75},
    {"label": -3, "pixels": [1.0, 2.0, 3.0, 4.0], "name": b"\x00second\xff",
     "ids": [2 ** 40, -1, 0]},
    {"label": 0, "pixels": [0.0, 0.0, 0.0, 0.0], "name": b"", "ids": [9, 8, 7],
     "weight": -2.5},
]


def feature(value) -> ds.train.Feature:
    if isinstance(value, bytes):
        return ds.train.Feature(bytes_list=ds.train.BytesList(value=[value]))
    values = value if isinstance(value, list) else [value]
    if isinstance(values[0], float):
        return ds.train.Feature(float_list=ds.train.FloatList(value=values))
    return ds.train.Feature(int64_list=ds.train.Int64List(value=values))


def example(values: dict) -> ds.train.Example:
    return ds.train.Example(features=ds.train.Features(
        feature={k: feature(v) for k, v in values.items()}))


def test_examples_serialize_to_the_bytes_tf_wrote():
    # The order of a map's entries on the wire is unspecified (TF's own bytes for one
    # Example differ between runs); with deterministic=True both sort the keys.
    for values, tf_bytes, tf_sorted in zip(EXAMPLES, EXPECTED["examples"],
                                           EXPECTED["examples_deterministic"]):
        ours = example(values)
        assert ours.SerializeToString(deterministic=True) == bytes.fromhex(tf_sorted)
        assert sorted(ours.SerializeToString()) == sorted(bytes.fromhex(tf_bytes))
        assert ds.train.Example.FromString(bytes.fromhex(tf_bytes)) == ours


def test_tf_examples_parse_into_ours():
    second = ds.train.Example.FromString(bytes.fromhex(EXPECTED["examples"][1]))
    features = second.features.feature
    assert sorted(features) == ["ids", "label", "name", "pixels"]
    assert list(features["ids"].int64_list.value) == [2 ** 40, -1, 0]
    assert features["name"].bytes_list.value == [b"\x00second\xff"]
    assert features["label"].WhichOneof("kind") == "int64_list"
    np.testing.assert_array_equal(np.float32(features["pixels"].float_list.value),
                                  np.float32([1, 2, 3, 4]))


def test_examples_travel_in_tfrecord_files(tmp_path):
    path = str(tmp_path / "examples.tfrecord")
    with ds.io.TFRecordWriter(path) as writer:
        for values in EXAMPLES:
            writer.write(example(values).SerializeToString())
    tf_records = list(ds.io.tf_record_iterator(os.path.join(HERE, "examples.tfrecord")))
    assert tf_records == [bytes.fromhex(e) for e in EXPECTED["examples"]]
    assert [ds.train.Example.FromString(r) for r in ds.io.tf_record_iterator(path)] == \
        [ds.train.Example.FromString(r) for r in tf_records]


def test_sequence_examples_hold_feature_lists():
    sequence = ds.train.SequenceExample(
        context=ds.train.Features(feature={"length": feature(2)}),
        feature_lists=ds.train.FeatureLists(feature_list={"tokens": ds.train.FeatureList(
            feature=[feature([4, 5]), feature([6])])}))
    back = ds.train.SequenceExample.FromString(sequence.SerializeToString())
    assert back == sequence
    assert [list(f.int64_list.value) for f in back.feature_lists.feature_list["tokens"].feature] \
        == [[4, 5], [6]]
