"""The sparse ops that cut, join, reduce and combine SparseTensors
(``ops/sparse_slicing.py``, ``ops/sparse_math.py``, ``ops/sparse_composites.py``, their
kernels in ``kernels/reference/sparse_slicing.py`` and ``sparse_math.py``): a GraphDef
TensorFlow wrote with every one of them run to TF's values and gradients
(tests/data/make_tf_sparse_slicing.py), gradients against finite differences, and TF's
errors (InvalidArgumentError naming the node at run time, ValueError when built)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError
from devsession.ops.sparse import SPARSE_OPS
from gradient_check import check_op_gradient
from tf_recorded import DATA, run_recorded, tf_static_shape

NEW_OPS = {"SparseConcat", "SparseSlice", "SparseSplit", "SparseFillEmptyRows",
           "SparseReduceMax", "SparseReduceMaxSparse", "SparseReduceSumSparse",
           "SparseSoftmax", "SparseSparseMaximum", "SparseSparseMinimum"}

SPV = ds.SparseTensorValue(np.array([[2, 0], [0, 1], [1, 3], [0, 0], [2, 2]], np.int64),
                           np.array([1.5, -2.0, 3.0, 0.5, -4.0], np.float32),
                           np.array([3, 4], np.int64))


def test_a_graph_def_tf_wrote_runs_to_tf_values():
    graph, names, values, data = run_recorded("tf_sparse_slicing")
    assert {op.type for op in graph.get_operations()} >= NEW_OPS
    for name, value in zip(names, values):
        want, got = data[f"fetch:{name}"], np.asarray(value)
        assert got.shape == want.shape and got.dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=name)
        tensor = graph.get_tensor_by_name(name)
        assert tensor.shape.is_compatible_with(tf_static_shape(data, name)), name


def _feeds(data, *names):
    return {f"{n}/{k}:0": data[f"feed:{n}/{k}"] for n in names
            for k in ("indices", "values", "shape")}


def test_gradients_match_tensorflow(graph):
    data = np.load(f"{DATA}/tf_sparse_slicing.npz")
    sp, sq, st = (ds.sparse_placeholder(ds.float32, name=n) for n in ("sp", "sq", "st"))
    outs = {"slice": (ds.sparse.slice(sp, [0, 1], [2, 5]), sp),
            "slice_3d": (ds.sparse.slice(st, [1, 1, 0], [1, 2, 3]), st),
            "fill_3d": (ds.sparse.fill_empty_rows(sq, 9.0)[0], sq),
            "softmax": (ds.sparse.softmax(ds.sparse.reorder(sp)), sp),
            "softmax_3d": (ds.sparse.softmax(st), st)}
    grads = {}
    for key, (out, source) in outs.items():
        weight = ds.range(1.0, ds.cast(ds.size(out.values), ds.float32) + 1.0)
        grads[key] = ds.gradients(ds.reduce_sum(out.values ** 2 * weight), [source.values])
    filled = outs["fill_3d"][0]
    grads["fill_default"] = ds.gradients(ds.reduce_sum(filled.values ** 2),
                                         [filled.values.op.inputs[3]])
    with ds.Session() as sess:
        got = sess.run(grads, _feeds(data, "sp", "sq", "st"))
    for key, values in got.items():
        for k, value in enumerate(values):
            np.testing.assert_allclose(value, data[f"grad:{key}:{k}"], rtol=1e-5, atol=1e-5,
                                       err_msg=key)


# --- gradients against finite differences ----------------------------------------------------

def _inputs(value):
    return [np.asarray(value.indices), np.asarray(value.values, np.float64),
            np.asarray(value.dense_shape)]


def test_slice_gradient_is_finite_differences():
    check_op_gradient(lambda i, v, s: ds.sparse.slice(ds.SparseTensor(i, v, s), [0, 1],
                                                      [2, 3]).values,
                      _inputs(ds.sparse.reorder is not None and _sorted(SPV)),
                      no_gradient=(0, 2))


def _sorted(value):
    order = np.lexsort(np.asarray(value.indices).T[::-1])
    return value._replace(indices=value.indices[order], values=value.values[order])


def test_fill_empty_rows_gradient_is_finite_differences():
    value = ds.SparseTensorValue(np.array([[1, 0], [3, 2], [3, 1]]), np.array([1.0, 2.0, 3.0]),
                                 np.array([5, 3]))
    check_op_gradient(lambda i, v, s, d: ds.sparse.fill_empty_rows(ds.SparseTensor(i, v, s),
                                                                   d)[0].values,
                      [*_inputs(value), np.float64(0.5)], no_gradient=(0, 2))


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_softmax_gradient_is_finite_differences(shape):
    rng = np.random.default_rng(len(shape))
    flat = np.sort(rng.choice(int(np.prod(shape)), 9, replace=False))
    indices = np.stack(np.unravel_index(flat, shape), axis=1).astype(np.int64)
    value = ds.SparseTensorValue(indices, rng.standard_normal(9), np.array(shape))
    check_op_gradient(lambda i, v, s: ds.sparse.softmax(ds.SparseTensor(i, v, s)).values,
                      _inputs(value), no_gradient=(0, 2))


def test_softmax_of_unsorted_indices_writes_row_major_order_as_tf(graph):
    # the op wants sorted indices; TF's kernel reorders and writes its results in that
    # order, so they no longer line up with unsorted indices (TF 2.21's values)
    sp = ds.SparseTensor([[1, 2], [0, 1], [1, 0], [0, 3]], [1.0, 2.0, 3.0, 4.0], [2, 4])
    with ds.Session() as sess:
        got = sess.run(ds.sparse.softmax(sp))
        ordered = sess.run(ds.sparse.softmax(ds.sparse.reorder(sp)))
    np.testing.assert_array_equal(got.indices, [[1, 2], [0, 1], [1, 0], [0, 3]])
    np.testing.assert_allclose(got.values, [0.11920291, 0.880797, 0.880797, 0.11920291],
                               rtol=1e-6)
    np.testing.assert_allclose(ordered.values, got.values, rtol=1e-6)


def test_maximum_and_minimum_gradients_are_not_implemented_as_in_tf(graph):
    a = ds.SparseTensor.from_value(_sorted(SPV))
    for build in (ds.sparse.maximum, ds.sparse.minimum):
        out = build(a, a)
        with pytest.raises(NotImplementedError, match="is not implemented"):
            ds.gradients(ds.reduce_sum(out.values), [a.values])


def test_ops_without_a_tf_gradient_raise_lookup_error(graph):
    a = ds.SparseTensor.from_value(SPV)
    for out in (ds.sparse.reduce_max(a, 1), ds.sparse.split(sp_input=a, num_split=2,
                                                             axis=0)[0].values):
        with pytest.raises(LookupError):
            ds.gradients(ds.reduce_sum(out), [a.values])
    assert ds.gradients(ds.sparse.concat(0, [a, a]).values, [a.values]) == [None]


# --- values beyond TF's recording ------------------------------------------------------------

@pytest.mark.parametrize("count", [0, 1, 9])
def test_slice_split_and_concat_are_numpy_slicing(graph, count):
    rng = np.random.default_rng(count)
    flat = np.sort(rng.choice(35, count, replace=False))
    value = ds.SparseTensorValue(np.stack(np.unravel_index(flat, (5, 7)), 1).reshape(-1, 2),
                                 rng.standard_normal(count), np.array([5, 7]))
    dense = np.zeros((5, 7))
    dense[tuple(value.indices.T)] = value.values
    sp = ds.sparse_placeholder(ds.float64)
    parts = ds.sparse.split(sp_input=sp, num_split=3, axis=1)
    fetches = {"slice": ds.sparse.to_dense(ds.sparse.slice(sp, [1, 2], [3, 9])),
               "parts": [ds.sparse.to_dense(p) for p in parts],
               "joined": ds.sparse.to_dense(ds.sparse.concat(1, parts)),
               "max": ds.sparse.reduce_max(sp, 0), "sum": ds.sparse.reduce_sum(sp, 0)}
    with ds.Session() as sess:
        got = sess.run(fetches, {sp: value})
    np.testing.assert_array_equal(got["slice"], dense[1:4, 2:])
    for part, want in zip(got["parts"], (dense[:, :3], dense[:, 3:5], dense[:, 5:])):
        np.testing.assert_array_equal(part, want)
    np.testing.assert_array_equal(got["joined"], dense)
    stored = np.where(dense != 0, dense, -np.inf).max(axis=0)
    np.testing.assert_array_equal(got["max"], np.where(np.isinf(stored), 0, stored))
    np.testing.assert_allclose(got["sum"], dense.sum(axis=0))


# --- errors -----------------------------------------------------------------------------------

@pytest.mark.parametrize("build,feed,message", [
    (lambda a, b: ds.sparse.concat(1, [a, b]).values,
     ([[0, 0]], [1.0], [3, 3]), r"Input shapes must match: expected 2 for dimension 0 but "
                                r"got 3 at position 1"),
    (lambda a, b: ds.sparse.concat(2, [a, b]).values,
     ([[0, 0]], [1.0], [2, 3]), r"Concat dimension must be in range \[-2, 2\), got 2"),
    (lambda a, b: ds.sparse.concat(0, [a, b]).values,
     ([[0, 0, 0]], [1.0], [2, 3, 1]), r"Ranks of all input tensors must match: expected 2 "
                                      r"but got 3 at position 1"),
    (lambda a, b: ds.sparse.split(sp_input=a, num_split=4, axis=1)[0].values, None,
     r"Input num_split should be between 1 and the splitting dimension size \(3\), got 4"),
    (lambda a, b: ds.sparse.split(sp_input=a, num_split=2, axis=-3)[0].values, None,
     r"Input axis should be in range \[-2, 2\), got -3"),
    (lambda a, b: ds.sparse.slice(a, [0, 0], [1, -1]).values, None,
     r"Expected a non-negative size, got -1"),
    (lambda a, b: ds.sparse.fill_empty_rows(b, 0.0)[1], ([[7, 0]], [1.0], [5, 3]),
     r"indices\(0, 0\) is invalid: 7 >= 5"),
    (lambda a, b: ds.sparse.softmax(b).values, ([[1]], [1.0], [3]),
     r"Input should have rank >= 2, but received shape: 3"),
    (lambda a, b: ds.sparse.maximum(a, b).values, ([[0, 0]], [1.0], [2, 4]),
     r"Operands' shapes do not match: got 3 and 4 for dimension 1"),
    (lambda a, b: ds.sparse.reduce_max(a, 2), None,
     r"Invalid reduction dimension 2, for input with 2 dimensions"),
])
def test_run_time_errors_name_the_node(graph, build, feed, message):
    a, b = ds.sparse_placeholder(ds.float32), ds.sparse_placeholder(ds.float32)
    fetch = build(a, b)
    feeds = {a: ([[0, 1], [1, 2]], [1.0, 2.0], [2, 3]), b: feed or ([[0, 1]], [1.0], [2, 3])}
    with ds.Session() as sess:
        with pytest.raises(InvalidArgumentError, match=message) as info:
            sess.run(fetch, feeds)
    assert info.value.node_name in {op.name for op in graph.get_operations()
                                    if op.type in SPARSE_OPS}


def test_build_time_errors_are_tf1s(graph):
    a = ds.SparseTensor.from_value(SPV)
    with pytest.raises(ValueError, match="Dimensions 5 and 2 are not compatible"):
        ds.sparse.retain(a, [True, False])
    with pytest.raises(ValueError, match="Requested new_shape should have dimension sizes"):
        ds.sparse.reset_shape(a, [2, 4])
    with pytest.raises(ValueError, match="Keyword arguments are required"):
        ds.sparse_split(a, num_split=2, axis=0)
    with pytest.raises(TypeError, match="axis must be an int or a Tensor"):
        ds.sparse.expand_dims(a, 1.5)
    with pytest.raises(ValueError, match="equal lengths"):
        ds.sparse.merge([a, a], a, [3])
    with pytest.raises(TypeError, match="Input must be a SparseTensor"):
        ds.sparse.concat(0, [a, np.zeros((3, 4))])


@pytest.mark.parametrize("dtype", [ds.complex64, ds.complex128, ds.bool])
def test_the_max_ops_refuse_values_without_an_order_as_tf(graph, dtype):
    # TF's realnumbertype attr: a TypeError naming the parameter when the graph is built
    values = ds.constant([1j, 2] if dtype.is_complex else [True, False], dtype)
    sp = ds.SparseTensor([[0, 0], [1, 1]], values, [2, 2])
    for build, parameter in ((lambda: ds.sparse.reduce_max(sp, 1), "input_values"),
                             (lambda: ds.sparse.reduce_max_sparse(sp), "input_values"),
                             (lambda: ds.sparse.maximum(sp, sp), "a_values")):
        with pytest.raises(TypeError, match=f"parameter '{parameter}' has DataType "
                                            f"{dtype.name} not in list of allowed values"):
            build()
    ds.sparse.reduce_sum_sparse(ds.SparseTensor([[0, 0]], [1j], [2, 2]))    # sums take them
    if dtype.is_complex:
        ds.sparse.minimum(sp, sp)       # TF's SparseSparseMinimum allows any number type


def test_reset_shape_checks_a_fed_shape_at_run_time(graph):
    sp = ds.sparse_placeholder(ds.float32)
    shape = ds.placeholder(ds.int64, [None])
    out = ds.sparse.reset_shape(sp, shape)
    with ds.Session() as sess:
        np.testing.assert_array_equal(sess.run(out, {sp: SPV, shape: [4, 4]}).dense_shape,
                                      [4, 4])
        with pytest.raises(InvalidArgumentError):
            sess.run(out, {sp: SPV, shape: [2, 4]})


def test_the_namespaces_have_tf1_spellings():
    pairs = {"concat": "sparse_concat", "slice": "sparse_slice", "split": "sparse_split",
             "fill_empty_rows": "sparse_fill_empty_rows", "reduce_max": "sparse_reduce_max",
             "reduce_max_sparse": "sparse_reduce_max_sparse",
             "reduce_sum_sparse": "sparse_reduce_sum_sparse", "softmax": "sparse_softmax",
             "maximum": "sparse_maximum", "minimum": "sparse_minimum",
             "retain": "sparse_retain", "transpose": "sparse_transpose",
             "reset_shape": "sparse_reset_shape", "to_indicator": "sparse_to_indicator",
             "merge": "sparse_merge"}
    for short, long in pairs.items():
        assert getattr(ds.sparse, short) is getattr(ds, long), short
    assert callable(ds.sparse.expand_dims) and callable(ds.sparse.eye)
