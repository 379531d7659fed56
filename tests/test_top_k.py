"""TopKV2 and InTopKV2 (``ds.nn.top_k``, ``ds.nn.in_top_k``): the kernels on every device
(``kernel_cases.DEVICES``: CPU, a GPU where there is one, the cupy stand-in) against the
reference, and the reference against direct numpy formulas written here (a lexsort by
(NaN last, value descending, index) for top_k; TF's counting loop for in_top_k); static
shapes and build-time errors; run-time errors naming the node; sessions on the CPU and on
the stand-in GPU; the gradient against finite differences; GraphDefs in TF's form.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient
from graph_building import ph
from kernel_cases import (BIG, DEVICES, F16, F32, F64, I32, I64, check_against_ref, make_node,
                          rng_for, run_on)
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)
from test_tf_graphdef import add_node, placeholder, run_imported, tf_const

TOP_K_OPS = {"TopKV2", "InTopKV2"}
U8, I8 = np.dtype(np.uint8), np.dtype(np.int8)
BOOL = np.dtype(np.bool_)


# --- the formulas the reference is checked against ----------------------------------------

def numpy_top_k(x: np.ndarray, k: int):
    """Per row: NaN last, then larger values first, then lower indices first."""
    rows = x.reshape(int(np.prod(x.shape[:-1])), x.shape[-1])
    wide = rows.astype(np.float64) if x.dtype.kind == "f" else rows.astype(np.int64)
    index = np.arange(x.shape[-1])
    order = np.zeros((len(rows), k), np.int64)
    for r, row in enumerate(wide):
        if x.dtype == I64:      # -row would wrap at the minimum: Python's ints
            order[r] = sorted(range(len(row)), key=lambda j: (-int(row[j]), j))[:k]
            continue
        keys = (index, -np.nan_to_num(row, nan=0), np.isnan(row)) if x.dtype.kind == "f" \
            else (index, -row)
        order[r] = np.lexsort(keys)[:k]
    shape = x.shape[:-1] + (k,)
    values = np.take_along_axis(rows, order, axis=1)
    return values.reshape(shape), order.reshape(shape).astype(np.int32)


def numpy_in_top_k(predictions, targets, k):
    """TF's InTopKFunctor, row by row."""
    out = []
    for row, target in zip(predictions, targets):
        if not 0 <= target < len(row) or not np.isfinite(row).all():
            out.append(False)
            continue
        out.append(int(np.sum(row > row[target])) < k)
    return np.array(out, dtype=bool)


def top_k_node(dtype, name=None):
    """A TopKV2 node: two outputs, the values' dtype and int32."""
    node = make_node("TopKV2", [dtype, I32], dtype, {"sorted": True}, name=name)
    return dataclasses.replace(node, output_dtypes=(np.dtype(dtype), I32))


def intop_k_node(index_dtype=I32, name=None):
    return make_node("InTopKV2", [F32, index_dtype, index_dtype], BOOL, name=name)


def inputs_of(dtype, shape, key, distinct_values=None):
    """Values of ``dtype`` with many ties (``distinct_values`` of them) or spread out."""
    rng = rng_for("top_k", dtype, shape, key)
    if dtype.kind == "u":
        high = distinct_values or 256
        return rng.integers(0, high, size=shape).astype(dtype)
    if dtype.kind == "i":
        high = distinct_values or 1000
        return rng.integers(-high // 2, high - high // 2, size=shape).astype(dtype)
    if distinct_values:
        return (rng.integers(0, distinct_values, size=shape) - 1.5).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)


# --- kernels: every device against the reference, the reference against numpy -------------

CASES = [((0,), 0), ((1,), 0), ((1,), 1), ((7,), 0), ((7,), 1), ((7,), 3), ((7,), 7),
         ((3, 0), 0), ((0, 5), 2), ((2, 3, 5), 2), ((2, 3, 5), 5), ((4, 1000), 10),
         ((BIG,), 5)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F64, I32, U8, F16, I8, I64], ids=str)
@pytest.mark.parametrize("shape,k", CASES, ids=str)
@pytest.mark.parametrize("ties", [None, 3], ids=["spread", "ties"])
def test_top_k_kernels(device, dtype, shape, k, ties):
    if shape == (BIG,) and (dtype not in (F32, I32) or device != "CPU"):
        pytest.skip("the big row on the CPU, float32 and int32")
    x = inputs_of(dtype, shape, k, ties)
    node = top_k_node(dtype)
    values, indices = check_against_ref(device, node, x, np.int32(k))
    want_values, want_indices = numpy_top_k(x, k)
    assert values.dtype == dtype and indices.dtype == I32
    assert values.shape == indices.shape == shape[:-1] + (k,)
    np.testing.assert_array_equal(indices, want_indices)
    np.testing.assert_array_equal(values, want_values)
    ref_values, ref_indices = run_on("REF", node, x, np.int32(k))
    np.testing.assert_array_equal(ref_indices, want_indices)


@pytest.mark.parametrize("device", DEVICES)
def test_top_k_ties_take_the_lower_index_first(device):
    x = np.array([[1, 3, 3, 2, 3, 1], [5, 5, 5, 5, 5, 5], [0, 1, 0, 1, 0, 1]], np.float32)
    values, indices = run_on(device, top_k_node(F32), x, np.int32(4))
    np.testing.assert_array_equal(indices, [[1, 2, 4, 3], [0, 1, 2, 3], [1, 3, 5, 0]])
    np.testing.assert_array_equal(values, [[3, 3, 3, 2], [5, 5, 5, 5], [1, 1, 1, 0]])
    # -0.0 and 0.0 are equal: index order
    signed_zeros = np.array([-0.0, 0.0, -0.0, -1.0], np.float32)
    _, indices = run_on(device, top_k_node(F32), signed_zeros, np.int32(3))
    np.testing.assert_array_equal(indices, [0, 1, 2])


@pytest.mark.parametrize("device", DEVICES)
def test_top_k_puts_nan_below_every_number(device):
    x = np.array([np.nan, 1.0, -np.inf, np.nan, np.inf, 2.0], np.float32)
    values, indices = run_on(device, top_k_node(F32), x, np.int32(6))
    np.testing.assert_array_equal(indices, [4, 5, 1, 2, 0, 3])
    np.testing.assert_array_equal(values, [np.inf, 2.0, 1.0, -np.inf, np.nan, np.nan])
    values, indices = run_on(device, top_k_node(F32), x, np.int32(4))
    np.testing.assert_array_equal(indices, [4, 5, 1, 2])     # the NaNs are not picked


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [U8, I8, I32, I64], ids=str)
def test_top_k_integer_extremes(device, dtype):
    info = np.iinfo(dtype)
    x = np.array([0, info.max, info.min, 1, info.max, info.min + 1], dtype)
    values, indices = run_on(device, top_k_node(dtype), x, np.int32(6))
    want = numpy_top_k(x, 6)
    np.testing.assert_array_equal(indices, want[1])
    np.testing.assert_array_equal(values, want[0])
    assert values[0] == values[1] == info.max and indices[0] == 1


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("x,k,message", [
    (np.ones((2, 3), np.float32), 4, r"input must have at least k columns \(k = 4, input "
                                     r"shape \[2,3\]\)"),
    (np.ones((2, 3), np.float32), -1, "Need k >= 0, got -1"),
    (np.float32(2.0), 1, r"input must be >= 1-D, got shape \[\]"),
    (np.ones((3,), np.float32), np.array([1], np.int32), r"k must be scalar, got shape \[1\]"),
])
def test_top_k_run_time_errors_name_the_node(device, x, k, message):
    node = top_k_node(F32, name="my_top_k")
    with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
        run_on(device, node, np.asarray(x), np.asarray(k, np.int32))
    assert info.value.node_name == "my_top_k" and "my_top_k" in str(info.value)


IN_TOP_K = {
    "ties": (np.array([[1, 3, 3, 2], [5, 5, 5, 5], [4, 1, 4, 4]], np.float32),
             np.array([1, 3, 1])),
    "out_of_range": (np.array([[1, 2, 3], [3, 2, 1], [0, 0, 0], [1, 1, 2]], np.float32),
                     np.array([-1, 3, 100, 2])),
    "non_finite": (np.array([[np.nan, 1, 2], [1, np.inf, 0], [1, 2, -np.inf], [3, 2, 1],
                             [np.nan, np.nan, 0]], np.float32), np.array([2, 0, 1, 0, 2])),
    "random": (rng_for("in_top_k").integers(0, 4, (50, 9)).astype(np.float32),
               rng_for("targets").integers(-1, 10, 50)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", sorted(IN_TOP_K))
@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 4, 9, 20])
@pytest.mark.parametrize("index_dtype", [I32, I64], ids=str)
def test_in_top_k_kernels(device, case, k, index_dtype):
    predictions, targets = IN_TOP_K[case]
    targets = targets.astype(index_dtype)
    got = check_against_ref(device, intop_k_node(index_dtype), predictions, targets,
                            np.asarray(k, index_dtype))
    np.testing.assert_array_equal(got, numpy_in_top_k(predictions, targets, k))


@pytest.mark.parametrize("device", DEVICES)
def test_in_top_k_counts_strictly_greater_and_masks_non_finite_rows(device):
    predictions = np.array([[1, 3, 3, 2], [1, 3, 3, 2], [7, np.nan, 1, 0], [2, 2, 2, 2]],
                           np.float32)
    targets = np.array([2, 3, 0, 3], np.int32)
    got = run_on(device, intop_k_node(), predictions, targets, np.int32(1))
    # row 0: the 3s tie for first, both are in the top 1; row 1: two greater than 2;
    # row 2: its target is the largest but the row holds a NaN (TF: cannot say)
    np.testing.assert_array_equal(got, [True, False, False, True])
    got = run_on(device, intop_k_node(), predictions, targets, np.int32(3))
    np.testing.assert_array_equal(got, [True, True, False, True])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(0, 4), (3, 0)], ids=str)
def test_in_top_k_empty(device, shape):
    targets = np.zeros(shape[0], np.int32)
    got = check_against_ref(device, intop_k_node(), np.zeros(shape, np.float32), targets,
                            np.int32(1))
    np.testing.assert_array_equal(got, np.zeros(shape[0], bool))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("p_shape,t_shape,k,message", [
    ((2, 3), (3,), 1, "First dimension of predictions 2 must match length of targets 3"),
    ((2, 3, 1), (2,), 1, "predictions must be 2-dimensional"),
    ((2, 3), (2, 1), 1, "targets must be 1-dimensional"),
    ((2, 3), (2,), [1, 2], "k must be scalar"),
])
def test_in_top_k_run_time_errors_name_the_node(device, p_shape, t_shape, k, message):
    with pytest.raises(ds.errors.InvalidArgumentError, match=message) as info:
        run_on(device, intop_k_node(name="hits"), np.zeros(p_shape, np.float32),
               np.zeros(t_shape, np.int32), np.asarray(k, np.int32))
    assert info.value.node_name == "hits" and "hits" in str(info.value)


# --- building: static shapes, namedtuple, exports, build-time errors ------------------------

def test_top_k_static_shapes_and_result(graph):
    x = ph((None, 3, 7), ds.float64, name="x")
    result = ds.nn.top_k(x, 4, name="best")
    values, indices = result
    assert result.values is values and result.indices is indices
    assert type(result).__name__ == "TopKV2" and result._fields == ("values", "indices")
    assert values.op.type == "TopKV2" and values.op.name == "best"
    assert (values.dtype, values.shape.as_list()) == (ds.float64, [None, 3, 4])
    assert (indices.dtype, indices.shape.as_list()) == (ds.int32, [None, 3, 4])
    assert values.op.get_attr("sorted") is True
    assert ds.math.top_k(x).values.shape.as_list() == [None, 3, 1]       # k=1 default
    fed = ds.nn.top_k(x, ph((), ds.int32, name="k"))
    assert fed.values.shape.as_list() == [None, 3, None]
    assert ds.nn.top_k(ph(None, ds.int32), 2).indices.shape.ndims is None
    assert ds.nn.top_k(ph((None,), ds.uint8), 3).values.shape.as_list() == [3]
    assert ds.nn.top_k(x, 2, sorted=False).values.op.get_attr("sorted") is False


def test_in_top_k_static_shape(graph):
    hits = ds.nn.in_top_k(ph((None, 10), ds.float32), ph((32,), ds.int64), 5, name="hits")
    assert (hits.op.type, hits.dtype, hits.shape.as_list()) == ("InTopKV2", ds.bool, [32])
    assert hits.op.inputs[2].dtype == ds.int64                # k takes the targets' dtype
    assert ds.math.in_top_k(ph(None, ds.float32), ph(None, ds.int32), 1).shape.as_list() \
        == [None]
    assert ds.nn.in_top_k is ds.math.in_top_k and ds.nn.top_k is ds.math.top_k


@pytest.mark.parametrize("build,error,message", [
    (lambda: ds.nn.top_k(ph((2, 3)), 4), ValueError, "last dimension >= k = 4"),
    (lambda: ds.nn.top_k(ph((2, 3)), -1), ValueError, "Need k >= 0, got -1"),
    (lambda: ds.nn.top_k(ph(()), 1), ValueError, "rank >= 1"),
    (lambda: ds.nn.top_k(ph((2, 3)), ph((2,), ds.int32)), ValueError, "must be a scalar"),
    (lambda: ds.nn.top_k(ph((3,)), ph((), ds.int64)), TypeError, "int32"),
    (lambda: ds.nn.top_k(ph((3,), ds.bool), 1), TypeError, "numeric"),
    (lambda: ds.nn.in_top_k(ph((4, 3)), ph((5,), ds.int32), 1), ValueError,
     "have 4 rows but targets"),
    (lambda: ds.nn.in_top_k(ph((4,)), ph((4,), ds.int32), 1), ValueError, "rank 2"),
    (lambda: ds.nn.in_top_k(ph((4, 3)), ph((4, 1), ds.int32), 1), ValueError, "rank 1"),
    (lambda: ds.nn.in_top_k(ph((4, 3), ds.float64), ph((4,), ds.int32), 1), TypeError,
     "float32"),
    (lambda: ds.nn.in_top_k(ph((4, 3)), ph((4,), ds.float32), 1), TypeError, "int32 or int64"),
])
def test_build_time_errors(graph, build, error, message):
    with pytest.raises(error, match=message):
        build()


# --- sessions -------------------------------------------------------------------------------

def test_top_k_and_in_top_k_in_a_cpu_session():
    x = ds.placeholder(ds.float32, (None, None), name="x")
    k = ds.placeholder(ds.int32, (), name="k")
    labels = ds.placeholder(ds.int32, (None,), name="labels")
    best = ds.nn.top_k(x, k, name="best")
    accuracy = ds.reduce_mean(ds.cast(ds.nn.in_top_k(x, labels, 1), ds.float32))
    xv = inputs_of(F32, (6, 9), "session", 4)
    lv = np.array([0, 1, 2, 3, 8, 5], np.int32)
    with ds.Session(options=ds.SessionOptions(device="cpu")) as sess:
        got = sess.run({"best": best, "acc": accuracy}, {x: xv, k: 3, labels: lv})
        want_values, want_indices = numpy_top_k(xv, 3)
        np.testing.assert_array_equal(got["best"].values, want_values)
        np.testing.assert_array_equal(got["best"].indices, want_indices)
        assert got["acc"] == pytest.approx(numpy_in_top_k(xv, lv, 1).mean())
        with pytest.raises(ds.errors.InvalidArgumentError, match="at least k columns") as e:
            sess.run(best.values, {x: xv, k: 10})
        assert e.value.node_name == "best"
        with pytest.raises(ds.errors.InvalidArgumentError, match="Need k >= 0") as e:
            sess.run(best.indices, {x: xv, k: -2})
        assert e.value.node_name == "best"
        empty = sess.run(best, {x: xv, k: 0})
        assert empty.values.shape == empty.indices.shape == (6, 0)


def test_on_the_stand_in_gpu(standin):  # noqa: F811
    x = ds.placeholder(ds.float32, (None, 5), name="x")
    labels = ds.placeholder(ds.int64, (None,), name="labels")
    with ds.device("gpu:0"):
        values, indices = ds.nn.top_k(x * 1.0, 2, name="best")
        hits = ds.nn.in_top_k(x * 1.0, labels, 2, name="hits")
        (grad,) = ds.gradients(ds.reduce_sum(values * ds.constant([[1.0, 10.0]])), [x])
        k = ds.placeholder(ds.int32, (), name="k")
        fed = ds.nn.top_k(x, k, name="fed").values
    xv = np.array([[1, 9, 3, 9, 0], [np.nan, 1, 2, 3, 4], [5, 4, 3, 2, 1]], np.float32)
    lv = np.array([3, 4, 2], np.int64)
    with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
        v, i, h, g = sess.run([values, indices, hits, grad], {x: xv, labels: lv})
        with pytest.raises(ds.errors.InvalidArgumentError, match="at least k columns") as e:
            sess.run(fed, {x: xv, k: 6})
        assert e.value.node_name == "fed"
    np.testing.assert_array_equal(i, [[1, 3], [4, 3], [0, 1]])
    np.testing.assert_array_equal(v, [[9, 9], [4, 3], [5, 4]])
    np.testing.assert_array_equal(h, [True, False, False])
    np.testing.assert_array_equal(g, [[0, 1, 0, 10, 0], [0, 0, 0, 10, 1], [1, 10, 0, 0, 0]])


# --- gradient --------------------------------------------------------------------------------

def distinct(key, shape):
    """Values at least 0.1 apart: no finite-difference step reorders them."""
    values = rng_for(*key).permutation(int(np.prod(shape))) * 0.1
    return (values - values.mean()).reshape(shape)


@pytest.mark.parametrize("shape,k", [((7,), 3), ((3, 5), 1), ((3, 5), 5), ((2, 3, 4), 2)],
                         ids=str)
def test_top_k_gradient(shape, k):
    (dx, _) = check_op_gradient(lambda x: ds.nn.top_k(x, k), [distinct(("g", shape), shape)])
    assert np.count_nonzero(dx) == np.prod(shape[:-1]) * k     # only the picked positions


@pytest.mark.parametrize("k_value", [0, 2, 4])
def test_top_k_gradient_with_unknown_shapes_and_a_fed_k(k_value):
    x = ds.placeholder(ds.float64, None, name="x")
    k = ds.placeholder(ds.int32, (), name="k")
    values, indices = ds.nn.top_k(x, k)
    dy = ds.placeholder(ds.float64, None, name="dy")
    dx, dk = ds.gradients(values, [x, k], grad_ys=[dy])
    assert dk is None
    assert ds.gradients(indices, [x]) == [None]
    xv = distinct(("fed",), (2, 3, 4))
    dyv = rng_for("dy", k_value).standard_normal((2, 3, k_value))
    with ds.Session() as sess:
        got, picked = sess.run([dx, indices], {x: xv, k: k_value, dy: dyv})
    want = np.zeros_like(xv)
    np.put_along_axis(want, picked.astype(np.int64), dyv, axis=-1)
    np.testing.assert_array_equal(got, want)


def test_in_top_k_is_not_differentiable():
    predictions = ds.placeholder(ds.float32, (2, 3))
    hits = ds.cast(ds.nn.in_top_k(predictions, ds.constant([0, 1]), 1), ds.float32)
    assert ds.gradients(ds.reduce_sum(hits), [predictions]) == [None]


# --- TensorFlow's GraphDefs -------------------------------------------------------------------

def test_tf_top_k_v2_and_in_top_k_v2_nodes_import_and_run():
    gd = ds.GraphDef()
    placeholder(gd, "x", shape=(None, 4))
    placeholder(gd, "labels", ds.int64, shape=(None,))
    tf_const(gd, "k", 2, np.int32)
    tf_const(gd, "k64", 1, np.int64)
    add_node(gd, "top", "TopKV2", ["x", "k"], T=ds.float32, sorted=True)
    add_node(gd, "hits", "InTopKV2", ["x", "labels", "k64"], T=ds.int64)
    add_node(gd, "picked", "Identity", ["top:1"], T=ds.int32)
    xv = np.array([[1, 4, 4, 2], [0, -1, 3, 3]], np.float32)
    lv = np.array([2, 3], np.int64)
    values, picked, hits = run_imported(gd, ["top:0", "picked:0", "hits:0"],
                                        {"x:0": xv, "labels:0": lv})
    np.testing.assert_array_equal(values, [[4, 4], [3, 3]])
    np.testing.assert_array_equal(picked, [[1, 2], [2, 3]])
    np.testing.assert_array_equal(hits, [True, True])
    g = ds.Graph()
    ds.import_graph_def(gd, name="", graph=g)
    top = g.get_operation_by_name("top")
    assert [t.shape.as_list() for t in top.outputs] == [[None, 2], [None, 2]]
    assert top.outputs[1].dtype == ds.int32 and "T" not in top.attrs


def test_a_fed_k_in_tf_form_is_checked_at_run_time():
    gd = ds.GraphDef()
    placeholder(gd, "x", shape=(None, 3))
    placeholder(gd, "k", ds.int32, shape=())
    add_node(gd, "top", "TopKV2", ["x", "k"], T=ds.float32, sorted=True)
    with pytest.raises(ds.errors.InvalidArgumentError, match="at least k columns") as info:
        run_imported(gd, "top:0", {"x:0": np.ones((2, 3), np.float32), "k:0": 5})
    assert info.value.node_name == "top"


def test_top_k_round_trips_through_a_graph_def():
    g = ds.Graph()
    with g.as_default():
        x = ds.constant(np.array([[3, 1, 2]], np.float32), name="x")
        ds.nn.top_k(x, 2, name="top")
        ds.nn.in_top_k(x, ds.constant([0]), 1, name="hits")
    imported = ds.Graph()
    ds.import_graph_def(g.as_graph_def(), name="", graph=imported)
    with ds.Session(graph=imported) as sess:
        values, indices, hits = sess.run(["top:0", "top:1", "hits:0"])
    np.testing.assert_array_equal(values, [[3, 2]])
    np.testing.assert_array_equal(indices, [[0, 2]])
    np.testing.assert_array_equal(hits, [True])

