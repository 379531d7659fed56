"""ds.sparse.bincount (TF's DenseCountSparseOutput and SparseCountSparseOutput, built as
TF's Python builds them) against TF 2.21 (tests/data/sparse_bincount.json, written by
make_sparse_bincount.py): entries, their order, dtypes, dense shapes, op types, TF's
InvalidArgumentError for a negative value and its ValueErrors."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from sparse_bincount_cases import CASES, ERRORS, RAW, RAW_ERRORS, VALUE_ERRORS

with open(os.path.join(os.path.dirname(__file__), "data", "sparse_bincount.json")) as _f:
    TF = json.load(_f)


def _input(data, dtype):
    if isinstance(data, dict):
        return ds.SparseTensor(np.array(data["indices"], np.int64).reshape(
                                   -1, len(data["shape"])),
                               np.array(data["values"], dtype),
                               np.array(data["shape"], np.int64))
    return ds.constant(np.array(data, dtype))


def _kwargs(kwargs, data=None):
    kwargs = dict(kwargs)
    if "weights" in kwargs:
        weights = np.array(kwargs["weights"], np.float32)
        kwargs["weights"] = _input(dict(data, values=weights), np.float32) \
            if isinstance(data, dict) else ds.constant(weights)
    return kwargs


@pytest.fixture(scope="module")
def counted():
    with ds.Graph().as_default():
        fetches, types = {}, {}
        for name, (data, dtype, kwargs) in CASES.items():
            sp = ds.sparse.bincount(_input(data, dtype), **_kwargs(kwargs, data))
            fetches[name], types[name] = sp, sp.indices.op.type
        with ds.Session() as sess:
            return sess.run(fetches), types


@pytest.mark.parametrize("name", sorted(CASES))
def test_counts_are_tfs(counted, name):
    got, types = counted[0][name], counted[1][name]
    want = TF["cases"][name]
    assert types == want["op"]
    assert got.indices.tolist() == want["indices"]
    assert got.values.dtype == np.dtype(want["dtype"])
    np.testing.assert_allclose(got.values, np.array(want["values"], want["dtype"]),
                               rtol=1e-6)
    assert got.dense_shape.tolist() == want["dense_shape"]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_a_negative_value_is_tfs_error(name):
    data, dtype, kwargs = ERRORS[name]
    want = TF["errors"][name]
    with ds.Graph().as_default():
        where = ds.placeholder_with_default(np.array(data, dtype), [None])
        sp = ds.sparse.bincount(where, name=name, **_kwargs(kwargs))
        with ds.Session() as sess, pytest.raises(getattr(ds.errors, want["class"])) as e:
            sess.run(sp)
    assert want["message"] in str(e.value)
    assert e.value.node_name == want["node"]


@pytest.mark.parametrize("name", sorted(VALUE_ERRORS))
def test_tfs_value_errors(name):
    data, dtype, kwargs = VALUE_ERRORS[name]
    with ds.Graph().as_default():
        with pytest.raises(ValueError) as e:
            ds.sparse.bincount(_input(data, dtype), **_kwargs(kwargs))
    assert str(e.value) == TF["value_errors"][name]


def test_static_shapes_and_refusals():
    with ds.Graph().as_default():
        rows = ds.sparse.bincount(ds.placeholder(ds.int64, [None, 3]), axis=-1)
        assert rows.indices.shape.as_list() == [None, 2]
        assert rows.dense_shape.shape.as_list() == [2]
        with pytest.raises(TypeError, match="int32, int64"):
            ds.sparse.bincount(ds.constant([1.5]))
        with pytest.raises(ValueError, match="must be a SparseTensor"):
            ds.sparse.bincount(_input(CASES["sparse_rows"][0], np.int64),
                               weights=ds.constant([1.0]))


def _raw(data, dtype, size, weights, binary_output, name):
    """DenseBincount or SparseBincount of a RAW case, as the recorder built TF's."""
    weights = np.array([] if weights is None else weights,
                       np.float32 if weights and isinstance(np.ravel(weights)[0], float)
                       else np.int32)
    size = ds.constant(np.array(size, dtype))
    graph = ds.get_default_graph()
    attrs = {"binary_output": binary_output}
    if isinstance(data, dict):
        sp = _input(data, dtype)
        inputs = [sp.indices, sp.values, sp.dense_shape, size, ds.constant(weights)]
        return graph.create_op("SparseBincount", inputs, attrs, name=name).outputs[0]
    values = ds.placeholder_with_default(np.array(data, dtype), np.shape(data))
    return graph.create_op("DenseBincount", [values, size, ds.constant(weights)], attrs,
                           name=name).outputs[0]


def test_tfs_dense_output_bincount_ops():
    with ds.Graph().as_default():
        fetches = {name: _raw(*case, name=name) for name, case in RAW.items()}
        assert fetches["dense_rows_binary"].shape.as_list() == [2, 4]
        assert fetches["dense_vector"].shape.as_list() == [5]
        with ds.Session() as sess:
            got = sess.run(fetches)
            for name, case in RAW_ERRORS.items():
                want = TF["raw_errors"][name]
                with pytest.raises(getattr(ds.errors, want["class"])) as e:
                    sess.run(_raw(*case, name=name))
                assert want["message"] in str(e.value) and e.value.node_name == want["node"]
    for name, value in got.items():
        want = TF["raw"][name]
        assert value.dtype == np.dtype(want["dtype"]) and list(value.shape) == want["shape"]
        np.testing.assert_allclose(value, np.reshape(want["value"], want["shape"]))


def test_math_bincount_counts_a_sparse_tensors_values():
    with ds.Graph().as_default(), ds.Session() as sess:
        sp = _input(CASES["sparse_axis0"][0], np.int32)
        assert sess.run(ds.math.bincount(sp, minlength=6)).tolist() == \
            TF["math_bincount_sparse"]
