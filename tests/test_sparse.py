"""SparseTensors (``devsession/sparse_tensor.py``), their feeds and fetches, and the sparse
ops (``ops/sparse.py``, ``kernels/reference/sparse.py``, ``ops/sparse_grad.py``):
values against numpy (with no entries and with one), TF's errors (ValueError at build,
InvalidArgumentError naming the node at run time), gradients against finite
differences and against TensorFlow's, and a GraphDef TensorFlow wrote run to TF's
values (tests/data/make_tf_sparse.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.ops.sparse import SPARSE_OPS
from devsession.ops.sparse_cross import CROSS_OPS
from devsession.ops.sparse_math import MATH_OPS
from devsession.ops.sparse_slicing import SLICING_OPS
from devsession.unsupported import TF1_NAMESPACES, UnsupportedTF1Error
from gradient_check import check_op_gradient
from tf_recorded import DATA, run_recorded, tf_static_shape

SPV = ds.SparseTensorValue(np.array([[0, 1], [2, 0], [1, 3], [2, 2], [0, 3]], np.int64),
                           np.array([1.5, -2.0, 3.0, 0.5, 4.0], np.float32),
                           np.array([3, 4], np.int64))


def dense_of(value: ds.SparseTensorValue, default=0) -> np.ndarray:
    """numpy's dense array of a SparseTensorValue (repeated indices: the last wins)."""
    out = np.full(tuple(value.dense_shape), default, dtype=np.asarray(value.values).dtype)
    for index, v in zip(np.asarray(value.indices), np.asarray(value.values)):
        out[tuple(index)] = v
    return out


def random_sparse(rng, shape, count, dtype=np.float64, ordered=True):
    """A SparseTensorValue of ``count`` distinct random coordinates in ``shape``."""
    size = int(np.prod(shape))
    flat = np.sort(rng.choice(size, count, replace=False)) if ordered else \
        rng.choice(size, count, replace=False)
    indices = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64) \
        if count else np.zeros((0, len(shape)), np.int64)
    values = rng.standard_normal(count).astype(dtype)
    return ds.SparseTensorValue(indices.reshape(count, len(shape)), values,
                                np.array(shape, np.int64))


def assert_sparse_equal(got, want):
    assert isinstance(got, ds.SparseTensorValue)
    for part in ("indices", "values", "dense_shape"):
        g, w = np.asarray(getattr(got, part)), np.asarray(getattr(want, part))
        assert g.shape == w.shape, (part, g.shape, w.shape)
        np.testing.assert_array_equal(g, w, err_msg=part)


# --- the composite ---------------------------------------------------------------------------

def test_a_sparse_tensor_is_three_tensors(graph):
    sp = ds.SparseTensor(indices=[[0, 1], [2, 0]], values=[1.0, 2.0], dense_shape=[3, 4])
    assert (sp.indices.dtype, sp.dense_shape.dtype, sp.dtype) == (ds.int64, ds.int64,
                                                                 ds.float32)
    assert sp.indices.name == "SparseTensor/indices:0" and sp.op is sp.values.op
    assert sp.shape == sp.get_shape() == ds.TensorShape([3, 4]) and sp.graph is graph
    again = ds.SparseTensor.from_value(SPV)
    assert again.shape == (3, 4) and again.dtype == ds.float32
    assert ds.SparseTensor.from_value(sp) is not sp and ds.sparse.SparseTensor is ds.SparseTensor
    with pytest.raises(TypeError, match="Neither a SparseTensor nor SparseTensorValue"):
        ds.SparseTensor.from_value(([[0]], [1.0], [1]))
    shape = ds.placeholder(ds.int64, [2])
    assert ds.SparseTensor(sp.indices, sp.values, shape).shape.as_list() == [None, None]
    rows = ds.placeholder(ds.int64, [])
    partial = ds.SparseTensor(sp.indices, sp.values,
                              ds.stack([rows + 1, ds.constant(4, ds.int64)]))
    assert partial.shape.as_list() == [None, 4]
    counted = ds.SparseTensor(sp.indices, sp.values,          # shape arithmetic is static
                              ds.stack([ds.shape(shape, out_type=ds.int64)[0] + 1,
                                        ds.constant(4, ds.int64)]))
    assert counted.shape.as_list() == [3, 4]


def test_bad_ranks_and_sizes_are_value_errors_when_built(graph):
    with pytest.raises(ValueError, match=r"Shape \(2,\) must have rank 2"):
        ds.SparseTensor([0, 1], [1.0], [2, 3])
    with pytest.raises(ValueError, match="Dimensions 1 and 2 are not compatible"):
        ds.SparseTensor([[0, 1]], [1.0, 2.0], [2, 3])
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        ds.SparseTensor([[0, 1]], [1.0], [2, 3, 4])
    with pytest.raises(ValueError, match=r"Shape \(1, 1\) must have rank 1"):
        ds.SparseTensor([[0]], [[1.0]], [2])
    with pytest.raises(TypeError, match="must be int64"):
        ds.SparseTensor(ds.constant([[0]]), ds.constant([1.0]), ds.constant([2], ds.int64))


def test_fetching_gives_sparse_tensor_values_in_any_structure(graph):
    sp = ds.SparseTensor.from_value(SPV)
    with ds.Session() as sess:
        assert_sparse_equal(sess.run(sp), SPV)
        got = sess.run({"sp": sp, "parts": [sp.values, (sp, sp.dense_shape)]})
        assert_sparse_equal(sp.eval(session=sess), SPV)
    assert_sparse_equal(got["sp"], SPV)
    assert_sparse_equal(got["parts"][1][0], SPV)
    np.testing.assert_array_equal(got["parts"][0], SPV.values)
    assert got["parts"][0] is not got["sp"].values      # each place gets its own array


def test_a_sparse_placeholder_is_fed_a_value_or_a_tuple(graph):
    sp = ds.sparse_placeholder(ds.float32, name="sp")
    assert [t.op.type for t in (sp.indices, sp.values, sp.dense_shape)] == ["Placeholder"] * 3
    assert [t.name for t in (sp.indices, sp.values, sp.dense_shape)] == \
        ["sp/indices:0", "sp/values:0", "sp/shape:0"]
    assert sp.shape.ndims is None and ds.sparse.placeholder is ds.sparse_placeholder
    doubled = ds.SparseTensor(sp.indices, sp.values * 2.0, sp.dense_shape)
    want = SPV._replace(values=SPV.values * 2)
    with ds.Session() as sess:
        assert_sparse_equal(sess.run(doubled, {sp: SPV}), want)
        assert_sparse_equal(sess.run(doubled, {sp: tuple(SPV)}), want)
        assert_sparse_equal(sess.run(doubled, {sp: ([[0, 0]], [1.0], [1, 1])}),
                            ds.SparseTensorValue([[0, 0]], np.float32([2.0]), [1, 1]))
        with pytest.raises(TypeError, match="SparseTensorValue or an"):
            sess.run(doubled, {sp: np.zeros((3, 3))})
        with pytest.raises(TypeError, match="cannot be a ds.SparseTensor"):
            sess.run(doubled, {sp: doubled})
        callable_ = sess.make_callable([doubled, doubled.values], [sp])
        sparse, values = callable_(SPV)
    assert_sparse_equal(sparse, want)
    np.testing.assert_array_equal(values, want.values)


def test_a_sparse_placeholder_of_known_shape_defaults_to_it(graph):
    # TF 2.21's: a PlaceholderWithDefault of the shape, -1 for an unknown dim
    known = ds.sparse_placeholder(ds.int64, shape=[3, 4], name="known")
    assert known.dense_shape.op.type == "PlaceholderWithDefault" and known.shape == (3, 4)
    assert known.dense_shape.op.inputs[0].name == "known/shape_default:0"
    assert known.indices.shape.as_list() == [None, 2]
    partial = ds.sparse_placeholder(ds.float32, shape=[None, 4])
    assert partial.dense_shape.op.type == "PlaceholderWithDefault" and \
        partial.shape.as_list() == [None, 4]
    value = ds.SparseTensorValue([[1, 2]], [5], [3, 4])
    with ds.Session() as sess:
        assert_sparse_equal(sess.run(known, {known: value}),
                            ds.SparseTensorValue(np.array([[1, 2]]), np.array([5]),
                                                 np.array([3, 4])))
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            sess.run(known, {known: ([[1, 2, 0]], [5], [3, 4, 1])})


# --- TensorFlow's GraphDef and values --------------------------------------------------------

def test_a_graph_def_tf_wrote_with_sparse_ops_runs_to_tf_values():
    graph, names, values, data = run_recorded("tf_sparse_ops")
    recorded = set(SPARSE_OPS) - {"SparseAddGrad", *SLICING_OPS, *MATH_OPS,  # (the rest:
                                  *CROSS_OPS}   # test_sparse_slicing.py, test_sparse_cross.py)
    assert {op.type for op in graph.get_operations()} >= recorded
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        got = np.asarray(value)
        assert got.shape == want.shape and got.dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=name)
        tensor = graph.get_tensor_by_name(name)
        assert tensor.shape.is_compatible_with(tf_static_shape(data, name)), name
        if tensor.op.type in SPARSE_OPS:        # as much as TF knows statically
            assert tensor.shape == tf_static_shape(data, name), name


# --- SparseToDense ---------------------------------------------------------------------------

@pytest.mark.parametrize("count", [0, 1, 7])
def test_to_dense_is_numpy_dense(graph, count):
    value = random_sparse(np.random.default_rng(count), (3, 5), count)
    sp = ds.sparse_placeholder(ds.float64)
    dense, filled = ds.sparse.to_dense(sp), ds.sparse_tensor_to_dense(sp, default_value=-1.5)
    with ds.Session() as sess:
        got, got_filled = sess.run([dense, filled], {sp: value})
    np.testing.assert_array_equal(got, dense_of(value))
    np.testing.assert_array_equal(got_filled, dense_of(value, -1.5))
    assert dense.op.type == "SparseToDense" and dense.op.get_attr("validate_indices")


def test_sparse_to_dense_takes_vectors_scalars_and_strings(graph):
    vector = ds.sparse_to_dense([1, 3], [5], [2.0, 3.0], default_value=0.5)
    scalar_value = ds.sparse_to_dense([[0, 1], [1, 0]], [2, 2], 7)
    one = ds.sparse_to_dense(2, [4], 1.0)
    words = ds.sparse.to_dense(ds.SparseTensor([[1]], ["b"], [3]))
    assert vector.shape == (5,) and scalar_value.dtype == ds.int32
    with ds.Session() as sess:
        got = sess.run([vector, scalar_value, one, words])
    np.testing.assert_array_equal(got[0], [0.5, 2.0, 0.5, 3.0, 0.5])
    np.testing.assert_array_equal(got[1], [[0, 7], [7, 0]])
    np.testing.assert_array_equal(got[2], [0, 0, 1, 0])
    assert list(got[3]) == [b"", b"b", b""]


@pytest.mark.parametrize("indices, values, message", [
    ([[0, 4]], [1.0], r"indices\[0\] = \[0,4\] is out of bounds: need 0 <= index < \[3,4\]"),
    ([[1, 1], [-1, 0]], [1.0, 2.0], r"indices\[1\] = \[-1,0\] is out of bounds"),
    ([[1, 1], [0, 1]], [1.0, 2.0], r"indices\[1\] = \[0,1\] is out of order. Many sparse "
                                   r"ops require sorted indices.\n    Use `tf.sparse.reorder`"),
    ([[1, 1], [1, 1]], [1.0, 2.0], r"indices\[1\] = \[1,1\] is repeated"),
    ([[0, 0]], [1.0, 2.0], r"sparse_values has incorrect shape \[2\], should be \[\] or \[1\]"),
    ([[0, 0, 0]], [1.0], r"output_shape has incorrect number of elements: 2 should be: 3"),
])
def test_to_dense_errors_name_the_node(graph, indices, values, message):
    i = ds.placeholder(ds.int64, [None, None])
    v = ds.placeholder(ds.float32, [None])
    dense = ds.sparse_to_dense(i, ds.constant([3, 4], ds.int64), v, name="densify")
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match=message) as info:
            sess.run(dense, {i: indices, v: values})
    assert info.value.node_name == "densify"


def test_unvalidated_indices_may_repeat_but_not_leave_the_shape(graph):
    sp = ds.sparse_placeholder(ds.float32)
    dense = ds.sparse.to_dense(sp, validate_indices=False)
    with ds.Session() as sess:
        got = sess.run(dense, {sp: ([[1, 1], [0, 1], [1, 1]], [1.0, 2.0, 3.0], [2, 2])})
        with pytest.raises(InvalidArgumentError, match=r"Indices are not valid \(out of "
                                                       r"bounds\).  Shape: \[2,2\]"):
            sess.run(dense, {sp: ([[2, 0]], [1.0], [2, 2])})
    np.testing.assert_array_equal(got, [[0, 2], [0, 3]])      # the last of a repeat wins


# --- SparseTensorDenseMatMul -----------------------------------------------------------------

@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
@pytest.mark.parametrize("count", [0, 1, 9])
def test_sparse_dense_matmul_is_numpy_matmul(graph, adjoint_a, adjoint_b, count):
    rng = np.random.default_rng([count, adjoint_a, adjoint_b])
    value = random_sparse(rng, (4, 3) if adjoint_a else (3, 4), count, ordered=False)
    b = rng.standard_normal((2, 4) if adjoint_b else (4, 2))
    sp = ds.sparse_placeholder(ds.float64)
    product = ds.sparse_tensor_dense_matmul(sp, ds.constant(b), adjoint_a=adjoint_a,
                                            adjoint_b=adjoint_b)
    assert product.op.type == "SparseTensorDenseMatMul" and product.shape.as_list() == \
        [None, 2]
    with ds.Session() as sess:
        got = sess.run(product, {sp: value})
    a = dense_of(value)
    want = (a.T if adjoint_a else a) @ (b.T if adjoint_b else b)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_complex_matmul_adjoints_conjugate(graph, adjoint_a, adjoint_b):
    # the adjoint of a complex operand is its conjugate transpose, not the transpose
    rng = np.random.default_rng([7, adjoint_a, adjoint_b])
    value = random_sparse(rng, (4, 3) if adjoint_a else (3, 4), 6, dtype=np.complex128)
    value = value._replace(values=value.values + 1j * rng.standard_normal(6))
    b = rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))
    b = b.T if adjoint_b else b
    product = ds.sparse_tensor_dense_matmul(ds.SparseTensor(*value), ds.constant(b),
                                            adjoint_a=adjoint_a, adjoint_b=adjoint_b)
    with ds.Session() as sess:
        got = sess.run(product)
    a = dense_of(value)
    want = (a.conj().T if adjoint_a else a) @ (b.conj().T if adjoint_b else b)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("build,dtype,enum", [
    (lambda sp: ds.sparse.add(sp, sp).values, ds.float16, "DT_HALF"),
    (lambda sp: ds.sparse.add(sp, sp).values, ds.uint8, "DT_UINT8"),
    (lambda sp: ds.sparse.add(sp, sp).values, ds.uint64, "DT_UINT64"),
    (lambda sp: ds.sparse_tensor_dense_matmul(sp, ds.ones([3, 1], sp.dtype)), ds.int64,
     "DT_INT64"),
    (lambda sp: ds.sparse_tensor_dense_matmul(sp, ds.ones([3, 1], sp.dtype)), ds.int8,
     "DT_INT8"),
    (lambda sp: ds.sparse_tensor_dense_matmul(sp, ds.ones([3, 1], sp.dtype)), ds.uint16,
     "DT_UINT16"),
    (lambda sp: ds.sparse.minimum(sp, sp).values, ds.complex64, "DT_COMPLEX64")])
def test_dtypes_tf_has_no_cpu_kernel_for_fail_at_run_time(graph, build, dtype, enum):
    # the op takes them (TF's op def does), TF's CPU kernels do not: the run fails
    sp = ds.SparseTensor([[0, 0], [1, 2]], ds.cast(ds.constant([1, 2]), dtype), [2, 3])
    with ds.Session() as sess, pytest.raises(InvalidArgumentError,
                                             match=f"No OpKernel .* attrs: \\[T={enum}\\]"):
        sess.run(build(sp))


def test_the_sparse_arithmetic_refuses_bool_values_when_built(graph):
    sp = ds.SparseTensor([[0, 0]], [True], [2, 2])
    builds = {"a_values": [lambda: ds.sparse.add(sp, sp, threshold=False),
                           lambda: ds.sparse.add(sp, ds.constant([[True, False]] * 2)),
                           lambda: ds.sparse.minimum(sp, sp)],
              "input_values": [lambda: ds.sparse.reduce_sum(sp),
                               lambda: ds.sparse.reduce_sum_sparse(sp)]}
    for parameter, fns in builds.items():
        for fn in fns:
            with pytest.raises(TypeError, match=f"parameter '{parameter}' has DataType bool "
                                                f"not in list of allowed values"):
                fn()


def test_matmul_of_repeated_indices_adds_them(graph):
    sp = ds.SparseTensor([[0, 1], [0, 1]], [2.0, 3.0], [1, 2])
    with ds.Session() as sess:
        got = sess.run(ds.sparse.matmul(sp, [[1.0], [10.0]]))
    np.testing.assert_array_equal(got, [[50.0]])


def test_matmul_shapes_are_checked_when_built(graph):
    sp = ds.SparseTensor([[0, 1]], [1.0], [2, 3])
    known = ds.sparse.sparse_dense_matmul(sp, ds.ones([2, 4]), adjoint_a=True)
    assert known.shape == (3, 4)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        ds.sparse.sparse_dense_matmul(sp, ds.ones([4, 4]))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        ds.sparse.sparse_dense_matmul(sp, ds.ones([3]))
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 3"):
        ds.sparse.sparse_dense_matmul(ds.SparseTensor([[0, 1, 0]], [1.0], [2, 3, 1]),
                                      ds.ones([3, 4]))
    with pytest.raises(TypeError, match="float64"):
        ds.sparse.sparse_dense_matmul(sp, ds.ones([3, 1], ds.float64))
    with pytest.raises(TypeError, match="Input must be a SparseTensor"):
        ds.sparse.sparse_dense_matmul(ds.ones([2, 3]), ds.ones([3, 1]))


@pytest.mark.parametrize("value, b, message", [
    (([[0, 4]], [1.0], [3, 4]), (4, 2), r"k \(4\) from index\[0,1\] out of bounds \(>=4\)"),
    (([[3, 0]], [1.0], [3, 4]), (4, 2), r"m \(3\) from index\[0,0\] out of bounds \(>=3\)"),
    (([[0, 0]], [1.0], [3, 4]), (2, 4), r"Cannot multiply A and B because inner dimension "
                                        r"does not match: 4 vs. 2.  Did you forget a "
                                        r"transpose\?  Dimensions of A: \[3, 4\).  "
                                        r"Dimensions of B: \[2,4\]"),
    (([[0, 0, 0]], [1.0], [3, 4, 1]), (4, 2), r"Tensor 'a_shape' must have 2 elements"),
])
def test_matmul_errors_at_run_time_name_the_node(graph, value, b, message):
    sp = ds.sparse_placeholder(ds.float32)
    dense = ds.placeholder(ds.float32, [None, None])
    product = ds.sparse_tensor_dense_matmul(sp, dense, name="product")
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match=message) as info:
            sess.run(product, {sp: value, dense: np.ones(b, np.float32)})
    assert info.value.node_name == "product/SparseTensorDenseMatMul"


# --- SparseReduceSum -------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2, [0, 2], (1, -3)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("count", [0, 1, 11])
def test_reduce_sum_is_numpy_sum(graph, axis, keepdims, count):
    value = random_sparse(np.random.default_rng(count), (2, 3, 4), count)
    sp = ds.SparseTensor.from_value(value)
    total = ds.sparse.reduce_sum(sp, axis=axis, keepdims=keepdims)
    numpy_axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    want = dense_of(value).sum(axis=numpy_axis, keepdims=keepdims)
    assert total.op.type == "SparseReduceSum" and total.shape == want.shape
    with ds.Session() as sess:
        got = sess.run(total)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_reduce_sum_adds_repeated_indices_and_takes_tf1_names(graph):
    sp = ds.sparse_placeholder(ds.float32)
    rows = ds.sparse_reduce_sum(sp, reduction_axes=1, keep_dims=True)
    assert rows.shape.ndims is None and rows.op.get_attr("keep_dims")
    with ds.Session() as sess:
        got = sess.run(rows, {sp: ([[0, 1], [0, 1], [2, 0]], [1.0, 2.0, 5.0], [3, 4])})
        with pytest.raises(InvalidArgumentError, match="Invalid reduction dimension 5, for "
                                                       "input with 2 dimensions."):
            sess.run(ds.sparse.reduce_sum(sp, axis=5), {sp: SPV})
    np.testing.assert_array_equal(got, [[3.0], [0.0], [5.0]])
    with pytest.raises(ValueError, match="both 'reduction_axes' and 'axis'"):
        ds.sparse.reduce_sum(sp, axis=0, reduction_axes=0)


# --- SparseReorder and SparseReshape ---------------------------------------------------------

@pytest.mark.parametrize("count", [0, 1, 13])
def test_reorder_sorts_entries_row_major(graph, count):
    value = random_sparse(np.random.default_rng(count), (3, 4, 5), count, ordered=False)
    sp = ds.sparse_placeholder(ds.float64, shape=[3, 4, 5])
    ordered = ds.sparse.reorder(sp)
    assert ordered.shape == (3, 4, 5) and ordered.indices.op.type == "SparseReorder"
    with ds.Session() as sess:
        got = sess.run(ordered, {sp: value})
    order = np.lexsort(value.indices.T[::-1]) if count else np.arange(0)
    assert_sparse_equal(got, ds.SparseTensorValue(value.indices[order], value.values[order],
                                                  value.dense_shape))


@pytest.mark.parametrize("new_shape", [[-1, 2], [2, 6], [12], [2, 3, 2], [1, -1, 1]])
@pytest.mark.parametrize("count", [0, 1, 5])
def test_reshape_moves_entries_as_numpy_reshape(graph, new_shape, count):
    value = random_sparse(np.random.default_rng(count), (3, 4), count)
    sp = ds.sparse_placeholder(ds.float64)
    reshaped = ds.sparse.reshape(sp, new_shape)
    with ds.Session() as sess:
        got = sess.run(reshaped, {sp: value})
    want = dense_of(value).reshape(new_shape)
    np.testing.assert_array_equal(dense_of(got), want)
    np.testing.assert_array_equal(got.dense_shape, want.shape)


def test_reshape_errors(graph):
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 12 elements to "
                                         r"shape \[5, 2\] \(10 elements\)"):
        ds.sparse.reshape(ds.SparseTensor.from_value(SPV), [5, 2])
    with pytest.raises(ValueError, match="At most one dimension can be inferred"):
        ds.sparse.reshape(ds.SparseTensor.from_value(SPV), [-1, -1])
    sp = ds.sparse_placeholder(ds.float32)
    with ds.Session() as sess:
        for shape, message in (([-1, 2], r"with 9 dense values, but the requested shape "
                                         r"requires a multiple of 2. input_shape=\[3,3\] "
                                         r"output_shape=\[1,2\]"),
                               ([-1, -1], "only one output dimension may be -1, not both 0 "
                                          "and 1"),
                               ([5, 2], r"Input to reshape is a tensor with 9 dense values, "
                                        r"but the requested shape has 10")):
            with pytest.raises(InvalidArgumentError, match=message):
                sess.run(ds.sparse.reshape(sp, shape), {sp: ([[0, 1]], [1.0], [3, 3])})


def test_fed_parts_of_the_wrong_rank_are_run_time_errors(graph):
    indices, values, shape = (ds.placeholder(ds.int64), ds.placeholder(ds.float32),
                              ds.placeholder(ds.int64))
    sp = ds.SparseTensor(indices, values, shape)
    good = {indices: [[0, 1]], values: [1.0], shape: [2, 3]}
    cases = ((ds.sparse.reduce_sum(sp, 0), indices, [0, 1],
              r"Input input_indices should be a matrix but received shape \[2\]"),
             (ds.sparse.reorder(sp).values, values, [[1.0]],
              r"Input values should be a vector but received shape \[1,1\]"),
             (ds.sparse.reshape(sp, [3, 2]).indices, shape, [[2, 3]],
              r"Input shape should be a vector but received shape \[1,2\]"))
    with ds.Session() as sess:
        for fetch, part, bad, message in cases:
            sess.run(fetch, good)
            with pytest.raises(InvalidArgumentError, match=message) as info:
                sess.run(fetch, {**good, part: bad})
            assert info.value.node_name == fetch.op.name


# --- SparseAdd and SparseTensorDenseAdd ------------------------------------------------------

@pytest.mark.parametrize("threshold", [0, 0.6])
@pytest.mark.parametrize("counts", [(0, 0), (0, 3), (1, 1), (8, 6)])
def test_add_merges_entries_as_numpy_adds(graph, threshold, counts):
    rng = np.random.default_rng([*counts, int(threshold * 10)])
    a, b = (random_sparse(rng, (3, 4), n) for n in counts)
    if counts[0] and counts[1]:              # one shared index whose sum is 0.5
        b.indices[0], b.values[0] = a.indices[0], 0.5 - a.values[0]
        order = np.lexsort(b.indices.T[::-1])
        b = b._replace(indices=b.indices[order], values=b.values[order])
    sp_a, sp_b = ds.sparse_placeholder(ds.float64), ds.sparse_placeholder(ds.float64)
    total = ds.sparse.add(sp_a, sp_b, threshold=threshold)
    with ds.Session() as sess:
        got = sess.run(total, {sp_a: a, sp_b: b})
    rows_a, rows_b = ({tuple(r): v for r, v in zip(x.indices.tolist(), x.values)} for x in (a, b))
    want = {r: rows_a.get(r, 0) + rows_b.get(r, 0) for r in set(rows_a) | set(rows_b)}
    want = {r: v for r, v in want.items()
            if abs(v) >= threshold or not (r in rows_a and r in rows_b)}
    rows = sorted(want)
    assert [tuple(r) for r in got.indices.tolist()] == rows      # row-major order
    np.testing.assert_allclose(got.values, [want[r] for r in rows], rtol=1e-12)
    np.testing.assert_array_equal(got.dense_shape, [3, 4])


def test_add_of_a_dense_tensor_is_dense(graph):
    dense = np.arange(12, dtype=np.float32).reshape(3, 4)
    sp = ds.SparseTensor([[0, 1], [0, 1], [2, 3]], [1.0, 2.0, 3.0], [3, 4])
    for total in (ds.sparse.add(sp, dense), ds.sparse_add(dense, sp)):
        assert total.op.type == "SparseTensorDenseAdd" and total.shape == (3, 4)
        with ds.Session() as sess:
            got = sess.run(total)
        want = dense.copy()
        want[0, 1] += 3.0                  # a repeated index adds twice
        want[2, 3] += 3.0
        np.testing.assert_array_equal(got, want)
    known = ds.sparse.add(sp, ds.SparseTensor([[1, 1]], [1.0], [3, 4]))
    assert known.dense_shape.op.type == "Const" and known.shape == (3, 4)


def test_add_errors(graph):
    sp = ds.SparseTensor([[0, 1]], [1.0], [2, 3])
    with pytest.raises(TypeError, match="At least one input should be SparseTensor"):
        ds.sparse.add(ds.ones([2, 3]), ds.ones([2, 3]))
    with pytest.raises(ValueError, match="Only one of threshold or thresh"):
        ds.sparse.add(sp, sp, threshold=1, thresh=1)
    with pytest.raises(ValueError, match="incompatible"):
        ds.sparse.add(sp, ds.SparseTensor([[0, 1]], [1.0], [2, 4]))
    a, b = ds.sparse_placeholder(ds.float32), ds.sparse_placeholder(ds.float32)
    dense = ds.placeholder(ds.float32)
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="Operands' shapes do not match: got 4 "
                                                       "and 5 for dimension 1"):
            sess.run(ds.sparse.add(a, b), {a: ([[0, 1]], [1.0], [3, 4]),
                                           b: ([[0, 1]], [1.0], [3, 5])})
        for value, message in ((np.ones((3, 5)), "Dimension 1 does not equal \\(no "
                                                 "broadcasting is supported\\): sparse side 4 vs "
                                                 "dense side 5"),
                               (np.ones((3,)), "Two operands have different ranks; received: "
                                               "2 and 1")):
            with pytest.raises(InvalidArgumentError, match=message):
                sess.run(ds.sparse.add(a, dense), {a: ([[0, 1]], [1.0], [3, 4]), dense: value})
        with pytest.raises(InvalidArgumentError, match=r"Sparse tensor has an invalid index on "
                                                       r"dimension 1: a_indices\(0,1\) = 7, "
                                                       r"dense tensor shape: 3 4"):
            sess.run(ds.sparse.add(a, dense), {a: ([[0, 7]], [1.0], [3, 4]),
                                               dense: np.ones((3, 4))})


def test_add_gradients_are_finite_differences():
    rng = np.random.default_rng(9)
    a, b = random_sparse(rng, (3, 4), 6), random_sparse(rng, (3, 4), 5)
    b.indices[:2] = a.indices[1:3]                 # two shared indices, one cancelling
    b.values[0] = 0.1 - a.values[1]
    order = np.lexsort(b.indices.T[::-1])
    b = b._replace(indices=b.indices[order], values=b.values[order])
    check_op_gradient(
        lambda ai, av, ash, bi, bv, bsh: ds.sparse.add(ds.SparseTensor(ai, av, ash),
                                                       ds.SparseTensor(bi, bv, bsh),
                                                       threshold=0.5).indices,
        [*_sparse_inputs(a), *_sparse_inputs(b)], no_gradient=(0, 2, 3, 5))
    check_op_gradient(lambda i, v, s, d: ds.sparse.add(ds.SparseTensor(i, v, s), d),
                      [*_sparse_inputs(a), rng.standard_normal((3, 4))], no_gradient=(0, 2))


# --- from_dense ------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(0, 3), (1,), (3, 4), (2, 1, 3)])
def test_from_dense_keeps_the_nonzero_elements(graph, shape):
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    x[np.abs(x) < 0.7] = 0.0
    sp = ds.sparse.from_dense(x)
    assert [t.op.type for t in (sp.indices, sp.values)] == ["Where", "GatherNd"]
    with ds.Session() as sess:
        got = sess.run(sp)
    assert_sparse_equal(got, ds.SparseTensorValue(np.argwhere(x), x[x != 0], np.array(shape)))


# --- gradients -------------------------------------------------------------------------------

def _sparse_inputs(value, dense_shape=None):
    return [np.asarray(value.indices), np.asarray(value.values, np.float64),
            np.asarray(value.dense_shape if dense_shape is None else dense_shape)]


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_matmul_gradient_is_finite_differences(adjoint_a, adjoint_b):
    rng = np.random.default_rng([3, adjoint_a, adjoint_b])
    value = random_sparse(rng, (4, 3) if adjoint_a else (3, 4), 6, ordered=False)
    b = rng.standard_normal((2, 4) if adjoint_b else (4, 2))
    check_op_gradient(
        lambda i, v, s, m: ds.sparse_tensor_dense_matmul(ds.SparseTensor(i, v, s), m,
                                                         adjoint_a=adjoint_a,
                                                         adjoint_b=adjoint_b),
        [*_sparse_inputs(value), b], no_gradient=(0, 2))


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_complex_matmul_gradients_are_the_dense_matmuls(graph, adjoint_a, adjoint_b):
    # TF's complex gradients (those of the dense MatMul): for C = op(A) op(B) and the
    # output gradient dy, A's is dy op(B)^H (adjointed under adjoint_a) at A's indices
    rng = np.random.default_rng([8, adjoint_a, adjoint_b])
    value = random_sparse(rng, (3, 3), 5, dtype=np.complex128)
    value = value._replace(values=value.values + 1j * rng.standard_normal(5))
    b, dy = rng.standard_normal((2, 3, 3)) + 1j * rng.standard_normal((2, 3, 3))
    values, dense_b = ds.constant(value.values), ds.constant(b)
    product = ds.sparse_tensor_dense_matmul(
        ds.SparseTensor(value.indices, values, value.dense_shape), dense_b,
        adjoint_a=adjoint_a, adjoint_b=adjoint_b)
    grads = ds.gradients(product, [values, dense_b], grad_ys=ds.constant(dy))
    with ds.Session() as sess:
        got_values, got_b = sess.run(grads)
    a = dense_of(value)
    adj = lambda m: m.conj().T                          # noqa: E731
    op_b = adj(b) if adjoint_b else b
    grad_a = adj(dy @ adj(op_b)) if adjoint_a else dy @ adj(op_b)
    grad_op_b = adj(adj(a) if adjoint_a else a) @ dy
    rows, cols = value.indices.T
    np.testing.assert_allclose(got_values, grad_a[rows, cols], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_b, adj(grad_op_b) if adjoint_b else grad_op_b,
                               rtol=1e-12, atol=1e-12)


def test_to_dense_gradient_is_finite_differences():
    value = random_sparse(np.random.default_rng(1), (3, 4), 5)
    check_op_gradient(lambda i, s, v, d: ds.sparse_to_dense(i, s, v, d),
                      [value.indices, value.dense_shape, np.asarray(value.values),
                       np.float64(0.25)], no_gradient=(0, 1))
    check_op_gradient(lambda i, s, v, d: ds.sparse_to_dense(i, s, v, d),
                      [np.array([1, 3]), np.array([5]), np.float64(2.0), np.float64(0.5)],
                      no_gradient=(0, 1))


@pytest.mark.parametrize("axes", [[1], [0, 2], [-1], [0, 1, 2]])
def test_reduce_sum_gradient_is_finite_differences(axes):
    value = random_sparse(np.random.default_rng(2), (2, 3, 4), 7)
    check_op_gradient(lambda i, v, s, a: ds.sparse.reduce_sum(ds.SparseTensor(i, v, s), a),
                      [*_sparse_inputs(value), np.array(axes, np.int32)], no_gradient=(0, 2, 3))


def test_reorder_gradient_is_finite_differences():
    value = random_sparse(np.random.default_rng(4), (3, 4), 6, ordered=False)
    check_op_gradient(lambda i, v, s: ds.sparse.reorder(ds.SparseTensor(i, v, s)).indices,
                      _sparse_inputs(value), no_gradient=(0, 2))


def test_gradients_match_tensorflow(graph):
    data = np.load(os.path.join(DATA, "tf_sparse_ops.npz"))
    feeds = {k[5:]: data[k] for k in data if k.startswith("feed:")}
    sp = ds.sparse_placeholder(ds.float32, name="sp")
    sq = ds.sparse_placeholder(ds.float32, name="sq")
    dense = {k: ds.constant(v) for k, v in feeds.items() if "/" not in k}
    ordered = ds.sparse.reorder(sp)
    products = {"matmul": (dense["b"], {}),
                "matmul_adj_a": (dense["c"], {"adjoint_a": True}),
                "matmul_adj_b": (dense["bt"], {"adjoint_b": True}),
                "matmul_adj_ab": (dense["ct"], {"adjoint_a": True, "adjoint_b": True})}
    grads = {}
    for key, (b, adjoints) in products.items():
        out = ds.sparse.sparse_dense_matmul(sp, b, **adjoints)
        grads[key] = ds.gradients(ds.reduce_sum(out ** 2), [sp.values, b])
    filled = ds.sparse.to_dense(ordered, default_value=-1.0)
    grads["to_dense"] = ds.gradients(ds.reduce_sum(filled ** 2 * ds.range(1.0, 13.0)[None, :4]),
                                     [ordered.values])
    grads["sum_1"] = ds.gradients(ds.reduce_sum(ds.sparse.reduce_sum(sp, axis=1) ** 2),
                                  [sp.values])
    added = ds.sparse.add(ordered, ds.sparse.reorder(sq), threshold=0.5)
    grads["add"] = ds.gradients(ds.reduce_sum(added.values ** 2), [sp.values, sq.values])
    grads["add_dense"] = ds.gradients(ds.reduce_sum(ds.sparse.add(sp, dense["x"]) ** 3),
                                      [sp.values, dense["x"]])
    grads["reorder"] = ds.gradients(ds.reduce_sum(ordered.values ** 2 * ds.range(1.0, 6.0)),
                                    [sp.values])
    feed = {p: tuple(feeds[f"{n}/{k}"] for k in ("indices", "values", "shape"))
            for p, n in ((sp, "sp"), (sq, "sq"))}
    with ds.Session() as sess:
        got = sess.run(grads, feed)
    for key, values in got.items():
        for k, value in enumerate(values):
            np.testing.assert_allclose(value, data[f"grad:{key}:{k}"], rtol=1e-5, atol=1e-5,
                                       err_msg=key)


# --- placement and the namespace -------------------------------------------------------------

def test_a_gpu_session_runs_the_sparse_ops_on_the_cpu():
    from fake_gpu import fake_gpus

    with fake_gpus(1, without=set(SPARSE_OPS)):
        sp = ds.sparse_placeholder(ds.float32)
        b = ds.placeholder(ds.float32, [4, 2])
        product = ds.sparse.sparse_dense_matmul(sp, b)
        doubled = product * 2.0
        with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
            got = sess.run(doubled, {sp: SPV, b: np.ones((4, 2), np.float32)})
            placed = sess.placement()
    np.testing.assert_allclose(got, 2 * dense_of(SPV) @ np.ones((4, 2)))
    assert placed[product.op.name].endswith("CPU:0")
    assert placed[doubled.op.name].endswith("GPU:0")


@pytest.mark.parametrize("kind", ["direct", "grpc"])
def test_sparse_feeds_fetches_and_ops_on_every_session_type(graph, kind):
    from sessions import SESSION_MAKERS

    sp = ds.sparse_placeholder(ds.float32)
    ordered = ds.sparse.reorder(sp)
    both = {"ordered": ordered, "dense": ds.sparse.to_dense(ordered),
            "rows": ds.sparse.reduce_sum(sp, axis=1)}
    session = SESSION_MAKERS[kind](graph)       # grpc: every other node on another task
    try:
        got = session.run(both, {sp: SPV})
    finally:
        session.close()
    order = np.lexsort(SPV.indices.T[::-1])
    assert_sparse_equal(got["ordered"], SPV._replace(indices=SPV.indices[order],
                                                     values=SPV.values[order]))
    np.testing.assert_array_equal(got["dense"], dense_of(SPV))
    np.testing.assert_array_equal(got["rows"], dense_of(SPV).sum(axis=1))


def test_the_sparse_namespace_has_tf1_spellings():
    assert "sparse" not in TF1_NAMESPACES
    assert ds.sparse.to_dense is ds.sparse_tensor_to_dense
    assert ds.sparse.matmul is ds.sparse.sparse_dense_matmul is ds.sparse_tensor_dense_matmul
    assert ds.sparse.reduce_sum is ds.sparse_reduce_sum
    assert ds.sparse.reorder is ds.sparse_reorder and ds.sparse.reshape is ds.sparse_reshape
    assert ds.sparse.add is ds.sparse_add
    assert ds.sparse.segment_sqrt_n is ds.sparse_segment_sqrt_n
    assert ds.sparse.mask is ds.sparse_mask
    with pytest.raises(UnsupportedTF1Error, match="tf.sparse.bogus_name is not supported"):
        ds.sparse.bogus_name


# --- nn.embedding_lookup_sparse --------------------------------------------------------------

def embedding_oracle(params, indices, ids, weights, combiner):
    """numpy's embedding_lookup_sparse: one row per segment up to the last one used."""
    rows = indices[:, 0]
    weights = np.ones(len(ids)) if weights is None else np.asarray(weights, np.float64)
    out = np.zeros((rows.max() + 1 if len(rows) else 0, params.shape[1]))
    for r in range(len(out)):
        mine = rows == r
        if not mine.any():
            continue
        total = (weights[mine, None] * params[ids[mine]]).sum(axis=0)
        divisor = {"sum": 1.0, "mean": weights[mine].sum(),
                   "sqrtn": np.sqrt((weights[mine] ** 2).sum())}[combiner]
        out[r] = total / divisor
    return out


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [False, True])
def test_embedding_lookup_sparse_matches_tensorflow(graph, combiner, weighted):
    data = np.load(os.path.join(DATA, "tf_embedding_sparse.npz"))
    params = ds.constant(data["params"])
    ids = ds.SparseTensor(data["ids"], data["id_values"], data["shape"])
    weights = ds.SparseTensor(data["ids"], data["weights"], data["shape"]) if weighted else None
    out = ds.nn.embedding_lookup_sparse(params, ids, weights, combiner=combiner)
    grad = ds.gradients(ds.reduce_sum(out ** 2), [params])[0]
    assert out.shape.as_list() == [None, 3] and out.dtype == ds.float32
    assert out.name == "embedding_lookup_sparse:0"     # the scope's own name, as TF's
    with ds.Session() as sess:
        got, got_grad = sess.run([out, grad])
    want = data[f"out:{combiner}:{int(weighted)}"]
    # row 1 has no ids: 0, TF 2.x's div_no_nan with weights (TF 1.x divided 0 by 0: NaN)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_grad, data[f"grad:{combiner}:{int(weighted)}"],
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shards", [1, 2])
def test_embedding_lookup_sparse_gradient_is_finite_differences(graph, combiner, weighted,
                                                                shards):
    rng = np.random.default_rng([shards, weighted])
    params = rng.standard_normal((6, 2))
    indices = np.array([[0, 0], [0, 2], [1, 0], [1, 1], [2, 2], [3, 0]], np.int64)
    ids = np.array([5, 2, 2, 0, 5, 3], np.int64)
    weights = rng.uniform(0.5, 2.0, len(ids)) if weighted else None
    # shards of "mod" partitioning: id i is row i // shards of shard i % shards
    parts = [ds.placeholder(ds.float64, (None, 2)) for _ in range(shards)]
    sp_ids = ds.SparseTensor(indices, ids, [4, 3])
    sp_weights = ds.SparseTensor(indices, weights, [4, 3]) if weighted else None
    out = ds.nn.embedding_lookup_sparse(parts if shards > 1 else parts[0], sp_ids, sp_weights,
                                        combiner=combiner)
    grads = ds.gradients(ds.reduce_sum(out ** 2), parts)

    def feed(full):
        return {p: full[k::shards] for k, p in enumerate(parts)}

    with ds.Session() as sess:
        got, got_grads = sess.run([out, grads], feed(params))
    np.testing.assert_allclose(got, embedding_oracle(params, indices, ids, weights, combiner),
                               rtol=1e-12, atol=1e-12)
    numeric = np.zeros_like(params)
    for i in range(params.size):
        step = np.zeros(params.size)
        step[i] = 1e-6
        up, down = (embedding_oracle(params + s.reshape(params.shape), indices, ids, weights,
                                     combiner) for s in (step, -step))
        numeric.flat[i] = ((up ** 2).sum() - (down ** 2).sum()) / 2e-6
    for k, g in enumerate(got_grads):
        np.testing.assert_allclose(g, numeric[k::shards], rtol=1e-6, atol=1e-8)


def test_embedding_lookup_sparse_arguments_are_checked(graph):
    params = ds.ones([4, 2])
    ids = ds.SparseTensor([[0, 0]], ds.constant([1], ds.int64), [1, 1])
    with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
        ds.nn.embedding_lookup_sparse(params, ds.constant([[1]]), None)
    with pytest.raises(TypeError, match="sp_weights must be either None or SparseTensor"):
        ds.nn.embedding_lookup_sparse(params, ids, ds.constant([1.0]))
    with pytest.raises(ValueError, match="combiner must be one of 'mean', 'sqrtn' or 'sum'"):
        ds.nn.embedding_lookup_sparse(params, ids, None, combiner="max")
    with pytest.raises(ValueError, match="incompatible"):
        ds.nn.embedding_lookup_sparse(params, ids, ds.SparseTensor([[0, 0], [0, 1]],
                                                                   [1.0, 2.0], [1, 2]))
    default = ds.nn.embedding_lookup_sparse(params, ids, None)      # TF1's default: mean
    assert default.op.type == "SparseSegmentMean"


def test_unweighted_lookup_reduces_the_table_and_its_gradient_keeps_the_rows(graph):
    """TF 2.21's graph without weights: the SparseSegment op over the table itself (no
    Unique, no gather), its gradient the rows looked up (TF's IndexedSlices), so FTRL
    moves only those rows; an id outside the table is that op's error, TF's words."""
    from devsession.ops.indexed_rows import rows_of

    init = np.arange(12, dtype=np.float32).reshape(6, 2) / 10
    table = ds.Variable(init, name="table")
    ids = ds.sparse_placeholder(ds.int64, name="ids")
    out = ds.nn.embedding_lookup_sparse(table, ids, None, combiner="sqrtn", name="tags")
    assert (out.op.name, out.op.type, out.op.get_attr("sparse_gradient")) == \
        ("tags", "SparseSegmentSqrtN", True)
    assert "Unique" not in {op.type for op in graph.get_operations()}
    (grad,) = ds.gradients(ds.reduce_sum(out * out), [table])
    assert rows_of(grad) is not None
    # two lookups of one table (fields sharing it): their rows together, still sparse
    shared = ds.nn.embedding_lookup_sparse(table, ids, None, combiner="sum")
    assert rows_of(ds.gradients(ds.reduce_sum(out) + ds.reduce_sum(shared), table)[0])
    train = ds.train.FtrlOptimizer(0.5, l1_regularization_strength=0.01).minimize(
        ds.reduce_sum(out * out))
    feed = {ids: ds.SparseTensorValue([[0, 0], [0, 1], [2, 0]], [4, 1, 4], [3, 2])}
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        got_grad = sess.run(grad, feed)
        sess.run(train, feed)
        after = sess.run(table)
        with pytest.raises(InvalidArgumentError,
                           match=r"Bad: indices\[1\] == 6 out of range \[0, 6\)$") as info:
            sess.run(out, {ids: ds.SparseTensorValue([[0, 0], [0, 1]], [1, 6], [1, 2])})
    assert info.value.node_name == "tags"
    # rows 0 = (t4 + t1) / sqrt(2), 2 = t4: d sum(out^2) / d t = 2 out / sqrt(count) per id
    row0, row2 = (init[4] + init[1]) / np.sqrt(2), init[4]
    want = np.zeros_like(init)
    want[[4, 1]] += 2 * row0 / np.sqrt(2)
    want[4] += 2 * row2
    np.testing.assert_allclose(got_grad, want, rtol=1e-6)
    np.testing.assert_array_equal(after[[0, 2, 3, 5]], init[[0, 2, 3, 5]])
    assert not np.allclose(after[[1, 4]], init[[1, 4]])


@pytest.mark.parametrize("reduce", [ds.sparse_segment_sum, ds.sparse_segment_mean,
                                    ds.sparse_segment_sqrt_n], ids=lambda f: f.__name__)
def test_sparse_gradient_of_a_sparse_segment_reduction_is_the_dense_one(graph, reduce):
    from devsession.ops.indexed_rows import rows_of

    # data of unknown rank: its counts broadcast by a shape the run knows
    data = ds.placeholder(ds.float64)
    indices, segments = [3, 0, 3, 1], [0, 0, 2, 2]
    dense, sparse = (reduce(data, indices, segments, num_segments=4, sparse_gradient=s)
                     for s in (False, True))
    dy = ds.constant(np.arange(8.0).reshape(4, 2))
    g_dense, g_sparse = (ds.gradients(ds.reduce_sum(y * dy), data)[0] for y in (dense, sparse))
    assert rows_of(g_dense) is None and rows_of(g_sparse) is not None
    with ds.Session() as sess:
        want, got = sess.run([g_dense, g_sparse],
                             {data: np.random.RandomState(3).normal(size=(5, 2))})
    np.testing.assert_allclose(got, want, rtol=1e-12)
