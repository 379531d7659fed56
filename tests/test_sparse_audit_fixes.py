"""SparseTensor gaps an audit found against TensorFlow 2.21, each now as TF's: ``tf.cast``
of a SparseTensor, SparseTensor times/over a dense tensor, the static shape of a sparse
dataset element and of a sparse placeholder, ``tf.io.SparseFeature`` in the parse ops and
SparseTensor sources of datasets.  Expected values are worked out by hand or in numpy;
TensorFlow 2.21 gave the same values, dtypes and static shapes on the same graphs."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
import window_cases as _window


@pytest.fixture
def graph():
    with ds.Graph().as_default() as g:
        yield g


def run(*fetches):
    with ds.Session() as sess:
        return sess.run(list(fetches))


# --- 1. tf.cast of a SparseTensor ----------------------------------------------------------

def test_cast_of_a_sparse_tensor_casts_its_values_and_keeps_the_rest(graph):
    st = ds.SparseTensor([[0, 0], [1, 2]], ds.constant([1.5, -2.7]), [2, 3])
    as_int, as_bool = ds.cast(st, ds.int32), ds.cast(st, ds.bool)
    assert isinstance(as_int, ds.SparseTensor) and as_int.dtype == ds.int32
    assert as_int.indices is st.indices and as_int.dense_shape is st.dense_shape
    assert as_int.shape.as_list() == [2, 3]
    assert ds.cast(st, ds.int32, name="foo").values.name == "foo:0"
    got_int, got_bool = run(as_int, as_bool)
    np.testing.assert_array_equal(got_int.values, np.array([1, -2], np.int32))
    assert got_int.values.dtype == np.int32
    np.testing.assert_array_equal(got_bool.values, [True, True])
    np.testing.assert_array_equal(got_int.indices, [[0, 0], [1, 2]])
    np.testing.assert_array_equal(got_int.dense_shape, [2, 3])


def test_the_ctc_idiom_casts_decoded_labels_for_edit_distance(graph):
    decoded = ds.SparseTensor([[0, 0], [0, 1]], ds.constant([1, 2], ds.int64), [1, 2])
    labels = ds.SparseTensor([[0, 0], [0, 1], [0, 2]], ds.constant([1, 3, 2], ds.int32), [1, 3])
    distance, = run(ds.edit_distance(ds.cast(decoded, ds.int32), labels))
    np.testing.assert_allclose(distance, [1 / 3], rtol=1e-6)     # one insertion of three


def test_saturate_cast_refuses_a_sparse_tensor_as_tf(graph):
    st = ds.SparseTensor([[0]], ds.constant([300.0]), [1])
    with pytest.raises(TypeError):
        ds.saturate_cast(st, ds.uint8)


# --- 2. SparseTensor * dense, SparseTensor / dense ------------------------------------------

def entries():
    return ds.SparseTensor([[0, 1], [1, 0], [1, 3]], [1.0, 2.0, 3.0], [2, 4])


def test_times_and_over_a_dense_tensor_broadcast_it_to_the_dense_shape(graph):
    st = entries()
    times, over = st * [1.0, 2.0, 3.0, 4.0], st / ds.constant([1.0, 2.0, 3.0, 4.0])
    by_scalar, by_column = st * ds.constant(3.0), st * [[2.0], [3.0]]
    assert isinstance(times, ds.SparseTensor) and times.indices is st.indices
    assert times.values.op.type == "SparseDenseCwiseMul" and times.values.op.name == "mul"
    assert [t.name for t in times.values.op.inputs][3] == "mul/y:0"
    assert over.values.op.type == "SparseDenseCwiseDiv" and over.values.op.name == "truediv"
    assert times.values.shape.as_list() == [3] and times.shape.as_list() == [2, 4]
    got = run(times.values, over.values, by_scalar.values, by_column.values)
    # the dense elements met: [2, 1, 4] (columns 1, 0, 3); rows 0, 1, 1 for the column
    np.testing.assert_allclose(got[0], [2.0, 2.0, 12.0])
    np.testing.assert_allclose(got[1], [0.5, 2.0, 0.75])
    np.testing.assert_allclose(got[2], [3.0, 6.0, 9.0])
    np.testing.assert_allclose(got[3], [2.0, 6.0, 9.0])


def test_dense_times_sparse_is_sparse_too(graph):
    st = entries()
    product = ds.constant([1.0, 2.0, 3.0, 4.0]) * st
    assert isinstance(product, ds.SparseTensor)
    assert product.values.op.type == "SparseDenseCwiseMul"
    np.testing.assert_allclose(run(product.values)[0], [2.0, 2.0, 12.0])
    with pytest.raises(TypeError):
        ds.constant([1, 2, 3, 4]) * st
    with pytest.raises(TypeError):
        2.0 * st                                  # TF has no reflected sparse operators


def test_integer_division_truncates_and_truediv_casts_as_tf(graph):
    st = ds.SparseTensor([[0, 1], [1, 0]], [7, -7], [2, 2])
    over = st / ds.constant([2, 2])
    div = st.__div__(ds.constant([2, 2]))
    assert over.dtype == ds.float64 and div.dtype == ds.int32
    assert [t.op.name for t in over.values.op.inputs[1::2]] == ["truediv/Cast",
                                                               "truediv/Cast_1"]
    small = ds.SparseTensor([[0]], ds.constant([7], ds.uint8), [2]) / ds.constant([2, 1],
                                                                                    ds.uint8)
    assert small.dtype == ds.float32
    got = run(over.values, div.values, small.values, (st * [[2], [3]]).values)
    np.testing.assert_array_equal(got[0], [3.5, -3.5])
    np.testing.assert_array_equal(got[1], np.array([3, -3], np.int32))
    np.testing.assert_array_equal(got[2], np.array([3.5], np.float32))
    np.testing.assert_array_equal(got[3], [14, -21])


@pytest.mark.parametrize("build, message", [
    (lambda st: st * ds.constant([[1.0, 2.0, 3.0, 4.0, 5.0]]),
     r"broadcasts dense to sparse only; got incompatible shapes: \[2,4\] vs. \[1,5\]"),
    (lambda st: st * ds.ones([3, 2, 4]), r"incompatible shapes: \[2,4\] vs. \[3,2,4\]"),
    (lambda st: st / ds.constant([1.0, 0.0, 1.0, 1.0]), "cannot divide by zero"),
    (lambda st: ds.SparseTensor([[0, 5]], [1.0], [2, 4]) * ds.ones([4]),
     "Provided indices are out-of-bounds w.r.t. dense side"),
    (lambda st: ds.SparseTensor([[0] * 6], [1.0], [1] * 6) * ds.constant(2.0),
     "Only tensors with ranks between 1 and 5 are currently supported.  Tensor rank: 6"),
    (lambda st: ds.SparseTensor([[0]], ds.constant([1j], ds.complex64), [1]) *
     ds.constant([2j], ds.complex64), "No OpKernel was registered"),
])
def test_run_time_errors_are_tfs(graph, build, message):
    with pytest.raises(ds.errors.InvalidArgumentError, match=message):
        run(build(entries()).values)


def test_build_time_errors_are_tfs(graph):
    st = entries()
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        st * ds.constant([1, 2, 3, 4])
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        ds.SparseTensor([[0]], [True], [2]) * ds.constant([True, False])
    with pytest.raises(TypeError, match="Invalid dtype tf.string in __truediv__"):
        ds.SparseTensor([[0]], ["a"], [2]) / ds.constant(["a", "b"])
    with pytest.raises(TypeError):
        st * st


def test_gradients_are_tfs(graph):
    values = ds.constant([1.0, 2.0, 3.0])
    weights = ds.constant([1.0, 10.0, 100.0])
    st = ds.SparseTensor([[0, 1], [1, 0], [1, 3]], values, [2, 4])
    row, column = ds.constant([1.0, 2.0, 3.0, 4.0]), ds.constant([[2.0], [3.0]])
    grads = [ds.gradients(ds.reduce_sum(result.values * weights), [values, dense])
             for result, dense in ((st * row, row), (st / row, row), (st * column, column))]
    assert [g.shape.as_list() for g in grads[2]] == [[3], [2, 1]]
    got = run(*[g for pair in grads for g in pair])
    expected = [[2.0, 10.0, 400.0], [20.0, 1.0, 0.0, 300.0],            # TF 2.21's values
                [0.5, 10.0, 25.0], [-20.0, -0.25, 0.0, -18.75],
                [2.0, 30.0, 300.0], [[1.0], [320.0]]]
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-6)


@pytest.mark.parametrize("op", ["mul", "div"])
@pytest.mark.parametrize("dense_shape", [(3, 4), (4,), (3, 1), (1, 4)])
def test_gradients_are_finite_differences(op, dense_shape):
    from gradient_check import check_op_gradient

    rng = np.random.default_rng(len(dense_shape))
    indices = np.array([[0, 0], [0, 3], [1, 2], [2, 1], [2, 3]])
    dense = rng.uniform(1.0, 2.0, dense_shape)

    def build(i, v, s, d):
        st = ds.SparseTensor(i, v, s)
        return (st * d if op == "mul" else st / d).values
    check_op_gradient(build, [indices, rng.standard_normal(5), np.array([3, 4]), dense],
                      no_gradient=(0, 2))


def test_sparse_dense_cwise_add_has_tfs_not_implemented_gradient(graph):
    st = entries()
    added = graph.create_op("SparseDenseCwiseAdd", [st.indices, st.values, st.dense_shape,
                                                    ds.constant([1.0, 2.0, 3.0, 4.0])])
    np.testing.assert_allclose(run(added.outputs[0])[0], [3.0, 3.0, 7.0])
    with pytest.raises(NotImplementedError):
        ds.gradients(added.outputs[0], [st.values])


# --- 3. the static shape of a sparse dataset element; SparseTensor.set_shape -----------------

def one_hot_rows():
    return ds.data.Dataset.range(3).map(
        lambda n: ds.SparseTensor([[0]], ds.reshape(n, [1]), [3]))


def test_an_iterators_sparse_element_keeps_the_datasets_static_shape(graph):
    seen = []

    def note(sparse):
        seen.append(sparse.shape.as_list())
        return sparse
    single = ds.data.make_one_shot_iterator(one_hot_rows()).get_next()
    batched = ds.data.make_one_shot_iterator(
        one_hot_rows().map(note).batch(2).map(note)).get_next()
    assert single.shape.as_list() == [3] and batched.shape.as_list() == [None, 3]
    assert seen == [[3], [None, 3]]                   # what later functions receive
    assert ds.sparse.to_dense(batched).shape.as_list() == [None, 3]
    with ds.Session() as sess:
        first, second = sess.run(batched), sess.run(batched)
    np.testing.assert_array_equal(first.indices, [[0, 0], [1, 0]])
    np.testing.assert_array_equal(first.values, [0, 1])
    np.testing.assert_array_equal(first.dense_shape, [2, 3])
    np.testing.assert_array_equal(second.indices, [[0, 0]])
    np.testing.assert_array_equal(second.values, [2])
    np.testing.assert_array_equal(second.dense_shape, [1, 3])


def test_set_shape_merges_with_what_is_known_as_tfs(graph):
    sp = ds.SparseTensor(ds.placeholder(ds.int64, [None, 2]), ds.placeholder(ds.float32, [None]),
                         ds.placeholder(ds.int64, [2]))
    assert sp.shape.as_list() == [None, None]
    sp.set_shape([None, 4])
    assert sp.get_shape().as_list() == [None, 4]
    sp.set_shape(ds.TensorShape([3, None]))
    assert sp.shape.as_list() == [3, 4]
    for wrong in ([5, 4], [3]):
        with pytest.raises(ValueError, match="are not compatible"):
            sp.set_shape(wrong)
    assert ds.SparseTensor(sp.indices, sp.values, sp.dense_shape).shape.as_list() == \
        [None, None]                                  # the graph alone knows no more
    known = ds.SparseTensor([[0]], [1.0], [3])
    known.set_shape(None)
    assert known.shape.as_list() == [3]
    with pytest.raises(ValueError, match="are not compatible"):
        known.set_shape([4])


# --- 4. tf.sparse.placeholder's static shape ---------------------------------------------------

def test_a_sparse_placeholder_has_its_shape_and_is_still_fed(graph):
    partial = ds.sparse.placeholder(ds.float32, shape=[None, 4], name="sp")
    assert partial.shape.as_list() == [None, 4]
    assert ds.sparse.placeholder(ds.float32, shape=[-1, 4]).shape.as_list() == [None, 4]
    assert ds.sparse.placeholder(ds.float32, shape=ds.TensorShape([2, None])).shape.as_list() \
        == [2, None]
    assert ds.sparse.placeholder(ds.float32).shape.ndims is None
    assert partial.dense_shape.name == "sp/shape:0" and partial.indices.shape.as_list() == \
        [None, 2]
    dense = ds.sparse.to_dense(partial)
    with ds.Session() as sess:
        assert sess.run(partial.dense_shape).tolist() == [-1, 4]     # TF's default
        got = sess.run(dense, {partial: ([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])})
        fed = sess.run(partial, {partial: ds.SparseTensorValue([[1, 0]], [5.0], [2, 4])})
    want = np.zeros((3, 4), np.float32)
    want[0, 1], want[2, 3] = 1.0, 2.0
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(fed.dense_shape, [2, 4])
    np.testing.assert_array_equal(fed.values, [5.0])


# --- 5. tf.io.SparseFeature ------------------------------------------------------------------

def example(**features) -> bytes:
    def feature(values):
        if isinstance(values[0], float):
            return ds.train.Feature(float_list=ds.train.FloatList(value=values))
        if isinstance(values[0], bytes):
            return ds.train.Feature(bytes_list=ds.train.BytesList(value=values))
        return ds.train.Feature(int64_list=ds.train.Int64List(value=values))
    return ds.train.Example(features=ds.train.Features(
        feature={k: feature(v) for k, v in features.items()})).SerializeToString()


def assert_entries(value, indices, values, dense_shape):
    np.testing.assert_array_equal(value.indices.reshape(-1, len(dense_shape)),
                                  np.array(indices, np.int64).reshape(-1, len(dense_shape)))
    np.testing.assert_array_equal(value.values, values)
    np.testing.assert_array_equal(value.dense_shape, dense_shape)


def test_a_sparse_feature_merges_its_index_and_value_features(graph):
    feature = ds.io.SparseFeature("idx", "val", ds.float32, 5)
    unsorted = example(idx=[3, 0], val=[1.0, 2.0])
    parsed = ds.io.parse_single_example(unsorted, {"sp": feature})
    as_given = ds.io.parse_single_example(unsorted, {"sp": feature._replace(already_sorted=True)})
    absent = ds.io.parse_single_example(example(other=[1]), {"sp": feature})
    strings = ds.io.parse_single_example(example(idx=[4, 1], val=[b"a", b"b"]), {
        "sp": ds.io.SparseFeature("idx", "val", ds.string, 5)})
    grid = ds.io.parse_single_example(example(i0=[1, 0, 1], i1=[2, 1, 0], val=[1.0, 2.0, 3.0]),
                                      {"sp": ds.io.SparseFeature(["i0", "i1"], "val",
                                                                 ds.float32, [2, 3])})
    assert list(parsed) == ["sp"] and parsed["sp"].shape.as_list() == [5]
    assert grid["sp"].shape.as_list() == [2, 3]
    got = run(parsed["sp"], as_given["sp"], absent["sp"], strings["sp"], grid["sp"])
    assert_entries(got[0], [[0], [3]], [2.0, 1.0], [5])          # sorted by index
    assert_entries(got[1], [[3], [0]], [1.0, 2.0], [5])
    assert_entries(got[2], [], [], [5])
    assert_entries(got[3], [[1], [4]], [b"b", b"a"], [5])
    assert_entries(got[4], [[0, 1], [1, 0], [1, 2]], [2.0, 3.0, 1.0], [2, 3])


def test_sparse_features_sit_beside_other_features_and_share_keys(graph):
    parsed = ds.io.parse_single_example(example(idx=[2], val=[5.0], v=[1, 2], f=[3]), {
        "sp": ds.io.SparseFeature("idx", "val", ds.float32, 4),
        "val": ds.io.VarLenFeature(ds.float32), "v": ds.io.VarLenFeature(ds.int64),
        "f": ds.io.FixedLenFeature([], ds.int64)})
    assert sorted(parsed) == ["f", "sp", "v", "val"]
    got = run(parsed)[0]
    assert_entries(got["sp"], [[2]], [5.0], [4])
    assert_entries(got["val"], [[0]], [5.0], [1])
    assert_entries(got["v"], [[0], [1]], [1, 2], [2])
    assert got["f"] == 3


def test_parse_example_gives_a_batch_of_sparse_features(graph):
    batch = [example(idx=[3, 0], val=[1.0, 2.0]), example(idx=[1], val=[9.0]), example(z=[1])]
    parsed = ds.io.parse_example(batch, {"sp": ds.io.SparseFeature("idx", "val", ds.float32,
                                                                   5)})
    grid = ds.io.parse_example(
        [example(i0=[1, 0], i1=[2, 1], val=[1.0, 2.0]), example(i0=[0], i1=[0], val=[9.0])],
        {"sp": ds.io.SparseFeature(["i0", "i1"], "val", ds.float32, [2, 3])})
    assert parsed["sp"].shape.as_list() == [None, 5]
    assert grid["sp"].shape.as_list() == [None, 2, 3]
    got, got_grid = run(parsed["sp"], grid["sp"])
    assert_entries(got, [[0, 0], [0, 3], [1, 1]], [2.0, 1.0, 9.0], [3, 5])
    assert_entries(got_grid, [[0, 0, 1], [0, 1, 2], [1, 0, 0]], [2.0, 1.0, 9.0], [2, 2, 3])


def test_sparse_feature_errors_are_tfs(graph):
    feature = ds.io.SparseFeature("idx", "val", ds.float32, 5)
    mismatched = ds.io.parse_single_example(example(idx=[0, 3], val=[1.0]), {"sp": feature})
    with pytest.raises(ds.errors.InvalidArgumentError):
        run(mismatched["sp"])
    beyond = ds.io.parse_single_example(example(idx=[0, 7], val=[1.0, 2.0]), {"sp": feature})
    assert_entries(run(beyond["sp"])[0], [[0], [7]], [1.0, 2.0], [5])   # as TF: unchecked
    with pytest.raises(ds.errors.InvalidArgumentError, match="out of bounds"):
        run(ds.sparse.to_dense(beyond["sp"]))
    serialized = example(idx=[2], val=[5.0])
    with pytest.raises(ValueError, match="Conflicting type <dtype: 'float32'> vs "
                                         "<dtype: 'int64'> for feature val"):
        ds.io.parse_single_example(serialized, {"sp": feature,
                                                "val": ds.io.VarLenFeature(ds.int64)})
    with pytest.raises(ValueError, match="Dense and sparse keys must not intersect"):
        ds.io.parse_single_example(serialized, {
            "sp": feature, "val": ds.io.FixedLenFeature([1], ds.float32)})
    with pytest.raises(ValueError, match="Missing index_key for SparseFeature"):
        ds.io.parse_single_example(serialized, {"sp": feature._replace(index_key=None)})
    with pytest.raises(TypeError, match="vocab_size has to be a Tensor or Python int"):
        ds.io.parse_single_example(serialized, {"sp": feature._replace(size=4.5)})


# --- 6. Dataset.from_tensor_slices / from_tensors of a SparseTensor ---------------------------

def elements(dataset) -> list:
    return _window.values(ds, dataset)           # every element, run to the end


def test_slices_of_a_sparse_tensor_are_its_rows(graph):
    st = ds.SparseTensor([[0, 1], [2, 0], [2, 2]], [1, 2, 3], [4, 3])
    dataset = ds.data.Dataset.from_tensor_slices(st)
    assert ds.data.get_output_classes(dataset) is ds.SparseTensor
    assert dataset.output_shapes.as_list() == [3]
    rows = elements(dataset)
    assert len(rows) == 4                                   # dense_shape[0], empty rows too
    for value, (indices, values) in zip(rows, [([[1]], [1]), ([], []), ([[0], [2]], [2, 3]),
                                                ([], [])]):
        assert_entries(value, indices, values, [3])
    cube = ds.data.Dataset.from_tensor_slices(ds.SparseTensorValue(
        [[0, 1, 1], [1, 0, 2]], np.float32([1.0, 2.0]), [2, 3, 4]))
    assert cube.output_shapes.as_list() == [3, 4]
    first, second = elements(cube)
    assert_entries(first, [[1, 1]], [1.0], [3, 4])
    assert_entries(second, [[0, 2]], [2.0], [3, 4])


def test_sparse_slices_sit_beside_dense_ones_and_batch(graph):
    st = ds.SparseTensor([[0, 1], [1, 0], [2, 2]], [1, 2, 3], [3, 3])
    pairs = elements(ds.data.Dataset.from_tensor_slices({"a": st, "b": [7, 8, 9]}))
    assert [p["b"] for p in pairs] == [7, 8, 9]
    assert_entries(pairs[2]["a"], [[2]], [3], [3])
    batched = ds.data.Dataset.from_tensor_slices(st).batch(2)
    assert batched.output_shapes.as_list() == [None, 3]
    first, second = elements(batched)
    assert_entries(first, [[0, 1], [1, 0]], [1, 2], [2, 3])   # the slices stacked back
    assert_entries(second, [[0, 2]], [3], [1, 3])
    dense = elements(ds.data.Dataset.from_tensor_slices(st).map(ds.sparse.to_dense))
    np.testing.assert_array_equal(dense, [[0, 1, 0], [2, 0, 0], [0, 0, 3]])


@pytest.mark.parametrize("build, message", [
    (lambda: ds.SparseTensor([[0], [2]], [1.0, 2.0], [3]),
     "Rank of input SparseTensor should be > 1, but saw rank: 1"),
    (lambda: ds.SparseTensor([[1, 0], [0, 1]], [2, 1], [2, 3]),
     r"indices\[1\] = \[0,1\] is out of order"),
    (lambda: ds.SparseTensor([[0, 1], [5, 0]], [1, 2], [2, 3]),
     r"indices\[1\] = \[5,0\] is out of bounds: need 0 <= index < \[2,3\]"),
    (lambda: (ds.SparseTensor([[0, 1], [1, 0]], [1, 2], [2, 3]), ds.constant([7, 8, 9])),
     "All components must have the same size in the 0th dimension"),
])
def test_slicing_bad_sparse_tensors_fails_as_tf(graph, build, message):
    with pytest.raises(ds.errors.InvalidArgumentError, match=message):
        elements(ds.data.Dataset.from_tensor_slices(build()))


def test_from_tensors_of_a_sparse_tensor_is_one_sparse_element(graph):
    single = ds.data.Dataset.from_tensors(ds.SparseTensor([[0]], [1], [2]))
    assert ds.data.get_output_classes(single) is ds.SparseTensor
    assert single.output_shapes.as_list() == [2]
    (value,) = elements(single)
    assert_entries(value, [[0]], [1], [2])
    pair = ds.data.Dataset.from_tensors((ds.SparseTensor([[0, 1]], [1.0], [2, 2]), 5))
    ((sparse, five),) = elements(pair)
    assert_entries(sparse, [[0, 1]], [1.0], [2, 2])
    assert five == 5
    rows = elements(ds.data.Dataset.from_tensors(
        ds.SparseTensor([[0, 1], [1, 0]], [1, 2], [2, 3])).unbatch())
    assert_entries(rows[0], [[1]], [1], [3])
    assert_entries(rows[1], [[0]], [2], [3])


def test_tf_divide_of_a_sparse_tensor_divides_its_values_as_tf():
    """TF's tf.divide divides through x's operator: a SparseTensor stays one."""
    with ds.Graph().as_default():
        st = ds.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
        halved = ds.divide(st, ds.constant(2.0))
        assert isinstance(halved, ds.SparseTensor)
        with ds.Session() as sess:
            got = sess.run(halved)
    np.testing.assert_array_equal(got.values, [0.5, 1.0])
    np.testing.assert_array_equal(got.indices, [[0, 1], [1, 0]])


def test_sparse_slices_are_read_again_by_a_repeat():
    with ds.Graph().as_default():
        st = ds.SparseTensor([[0, 1], [1, 0]], [1, 2], [2, 3])
        got = elements(ds.data.Dataset.from_tensor_slices((st, np.array([5, 6]))).repeat(2))
    assert [int(dense) for _, dense in got] == [5, 6, 5, 6]
    assert [sparse.indices.tolist() for sparse, _ in got] == [[[1]], [[0]]] * 2
