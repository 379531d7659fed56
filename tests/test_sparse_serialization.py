"""ds.io.serialize_sparse, serialize_many_sparse, deserialize_many_sparse (and the raw
DeserializeSparse) against TF 2.21's bytes, values, shapes and errors
(tests/data/sparse_serialization.json, written by make_sparse_serialization.py; the
older tf_sequence_parse.json holds a few more of TF's strings)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from sparse_serialization_cases import ERRORS, SPARSE, error_rows, sparse_value

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "data", "sparse_serialization.json")) as _f:
    TF = json.load(_f)
with open(os.path.join(HERE, "data", "tf_sequence_parse.json")) as _f:
    OLDER = json.load(_f)


def _hex(array):
    return [s.hex() for s in np.asarray(array).reshape(-1)]


def _check_sparse(got, want: dict):
    assert np.asarray(got.indices).tolist() == want["indices"]
    assert np.asarray(got.dense_shape).tolist() == want["dense_shape"]
    values = want["values"]
    if "strings" in values:
        assert _hex(got.values) == values["strings"]
    else:
        assert got.values.dtype == np.dtype(values["dtype"])
        assert got.values.tolist() == values["list"]


def _rows(hex_rows):
    return np.array([[bytes.fromhex(s) for s in row] for row in hex_rows], object)


@pytest.fixture(scope="module")
def cases():
    """Every case's devsession results, computed in one graph and one run."""
    graph = ds.Graph()
    fetches = {}
    with graph.as_default():
        for name, case in SPARSE.items():
            sp = ds.SparseTensor(*(ds.constant(a) for a in sparse_value(case)))
            one = ds.io.serialize_sparse(sp)
            fetches[name] = {"one": one, "one_back": _deserialize(one, sp.dtype)}
            if len(case["shape"]) >= 2 and case["shape"][0]:
                many = ds.io.serialize_many_sparse(sp)
                fetches[name].update(many=many,
                                     many_back=ds.io.deserialize_many_sparse(many, sp.dtype))
        with ds.Session(graph=graph) as sess:
            return sess.run(fetches)


def _deserialize(serialized, dtype):
    op = ds.get_default_graph().create_op("DeserializeSparse", [serialized], {"dtype": dtype})
    return ds.SparseTensor(*op.outputs)


@pytest.mark.parametrize("name", sorted(SPARSE))
def test_bytes_and_values_are_tfs(cases, name):
    want, got = TF["cases"][name], cases[name]
    assert _hex(got["one"]) == want["one"]
    _check_sparse(got["one_back"], want["one_back"])
    if "many" in got:
        assert [_hex(r) for r in got["many"]] == want["many"]
        _check_sparse(got["many_back"], want["many_back"])


@pytest.mark.parametrize("name", sorted(SPARSE))
def test_tfs_strings_deserialize(name):
    """The strings TF wrote (not devsession's own) come back as TF read them."""
    want = TF["cases"][name]
    case = SPARSE[name]
    dtype = ds.as_dtype(case["dtype"])
    with ds.Graph().as_default(), ds.Session() as sess:
        rows = ds.placeholder(ds.string, [None, 3])
        one = ds.placeholder(ds.string, [3])
        got = sess.run({"one": _deserialize(one, dtype),
                        "many": ds.io.deserialize_many_sparse(rows, dtype)},
                       {one: _rows([want["one"]])[0],
                        rows: _rows(want["many"]) if want.get("many") else
                        _rows([want["one"]])})
    _check_sparse(got["one"], want["one_back"])
    if isinstance(want.get("many_back"), dict) and "indices" in want["many_back"]:
        _check_sparse(got["many"], want["many_back"])


def test_rows_of_different_widths_and_older_records():
    """Rows of one rank but different shapes: as wide as the widest (TF's strings)."""
    rows = OLDER["deserialize_rows"]
    with ds.Graph().as_default(), ds.Session() as sess:
        feed = ds.placeholder(ds.string, [None, 3])
        got = sess.run(ds.io.deserialize_many_sparse(feed, ds.float32), {feed: _rows(
            rows["rows"])})
        assert got.indices.tolist() == rows["result"]["indices"]
        assert got.values.tolist() == rows["result"]["values"]
        assert got.dense_shape.tolist() == rows["result"]["dense_shape"]
        three = sess.run(ds.io.deserialize_many_sparse(feed, ds.string), {feed: _rows(
            OLDER["serialize_many_sparse_3d"])})
        want = OLDER["deserialize_many_sparse"]
        assert three.indices.tolist() == want["indices"]
        assert _hex(three.values) == want["values"]["strings"]


def test_static_shapes_are_tfs():
    shapes = TF["shapes"]
    with ds.Graph().as_default():
        sp = ds.sparse_placeholder(ds.float32, shape=[None, None, None])
        assert ds.io.serialize_sparse(sp).shape.as_list() == shapes["serialize_sparse"]
        assert ds.io.serialize_many_sparse(sp).shape.as_list() == \
            shapes["serialize_many_sparse"]
        rows = ds.placeholder(ds.string, [None, 3])
        for rank, key in ((3, "deserialize_many_sparse_rank3"),
                          (None, "deserialize_many_sparse")):
            back = ds.io.deserialize_many_sparse(rows, ds.float32, rank=rank)
            assert [back.indices.shape.as_list(), back.values.shape.as_list(),
                    back.dense_shape.shape.as_list()] == shapes[key]
        grid = ds.placeholder(ds.string, [2, 4, 3])
        raw = _deserialize(grid, ds.float32)
        assert [t.shape.as_list() for t in (raw.indices, raw.values, raw.dense_shape)] == \
            shapes["deserialize_sparse_2x4"]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_tfs(name):
    kind, case = ERRORS[name]
    want = TF["errors"][name]
    with ds.Graph().as_default(), ds.Session() as sess:
        if kind == "serialize_many_sparse":
            sp = ds.SparseTensor(*(ds.placeholder_with_default(a, [None] * a.ndim)
                                   for a in sparse_value(case)))
            fetch, feed = ds.io.serialize_many_sparse(sp, name=name), None
        else:
            rows = ds.placeholder(ds.string, None)
            fetch = ds.io.deserialize_many_sparse(rows, ds.as_dtype(case["dtype"]), name=name)
            feed = {rows: error_rows(case, {k: v["one"] for k, v in TF["cases"].items()})}
        with pytest.raises(getattr(ds.errors, want["class"])) as error:
            sess.run(fetch, feed)
    assert want["message"].strip() in str(error.value)
    assert error.value.node_name == want["node"]


def test_variant_and_dense_inputs_are_type_errors():
    with ds.Graph().as_default():
        with pytest.raises(TypeError, match="variant"):
            ds.io.serialize_sparse(ds.SparseTensorValue([[0]], [1.0], [2]), out_type="variant")
        with pytest.raises(TypeError, match="SparseTensor"):
            ds.io.serialize_many_sparse(ds.constant([[1.0]]))
        with pytest.raises(TypeError):
            ds.io.deserialize_many_sparse(ds.constant([[1, 2, 3]]), ds.float32)
