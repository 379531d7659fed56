"""tf.strings.ngrams, unsorted_segment_join, to_hash_bucket (TF's Hash64) and
tf.fingerprint: values as TF 2.21 gave them (tests/data/tf_string_joins.json, written by
tests/data/make_tf_string_joins.py from string_joins_cases.py), TF's own GraphDef of them
imported and run, and TF's errors."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
import string_joins_cases
from devsession.errors import InvalidArgumentError
from tf_recorded import DATA

with open(os.path.join(DATA, "tf_string_joins.json"), encoding="utf-8") as _f:
    RECORDED = json.load(_f)


def _assert_as_tf(key: str, got) -> None:
    want = RECORDED[key]
    got = np.asarray(got)
    assert list(got.shape) == want["shape"], key
    if "strings" in want:
        assert [bytes(s).decode("utf-8") for s in got.reshape(-1)] == want["strings"], key
    else:
        assert got.dtype.name == want["dtype"], key
        assert got.reshape(-1).tolist() == want["values"], key


def _static(key: str):
    dims = RECORDED[key]["static"]
    return ds.TensorShape(None if dims is None else [None if d < 0 else d for d in dims])


def test_values_and_static_shapes_are_tfs():
    with ds.Graph().as_default():
        outs = string_joins_cases.all_cases(ds)
        with ds.Session() as sess:
            values = sess.run(outs)
    assert set(outs) == set(RECORDED) and len(outs) == 28
    for key, tensor in outs.items():
        _assert_as_tf(key, values[key])
        assert tensor.shape.is_compatible_with(_static(key)), key


def test_tfs_graph_def_imports_and_runs():
    graph_def = ds.read_graph_def(os.path.join(DATA, "tf_string_joins.pb"))
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(graph_def, name="")
    types = {op.type for op in graph.get_operations()}
    assert {"StringNGrams", "UnsortedSegmentJoin", "StringToHashBucket", "Fingerprint"} <= types
    names = {key: case["tensor"] for key, case in RECORDED.items()}
    with ds.Session(graph=graph) as sess:
        values = sess.run(names)
    for key in names:
        _assert_as_tf(key, values[key])


def test_ngrams_argument_errors_are_tfs():
    with pytest.raises(ValueError, match="All ngram_widths must be greater than 0. Got 0"):
        ds.strings.ngrams(["a"], 0)
    with pytest.raises(ValueError, match=r"Data must have rank>0"):
        ds.strings.ngrams("a", 2)
    with pytest.raises(ValueError, match="Rank of data must be known"):
        ds.strings.ngrams(ds.placeholder(ds.string), 2)
    with pytest.raises(ValueError, match="padding_width must be greater than 0"):
        ds.strings.ngrams(["a"], 2, pad_values="x", padding_width=0)
    with pytest.raises(ValueError, match="pad_values must be provided"):
        ds.strings.ngrams(["a"], 2, padding_width=1)
    with pytest.raises(TypeError, match="pad_values must be a string, tuple of strings"):
        ds.strings.ngrams(["a"], 2, pad_values=3)


def test_ngrams_of_a_fed_batch_keep_its_rows():
    words = ds.placeholder(ds.string, [None, 3])
    grams = ds.strings.ngrams(words, 2, separator="+")
    with ds.Session() as sess:
        got = sess.run(grams, {words: [["a", "b", "c"], ["d", "e", "f"], ["g", "h", "i"]]})
    assert got.tolist() == [[b"a+b", b"b+c"], [b"d+e", b"e+f"], [b"g+h", b"h+i"]]


def test_string_ngrams_checks_its_splits_naming_the_node():
    op = ds.get_default_graph().create_op(
        "StringNGrams", [ds.constant(["a", "b"]), ds.constant([0, 3], ds.int64)],
        {"ngram_widths": (2,)}, name="grams")
    with ds.Session() as sess, pytest.raises(InvalidArgumentError, match="grams"):
        sess.run(op.outputs[0])


def test_segment_join_errors_are_tfs():
    ids = ds.placeholder(ds.int32, [3])
    joined = ds.strings.unsorted_segment_join(["a", "b", "c"], ids, 2, name="joined")
    with ds.Session() as sess:
        assert sess.run(joined, {ids: [1, 1, 0]}).tolist() == [b"c", b"ab"]
        for bad in ([1, -1, 0], [0, 2, 0]):
            with pytest.raises(InvalidArgumentError, match="joined.*segment_ids are not "
                               "allowed to exceed num_segments or to have negative"):
                sess.run(joined, {ids: bad})
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 3"):
        ds.strings.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1], 3)
    with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
        ds.strings.unsorted_segment_join(["a", "b"], [[0, 1]], 2)
    with pytest.raises(TypeError, match="holds bytes or str values, not int"):
        ds.strings.unsorted_segment_join([1, 2], [0, 1], 2)


def test_hash_bucket_and_fingerprint_errors_are_tfs():
    with pytest.raises(ValueError, match="less than minimum 1"):
        ds.string_to_hash_bucket(["a"], 0)
    with pytest.raises(ValueError, match="at least rank 1 but is rank 0"):
        ds.fingerprint("a")
    with pytest.raises(ValueError, match="Unsupported method: md5"):
        ds.fingerprint(["a"], method="md5")
    method = ds.placeholder(ds.string, [])
    printed = ds.fingerprint(["a"], method=method, name="printed")
    with ds.Session() as sess:
        assert sess.run(printed, {method: "farmhash64"}).shape == (1, 8)
        with pytest.raises(InvalidArgumentError, match="printed.*Unsupported fingerprint"):
            sess.run(printed, {method: "sha1"})


def test_ops_are_not_differentiable():
    x = ds.placeholder(ds.float32, [2, 2])
    assert ds.gradients(ds.cast(ds.fingerprint(x), ds.float32), x) == [None]
