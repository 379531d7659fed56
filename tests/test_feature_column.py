"""ds.feature_column against TensorFlow: the models of tests/data/feature_column_cases.py
(input_layer and linear_model over numeric, bucketized, categorical, indicator and
embedding columns; a few wide & deep training steps) give the values, variable names
and collections TF gave (tests/data/tf_feature_columns.npz), and the bad columns of
tests/data/feature_column_errors.py raise TF's errors (tf_feature_column_errors.json).
Both files are made by tests/data/make_tf_feature_columns.py."""

from __future__ import annotations

import json
import re
import os

import numpy as np
import pytest

import devsession as ds
import feature_column_cases
import feature_column_errors

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


RECORDED = np.load(os.path.join(DATA, "tf_feature_columns.npz"))
with open(os.path.join(DATA, "tf_feature_column_errors.json")) as _f:
    TF_ERRORS = json.load(_f)


def _flatten(prefix, value, into):
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}/{key}", item, into)
    else:
        into[prefix] = value


@pytest.mark.parametrize("name", sorted(feature_column_cases.CASES))
def test_case_matches_tensorflow(name):
    ours = {}
    _flatten(name, feature_column_cases.CASES[name](ds), ours)
    theirs = sorted(k for k in RECORDED if k.startswith(name + "/"))
    assert sorted(ours) == theirs
    for key in theirs:
        want = RECORDED[key]
        if want.dtype.kind == "U":                       # a JSON list (names, order)
            assert json.loads(str(want)) == ours[key], key
        else:
            got = np.asarray(ours[key])
            assert got.shape == want.shape, key
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6, err_msg=key)


@pytest.mark.parametrize("name", sorted(feature_column_errors.ERRORS))
def test_bad_column_raises_tensorflows_error(name):
    kind, message = TF_ERRORS[name]
    with ds.Graph().as_default():
        with pytest.raises({"ValueError": ValueError, "TypeError": TypeError}[kind]) as info:
            feature_column_errors.ERRORS[name](ds)
    got = str(info.value)
    # TF prints its own Tensor and dtype reprs inside a few messages; the rest is equal.
    got = re.sub(r"\bds\.(float32|int64|string)", r"tf.\1", got)
    if name == "input_layer_rank_zero":
        assert got.startswith(message.split("Given:")[0])
    else:
        assert got == message


def test_missing_names_are_reported_as_unsupported():
    from devsession.unsupported import UnsupportedTF1Error

    with pytest.raises(UnsupportedTF1Error,
                       match="tf.feature_column.sequence_categorical_column_with_identity"):
        ds.feature_column.sequence_categorical_column_with_identity("a", 10)


def test_bucketize_counts_boundaries_at_or_below():
    from devsession.ops.bucketize import bucketize

    values = np.array([[-5.0, 0.0, 0.5], [1.0, 1.5, 99.0]], np.float32)
    with ds.Graph().as_default(), ds.Session() as sess:
        got = sess.run(bucketize(values, [0.0, 1.0, 1.5]))
    np.testing.assert_array_equal(got, np.searchsorted([0.0, 1.0, 1.5], values, "right"))
    assert got.dtype == np.int32


def test_input_layer_reuses_a_shared_transformation_and_fills_cols_to_vars():
    fc = ds.feature_column
    with ds.Graph().as_default():
        ids = fc.categorical_column_with_identity("ids", 3)
        emb = fc.embedding_column(ids, 2, initializer=ds.ones_initializer())
        cols_to_vars = {}
        out = fc.input_layer({"ids": ds.constant([[0], [2]], ds.int64)},
                             [emb, fc.indicator_column(ids)], cols_to_vars=cols_to_vars)
        assert [v.name for v in cols_to_vars[emb]] == \
            ["input_layer/ids_embedding/embedding_weights:0"]
        assert cols_to_vars[fc.indicator_column(ids)] == []
        assert out.shape.as_list() == [2, 5]
        with ds.Session() as sess:
            sess.run(ds.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(out), [[1, 1, 1, 0, 0], [1, 1, 0, 0, 1]])


def test_linear_model_trains_with_non_trainable_columns_left_alone():
    fc = ds.feature_column
    with ds.Graph().as_default():
        x = fc.numeric_column("x")
        out = fc.linear_model({"x": ds.constant([[1.0], [2.0]])}, [x], trainable=False,
                              weight_collections=["wide"])
        assert ds.trainable_variables() == []
        assert [v.name for v in ds.get_collection("wide")] == \
            ["linear_model/x/weights:0", "linear_model/bias_weights:0"]
        assert out.shape.as_list() == [2, 1]
