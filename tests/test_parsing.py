"""``parse_single_example`` / ``parse_example`` (``ops/parsing.py``, ``kernels/reference/
parsing.py``): the Examples TF wrote (tests/data/tf_records) parse to the values TF's
own parse gave (expected.json), as graph ops on fed strings, inside ``dataset.map``,
and from a GraphDef TF built; bad features are InvalidArgumentErrors naming key and node.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.unsupported import UnsupportedTF1Error
from test_data import drain

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_records")
with open(os.path.join(HERE, "expected.json")) as _f:
    EXPECTED = json.load(_f)
SERIALIZED = [bytes.fromhex(e) for e in EXPECTED["examples"]]
DTYPES = {"ids": np.int64, "label": np.int64, "name": object, "pixels": np.float32,
          "weight": np.float32}


def features():
    """make_records.py's FEATURES."""
    return {"label": ds.io.FixedLenFeature([], ds.int64),
            "pixels": ds.io.FixedLenFeature([2, 2], ds.float32),
            "name": ds.io.FixedLenFeature([], ds.string),
            "ids": ds.io.FixedLenFeature([3], ds.int64),
            "weight": ds.io.FixedLenFeature([], ds.float32, default_value=1.0)}


def tf_value(index: int, key: str) -> np.ndarray:
    """What TF's parse_single_example gave for example ``index``'s ``key``."""
    value = EXPECTED["parsed"][index][key]
    if key == "name":
        return np.array(bytes.fromhex(value), dtype=object)
    return np.array(value, dtype=DTYPES[key])


def assert_parsed(got: dict, index: int):
    assert sorted(got) == sorted(DTYPES)
    for key, value in got.items():
        want = tf_value(index, key)
        value = np.asarray(value, dtype=object) if isinstance(value, bytes) else \
            np.asarray(value)          # a scalar string is fetched as bytes, as TF's
        assert value.dtype == want.dtype and value.shape == want.shape, key
        np.testing.assert_array_equal(value, want)


def test_parse_single_example_on_a_fed_string():
    serialized = ds.placeholder(ds.string, [])
    parsed = ds.io.parse_single_example(serialized, features())
    assert parsed["pixels"].shape.as_list() == [2, 2] and parsed["name"].dtype == ds.string
    assert parsed["label"].op.type == "ParseSingleExample"
    with ds.Session() as sess:
        for index, example in enumerate(SERIALIZED):
            assert_parsed(sess.run(parsed, {serialized: example}), index)


def test_parse_example_on_a_batch():
    batch = ds.placeholder(ds.string, [None])
    parsed = ds.parse_example(batch, features())
    assert parsed["pixels"].shape.as_list() == [None, 2, 2]
    assert parsed["ids"].op.type == "ParseExampleV2"
    with ds.Session() as sess:
        got = sess.run(parsed, {batch: SERIALIZED})
        empty = sess.run(parsed, {batch: np.array([], dtype=object)})
    for index in range(len(SERIALIZED)):
        assert_parsed({k: v[index] for k, v in got.items()}, index)
    assert empty["pixels"].shape == (0, 2, 2) and empty["label"].dtype == np.int64


def test_a_tfrecord_input_pipeline_of_examples():
    dataset = ds.data.TFRecordDataset(os.path.join(HERE, "examples.tfrecord")) \
        .map(lambda record: ds.parse_single_example(record, features())) \
        .map(lambda f: (f["pixels"] * 2.0, f["label"])).batch(2)
    assert [s.as_list() for s in dataset.output_shapes] == [[None, 2, 2], [None]]
    with ds.Session() as sess:
        batches = drain(sess, dataset.make_one_shot_iterator().get_next())
    assert [len(b[1]) for b in batches] == [2, 1]
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]),
                                  [tf_value(i, "label") for i in range(3)])
    np.testing.assert_array_equal(np.concatenate([b[0] for b in batches]),
                                  [tf_value(i, "pixels") * 2 for i in range(3)])


def test_a_graph_def_tf_built_with_parse_ops_runs():
    # TF 2.21's parse_single_example builds ParseExampleV2 over a reshaped scalar
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(ds.read_graph_def(os.path.join(HERE, "parse_graph.pb")),
                            name="")
    assert {op.type for op in graph.get_operations()} >= {"ParseExampleV2"}
    with ds.Session(graph=graph) as sess:
        for index, example in enumerate(SERIALIZED):
            assert_parsed({k: sess.run(f"single/{k}:0", {"one:0": example})
                           for k in DTYPES}, index)
        together = {k: sess.run(f"batched/{k}:0", {"batch:0": SERIALIZED}) for k in DTYPES}
    for index in range(len(SERIALIZED)):
        assert_parsed({k: v[index] for k, v in together.items()}, index)


@pytest.mark.parametrize("feature, pattern", [
    (("weight", ds.io.FixedLenFeature([], ds.float32)),
     r"Feature: weight \(data type: float\) is required but could not be found"),
    (("label", ds.io.FixedLenFeature([], ds.float32)),
     r"Key: label, Index: 0.  Data types don't match. Data type: int64 but expected "
     r"type: float"),
    (("pixels", ds.io.FixedLenFeature([3], ds.float32)),
     r"Key: pixels, Index: 0.  Number of float values != expected.  Values size: 4 but "
     r"output shape: \[3\]"),
])
def test_bad_features_are_invalid_arguments_naming_key_and_node(feature, pattern):
    key, spec = feature
    serialized = ds.placeholder(ds.string, [])
    batch = ds.placeholder(ds.string, [None])
    single = ds.parse_single_example(serialized, {key: spec}, name="single")
    batched = ds.parse_example(batch, {key: spec}, name="batched")
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match=pattern) as info:
            sess.run(single, {serialized: SERIALIZED[1]})
        assert info.value.node_name == single[key].op.name
        with pytest.raises(InvalidArgumentError, match=f"Name: <unknown>, {pattern}"):
            sess.run(batched, {batch: SERIALIZED[1:]})
    example_names = ds.parse_example(batch, {key: spec}, example_names=["ex1", "ex2"])
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match=f"Name: ex1, {pattern}"):
            sess.run(example_names, {batch: SERIALIZED[1:]})


def test_a_missing_feature_inside_map_fails_get_next():
    spec = {"weight": ds.io.FixedLenFeature([], ds.float32)}
    value = ds.data.Dataset.from_tensor_slices(np.array(SERIALIZED, dtype=object)) \
        .map(lambda s: ds.parse_single_example(s, spec)["weight"]) \
        .make_one_shot_iterator().get_next()
    with ds.Session() as sess:
        assert sess.run(value) == np.float32(0.75)
        with pytest.raises(InvalidArgumentError, match="Feature: weight .* is required"):
            sess.run(value)


def test_bytes_that_are_not_an_example():
    serialized = ds.placeholder(ds.string, [])
    parsed = ds.parse_single_example(serialized, features())
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="Could not parse example input"):
            sess.run(parsed, {serialized: b"\xff\xff\xff"})


def test_bad_feature_specs_are_build_time_errors():
    serialized = ds.placeholder(ds.string, [])
    with pytest.raises(ValueError, match="need to be known"):
        ds.parse_single_example(serialized, {"a": ds.io.FixedLenFeature([None], ds.int64)})
    with pytest.raises(ValueError, match="int64, float32 and string"):
        ds.parse_single_example(serialized, {"a": ds.io.FixedLenFeature([], ds.int32)})
    with pytest.raises(ValueError, match="default_value has 2 elements"):
        ds.parse_single_example(serialized, {
            "a": ds.io.FixedLenFeature([3], ds.int64, default_value=[1, 2])})
    with pytest.raises(ValueError, match="scalar string"):
        ds.parse_single_example(ds.placeholder(ds.string, [2]), features())


def test_ragged_features_are_unsupported():
    with pytest.raises(UnsupportedTF1Error, match="tf.io.RaggedFeature is not supported.*"
                                                  "FixedLenFeature"):
        ds.io.RaggedFeature(ds.int64)
    assert ds.VarLenFeature is ds.io.VarLenFeature


def test_defaults_fill_missing_features_of_any_shape():
    spec = {"absent": ds.io.FixedLenFeature([2], ds.string, default_value=["x", "y"]),
            "gone": ds.io.FixedLenFeature([2, 1], ds.int64, default_value=[[4], [5]])}
    parsed = ds.parse_single_example(SERIALIZED[0], spec)
    with ds.Session() as sess:
        got = sess.run(parsed)
    assert list(got["absent"]) == [b"x", b"y"]
    np.testing.assert_array_equal(got["gone"], [[4], [5]])


def test_a_gpu_session_parses_on_the_cpu():
    from fake_gpu import fake_gpus

    with fake_gpus(1, without={"ParseSingleExample", "ParseExampleV2"}):
        serialized = ds.placeholder(ds.string, [])
        pixels = ds.parse_single_example(serialized, features())["pixels"]
        doubled = pixels * 2.0
        # (soft placement: the defaults' string constants have no GPU kernel either)
        options = ds.SessionOptions(device="gpu:0", allow_soft_placement=True)
        with ds.Session(options=options) as sess:
            np.testing.assert_array_equal(sess.run(doubled, {serialized: SERIALIZED[0]}),
                                          tf_value(0, "pixels") * 2)
            placed = sess.placement()
    assert placed[pixels.op.name].endswith("CPU:0") and placed[doubled.op.name].endswith("GPU:0")


# --- VarLenFeature: SparseTensors (tests/data/make_tf_sparse.py recorded TF's parse) -----------

with open(os.path.join(HERE, "..", "tf_sparse_parse.json")) as _f:
    SPARSE_EXPECTED = json.load(_f)
SPARSE_SERIALIZED = [bytes.fromhex(e) for e in SPARSE_EXPECTED["examples"]]
SPARSE_DTYPES = {"ids": np.int64, "w": np.float32, "s": object, "label": np.int64}


def sparse_features():
    return {"ids": ds.io.VarLenFeature(ds.int64), "w": ds.io.VarLenFeature(ds.float32),
            "s": ds.io.VarLenFeature(ds.string),
            "label": ds.io.FixedLenFeature([], ds.int64, default_value=0)}


def _tf_array(value, dtype) -> np.ndarray:
    if isinstance(value, dict):               # strings, as hex
        array = np.empty(len(value["hex"]), dtype=object)
        array[:] = [bytes.fromhex(h) for h in value["hex"]]
        return array.reshape(value["shape"])
    return np.array(value, dtype=dtype)


def assert_tf_parsed(got: dict, expected: dict):
    assert sorted(got) == sorted(expected)
    for key, want in expected.items():
        value = got[key]
        if isinstance(want, dict) and "indices" in want:
            assert isinstance(value, ds.SparseTensorValue), key
            indices = np.array(want["indices"], np.int64).reshape(-1, len(want["dense_shape"]))
            for part, w in (("indices", indices),
                            ("values", _tf_array(want["values"], SPARSE_DTYPES[key])),
                            ("dense_shape", np.array(want["dense_shape"], np.int64))):
                g = np.asarray(getattr(value, part))
                assert g.dtype == w.dtype and g.shape == w.shape, (key, part)
                np.testing.assert_array_equal(g, w, err_msg=f"{key} {part}")
        else:
            np.testing.assert_array_equal(value, np.array(want, SPARSE_DTYPES[key]))


def test_var_len_features_parse_to_tf_sparse_tensor_values():
    one = ds.placeholder(ds.string, [])
    batch = ds.placeholder(ds.string, [None])
    single = ds.io.parse_single_example(one, sparse_features())
    batched = ds.io.parse_example(batch, sparse_features())
    assert isinstance(single["ids"], ds.SparseTensor) and single["ids"].dtype == ds.int64
    assert single["ids"].indices.shape.as_list() == [None, 1]
    assert batched["s"].indices.shape.as_list() == [None, 2] and batched["s"].shape.ndims == 2
    # TF's output order: every sparse key's indices, then values, then shapes, then dense
    op = batched["ids"].indices.op
    assert [t.name for t in (batched["ids"].indices, batched["s"].values,
                             batched["w"].dense_shape, batched["label"])] == \
        [f"{op.name}:{k}" for k in (0, 4, 8, 9)]
    assert op.get_attr("num_sparse") == 3
    with ds.Session() as sess:
        for serialized, want in zip(SPARSE_SERIALIZED, SPARSE_EXPECTED["alone"]):
            assert_tf_parsed(sess.run(single, {one: serialized}), want)
        assert_tf_parsed(sess.run(batched, {batch: SPARSE_SERIALIZED}),
                         SPARSE_EXPECTED["batch"])
        empty = sess.run(batched, {batch: np.array([], dtype=object)})
    assert empty["ids"].indices.shape == (0, 2) and list(empty["ids"].dense_shape) == [0, 0]


def test_a_graph_def_tf_wrote_with_var_len_features_runs():
    # TF 2.21's parse ops (ParseExampleV2 on a scalar and on a vector) and TF 1.x's
    # ParseSingleExample with sparse keys
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(ds.read_graph_def(os.path.join(HERE, "..", "tf_sparse_parse.pb")),
                            name="")
    assert {op.type for op in graph.get_operations()} >= {"ParseExampleV2",
                                                           "ParseSingleExample"}

    def fetch(sess, prefix, feed):
        names = {k: [f"{prefix}/{k}/{p}:0" for p in ("indices", "values", "dense_shape")]
                 for k in ("ids", "s", "w")}
        got = sess.run({**names, "label": f"{prefix}/label:0"}, feed)
        return {k: ds.SparseTensorValue(*v) if k != "label" else v for k, v in got.items()}

    with ds.Session(graph=graph) as sess:
        for serialized, want in zip(SPARSE_SERIALIZED, SPARSE_EXPECTED["alone"]):
            assert_tf_parsed(fetch(sess, "single", {"one:0": serialized}), want)
            assert_tf_parsed(fetch(sess, "raw", {"one:0": serialized}), want)
        assert_tf_parsed(fetch(sess, "batched", {"batch:0": SPARSE_SERIALIZED}),
                         SPARSE_EXPECTED["batch"])


def test_a_var_len_feature_of_another_kind_names_key_and_example():
    one = ds.placeholder(ds.string, [])
    batch = ds.placeholder(ds.string, [None])
    spec = {"ids": ds.io.VarLenFeature(ds.float32)}
    single = ds.parse_single_example(one, spec)["ids"]
    batched = ds.parse_example(batch, spec)["ids"]
    dense = ds.parse_example(batch, {"ids": ds.io.FixedLenFeature([1], ds.float32, [0.0])})
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="Key: ids.  Data types don't match. "
                                                       "Expected type: float, Actual type: "
                                                       "int64") as info:
            sess.run(single, {one: SPARSE_SERIALIZED[0]})
        assert info.value.node_name == single.op.name
        # the third example is the first with ids: TF's Index is its place in the batch
        for fetch, what in ((batched, "Expected type: float, Actual type: int64"),
                            (dense, "Data type: int64 but expected type: float")):
            with pytest.raises(InvalidArgumentError, match=f"Name: <unknown>, Key: ids, "
                                                           f"Index: 2.  Data types don't "
                                                           f"match. {what}"):
                sess.run(fetch, {batch: [SPARSE_SERIALIZED[k] for k in (1, 3, 2, 0)]})
