"""SequenceExamples (``ops/sequence_parsing.py``, ``kernels/reference/sequence_parsing.py``)
and FixedLenSequenceFeature in ``parse_example``: the SequenceExamples TF wrote parse to
what TF 2.21 parsed (tests/data/tf_sequence_parse.json, made by
make_tf_sequence_parse.py), alone, as a batch with the lengths, inside ``dataset.map``
and from a GraphDef TF wrote (ParseSequenceExampleV2 and TF 1.x's
ParseSingleSequenceExample); bad inputs raise TF's errors with TF's wording.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.proto.example_pb2 import Example
from test_data import drain

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(HERE, "tf_sequence_parse.json")) as _f:
    TF = json.load(_f)
EXAMPLES = [bytes.fromhex(e) for e in TF["examples"]]


def context_features():
    return {"length": ds.io.FixedLenFeature([], ds.int64),
            "score": ds.io.FixedLenFeature([], ds.float32, default_value=-1.0),
            "tags": ds.io.VarLenFeature(ds.string)}


def sequence_features():
    return {"tokens": ds.io.FixedLenSequenceFeature([], ds.int64),
            "frames": ds.io.FixedLenSequenceFeature([2], ds.float32, allow_missing=True),
            "words": ds.io.VarLenFeature(ds.string)}


def tf_array(value) -> np.ndarray:
    if isinstance(value, dict) and "empty" in value:
        return np.zeros(value["shape"], dtype=value["empty"])
    if isinstance(value, dict):
        flat = [bytes.fromhex(s) for s in value["strings"]]
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
        return out.reshape(value["shape"])
    return np.asarray(value)


def assert_like_tf(got, want):
    """``got`` (fetched) equals TF's recorded ``want``: values, dtypes' kinds, shapes."""
    if isinstance(want, dict) and "indices" in want:
        assert isinstance(got, ds.SparseTensorValue)
        np.testing.assert_array_equal(got.indices, np.asarray(want["indices"]).reshape(
            -1, len(want["dense_shape"])))
        np.testing.assert_array_equal(got.dense_shape, want["dense_shape"])
        assert_like_tf(got.values, want["values"])
        return
    if isinstance(got, dict):
        assert sorted(got) == sorted(want)
        for key in got:
            assert_like_tf(got[key], want[key])
        return
    expected = tf_array(want)
    got = np.asarray(got, dtype=object) if isinstance(got, bytes) else np.asarray(got)
    assert got.shape == expected.shape
    if expected.dtype != object:
        assert got.dtype.kind == expected.dtype.kind
    np.testing.assert_array_equal(got, expected)


def test_parse_single_sequence_example_gives_tf_values():
    one = ds.placeholder(ds.string, [])
    context, sequence = ds.io.parse_single_sequence_example(
        one, context_features(), sequence_features())
    assert context["length"].op.type == "ParseSequenceExampleV2"
    assert sequence["frames"].shape.as_list() == [None, 2]
    assert sequence["words"].indices.shape.as_list() == [None, 2]
    assert ds.parse_single_sequence_example is ds.io.parse_single_sequence_example
    with ds.Session() as sess:
        for serialized, want in zip(EXAMPLES, TF["single"]):
            got = sess.run([context, sequence], {one: serialized})
            assert_like_tf(got[0], want[0])
            assert_like_tf(got[1], want[1])


def test_parse_sequence_example_pads_and_gives_the_lengths():
    batch = ds.placeholder(ds.string, [None])
    context, sequence, lengths = ds.io.parse_sequence_example(
        batch, context_features(), sequence_features())
    assert sequence["frames"].shape.as_list() == [None, None, 2]
    assert sorted(lengths) == ["frames", "tokens"]
    with ds.Session() as sess:
        got = sess.run([context, sequence, lengths], {batch: EXAMPLES})
    for part, want in zip(got, TF["batched"]):
        assert_like_tf(part, want)


def test_a_tfrecord_pipeline_of_sequence_examples(tmp_path):
    path = str(tmp_path / "seq.tfrecord")
    with ds.io.TFRecordWriter(path) as writer:
        for serialized in EXAMPLES:
            writer.write(serialized)

    def parse(record):
        context, sequence = ds.io.parse_single_sequence_example(
            record, context_features(), sequence_features())
        return context["length"], sequence["tokens"]
    dataset = ds.data.TFRecordDataset(path).map(parse).padded_batch(3, ([], [None]))
    with ds.Session() as sess:
        (length, tokens), = drain(sess, dataset.make_one_shot_iterator().get_next())
    assert_like_tf(length, TF["batched"][0]["length"])
    assert_like_tf(tokens, TF["batched"][1]["tokens"])


def test_a_graph_def_tf_wrote_with_sequence_parse_ops_runs():
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(ds.read_graph_def(os.path.join(HERE, "tf_sequence_parse.pb")),
                            name="")
    assert {op.type for op in graph.get_operations()} >= {"ParseSequenceExampleV2",
                                                           "ParseSingleSequenceExample"}
    names = [n for n in TF["graph"] if n not in ("round_trip", "x_bytes")]
    with ds.Session(graph=graph) as sess:
        got = sess.run([f"{n}:0" for n in names], {"one:0": EXAMPLES[0],
                                                   "batch:0": EXAMPLES})
    for name, value in zip(names, got):
        assert_like_tf(value, TF["graph"][name])


def _message(label: str) -> str:
    """The line of TF's recorded error that says what is wrong."""
    return TF["errors"][label]["message"].split("\n")[-2]


@pytest.mark.parametrize("label, sequence, context, feed, name", [
    ("missing_list", {"frames": ds.io.FixedLenSequenceFeature([2], ds.float32)}, None, 1,
     "ex1"),
    ("step_size", {"frames": ds.io.FixedLenSequenceFeature([3], ds.float32)}, None, 0,
     None),
    ("list_kind", {"tokens": ds.io.FixedLenSequenceFeature([], ds.float32)}, None, 0, None),
    ("sparse_list_kind", {"words": ds.io.VarLenFeature(ds.int64)}, None, 0, None),
    ("missing_context", None, {"score": ds.io.FixedLenFeature([], ds.float32)}, 1, None),
])
def test_bad_sequence_examples_raise_tf_errors(label, sequence, context, feed, name):
    one = ds.placeholder(ds.string, [])
    parsed = ds.io.parse_single_sequence_example(one, context, sequence, example_name=name)
    with ds.Session() as sess, pytest.raises(InvalidArgumentError) as info:
        sess.run(parsed, {one: EXAMPLES[feed]})
    assert _message(label) in str(info.value)
    assert info.value.node_name.endswith("ParseSequenceExampleV2")


def test_batch_errors_name_the_example():
    batch = ds.placeholder(ds.string, [None])
    required = {"frames": ds.io.FixedLenSequenceFeature([2], ds.float32)}
    named = ds.io.parse_sequence_example(batch, sequence_features=required,
                                         example_names=["first", "second"])
    uneven = ds.io.parse_single_sequence_example(batch[0], sequence_features=required)
    bad = ds.train.SequenceExample()
    for values in ([1, 2], [1, 2, 3]):
        bad.feature_lists.feature_list["frames"].feature.add().float_list.value.extend(values)
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError) as info:
            sess.run(named, {batch: EXAMPLES[:2]})
        assert _message("missing_list_batched") in str(info.value)
        with pytest.raises(InvalidArgumentError, match="example_names must be empty"):
            sess.run(named, {batch: EXAMPLES})
        with pytest.raises(InvalidArgumentError) as info:
            sess.run(uneven, {batch: [bad.SerializeToString()]})
        assert _message("step_size_second") in str(info.value)
        with pytest.raises(InvalidArgumentError, match=r"Invalid protocol message input, "
                                                       r"example id: <unknown>"):
            sess.run(uneven, {batch: [b"\xff\xff"]})


def test_bad_specs_are_tf_build_errors():
    one = ds.placeholder(ds.string, [])
    build = TF["build_errors"]
    with pytest.raises(ValueError, match=build["no_features"]["message"]):
        ds.io.parse_single_sequence_example(one)
    with pytest.raises(ValueError, match="Unsupported FixedLenSequenceFeature"):
        ds.io.parse_single_sequence_example(one, context_features={
            "x": ds.io.FixedLenSequenceFeature([], ds.int64)})
    with pytest.raises(ValueError, match=build["single_not_scalar"]["message"]):
        ds.io.parse_single_sequence_example(ds.placeholder(ds.string, [None]),
                                            sequence_features=sequence_features())
    with pytest.raises(ValueError, match="not fully defined"):
        ds.io.parse_single_sequence_example(one, sequence_features={
            "x": ds.io.FixedLenSequenceFeature([None], ds.int64)})
    with pytest.raises(ValueError, match=build["example_without_allow_missing"]["message"]):
        ds.io.parse_example(ds.placeholder(ds.string, [None]),
                            {"x": ds.io.FixedLenSequenceFeature([], ds.int64)})


def test_fixed_len_sequence_features_in_parse_example():
    recorded = TF["example_sequence"]
    examples = [bytes.fromhex(e) for e in recorded["examples"]]
    batch, one = ds.placeholder(ds.string, [None]), ds.placeholder(ds.string, [])
    parsed = ds.io.parse_example(batch, {
        "x": ds.io.FixedLenSequenceFeature([2], ds.float32, allow_missing=True,
                                           default_value=-1.0),
        "s": ds.io.FixedLenSequenceFeature([], ds.string, allow_missing=True)})
    single = ds.io.parse_single_example(one, {
        "x": ds.io.FixedLenSequenceFeature([2], ds.float32, allow_missing=True)})
    assert parsed["x"].shape.as_list() == [None, None, 2]
    assert parsed["x"].op.type == single["x"].op.type == "ParseExampleV2"
    odd = ds.train.Example()
    odd.features.feature["x"].float_list.value.extend([1, 2, 3])
    with ds.Session() as sess:
        assert_like_tf(sess.run(parsed, {batch: examples}), recorded["parsed"])
        assert_like_tf(sess.run(single, {one: examples[0]}), recorded["single"])
        with pytest.raises(InvalidArgumentError) as info:
            sess.run(parsed, {batch: [odd.SerializeToString()]})
    assert recorded["odd"]["message"].split("\n")[-2] in str(info.value)


TENSORS = {"f32": np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5,
           "i64": np.array(-7, np.int64), "i32": np.array([1, -2, 3], np.int32),
           "f64": np.array([[0.1]], np.float64), "b": np.array([True, False]),
           "u8": np.array([0, 255], np.uint8), "f16": np.array([1.5, -2], np.float16),
           "s": np.array([b"ab", b"", b"\x00z"], object), "empty": np.zeros((0, 2), np.float32)}


@pytest.mark.parametrize("key", sorted(TENSORS))
def test_serialize_tensor_writes_tf_bytes_and_parse_tensor_reads_them(key):
    value = TENSORS[key]
    dtype = ds.string if value.dtype == object else ds.as_dtype(value.dtype)
    serialized = ds.io.serialize_tensor(ds.constant(value, dtype=dtype))
    text = ds.placeholder(ds.string, [])
    back = ds.io.parse_tensor(text, dtype)
    assert serialized.op.type == "SerializeTensor" and back.op.type == "ParseTensor"
    with ds.Session() as sess:
        got = sess.run(serialized)
        assert got == bytes.fromhex(TF["serialize_tensor"][key])
        parsed = sess.run(back, {text: got})
    assert parsed.shape == value.shape
    np.testing.assert_array_equal(parsed, value)


def test_parse_tensor_errors_and_a_tf_graph_round_trip():
    text = ds.placeholder(ds.string, [])
    with ds.Session() as sess:
        for label, dtype, data in (("dtype", ds.int32, TF["serialize_tensor"]["f32"]),
                                   ("garbage", ds.float32, "ff01")):
            with pytest.raises(InvalidArgumentError) as info:
                sess.run(ds.io.parse_tensor(text, dtype), {text: bytes.fromhex(data)})
            assert TF["parse_tensor_errors"][label]["message"].split("\n")[-2] in \
                str(info.value)
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(ds.read_graph_def(os.path.join(HERE, "tf_sequence_parse.pb")),
                            name="")
    with ds.Session(graph=graph) as sess:
        back, data = sess.run(["round_trip:0", "x_bytes:0"],
                              {"x:0": np.array([[1, 2, 3]], np.float32)})
    assert_like_tf(back, TF["graph"]["round_trip"])
    assert_like_tf(data, TF["graph"]["x_bytes"])


def test_tf1_top_level_names_are_tf_ios():
    """TF1 has ``tf.serialize_tensor`` and ``tf.parse_tensor`` too, the same functions."""
    assert ds.serialize_tensor is ds.io.serialize_tensor
    assert ds.parse_tensor is ds.io.parse_tensor
    with ds.Session() as sess:
        got = sess.run(ds.parse_tensor(ds.serialize_tensor(ds.constant([[1.5], [-2.0]])),
                                       ds.float32))
    np.testing.assert_array_equal(got, [[1.5], [-2.0]])


def test_decode_json_example_writes_tf_bytes():
    """JSON Examples (protobuf's mapping: int64s as strings, bytes as base64) become the
    Examples TF 2.21 wrote for them (the same message; TF's JSON parser writes repeated
    numbers unpacked, protobuf's serializer packed, which parse alike); JSON that is not
    an Example is TF's InvalidArgumentError naming the node."""
    recorded = TF["decode_json_example"]
    texts = ds.placeholder(ds.string, [None])
    decoded = ds.decode_json_example(texts)
    assert ds.decode_json_example is ds.io.decode_json_example
    assert (decoded.op.type, decoded.shape.as_list()) == ("DecodeJSONExample", [None])
    with ds.Session() as sess:
        got = sess.run(decoded, {texts: np.array(recorded["json"], object)})
        assert [Example.FromString(bytes(b)) for b in got] == \
            [Example.FromString(bytes.fromhex(h)) for h in recorded["bytes"]]
        assert sess.run(ds.io.parse_single_example(
            decoded[0], {"a": ds.io.VarLenFeature(ds.int64)})["a"].values,
            {texts: np.array(recorded["json"], object)}).tolist() == [1, -2]
        with pytest.raises(ds.errors.InvalidArgumentError,
                           match="Error while parsing JSON") as e:
            sess.run(ds.io.decode_json_example(ds.constant(['{"features": 3}']),
                                               name="bad_json"))
    assert recorded["error"]["class"] == "InvalidArgumentError"
    assert "bad_json" in str(e.value)
    with pytest.raises(TypeError, match="not in list of allowed values: string"):
        ds.decode_json_example(ds.constant([1]))
