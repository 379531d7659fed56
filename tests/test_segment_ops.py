"""Segment reductions, partitions and counts (ops/segments.py, ops/partition.py):
SegmentSum/Mean/Max/Min/Prod, UnsortedSegmentMax/Min/Prod and the unsorted mean and
sqrt_n composites, SparseSegmentSum/Mean/SqrtN (with and without num_segments) and
their gradient ops, DynamicPartition, DynamicStitch, ParallelDynamicStitch, Bincount,
HistogramFixedWidth and histogram_fixed_width_bins.

* A GraphDef TensorFlow wrote (tests/data/make_tf_segment_ops.py), TF's gradient graphs
  included, runs with TF's values and static shapes.
* Values against numpy loops written here; sizes 0 and 1; TF's run-time errors
  (unsorted or out-of-range ids, bad indices, partitions and counts) as
  InvalidArgumentError naming the node, and its build-time ValueErrors.
* Gradients against finite differences (float64), and against TF's for ties and zeros.
* Kernels: the CPU's and the GPU's (on the cupy stand-in, or a GPU) against the
  reference.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient
from kernel_cases import (DEVICES, F16, F32, F64, I32, I64, check_against_ref, make_node,
                          run_on)

SORTED = ["SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"]
UNSORTED = ["UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"]
SPARSE = ["SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"]
SPARSE_N = [f"{op}WithNumSegments" for op in SPARSE]
SPARSE_GRADS = [f"{op}Grad" for op in SPARSE]
PARTITION = ["DynamicPartition", "DynamicStitch", "ParallelDynamicStitch", "Bincount",
             "HistogramFixedWidth"]
COVERED = set(SORTED + UNSORTED + SPARSE + SPARSE_N + SPARSE_GRADS + PARTITION)
InvalidArgumentError = ds.errors.InvalidArgumentError


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def rows(n, width=3, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal((n, width)).astype(dtype)


# --- numpy references --------------------------------------------------------------------------

_NP_REDUCE = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}


def segment_reference(kind, data, ids, num_segments=None, empty=0.0):
    count = num_segments if num_segments is not None else (int(ids.max()) + 1 if ids.size
                                                           else 0)
    out = np.full((count,) + data.shape[ids.ndim:], empty, data.dtype)
    flat_ids = ids.reshape(-1)
    flat = data.reshape((flat_ids.size,) + data.shape[ids.ndim:])
    for s in range(count):
        chosen = flat[flat_ids == s]
        if len(chosen):
            out[s] = _NP_REDUCE[kind](chosen, axis=0)
    return out


# --- a GraphDef TensorFlow wrote ------------------------------------------------------------------

def test_a_graph_def_written_by_tensorflow_runs_with_tfs_values():
    """Every fetch equals TF's; the ops' own outputs have TF's static shapes (the
    composites' and TF's gradient graphs' at least compatible ones)."""
    from tf_recorded import run_recorded, tf_static_shape

    graph, names, values, data = run_recorded("tf_segment_ops")
    assert len(names) == 39
    assert COVERED <= {op.type for op in graph.get_operations()}   # TF's gradients: *Grad
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        tensor = graph.get_tensor_by_name(name)
        assert value.dtype == want.dtype and value.shape == want.shape, name
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6, err_msg=name)
        tf_shape = tf_static_shape(data, name)
        if tensor.op.type in COVERED:
            assert tensor.shape == tf_shape, name
        assert tensor.shape.is_compatible_with(tf_shape), name


# --- values ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("ids", [[0, 0, 1, 1, 1, 3], [2], [0, 1, 2, 3, 4, 5], [5] * 6],
                         ids=str)
def test_sorted_segment_reductions(kind, ids):
    ids = np.array(ids, np.int32)
    data = rows(len(ids), seed=len(ids))
    got = run(getattr(ds.math, f"segment_{kind}")(data, ids))
    empty = 1.0 if kind == "prod" else 0.0        # TF's value of an empty segment
    np.testing.assert_allclose(got, segment_reference(kind, data, ids, empty=empty),
                               rtol=1e-14)
    assert getattr(ds, f"segment_{kind}") is getattr(ds.math, f"segment_{kind}")


def test_sorted_segment_reductions_of_integers_and_empty_gaps():
    data = np.array([[1, -3], [2, 5], [-7, 4]], np.int32)
    ids = [0, 0, 2]
    got = run([ds.segment_sum(data, ids), ds.segment_mean(data, ids),
               ds.segment_prod(data, ids), ds.segment_max(data, ids)])
    assert [g.dtype for g in got] == [np.int32] * 4
    np.testing.assert_array_equal(got[0], [[3, 2], [0, 0], [-7, 4]])
    np.testing.assert_array_equal(got[1], [[1, 1], [0, 0], [-7, 4]])      # C++'s 3/2, 2/2
    np.testing.assert_array_equal(got[2], [[2, -15], [1, 1], [-7, 4]])   # empty: 1
    np.testing.assert_array_equal(got[3], [[2, 5], [0, 0], [-7, 4]])     # empty: 0


@pytest.mark.parametrize("ids_shape", [(6,), (2, 3)], ids=str)
def test_unsorted_segment_reductions(ids_shape):
    ids = np.array([3, -1, 0, 3, 1, 3], np.int32).reshape(ids_shape)
    data = rows(6, seed=3).reshape(ids_shape + (3,))
    lowest, highest = np.finfo(np.float64).min, np.finfo(np.float64).max
    got = run([ds.math.unsorted_segment_max(data, ids, 5),
               ds.math.unsorted_segment_min(data, ids, 5),
               ds.math.unsorted_segment_prod(data, ids, 5),
               ds.math.unsorted_segment_mean(data, ids, 5),
               ds.math.unsorted_segment_sqrt_n(data, ids, 5)])
    np.testing.assert_array_equal(got[0], segment_reference("max", data, ids, 5, lowest))
    np.testing.assert_array_equal(got[1], segment_reference("min", data, ids, 5, highest))
    np.testing.assert_allclose(got[2], segment_reference("prod", data, ids, 5, 1.0))
    np.testing.assert_allclose(got[3], segment_reference("mean", data, ids, 5, 0.0))
    counts = np.array([1, 1, 1, 3, 1], np.float64)[:, None]
    np.testing.assert_allclose(got[4], segment_reference("sum", data, ids, 5) / np.sqrt(counts))


def test_unsorted_segment_extremes_of_integers_and_the_mean_of_integers():
    data = np.array([5, 7, 2], np.int32)
    got = run([ds.unsorted_segment_max(data, [0, 0, 2], 3),
               ds.unsorted_segment_min(data, [0, 0, 2], 3),
               ds.unsorted_segment_mean(data, [0, 0, 2], 3)])
    np.testing.assert_array_equal(got[0], [7, np.iinfo(np.int32).min, 2])
    np.testing.assert_array_equal(got[1], [5, np.iinfo(np.int32).max, 2])
    assert got[2].dtype == np.float64 and got[2].tolist() == [6.0, 0.0, 2.0]   # TF's truediv


@pytest.mark.parametrize("num_segments", [None, 7])
def test_sparse_segment_reductions(num_segments):
    data = rows(6, seed=4)
    indices = np.array([5, 0, 0, 2, 4, 1, 3], np.int32)
    ids = np.array([0, 0, 1, 3, 3, 3, 4], np.int32)
    n = num_segments or 5
    got = run([ds.sparse_segment_sum(data, indices, ids, num_segments=num_segments),
               ds.sparse_segment_mean(data, indices, ids, num_segments=num_segments),
               ds.sparse_segment_sqrt_n(data, indices, ids, num_segments=num_segments)])
    gathered = data[indices]
    total = segment_reference("sum", gathered, ids, n)
    counts = np.bincount(ids, minlength=n)[:, None].astype(np.float64)
    np.testing.assert_allclose(got[0], total, rtol=1e-14)
    np.testing.assert_allclose(got[1], total / np.maximum(counts, 1), rtol=1e-14)
    np.testing.assert_allclose(got[2], total / np.sqrt(np.maximum(counts, 1)), rtol=1e-14)
    types = {"SparseSegmentSum", "SparseSegmentSumWithNumSegments"}
    assert ds.sparse_segment_sum(data, indices, ids, num_segments=num_segments).op.type in types


def test_dynamic_partition_and_stitch_invert_each_other():
    data = rows(6, seed=5)
    partitions = np.array([2, 0, 2, 1, 0, 2], np.int32)
    parts = ds.dynamic_partition(data, partitions, 3)
    assert [p.shape.as_list() for p in parts] == [[None, 3]] * 3
    got = run(parts)
    for p, value in enumerate(got):
        np.testing.assert_array_equal(value, data[partitions == p])
    where = ds.dynamic_partition(np.arange(6, dtype=np.int32), partitions, 3)
    stitched = ds.dynamic_stitch(where, parts)
    np.testing.assert_array_equal(run(stitched), data)
    assert stitched.shape.as_list() == [None, 3]


def test_dynamic_stitch_values_shapes_and_repeats():
    merged = ds.dynamic_stitch([[0, 3], [[1], [3]]],
                               [[[1.0, 2.0], [3.0, 4.0]], [[[5.0, 6.0]], [[7.0, 8.0]]]])
    assert merged.shape == (4, 2)                          # indices constant: max + 1
    np.testing.assert_array_equal(run(merged), [[1, 2], [5, 6], [0, 0], [7, 8]])
    parallel = ds.ops.partition.parallel_dynamic_stitch([[2, 0], [1]],
                                                        [[10.0, 20.0], [30.0]])
    assert parallel.op.type == "ParallelDynamicStitch"
    np.testing.assert_array_equal(run(parallel), [20, 30, 10])


def test_bincount_as_tf1():
    arr = np.array([1, 1, 4, 0, 7, 4, 4], np.int32)
    got = run([ds.bincount(arr), ds.math.bincount(arr, minlength=10),
               ds.bincount(arr, maxlength=5), ds.bincount(arr, dtype=ds.float64),
               ds.bincount(arr, weights=arr.astype(np.float32), maxlength=6),
               ds.bincount(np.zeros(0, np.int32))])
    np.testing.assert_array_equal(got[0], np.bincount(arr))
    np.testing.assert_array_equal(got[1], np.bincount(arr, minlength=10))
    np.testing.assert_array_equal(got[2], np.bincount(arr)[:5])          # 7 skipped
    assert got[3].dtype == np.float64 and got[0].dtype == np.int32
    np.testing.assert_array_equal(got[4], [0, 2, 0, 0, 12, 0])
    assert got[5].shape == (0,)


def test_bincount_counts_int64_and_casts_other_values_as_tf2():
    """TF 2.21's compat.v1 bincount counts an int64 ``arr`` (a GNN's int64 edge ids) and
    casts a float one to int32; the bins' static size is known for constant values, as
    TF's shape inference evaluates ``max(arr) + 1``."""
    arr = np.array([[1, 1], [4, 0]], np.int64)
    weights = np.arange(4.0, dtype=np.float32).reshape(2, 2)
    built = [ds.math.bincount(arr), ds.math.bincount(arr, minlength=7),
             ds.math.bincount(arr, maxlength=2),
             ds.math.bincount(arr, weights=weights, minlength=6),
             ds.math.bincount(arr, dtype=ds.float64), ds.math.bincount(np.zeros(0, np.int64)),
             ds.math.bincount(np.array([2.5, 1.0, 2.0]))]
    assert [b.shape.as_list() for b in built] == [[5], [7], [2], [6], [5], [0], [3]]
    assert built[0].op.type == "DenseBincount" and built[6].op.type == "Bincount"
    got = run(built)
    flat = arr.reshape(-1)
    np.testing.assert_array_equal(got[0], np.bincount(flat))
    np.testing.assert_array_equal(got[1], np.bincount(flat, minlength=7))
    np.testing.assert_array_equal(got[2], [1, 2])                       # 4 skipped
    np.testing.assert_array_equal(got[3], np.bincount(flat, weights.reshape(-1), 6))
    assert got[0].dtype == np.int32 and got[3].dtype == np.float32
    assert got[4].dtype == np.float64 and got[5].shape == (0,)
    np.testing.assert_array_equal(got[6], [0, 1, 2])                    # 2.5 counts as 2
    ids = ds.placeholder(ds.int64, [None])
    _raises(ds.math.bincount(ids), "must be non-negative", {ids: [1, -2]})


def test_histogram_fixed_width_and_its_bins():
    values = np.array([-1.0, 0.0, 0.4, 1.0, 1.9, 2.0, 7.5], np.float32)
    counts = ds.histogram_fixed_width(values, [0.0, 2.0], nbins=4)
    bins = ds.histogram_fixed_width_bins(values.reshape(7, 1), [0.0, 2.0], nbins=4)
    assert counts.shape == (4,) and counts.dtype == ds.int32 and bins.shape == (7, 1)
    got = run([counts, bins, ds.histogram_fixed_width(values, [0.0, 2.0], 3, ds.int64)])
    want_bins = np.clip(np.floor((values - 0.0) / 2.0 * 4), 0, 3).astype(np.int32)
    np.testing.assert_array_equal(got[1].reshape(-1), want_bins)
    np.testing.assert_array_equal(got[0], np.bincount(want_bins, minlength=4))
    assert got[2].dtype == np.int64 and got[2].tolist() == [3, 1, 3]
    assert run(ds.histogram_fixed_width([1, 2, 3], [0, 4], nbins=4)).tolist() == [0, 1, 1, 1]


# --- sizes 0 and 1 -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1])
def test_sizes_zero_and_one(n):
    data = rows(n, seed=6)
    ids = np.zeros(n, np.int32)
    outs = [ds.segment_sum(data, ids), ds.segment_prod(data, ids),
            ds.unsorted_segment_max(data, ids, 2), ds.unsorted_segment_mean(data, ids, 2),
            ds.sparse_segment_mean(data, ids, ids), *ds.dynamic_partition(data, ids, 2),
            ds.bincount(ids), ds.histogram_fixed_width(data.reshape(-1), [0.0, 1.0], 3)]
    got = run(outs)
    assert [g.shape for g in got] == [(n, 3), (n, 3), (2, 3), (2, 3), (n, 3), (n, 3),
                                      (0, 3), (n,), (3,)]
    if n:
        np.testing.assert_array_equal(got[0], data)
        np.testing.assert_array_equal(got[2][0], data[0])
    assert got[-1].sum() == 3 * n


# --- TF's errors ---------------------------------------------------------------------------------

def _raises(tensor, message, feed=None):
    with pytest.raises(InvalidArgumentError, match=message) as info:
        run(tensor, feed)
    assert info.value.node_name == tensor.op.name
    assert tensor.op.name in str(info.value)


@pytest.mark.parametrize("build", [ds.segment_sum, ds.segment_mean, ds.segment_max,
                                   ds.segment_min, ds.segment_prod],
                         ids=lambda f: f.__name__)
def test_sorted_segments_check_their_ids_as_tf(build):
    data = rows(3, seed=7)
    ids = ds.placeholder(ds.int32, (None,))
    out = build(data, ids, name="reduced")
    _raises(out, "segment ids are not increasing$", {ids: [1, 0, 2]})
    _raises(out, "segment ids are not increasing$", {ids: [0, 1, 0]})
    _raises(out, r"Segment id -1 out of range \[0, 1\), possibly because 'segment_ids' "
                 r"input is not sorted\.$", {ids: [-1, 0, 0]})
    _raises(out, "segment_ids should be the same size as dimension 0 of input.$",
            {ids: [0, 0]})
    _raises(out, "segment ids must be >= 0$", {ids: [-3, -3, -2]})
    _raises(out, "segment ids must be >= 0$", {ids: [0, 1, -1]})    # the last id first


def test_unsorted_segments_and_bincount_check_their_values_as_tf():
    data = rows(3, seed=8)
    _raises(ds.unsorted_segment_max(data, [2, 5, 2], 4), r"segment_ids\[1\] = 5 is out of "
                                                         r"range \[0, 4\)$")
    _raises(ds.unsorted_segment_prod(data, [2, 7, 2], 4), r"segment_ids\[1\] = 7")
    _raises(ds.bincount([1, -1, 3]), "Input arr must be non-negative!$")
    bincount = ds.ops.common.make_op("Bincount", [ds.constant([1, 2, 3]), ds.constant(4),
                                                  ds.constant([1.0, 2.0])])
    _raises(bincount, "Input indices and weights must have the same size.$")


@pytest.mark.parametrize("build", [ds.unsorted_segment_sum, ds.unsorted_segment_max,
                                   ds.unsorted_segment_prod], ids=lambda f: f.__name__)
def test_a_fed_num_segments_is_checked_as_tf(build):
    """TF 2.21's messages for a num_segments only the run knows."""
    n = ds.placeholder(ds.int32, name="n")
    y = build(rows(3, seed=8), [0, 1, 0], n)
    _raises(y, r"Input num_segments == -1 must not be negative\.$", {n: -1})
    _raises(y, r"num_segments should be a scalar, not shape \[1\]$", {n: [2]})


def test_a_negative_constant_num_segments_is_tf_shape_functions_value_error():
    data = rows(3, seed=8)
    with pytest.raises(ValueError, match=r"^Dimension size, given by scalar input 2, must be "
                       r"non-negative but is -1 for 'u' with input shapes: \[3,3\], \[3\], "
                       r"\[\] and with computed input tensors: input\[2\] = <-1>\.$"):
        ds.unsorted_segment_sum(data, [0, 1, 0], -1, name="u")
    with pytest.raises(ValueError, match=r"^Cannot specify a negative value for num_segments "
                       r"for 's' with input shapes: \[3,3\], \[2\], \[2\], \[\] and with "
                       r"computed input tensors: input\[3\] = <-2>\.$"):
        ds.sparse_segment_sqrt_n(data, [0, 1], [0, 1], num_segments=-2, name="s")


def test_sparse_segments_check_their_ids_and_indices_as_tf():
    data = rows(3, seed=9)
    _raises(ds.sparse_segment_sum(data, [0, 5], [0, 0]),
            r"Bad: indices\[1\] == 5 out of range \[0, 3\)$")
    _raises(ds.sparse_segment_mean(data, [0, 1], [1, 0]), "segment ids are not increasing$")
    _raises(ds.sparse_segment_sum(data, [0, 1], [0, -1]), "segment ids must be >= 0$")
    _raises(ds.sparse_segment_mean(data, [0], [-1]), "segment ids must be >= 0$")
    _raises(ds.sparse_segment_sum(data, [0, 1], [-1, -1], num_segments=3),
            r"Segment id -1 out of range \[0, 3\), possibly because")
    _raises(ds.sparse_segment_sqrt_n(data, [0, 1], [0, 5], num_segments=3),
            "segment ids must be < num_segments$")
    with pytest.raises(ValueError, match="same length"):
        ds.sparse_segment_sum(data, [0, 1, 2], [0, 0])


def test_partitions_stitches_and_histograms_check_as_tf():
    data = rows(3, seed=10)
    parts = ds.dynamic_partition(data, ds.constant([1, 0, 3]), 2)
    _raises(parts[0], r"partitions\[2\] = 3 is not in \[0, 2\)$")
    parts = ds.dynamic_partition(np.zeros((2, 2)), ds.constant([[0, 0], [5, 0]]), 2)
    _raises(parts[0], r"partitions\[1,0\] = 5 is not in \[0, 2\)$")
    _raises(ds.dynamic_stitch([[0, -1], [1]], [[1.0, 2.0], [3.0]]),
            r"indices\[1\] is out of range$")
    _raises(ds.histogram_fixed_width([-1.0, 0.0], [2.0, 0.0], nbins=4),
            r"value_range should satisfy value_range\[0\] < value_range\[1\], but got "
            r"'\[2, 0\]'$")
    _raises(ds.histogram_fixed_width([np.nan, 1.0], [0.0, 2.0], nbins=4),
            "Histogram values must not contain NaN$")
    nbins = ds.placeholder(ds.int32, ())
    _raises(ds.histogram_fixed_width([1.0], [0.0, 2.0], nbins=nbins),
            "nbins should be a positive number, but got '0'$", {nbins: 0})


def test_build_time_errors_as_tf():
    data = rows(3, seed=11)
    with pytest.raises(ValueError, match="must be a prefix"):
        ds.unsorted_segment_max(data, [[0], [1], [1]], 2)
    with pytest.raises(ValueError, match="must be a prefix"):
        ds.dynamic_partition(data, [1, 0], 2)
    with pytest.raises(ValueError, match="must be a vector"):
        ds.segment_sum(data, [[0, 0, 1]])
    with pytest.raises(ValueError, match="do not match"):
        ds.dynamic_stitch([[0, 2], [1]], [[[1.0, 2.0], [3.0, 4.0]], [[5.0]]])
    with pytest.raises(ValueError, match="nbins > 0"):
        ds.histogram_fixed_width([1.0], [0.0, 2.0], nbins=0)
    with pytest.raises(ValueError, match="non-negative"):
        ds.ops.common.make_op("Bincount", [ds.constant([1]), ds.constant(-1),
                                           ds.constant(np.zeros(0, np.int32))])
    with pytest.raises(TypeError, match="floating-point"):
        ds.sparse_segment_mean(np.ones((2, 2), np.int32), [0, 1], [0, 0])
    with pytest.raises(TypeError, match="int32 or int64"):
        ds.segment_sum(data, ds.constant([0.0, 0.0, 1.0]))


# --- gradients --------------------------------------------------------------------------------------

SORTED_IDS = np.array([0, 0, 2, 2, 2, 5], np.int32)
UNSORTED_IDS = np.array([3, -1, 0, 3, 1, 2], np.int32)   # no segment empty


@pytest.mark.parametrize("build", [ds.segment_sum, ds.segment_mean, ds.segment_max,
                                   ds.segment_min, ds.segment_prod],
                         ids=lambda f: f.__name__)
def test_sorted_segment_gradients(build):
    check_op_gradient(build, [rows(6, seed=12), SORTED_IDS], no_gradient=(1,))


@pytest.mark.parametrize("build", [ds.unsorted_segment_max, ds.unsorted_segment_min,
                                   ds.unsorted_segment_prod], ids=lambda f: f.__name__)
@pytest.mark.parametrize("ids_shape", [(6,), (2, 3)], ids=str)
def test_unsorted_segment_gradients(build, ids_shape):
    data = rows(6, seed=13).reshape(ids_shape + (3,))
    check_op_gradient(lambda d, i: build(d, i, 4), [data, UNSORTED_IDS.reshape(ids_shape)],
                      no_gradient=(1,))


def test_products_with_zeros_and_extremes_with_ties_as_tf():
    """One zero in a segment: the product of the others; two zeros: 0; a tie shares
    the gradient of a max evenly (TF's formulas; finite differences do not apply)."""
    data = ds.constant([[2.0], [0.0], [3.0], [0.0], [0.0], [4.0], [4.0]], ds.float64)
    ids = [0, 0, 0, 1, 1, 2, 2]
    grads = run(ds.gradients(ds.reduce_sum(ds.segment_prod(data, ids)), data)
                + ds.gradients(ds.reduce_sum(ds.unsorted_segment_prod(data, ids, 3)), data)
                + ds.gradients(ds.reduce_sum(ds.segment_max(data, ids)), data))
    np.testing.assert_array_equal(grads[0].reshape(-1), [0, 6, 0, 0, 0, 4, 4])
    np.testing.assert_array_equal(grads[1], grads[0])
    np.testing.assert_array_equal(grads[2].reshape(-1), [0, 0, 1, 0.5, 0.5, 0.5, 0.5])


@pytest.mark.parametrize("build", [ds.sparse_segment_sum, ds.sparse_segment_mean,
                                   ds.sparse_segment_sqrt_n], ids=lambda f: f.__name__)
@pytest.mark.parametrize("num_segments", [None, 7])
def test_sparse_segment_gradients(build, num_segments):
    indices = np.array([5, 0, 0, 2, 4, 1, 3], np.int32)
    ids = np.array([0, 0, 1, 3, 3, 3, 4], np.int32)
    check_op_gradient(lambda d, i, s: build(d, i, s, num_segments=num_segments),
                      [rows(6, seed=14), indices, ids], no_gradient=(1, 2))


def test_sparse_segment_gradient_ops_take_an_int32_output_dim0_as_tf():
    """TF's SparseSegment*Grad take output_dim0 as int32 only (its gradient reads it from
    an int32 Shape), whatever the dtype of the indices."""
    data = ds.constant(rows(4, seed=16))
    indices = ds.constant([3, 0, 3], ds.int64)
    ids = ds.constant([0, 0, 1], ds.int64)
    (grad,) = ds.gradients(ds.reduce_sum(ds.sparse_segment_mean(data, indices, ids)), data)
    assert grad.op.type == "SparseSegmentMeanGrad"
    assert grad.op.inputs[3].dtype == ds.int32
    np.testing.assert_allclose(run(grad)[:, 0], [0.5, 0.0, 0.0, 1.5])


def test_dynamic_partition_and_stitch_gradients():
    partitions = np.array([[2, 0], [2, 1], [0, 2]], np.int32)
    check_op_gradient(lambda d, p: ds.dynamic_partition(d, p, 3),
                      [rows(6, seed=15).reshape(3, 2, 3), partitions], no_gradient=(1,))
    for op_type in ("DynamicStitch", "ParallelDynamicStitch"):
        check_op_gradient(
            lambda i0, i1, d0, d1: ds.ops.partition._stitch(op_type, [i0, i1], [d0, d1], None),
            [np.array([0, 3], np.int32), np.array([[1], [2]], np.int32), rows(2, seed=16),
             rows(2, seed=17).reshape(2, 1, 3)], no_gradient=(0, 1))


def test_a_partition_nothing_uses_gets_a_zero_gradient():
    data = ds.constant(rows(4, seed=18))
    parts = ds.dynamic_partition(data, [0, 1, 0, 1], 2)
    (grad,) = ds.gradients(ds.reduce_sum(parts[0]), data)
    np.testing.assert_array_equal(run(grad), [[1] * 3, [0] * 3, [1] * 3, [0] * 3])


def test_counting_ops_have_no_gradient():
    values = ds.constant([0.5, 1.5])
    assert ds.gradients(ds.cast(ds.histogram_fixed_width(values, [0.0, 2.0], 2),
                                ds.float32), values) == [None]
    weights = ds.constant([0.25, 0.5, 1.0])
    counts = ds.bincount([0, 2, 2], weights=weights)
    with pytest.raises(LookupError, match="op type: Bincount"):          # TF's: none
        ds.gradients(counts, weights)
    with pytest.raises(LookupError, match="op type: DenseBincount"):
        ds.gradients(ds.bincount(ds.constant([0, 2], ds.int64), weights=weights[:2]), weights)
    with pytest.raises(LookupError, match="op type: DenseCountSparseOutput"):
        ds.gradients(ds.sparse.bincount([0, 2, 2], weights=weights).values, weights)
    scale = ds.constant(2.0)                 # counts of ints on a path that takes no gradient
    loss = scale * ds.cast(ds.bincount(ds.cast(scale * weights, ds.int32)), ds.float32)
    assert run(ds.gradients(ds.reduce_sum(loss), scale)[0]) == 3.0


# --- kernels on every device against the reference ---------------------------------------------

def _check(device, op, dtypes_in, dtype_out, *inputs, attrs=None):
    check_against_ref(device, make_node(op, dtypes_in, dtype_out, attrs), *inputs)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F16, F32, F64, I32, I64], ids=str)
def test_segment_kernels(device, dtype):
    data = (rows(6, seed=19) * 4).astype(dtype)
    ids, unsorted = SORTED_IDS, UNSORTED_IDS
    for op in SORTED:
        _check(device, op, [dtype, I32], dtype, data, ids)
        _check(device, op, [dtype, I64], dtype, data[:0], ids[:0].astype(I64))
    for op in UNSORTED:
        _check(device, op, [dtype, I32, I32], dtype, data, unsorted, np.array(5, I32))
    if dtype.kind == "f":
        indices = np.array([5, 0, 0, 2], np.int32)
        sparse_ids = np.array([0, 0, 1, 3], np.int32)
        for op in SPARSE:
            _check(device, op, [dtype, I32, I32], dtype, data, indices, sparse_ids)
            _check(device, f"{op}WithNumSegments", [dtype, I32, I32, I32], dtype, data,
                   indices, sparse_ids, np.array(6, I32))
            _check(device, f"{op}Grad", [dtype, I32, I32, I32], dtype, data[:4], indices,
                   sparse_ids, np.array(7, I32))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", ["UnsortedSegmentSum", "UnsortedSegmentMax"])
def test_an_id_out_of_range_is_named_at_its_index_as_tf(device, op):
    """TF prints the bad id's index in the ids' shape (TF 2.21: 'segment_ids[1,0]')."""
    node = make_node(op, [F64, I32, I32], F64)
    for ids, at in [(np.array([[0, 1, 2], [7, 0, 1]], np.int32), "[1,0]"),
                    (np.array([0, 1, 9], np.int32), "[2]")]:
        data = np.ones(ids.shape + (2,))
        message = re.escape(f"segment_ids{at} = ") + r"\d is out of range \[0, 4\)$"
        with pytest.raises(InvalidArgumentError, match=message):
            run_on(device, node, data, ids, np.array(4, np.int32))


@pytest.mark.parametrize("device", DEVICES)
def test_partition_kernels(device):
    data = rows(6, seed=20)
    partitions = np.array([2, 0, 2, 1, 0, 2], np.int32)
    node = make_node("DynamicPartition", [F64, I32], F64, {"num_partitions": 3})
    node = node.__class__(**{**node.__dict__, "output_dtypes": (F64,) * 3})
    check_against_ref(device, node, data, partitions)
    _check(device, "DynamicStitch", [I32, I32, F64, F64], F64, np.array([0, 4], np.int32),
           np.array([[1], [3]], np.int32), data[:2], data[2:4].reshape(2, 1, 3))
    _check(device, "ParallelDynamicStitch", [I32, F32], F32, np.array([1, 0], np.int32),
           np.array([1.5, 2.5], np.float32))
    arr = np.array([1, 1, 4, 0, 7, 4, 4], np.int32)
    _check(device, "Bincount", [I32, I32, F32], F32, arr, np.array(6, I32),
           arr.astype(np.float32))
    _check(device, "Bincount", [I32, I32, I64], I64, arr, np.array(9, I32),
           np.zeros(0, np.int64))
    values = np.array([-1.0, 0.0, 0.4, 1.0, 1.9, 2.0, 7.5])
    _check(device, "HistogramFixedWidth", [F64, F64, I32], I64, values,
           np.array([0.0, 2.0]), np.array(4, I32), attrs={"dtype": np.dtype(np.int64)})
