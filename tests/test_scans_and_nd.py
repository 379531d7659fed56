"""The scans (Cumsum, Cumprod) and the coordinate-indexing ops (GatherNd, ScatterNd,
TensorScatterUpdate/Add/Sub): the reference kernels against Python loops written here,
every device's kernel (CPU, a GPU where there is one, the cupy stand-in) against the
reference, static shapes and build-time errors, run-time errors naming the node, and
each gradient against finite differences.  TensorFlow's own outputs for these ops are
checked by the frozen model ``scans_and_nd`` (tests/test_tf_graphdef.py).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient
from kernel_cases import (DEVICES, F16, F32, F64, I32, I64, STANDIN, check_against_ref,
                          make_node, rng_for, run_on)

OPS = {"Cumsum", "Cumprod", "GatherNd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd",
       "TensorScatterSub"}
SCAN_FORMS = list(itertools.product(("Cumsum", "Cumprod"), (False, True), (False, True)))


# --- the formulas the reference kernels are checked against -----------------------------------

def loop_scan(op, x, axis, exclusive, reverse):
    """The running sum or product, one position at a time, in float64 (or Python ints
    wrapped back to the dtype)."""
    moved = np.moveaxis(x, axis, -1)
    out = np.zeros(moved.shape, np.float64 if x.dtype.kind == "f" else object)
    n = moved.shape[-1]
    for index in np.ndindex(moved.shape[:-1]):
        row = moved[index].tolist()
        order = range(n - 1, -1, -1) if reverse else range(n)
        total = 0 if op == "Cumsum" else 1
        for j in order:
            if exclusive:
                out[index + (j,)] = total
            total = total + row[j] if op == "Cumsum" else total * row[j]
            if not exclusive:
                out[index + (j,)] = total
    if x.dtype.kind == "i":          # wrap as the dtype does
        bits = 8 * x.dtype.itemsize
        out = np.vectorize(lambda v: (v + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1),
                           otypes=[np.int64])(out)
    return np.moveaxis(out, -1, axis).astype(x.dtype)


def loop_gather_nd(params, indices):
    k = indices.shape[-1]
    coords = indices.reshape(int(np.prod(indices.shape[:-1])), k).tolist()
    rows = np.array([params[tuple(c)] for c in coords], params.dtype)
    return rows.reshape(indices.shape[:-1] + params.shape[k:])


def loop_scatter(base, indices, updates, mode):
    out = base.astype(np.float64 if base.dtype.kind == "f" else base.dtype).copy()
    k = indices.shape[-1]
    slices = updates.reshape((int(np.prod(indices.shape[:-1])),) + base.shape[k:])
    for c, u in zip(indices.reshape(len(slices), k).tolist(), slices):
        if mode == "update":
            out[tuple(c)] = u
        else:
            out[tuple(c)] += u if mode == "add" else -u
    return out.astype(base.dtype)


def scan_node(op, dtype, exclusive=False, reverse=False, axis_dtype=I32):
    return make_node(op, [dtype, axis_dtype], dtype, {"exclusive": exclusive,
                                                      "reverse": reverse})


def values_of(dtype, shape, *key, low=-3, high=4):
    rng = rng_for("scans", dtype, shape, *key)
    if dtype.kind == "i":
        return rng.integers(low, high, size=shape).astype(dtype)
    return (rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1, 1], size=shape)).astype(dtype)


# --- Cumsum, Cumprod ---------------------------------------------------------------------------

SCAN_SHAPES = [((0,), 0), ((1,), 0), ((7,), 0), ((7,), -1), ((3, 0), 1), ((3, 5), 0),
               ((3, 5), 1), ((2, 3, 4), 1), ((2, 3, 4), -1)]


@pytest.mark.parametrize("op,exclusive,reverse", SCAN_FORMS, ids=str)
@pytest.mark.parametrize("shape,axis", SCAN_SHAPES, ids=str)
def test_reference_scans_match_a_loop(op, exclusive, reverse, shape, axis):
    for dtype in (F64, I32):
        x = values_of(dtype, shape, op, axis)
        got = run_on("REF", scan_node(op, dtype, exclusive, reverse), x, np.int32(axis))
        np.testing.assert_allclose(got, loop_scan(op, x, axis % len(shape), exclusive,
                                                  reverse), rtol=1e-12)
        assert got.dtype == dtype


def test_integer_scans_wrap_like_the_dtype():
    x = np.array([2 ** 30, 2 ** 30, 2 ** 30], np.int32)
    got = run_on("REF", scan_node("Cumsum", I32), x, np.int32(0))
    np.testing.assert_array_equal(got, loop_scan("Cumsum", x, 0, False, False))
    assert got[1] < 0                                  # 2**31 wrapped


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op,exclusive,reverse", SCAN_FORMS, ids=str)
@pytest.mark.parametrize("dtype", [F32, F64, F16, I32, I64], ids=str)
def test_scan_kernels_match_the_reference(device, op, exclusive, reverse, dtype):
    for shape, axis in SCAN_SHAPES:
        x = values_of(dtype, shape, op, axis)
        check_against_ref(device, scan_node(op, dtype, exclusive, reverse), x,
                          np.int32(axis))


@pytest.mark.parametrize("device", ["REF", "CPU", STANDIN])
def test_a_scan_axis_out_of_range_at_run_time_names_the_node(device):
    node = scan_node("Cumsum", F32, axis_dtype=I64)
    with pytest.raises(ds.errors.InvalidArgumentError, match="cumsum_node.*range \\[-2, 2\\)"):
        run_on(device, node, np.ones((2, 3), np.float32), np.int64(2))


def test_a_constant_scan_axis_out_of_range_builds_and_fails_at_run_time():
    """TF's Cumsum/Cumprod shape function does not look at the axis (tf.cumprod(x,
    axis=2) of a matrix builds in TF); the run is the kernel's error."""
    x = ds.constant(np.ones((2, 3), np.float32))
    y = ds.math.cumprod(x, axis=2, exclusive=True)
    assert y.shape.as_list() == [2, 3]
    with ds.Session() as sess:
        with pytest.raises(ds.errors.InvalidArgumentError, match="range \\[-2, 2\\)"):
            sess.run(y)


def test_scans_through_a_session_with_a_fed_axis():
    x = ds.placeholder(ds.float32, [None, 3])
    axis = ds.placeholder(ds.int32, [])
    y = ds.cumsum(x, axis, exclusive=True, reverse=True)
    value = values_of(F32, (4, 3), "session")
    with ds.Session() as sess:
        for a in (0, 1, -1):
            np.testing.assert_allclose(sess.run(y, {x: value, axis: a}),
                                       loop_scan("Cumsum", value, a % 2, True, True),
                                       rtol=1e-6)
        with pytest.raises(ds.errors.InvalidArgumentError, match=y.op.name):
            sess.run(y, {x: value, axis: 2})


def test_scans_check_what_the_graph_knows():
    x = ds.placeholder(ds.float32, [2, 3])
    assert ds.math.cumprod(x, 1).shape.as_list() == [2, 3]
    assert ds.cumsum(x, 2).shape.as_list() == [2, 3]      # TF's: the run's error
    with pytest.raises(ValueError, match="must be a scalar"):
        ds.cumsum(x, [0, 1])
    with pytest.raises(TypeError, match="int32 or int64"):
        ds.cumsum(x, ds.constant(1.0))
    with pytest.raises(TypeError, match="numeric"):
        ds.cumsum(ds.constant([True, False]))


@pytest.mark.parametrize("op,exclusive,reverse", SCAN_FORMS, ids=str)
def test_scan_gradients_match_finite_differences(op, exclusive, reverse):
    x = values_of(F64, (3, 4), "grad")
    build = ds.cumsum if op == "Cumsum" else ds.cumprod
    for axis in (0, 1):
        check_op_gradient(lambda t, a=axis: build(t, a, exclusive=exclusive, reverse=reverse),
                          [x])


# --- GatherNd ------------------------------------------------------------------------------------

def gather_nd_node(dtype, index_dtype=I32):
    return make_node("GatherNd", [dtype, index_dtype], dtype)


def nd_case(shape, count, k, key, *, batch=()):
    """``count`` in-range coordinates of length ``k`` into ``shape`` (with repeats),
    shaped ``batch + (count, k)``."""
    rng = rng_for("nd", shape, count, k, key)
    if not (k and count and all(shape[:k])):
        return np.zeros(batch + (count if k == 0 else 0, k), np.int32)
    coords = np.stack([rng.integers(0, shape[j], size=batch + (count,)) for j in range(k)],
                      axis=-1)
    return coords.astype(np.int32)


GATHER_CASES = [((5,), 3, 1), ((4, 3), 6, 1), ((4, 3), 6, 2), ((2, 3, 4), 5, 2),
                ((2, 3, 4), 1, 3), ((2, 3), 4, 0), ((3, 0), 2, 1), ((0, 2), 0, 1),
                ((3, 2), 0, 2)]


@pytest.mark.parametrize("shape,count,k", GATHER_CASES, ids=str)
def test_reference_gather_nd_matches_a_loop(shape, count, k):
    params = values_of(F64, shape, "gather")
    for batch in ((), (2,)):
        indices = nd_case(shape, count, k, "ref", batch=batch)
        got = run_on("REF", gather_nd_node(F64), params, indices)
        np.testing.assert_array_equal(got, loop_gather_nd(params, indices))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F16, I64], ids=str)
def test_gather_nd_kernels_match_the_reference(device, dtype):
    for shape, count, k in GATHER_CASES:
        params = values_of(dtype, shape, "gather")
        check_against_ref(device, gather_nd_node(dtype, I64), params,
                          nd_case(shape, count, k, device).astype(np.int64))


@pytest.mark.parametrize("device", ["REF", "CPU", STANDIN])
def test_a_coordinate_outside_the_params_names_the_node_and_the_coordinate(device):
    """TF's wording: GatherNd's coordinates "do not index into param shape" (the
    scatters' say "shape"), the message programs check."""
    params = np.zeros((2, 3), np.float32)
    indices = np.array([[[0, 1], [1, 2]], [[1, -1], [0, 0]]], np.int32)
    with pytest.raises(ds.errors.InvalidArgumentError,
                       match=r"gathernd_node.*indices\[1,0\] = \[1, -1\] does not index "
                             r"into param shape \[2,3\]"):
        run_on(device, gather_nd_node(F32), params, indices)


# --- ScatterNd, TensorScatterUpdate/Add/Sub --------------------------------------------------------

SCATTER_CASES = [((6,), 8, 1), ((4, 3), 7, 1), ((4, 3), 7, 2), ((2, 3, 4), 9, 2),
                 ((3, 2), 0, 1), ((2, 0), 3, 1)]
TENSOR_SCATTERS = {"TensorScatterUpdate": "update", "TensorScatterAdd": "add",
                   "TensorScatterSub": "sub"}


def scatter_inputs(shape, count, k, dtype, key, unique=False):
    indices = nd_case(shape, count, k, key)
    if unique:
        if len(indices):
            _, first = np.unique(indices, axis=0, return_index=True)
            indices = indices[np.sort(first)]
    updates = values_of(dtype, indices.shape[:-1] + shape[k:], key, "updates")
    return indices, updates


@pytest.mark.parametrize("shape,count,k", SCATTER_CASES, ids=str)
def test_reference_scatters_match_a_loop(shape, count, k):
    indices, updates = scatter_inputs(shape, count, k, F64, "ref")
    got = run_on("REF", make_node("ScatterNd", [I32, F64, I32], F64), indices, updates,
                 np.array(shape, np.int32))
    np.testing.assert_allclose(got, loop_scatter(np.zeros(shape), indices, updates, "add"),
                               rtol=1e-12)
    base = values_of(F64, shape, "base")
    for op, mode in TENSOR_SCATTERS.items():
        ids, ups = scatter_inputs(shape, count, k, F64, "ref", unique=mode == "update")
        got = run_on("REF", make_node(op, [F64, I32, F64], F64), base, ids, ups)
        np.testing.assert_allclose(got, loop_scatter(base, ids, ups, mode), rtol=1e-12)


def test_repeated_coordinates_add_up():
    got = run_on("CPU", make_node("ScatterNd", [I32, F32, I32], F32),
                 np.array([[1], [3], [1]], np.int32), np.array([1, 2, 3], np.float32),
                 np.array([5], np.int32))
    np.testing.assert_array_equal(got, [0, 4, 0, 2, 0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F32, F16, F64, I32, I64], ids=str)
def test_scatter_kernels_match_the_reference(device, dtype):
    for shape, count, k in SCATTER_CASES:
        indices, updates = scatter_inputs(shape, count, k, dtype, device)
        check_against_ref(device, make_node("ScatterNd", [I32, dtype, I32], dtype), indices,
                          updates, np.array(shape, np.int32))
        base = values_of(dtype, shape, "base")
        for op, mode in TENSOR_SCATTERS.items():
            ids, ups = scatter_inputs(shape, count, k, dtype, device, unique=mode == "update")
            check_against_ref(device, make_node(op, [dtype, I32, dtype], dtype), base, ids,
                              ups)


@pytest.mark.parametrize("device", ["REF", "CPU", STANDIN])
def test_bad_scatter_inputs_name_the_node(device):
    node = make_node("ScatterNd", [I32, F32, I32], F32)
    ones = np.ones(2, np.float32)
    with pytest.raises(ds.errors.InvalidArgumentError, match=r"scatternd_node.*\[4\] does "
                                                             r"not index into shape \[4\]"):
        run_on(device, node, np.array([[0], [4]], np.int32), ones, np.array([4], np.int32))
    with pytest.raises(ds.errors.InvalidArgumentError, match="updates must have shape"):
        run_on(device, node, np.array([[0], [1]], np.int32), np.ones(3, np.float32),
               np.array([4], np.int32))
    with pytest.raises(ds.errors.InvalidArgumentError, match="non-negative"):
        run_on(device, node, np.zeros((0, 1), np.int32), np.ones(0, np.float32),
               np.array([-1], np.int32))
    add = make_node("TensorScatterAdd", [F32, I32, F32], F32)
    with pytest.raises(ds.errors.InvalidArgumentError, match=r"tensorscatteradd_node"):
        run_on(device, add, np.zeros((3, 2), np.float32), np.array([[0, 2]], np.int32),
               np.ones(1, np.float32))


def test_nd_ops_check_what_the_graph_knows():
    params = ds.placeholder(ds.float32, [4, 3, 2])
    assert ds.gather_nd(params, ds.placeholder(ds.int32, [5, 7, 2])).shape.as_list() == \
        [5, 7, 2]
    assert ds.gather_nd(params, ds.placeholder(ds.int32, [None, 3])).shape.as_list() == \
        [None]
    assert ds.scatter_nd([[1], [2]], ds.zeros([2, 3]), [5, 3]).shape.as_list() == [5, 3]
    with pytest.raises(ValueError, match="length 4, more than the rank 3"):
        ds.gather_nd(params, ds.placeholder(ds.int32, [5, 4]))
    with pytest.raises(ValueError, match="rank >= 1"):
        ds.gather_nd(params, 1)
    with pytest.raises(TypeError, match="int32 or int64"):
        ds.gather_nd(params, [[0.5]])
    with pytest.raises(ValueError, match="updates .* have shape \\(2, 4\\)"):
        ds.scatter_nd([[1], [2]], ds.zeros([2, 4]), [5, 3])
    with pytest.raises(ValueError, match="updates"):
        ds.tensor_scatter_nd_add(params, [[0, 1]], ds.zeros([1, 3]))
    with pytest.raises(TypeError, match="int32"):
        ds.tensor_scatter_nd_update(ds.zeros([3], ds.int32), [[0]],
                                    ds.constant([1.5]))


def test_nd_ops_through_a_session():
    table = values_of(F32, (5, 3), "session")
    coords = np.array([[4], [0], [4]], np.int32)
    params = ds.placeholder(ds.float32, [None, 3])
    picked = ds.gather_nd(params, coords)
    back = ds.scatter_nd(coords, picked, ds.shape(params))
    moved = ds.tensor_scatter_update(params, [[1], [2]], picked[:2])
    with ds.Session() as sess:
        got_picked, got_back, got_moved = sess.run([picked, back, moved], {params: table})
    np.testing.assert_array_equal(got_picked, table[[4, 0, 4]])
    np.testing.assert_allclose(got_back, loop_scatter(np.zeros((5, 3), np.float32), coords,
                                                      table[[4, 0, 4]], "add"))
    np.testing.assert_array_equal(got_moved, np.concatenate([table[:1], table[[4, 0]],
                                                             table[3:]]))


def test_nd_gradients_match_finite_differences():
    params = values_of(F64, (4, 3, 2), "grad")
    coords = np.array([[3, 1], [0, 2], [3, 1], [1, 0]], np.int32)    # a repeat
    check_op_gradient(lambda p: ds.gather_nd(p, coords), [params])
    updates = values_of(F64, (4, 2), "grad updates")
    check_op_gradient(lambda u: ds.scatter_nd(coords, u, [4, 3, 2]), [updates])
    unique = coords[[0, 1, 3]]
    for build in (ds.tensor_scatter_nd_update, ds.tensor_scatter_nd_add,
                  ds.tensor_scatter_nd_sub):
        check_op_gradient(lambda t, u, b=build: b(t, unique, u), [params, updates[:3]])


def test_a_gathered_embedding_trains():
    """gather_nd's gradient reaches a variable and SGD lowers the loss."""
    table = ds.Variable(np.ones((4, 3), np.float32))
    target = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], np.float32)
    rows = ds.gather_nd(table, [[2], [0]])
    loss = ds.reduce_sum(ds.square(rows - target))
    step = ds.train.GradientDescentOptimizer(0.25).minimize(loss)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(10):
            sess.run(step)
        final_table, final_loss = sess.run([table, loss])
    assert final_loss < first * 1e-3
    np.testing.assert_array_equal(final_table[[1, 3]], np.ones((2, 3)))   # untouched rows
