"""tf.RaggedTensor and tf.ragged in graph mode against TF 2.21's values
(tests/data/ragged.json, recorded by tests/data/make_ragged.py from the cases in
tests/data/ragged_cases.py): values, dtypes, row splits and static shapes, elementwise
math, reductions, concat and stack through TF's ragged dispatch, TF's run-time errors,
and a GraphDef TF wrote with its ragged ops."""

import json
import os
import re

import numpy as np
import pytest

import devsession as ds
import ragged_cases
from devsession.errors import InvalidArgumentError

DATA = os.path.join(os.path.dirname(__file__), "data")
with open(os.path.join(DATA, "ragged.json")) as f:
    RECORDED = json.load(f)


def decode(entry):
    if "ragged" in entry:
        value = decode(entry["ragged"])
        for splits in reversed(entry["splits"]):
            value = ds.ragged.RaggedTensorValue(value, decode(splits))
        return value
    if "sparse" in entry:
        return ds.SparseTensorValue(*[decode(v) for v in entry["sparse"]])
    if "list" in entry:
        return [decode(v) for v in entry["list"]]
    if entry["dtype"] == "string":
        strings = np.empty(len(entry["array"]), object)
        strings[:] = [bytes.fromhex(v) for v in entry["array"]]
        return strings.reshape(entry["shape"])
    return np.array(entry["array"], entry["dtype"]).reshape(entry["shape"])


def assert_same(got, want, where=""):
    if isinstance(want, ds.ragged.RaggedTensorValue):
        assert isinstance(got, ds.ragged.RaggedTensorValue), where
        assert got.ragged_rank == want.ragged_rank, where
        for a, b in zip(got.nested_row_splits, want.nested_row_splits):
            assert_same(a, b, where + "/splits")
        assert_same(got.flat_values, want.flat_values, where + "/flat_values")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), where
        for a, b in zip(got, want):
            assert_same(a, b, where)
    else:
        got = np.asarray(got)
        assert got.shape == want.shape, where
        if want.dtype == object:
            assert got.tolist() == want.tolist(), where
        else:
            assert got.dtype == want.dtype, where
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=where)


def run(fetch, feed=None):
    with ds.Session() as sess:
        return sess.run(fetch, feed)


@pytest.mark.parametrize("name", sorted(ragged_cases.CASES))
def test_values_and_static_shapes_are_tfs(name):
    recorded = RECORDED["cases"][name]
    with ds.Graph().as_default():
        fetch = ragged_cases.CASES[name](ds)
        got = run(fetch)
    assert_same(got, decode(recorded["value"]), name)
    if recorded["shape"] is not None:
        mine = fetch.shape.as_list()
        want = recorded["shape"]
        assert len(mine) == len(want)
        # TF knows a uniform inner dimension's size (from_tensor's ragged_rank > 1,
        # boolean_mask's outer dimensions); devsession's partitions are all row splits.
        assert all(m is None or w is None or m == w for m, w in zip(mine, want)), (mine, want)
        if name in DEVSESSION_KNOWS_MORE:
            assert all(w is None or m == w for m, w in zip(mine, want)), (mine, want)
        elif name in TF_KNOWS_MORE:
            assert all(m is None or m == w for m, w in zip(mine, want)), (mine, want)
        else:
            assert mine == want, (mine, want)


# RaggedRange's shape function knows its rows from a vector of starts; TF's gather of
# ragged rows leaves them unknown.
DEVSESSION_KNOWS_MORE = {"gather_rows", "gather_rows_rank_2", "gather_no_rows"}

# TF's shape inference evaluates constant row splits and row ids (the rows of a slice,
# the number of rows from value_rowids); devsession's static shapes leave those unknown.
TF_KNOWS_MORE = {"boolean_mask_dense_rank_3", "from_nested_value_rowids", "from_sparse",
                 "from_value_rowids", "from_value_rowids_empty", "from_value_rowids_nrows",
                 "getitem_negative", "getitem_rank_2_row", "getitem_row", "getitem_slice",
                 "getitem_slice_empty", "getitem_slice_negative", "getitem_tuple",
                 "stack_dynamic_partitions", "reduce_mean_0", "reduce_min_0", "reduce_sum_0",
                 "bytes_split"}

ERROR_PHRASES = {
    "row_splits_not_zero": "Arguments to from_row_splits do not form a valid RaggedTensor:zero",
    "row_splits_decreasing": "do not form a valid RaggedTensor:monotonic",
    "row_splits_too_few_values": "Arguments to _from_row_partition do not form a valid "
                                 "RaggedTensor",
    "row_lengths_negative": "Arguments to from_row_lengths do not form a valid RowPartition",
    "value_rowids_unsorted": "Arguments to from_value_rowids do not form a valid "
                             "RowPartition",
    "range_zero_delta": "Requires delta != 0",
    "range_sizes_differ": "starts, limits, and deltas must have the same shape",
    "getitem_out_of_range": "out of bounds",
    "map_flat_values_splits_differ": "partitions have incompatible row_splits",
    "uniform_row_length_uneven": "assertion failed: [uniform_row_length] [2] [times nrows] "
                                 "[2] [must equal nvals] [3]",
    "unicode_decode_strict": "Invalid formatting on input string",
    "unicode_transcode_strict": "Invalid formatting on input string",
    "unicode_encode_strict": "Code point is out of range for Unicode, or is a surrogate.",
    "unicode_decode_unknown_encoding": "Could not create converter for input encoding: "
                                       "UTF-7-XYZ",
    "unicode_decode_bad_errors": "passed string 'bad' not in",
}


@pytest.mark.parametrize("name", sorted(ragged_cases.ERROR_CASES))
def test_errors_are_tfs(name):
    recorded = RECORDED["errors"][name]
    phrase = ERROR_PHRASES[name]
    if recorded["stage"] == "run":
        assert phrase in recorded["message"] or recorded["node"]
    else:
        assert phrase in recorded["message"]
    with ds.Graph().as_default():
        if recorded["stage"] == "build":
            with pytest.raises(getattr(__builtins__, recorded["error"], None) or ValueError,
                               match=phrase):
                ragged_cases.ERROR_CASES[name](ds)
            return
        fetch = ragged_cases.ERROR_CASES[name](ds)
        with pytest.raises(InvalidArgumentError, match=re.escape(phrase)) as info:
            run(fetch)
    if recorded["node"]:
        assert info.value.node_name.endswith(recorded["node"])


def test_tfs_graph_def_of_ragged_ops_imports_and_runs():
    graph_def = ds.GraphDef()
    with open(os.path.join(DATA, "ragged_graph.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    ops = {node.op for node in graph_def.node}
    assert {"RaggedRange", "RaggedTensorToTensor", "RaggedTensorToSparse"} <= ops
    with ds.Graph().as_default() as graph:
        ds.import_graph_def(graph_def, name="")
        want = RECORDED["graph"]
        feed = {"values:0": [1., 2., 3.], "splits:0": [0, 2, 2, 3], "limits:0": [2, 0, 3]}
        got = run([n + ":0" for n in sorted(want)], feed)
    for name, value in zip(sorted(want), got):
        assert_same(value, decode(want[name]), name)
    assert graph.get_operation_by_name("RaggedRange").type == "RaggedRange"


def test_tfs_graph_def_with_its_validation_assertions_imports_and_runs():
    graph_def = ds.GraphDef()
    with open(os.path.join(DATA, "ragged_validated_graph.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    assert {"If", "UnicodeDecode", "UnsortedSegmentSum"} <= {n.op for n in graph_def.node}
    want = RECORDED["validated_graph"]
    with ds.Graph().as_default():
        ds.import_graph_def(graph_def, name="")
        with ds.Session() as sess:
            sums, points = sess.run(["sums:0", "points:0"],
                                    {"values:0": [1., 2., 3.], "splits:0": [0, 2, 3]})
            assert_same(sums, decode(want["sums"]))
            assert_same(points, decode(want["points"]))
            with pytest.raises(InvalidArgumentError, match="valid RaggedTensor:monotonic"):
                sess.run("sums:0", {"values:0": [1., 2., 3.], "splits:0": [0, 2, 1, 3]})


def test_a_ragged_placeholder_is_fed_a_ragged_tensor_value():
    ph = ds.ragged.placeholder(ds.float32, 2, [2])
    assert ph.shape.as_list() == [None, None, None, 2]
    assert [t.op.type for t in (ph.flat_values, *ph.nested_row_splits)] == ["Placeholder"] * 3
    value = ds.ragged.constant_value([[[[1., 2.]], []], [[[3., 4.], [5., 6.]]]],
                                     ragged_rank=2)
    doubled = ds.ragged.map_flat_values(ds.multiply, ph, 2.)
    with ds.Session() as sess:
        got = sess.run(doubled, {ph: value})
        assert got.to_list() == [[[[2., 4.]], []], [[[6., 8.], [10., 12.]]]]
        fn = sess.make_callable(ph.row_lengths(), [ph])
        np.testing.assert_array_equal(fn(value), [2, 1])
        with pytest.raises(ValueError, match="ragged rank 1 to a RaggedTensor of ragged rank 2"):
            sess.run(ph.flat_values, {ph: ds.ragged.constant_value([[1.], []])})
        with pytest.raises(TypeError, match="RaggedTensorValue"):
            sess.run(ph.flat_values, {ph: [[1.], []]})


def test_ragged_tensor_value_and_fetch_structures():
    rt = ds.ragged.constant([[1, 2], [], [3]])
    got = run({"rt": rt, "both": [rt, rt.row_splits]})
    value = got["rt"]
    assert value.to_list() == [[1, 2], [], [3]]
    assert str(value) == "<tf.RaggedTensorValue [[1, 2], [], [3]]>"
    assert value.shape == (3, None) and value.dtype == np.int32 and value.ragged_rank == 1
    np.testing.assert_array_equal(got["both"][1], [0, 2, 2, 3])
    assert rt.eval(session=ds.Session()).to_list() == [[1, 2], [], [3]]


def test_build_time_errors_as_tfs():
    with pytest.raises(ValueError, match="constructor is private"):
        ds.RaggedTensor(ds.constant([1]), ds.constant([0, 1], ds.int64))
    with pytest.raises(ValueError, match="must have rank 1"):
        ds.RaggedTensor.from_row_splits([1, 2], [[0, 2]])
    with pytest.raises(ValueError, match="Row-partitioning tensors must have dtype int32 or "
                                         "int64"):
        ds.RaggedTensor.from_row_splits([1, 2], ds.constant([0., 2.]))
    with pytest.raises(ValueError, match="Specify argument `lengths` or `padding`"):
        ds.RaggedTensor.from_tensor([[1]], lengths=[1], padding=0)
    with pytest.raises(ValueError, match="rank of a RaggedTensor must be greater than 1"):
        ds.RaggedTensor.from_tensor([1, 2])
    with pytest.raises(ValueError, match="empty list nesting is greater"):
        ds.ragged.constant([[1], [[]]])
    with pytest.raises(ValueError, match="same nesting depth"):
        ds.ragged.constant([[1], [[2]]])
    with pytest.raises(ValueError, match="only supported in eager mode"):
        ds.ragged.constant([[1]]).to_list()
    with pytest.raises(ds.errors.UnsupportedTF1Error if hasattr(ds.errors, "UnsupportedTF1Error")
                       else AttributeError, match="tf.ragged.no_such_name"):
        ds.ragged.no_such_name


def test_ragged_tensor_spec():
    spec = ds.RaggedTensorSpec([None, None, 2], ds.float32, 1)
    assert spec.ragged_rank == 1 and spec.row_splits_dtype == ds.int64
    rt = ds.RaggedTensor.from_row_splits(np.zeros([3, 2], np.float32), [0, 1, 3])
    assert spec.is_compatible_with(rt)
    assert not ds.RaggedTensorSpec([None, None], ds.int32).is_compatible_with(rt)
    with pytest.raises(ValueError, match="must be less than the rank"):
        ds.RaggedTensorSpec([None, None], ds.float32, 2)


def test_dispatch_leaves_dense_ops_and_names_alone():
    assert ds.add is ds.math.add and ds.reduce_sum is ds.math.reduce_sum
    assert ds.reduce_sum.__name__ == "reduce_sum" and ds.concat.__wrapped__ is not None
    x = ds.constant([[1., 2.], [3., 4.]])
    got = run([ds.reduce_sum(x, axis=1), ds.add(x, 1.), ds.concat([x, x], 0),
               ds.reduce_sum(x, reduction_indices=[0], keep_dims=True)])
    np.testing.assert_array_equal(got[0], [3., 7.])
    np.testing.assert_array_equal(got[3], [[4., 6.]])


def test_math_errors_name_what_devsession_does_not_do():
    rt = ds.ragged.constant([[1., 2.], [3.]])
    with pytest.raises(ValueError, match="over its inner dimensions only"):
        rt + ds.constant([[1.], [2.]])
    with pytest.raises(ValueError, match="one ragged rank"):
        ds.add(rt, ds.ragged.constant([[[1.]], [[2.]]]))
    with pytest.raises(ValueError, match="along axis 0, or axis 1"):
        ds.concat([rt, rt], 2)


def _to_tensor_builder(splits, shape, inner=()):
    def build(values, default):
        rt = ds.RaggedTensor.from_nested_row_splits(
            values, [ds.constant(np.array(s, np.int64)) for s in splits], validate=False)
        return rt.to_tensor(default_value=default, shape=shape)
    return build


@pytest.mark.parametrize("splits, shape, inner, default_shape", [
    ([[0, 2, 2, 5]], None, (), ()),
    ([[0, 2, 2, 5]], [2, 2], (), ()),          # values cut off get no gradient
    ([[0, 2, 2, 5]], [4, 4], (2,), (2,)),      # an inner dimension and its default
    ([[0, 2, 2, 3], [0, 2, 3, 5]], None, (), ()),
    ([[0, 0]], None, (), ()),                  # no values
])
def test_to_tensor_gradient_against_finite_differences(splits, shape, inner, default_shape):
    from gradient_check import check_op_gradient

    nvals = splits[-1][-1]
    values = np.arange(1., 1. + nvals * int(np.prod(inner))).reshape((nvals,) + inner)
    full_shape = None if shape is None else shape + list(inner)
    check_op_gradient(_to_tensor_builder(splits, full_shape, inner),
                      [values, np.full(default_shape, 0.5)])


def test_gradients_flow_through_ragged_math():
    v = ds.Variable([1., 2., 3., 4., 5.])
    rt = ds.RaggedTensor.from_row_splits(v, [0, 2, 2, 5])
    loss = ds.reduce_sum(ds.reduce_max(rt * rt, axis=1)) + \
        ds.reduce_sum(ds.reduce_mean(rt, axis=0)) + ds.reduce_sum(rt.to_tensor(shape=[3, 2]))
    grad, = ds.gradients(loss, [v])
    with ds.Session() as sess:
        sess.run(v.initializer)
        # max: 2 * 2 and 2 * 5; column means: 1/2, 1/2, 1/2, 1/2, 1; to_tensor: 1 for the
        # values of the first two columns
        np.testing.assert_allclose(sess.run(grad), [1.5, 5.5, 1.5, 1.5, 11.])


def test_ragged_fetches_and_feeds_on_every_session_type(make_session):
    graph = ds.Graph()
    with graph.as_default():
        ph = ds.ragged.placeholder(ds.int64, 1)
        doubled = ph * 2
        total = ds.reduce_sum(ph, axis=1)
    sess = make_session(graph)
    value = ds.ragged.constant_value([[1, 2], [], [3]], dtype=ds.int64)
    got, sums = sess.run([doubled, total], {ph: value})
    assert got.to_list() == [[2, 4], [], [6]] and sums.tolist() == [3, 0, 3]
