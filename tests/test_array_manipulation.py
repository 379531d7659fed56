"""TF's array-manipulation names (ops/array_order.py, array_sets.py, array_shapes.py,
diagonals.py, vectors.py, array_composites.py): tf.roll, tf.sort/argsort,
tf.searchsorted, tf.repeat, tf.meshgrid, tf.unique_with_counts, tf.setdiff1d,
tf.invert_permutation, tf.unravel_index, tf.ensure_shape, tf.shape_n,
tf.broadcast_static/dynamic_shape, tf.diag_part, tf.matrix_set_diag, tf.cross,
tf.linalg.matvec/normalize, tf.batch_gather, tf.parallel_stack, tf.where_v2,
tf.reverse_v2.

* Values against numpy written here (TF 2.21's values where numpy has no twin, recorded
  once by hand from tests/data/../peers runs and written inline); sizes 0 and 1.
* TF's build-time ValueErrors and run-time InvalidArgumentErrors naming the node.
* Gradients against finite differences in float64 (the ops' own, and the composites'
  through ``ds.gradients``).
* Kernels: the CPU's and the GPU's (on the cupy stand-in, or a GPU) against the
  reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.registry import get_gradient
from gradient_check import check_op_gradient
from kernel_cases import (DEVICES, F16, F32, F64, I32, I64, check_against_ref, make_node,
                          run_on)

COVERED = {"Roll", "LowerBound", "UpperBound", "UniqueWithCounts", "ListDiff",
           "InvertPermutation", "UnravelIndex", "EnsureShape", "ShapeN", "BroadcastArgs",
           "DiagPart", "MatrixSetDiag", "MatrixSetDiagV3", "Cross"}
InvalidArgumentError = ds.errors.InvalidArgumentError


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def fed(value, dtype=None, shape=None):
    """A placeholder of unknown shape (so only the kernel sees the value) and its feed."""
    value = np.asarray(value, dtype)
    p = ds.placeholder(ds.as_dtype(value.dtype), shape)
    return p, {p: value}


# --- roll ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,shift,axis", [((5,), 2, 0), ((2, 3), [1, -1], [0, 1]),
                                              ((2, 3), [1, 1], [1, 1]), ((2, 3), -7, -1),
                                              ((0, 3), 1, 0), ((1,), 3, 0)], ids=str)
def test_roll_as_numpy(shape, shift, axis):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    y = ds.roll(x, shift, axis)
    assert (y.op.type, y.shape) == ("Roll", shape)
    want = np.roll(x, np.atleast_1d(shift).tolist(), np.atleast_1d(axis).tolist())
    np.testing.assert_array_equal(run(y), want)


def test_roll_errors_as_tf():
    with pytest.raises(ValueError, match="shift and axis must have one shape"):
        ds.roll([1, 2, 3], [1, 2], [0])
    with pytest.raises(ValueError, match="at least rank 1"):
        ds.roll(3, 1, 0)
    x, feed = fed([1, 2, 3])
    a = ds.placeholder(ds.int32, [])
    y = ds.roll(x, 1, a, name="rolled")
    with pytest.raises(InvalidArgumentError, match="axis 2 is out of range") as info:
        run(y, {**feed, a: 2})
    assert info.value.node_name == "rolled"
    s, feed_s = fed(5)
    with pytest.raises(InvalidArgumentError, match="input must be 1-D or higher"):
        run(ds.roll(s, 1, 0), feed_s)


# --- sort, argsort ---------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
def test_sort_and_argsort_as_numpy(axis, direction):
    x = np.random.default_rng(3).integers(0, 5, (4, 6)).astype(np.float64)  # ties
    values, order = run([ds.sort(x, axis, direction), ds.argsort(x, axis, direction)])
    flip = direction == "DESCENDING"
    # numpy's stable sort of -x for descending: ties keep their order, as TopKV2's
    want_order = np.argsort(-x if flip else x, axis=axis, kind="stable")
    np.testing.assert_array_equal(order, want_order)
    assert order.dtype == np.int32
    np.testing.assert_array_equal(values, np.take_along_axis(x, want_order, axis))


def test_sort_of_integers_keeps_their_extremes():
    """TF 2.21: argsort([3, min, max, 0]) = [1, 3, 0, 2] (x -> ~x, not -x, which would
    leave the minimum where it is)."""
    for dtype in (np.int32, np.int64, np.uint8):
        info = np.iinfo(dtype)
        x = np.array([3, info.min, info.max, 0], dtype)
        values, order, down = run([ds.sort(x), ds.argsort(x),
                                   ds.sort(x, direction="DESCENDING")])
        np.testing.assert_array_equal(values, np.sort(x))
        np.testing.assert_array_equal(order, np.argsort(x, kind="stable"))
        np.testing.assert_array_equal(down, np.sort(x)[::-1])
        assert values.dtype == dtype


def test_sort_sizes_zero_and_one_and_errors():
    for shape in [(0,), (1,), (3, 0), (0, 2)]:
        x = np.zeros(shape, np.float32)
        np.testing.assert_array_equal(run(ds.sort(x, axis=0)), x)
        assert run(ds.argsort(x)).shape == shape
    with pytest.raises(ValueError, match="direction` should be one of ASCENDING, "
                                         "DESCENDING"):
        ds.sort([3, 1], direction="UP")
    with pytest.raises(ValueError, match="out of range"):
        ds.sort([3, 1], axis=2)
    with pytest.raises(ValueError, match="must be a constant scalar"):
        ds.sort([3, 1], axis=ds.placeholder(ds.int32, []))


# --- searchsorted ------------------------------------------------------------------------------

@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_as_numpy(side):
    rows = np.array([[1, 3, 3, 5], [0, 2, 4, 6]], np.float32)
    values = np.array([[3, 6, 0], [4, -1, 7]], np.float32)
    got = run(ds.searchsorted(rows, values, side=side))
    for r in range(2):
        np.testing.assert_array_equal(got[r], np.searchsorted(rows[r], values[r], side))
    assert got.dtype == np.int32
    one = run(ds.searchsorted([1.0, 2.0, 3.0], [2.0], side=side, out_type=ds.int64))
    assert one.dtype == np.int64 and one.tolist() == [1 if side == "left" else 2]
    single = run(ds.searchsorted([[1.0]], [[1.0]], side=side))
    np.testing.assert_array_equal(single, [[0 if side == "left" else 1]])
    # no rows (empty innermost rows cannot be reshaped around, in TF either)
    nothing = run(ds.searchsorted(np.zeros((0, 2)), np.zeros((0, 3)), side=side))
    assert nothing.shape == (0, 3)


def test_searchsorted_errors_as_tf():
    with pytest.raises(ValueError, match="must be either 'right' or 'left'"):
        ds.searchsorted([1, 2], [1], side="middle")
    s, feed = fed([[1, 2]])
    v, feed_v = fed([[1], [2]])
    node = ds.ops.array_order.lower_bound(s, v, name="bound")
    with pytest.raises(InvalidArgumentError, match="Leading dim_size of both tensors must "
                                                   "match") as info:
        run(node, {**feed, **feed_v})
    assert info.value.node_name == "bound"
    # rows of different static counts build, as TF's (its shape function checks ranks only)
    static = ds.ops.array_order.upper_bound(np.zeros((1, 2)), np.zeros((2, 1)))
    assert static.shape == (2, 1)
    with pytest.raises(InvalidArgumentError, match="Leading dim_size of both tensors"):
        run(static)


def test_searchsorted_of_unsorted_rows_is_tfs_binary_search():
    """TF does not check that rows are sorted; its std::upper_bound / lower_bound steps give
    these indices (recorded from TF 2.21; np.searchsorted's search gives others), also
    around NaNs."""
    rows = [[5., 1., 4., 2., 3., 0., 6., 9.], [5., 1., 3., 4., 0., 2., 7., 9.]]
    values = [[0., 1., 2., 3., 4., 5., 6., 7.], [-1., 0., 1., 2., 3., 4., 5., 6.]]
    right, left = run([ds.searchsorted(rows, values, side="right"),
                       ds.searchsorted(rows, values, side="left", out_type=ds.int64)])
    np.testing.assert_array_equal(right, [[0, 2, 2, 6, 6, 6, 7, 7], [0, 5, 5, 6, 6, 6, 6, 6]])
    np.testing.assert_array_equal(left, [[0, 0, 2, 2, 6, 6, 6, 7], [0, 0, 5, 5, 6, 6, 6, 6]])
    # NaNs compare false both ways (a cdf of NaN weights): numpy orders them last instead
    nan = np.nan
    rows, values = [[nan] * 5, [0., .2, nan, .7, 1.]], [[.1, .5, nan], [.1, .5, nan]]
    right, left = run([ds.searchsorted(rows, values, side="right"),
                       ds.searchsorted(rows, values, side="left")])
    np.testing.assert_array_equal(right, [[5, 5, 5], [3, 3, 5]])
    np.testing.assert_array_equal(left, [[0, 0, 0], [1, 2, 0]])


# --- repeat, meshgrid, batch_gather, parallel_stack, where_v2, reverse_v2 ---------------------

@pytest.mark.parametrize("repeats,axis", [(2, None), ([1, 0], 0), ([2, 0, 3], 1), (0, 1),
                                          (1, -1), ([3], 0)], ids=str)
def test_repeat_as_numpy(repeats, axis):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = np.repeat(x, repeats * 2 if repeats == [3] else repeats, axis=axis)
    got = run(ds.repeat(x, repeats, axis=axis))
    np.testing.assert_array_equal(got, want)


def test_repeat_sizes_zero_and_one_and_errors():
    np.testing.assert_array_equal(run(ds.repeat(np.zeros((0, 2)), 3, axis=0)),
                                  np.zeros((0, 2)))
    np.testing.assert_array_equal(run(ds.repeat([7], [1])), [7])
    np.testing.assert_array_equal(run(ds.repeat([[1, 2], [3, 4]], [-1, 2], axis=0)),
                                  [[3, 4], [3, 4]])            # a negative count: none
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        ds.repeat([[1, 2], [3, 4]], [1, 2, 3], axis=1)
    with pytest.raises(ValueError, match="scalar or a 1-D"):
        ds.repeat([1, 2], [[1, 2]], axis=0)


def test_repeat_static_shapes_as_tf():
    """TF 2.21's static shapes: one known count over a known dimension multiplies it (a
    graph_nets-style broadcast of a fixed batch); several counts, an unknown count or an
    unknown dimension leave it unknown; the other dimensions are the input's."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    rows = ds.placeholder(ds.float32, [None, 3])
    count = ds.placeholder(ds.int32, [])
    cases = [(x, 2, None, [12]), (x, [1, 0], 0, [None, 3]), (x, [3], 0, [6, 3]),
             (x, 0, 1, [2, 0]), (x, 1, -1, [2, 3]), (x, count, 0, [None, 3]),
             (rows, 2, 0, [None, 3]), (rows, 2, 1, [None, 6]), (rows, 2, None, [None]),
             (x, ds.constant(np.int64(2)), 1, [2, 6])]
    for value, repeats, axis, want in cases:
        assert ds.repeat(value, repeats, axis=axis).shape.as_list() == want, (repeats, axis)
    np.testing.assert_array_equal(run(ds.repeat(x, [3], axis=0)), np.repeat(x, 3, axis=0))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_as_numpy(indexing):
    a, b, c = np.arange(3.0), np.arange(2.0) + 10, np.array([5.0])
    got = run(ds.meshgrid(a, b, c, indexing=indexing))
    for g, w in zip(got, np.meshgrid(a, b, c, indexing=indexing)):
        np.testing.assert_array_equal(g, w)
    assert ds.meshgrid() == []
    with pytest.raises(ValueError, match="must be either 'xy' or 'ij', got 'zz'"):
        ds.meshgrid([1], [2], indexing="zz")
    with pytest.raises(TypeError, match="invalid keyword"):
        ds.meshgrid([1], sparse=True)
    empty = run(ds.meshgrid(np.zeros(0), np.arange(2.0), indexing=indexing))
    assert empty[0].shape == ((2, 0) if indexing == "xy" else (0, 2))


def test_batch_gather_as_tf():
    params = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    indices = np.array([[2, 0], [1, 1]], np.int32)
    got = run(ds.batch_gather(params, indices))
    want = np.stack([params[b][indices[b]] for b in range(2)])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(run(ds.batch_gather([[1, 2, 3], [4, 5, 6]],
                                                      [[2, 0], [1, 1]])), [[3, 1], [5, 5]])
    np.testing.assert_array_equal(run(ds.batch_gather([1, 2, 3], [2])), [3])
    assert run(ds.batch_gather(params, np.zeros((2, 0), np.int64))).shape == (2, 0, 4)
    with pytest.raises(ValueError, match="same batch dimensions"):
        ds.batch_gather(params, np.zeros((3, 1), np.int32))


def test_parallel_stack_where_v2_and_reverse_v2():
    np.testing.assert_array_equal(run(ds.parallel_stack([[1, 2], [3, 4]])), [[1, 2], [3, 4]])
    picked = ds.where_v2([[True], [False]], [1.0, 2.0], [5.0])      # broadcasts
    assert picked.op.type == "SelectV2"
    np.testing.assert_array_equal(run(picked), [[1, 2], [5, 5]])
    np.testing.assert_array_equal(run(ds.where_v2([False, True])), [[1]])
    np.testing.assert_array_equal(run(ds.reverse_v2([[1, 2], [3, 4]], [1])), [[2, 1], [4, 3]])


# --- sets and indices -----------------------------------------------------------------------

def test_unique_with_counts_as_tf():
    y, idx, count = run(ds.unique_with_counts([1, 1, 4, 2, 4, 4]))
    np.testing.assert_array_equal(y, [1, 4, 2])
    np.testing.assert_array_equal(idx, [0, 0, 1, 2, 1, 1])
    np.testing.assert_array_equal(count, [2, 3, 1])
    out = ds.unique_with_counts(np.zeros(0, np.float32), out_idx=ds.int64)
    y, idx, count = run(out)
    assert (y.shape, idx.dtype, count.dtype) == ((0,), np.int64, np.int64)
    assert [t.shape for t in out] == [(None,), (0,), (None,)]
    np.testing.assert_array_equal(run(ds.unique_with_counts([b"a", b"b", b"a"]).count), [2, 1])
    with pytest.raises(ValueError, match="rank 1"):
        ds.unique_with_counts([[1]])


def test_setdiff1d_as_tf():
    out, idx = run(ds.setdiff1d([1, 2, 3, 2, 5], [2, 4]))
    np.testing.assert_array_equal(out, [1, 3, 5])
    np.testing.assert_array_equal(idx, [0, 2, 4])
    out, idx = run(ds.setdiff1d(np.zeros(0, np.int64), [1], index_dtype=ds.int64))
    assert out.shape == (0,) and idx.dtype == np.int64
    np.testing.assert_array_equal(run(ds.setdiff1d([7], np.zeros(0, np.int32)).out), [7])
    with pytest.raises(ValueError, match="rank 1"):
        ds.setdiff1d([[1]], [2])


def test_invert_permutation_and_its_errors_as_tf():
    perm = np.random.default_rng(1).permutation(7).astype(np.int32)
    got = run(ds.invert_permutation(perm))
    np.testing.assert_array_equal(got, np.argsort(perm))
    assert run(ds.math.invert_permutation(np.zeros(0, np.int64))).shape == (0,)
    np.testing.assert_array_equal(run(ds.invert_permutation([0])), [0])
    with pytest.raises(ValueError, match="rank 1"):
        ds.invert_permutation([[0]])
    for bad, message in [([0, 3, 1], "3 is not between 0 and 3"),
                         ([0, 1, 1], "1 is duplicated in the input."),
                         ([1, 1, -1], "1 is duplicated in the input."),
                         ([-1, 0, 0], "-1 is not between 0 and 3")]:
        x, feed = fed(bad, np.int32)
        with pytest.raises(InvalidArgumentError, match=message) as info:
            run(ds.invert_permutation(x, name="inverse"), feed)
        assert info.value.node_name.startswith("inverse")


def test_unravel_index_and_its_errors_as_tf():
    got = run(ds.unravel_index([1, 5, 0], [2, 3]))
    np.testing.assert_array_equal(got, np.array(np.unravel_index([1, 5, 0], (2, 3))))
    one = ds.unravel_index(5, [2, 3])
    assert one.shape == (2,)
    np.testing.assert_array_equal(run(one), [1, 2])
    assert run(ds.unravel_index(np.zeros(0, np.int64), np.array([4], np.int64))).shape == \
        (1, 0)
    for dims, message in [([2, 0], "cannot contain a dim of zero, but dims contains zero "
                                   "at index 1"),
                          ([2, -1], "cannot be negative. Got dim = -1 at index 1"),
                          ([2, 3], "index is out of bound as with dims")]:
        d, feed = fed(dims, np.int32)
        with pytest.raises(InvalidArgumentError, match=message):
            run(ds.unravel_index([1, 7], d), feed)


# --- shapes ------------------------------------------------------------------------------------

def test_ensure_shape_static_and_at_run_time():
    x = ds.placeholder(ds.float32, [None, None])
    y = ds.ensure_shape(x, [None, 3], name="checked")
    assert (y.op.type, y.shape) == ("EnsureShape", (None, 3))
    value = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(run(y, {x: value}), value)
    with pytest.raises(InvalidArgumentError, match=r"Shape of tensor \[3,2\] is not "
                                                   r"compatible with expected shape "
                                                   r"\[\?,3\]") as info:
        run(y, {x: np.ones((3, 2), np.float32)})
    assert info.value.node_name == "checked"
    unknown = ds.placeholder(ds.float32, None)
    with pytest.raises(InvalidArgumentError, match=r"expected shape \[3\]"):
        run(ds.ensure_shape(unknown, [3]), {unknown: value})
    np.testing.assert_array_equal(run(ds.ensure_shape(unknown, None), {unknown: value}),
                                  value)
    with pytest.raises(ValueError, match="not compatible"):
        ds.ensure_shape(ds.zeros((3, 2)), [4, 2])


def test_shape_n_and_broadcast_shapes():
    a, b = ds.placeholder(ds.float32, [None, 3]), ds.constant(1.0)
    shapes = ds.shape_n([a, b], out_type=ds.int64)
    assert [s.shape for s in shapes] == [(2,), (0,)] and shapes[0].op.type == "ShapeN"
    got = run(shapes, {a: np.zeros((0, 3), np.float32)})
    assert [g.tolist() for g in got] == [[0, 3], []] and got[0].dtype == np.int64
    assert ds.broadcast_static_shape(ds.TensorShape([2, 1]),
                                     ds.TensorShape([None, 4])).as_list() == [2, 4]
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        ds.broadcast_static_shape(ds.TensorShape([2, 3]), ds.TensorShape([4]))
    static = ds.broadcast_dynamic_shape([2, 1], [1, 1, 3])
    assert static.shape == (3,) and static.op.type == "BroadcastArgs"
    np.testing.assert_array_equal(run(static), [1, 2, 3])
    s, feed = fed([2, 3], np.int32)
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[4\]"):
        run(ds.broadcast_dynamic_shape(s, [4]), feed)
    with pytest.raises(ValueError, match="Incompatible shapes"):
        ds.broadcast_dynamic_shape([2, 3], [4])
    np.testing.assert_array_equal(run(ds.broadcast_dynamic_shape(np.zeros(0, np.int32),
                                                                 [0])), [0])


# --- diagonals, cross, matvec, normalize ---------------------------------------------------------

def test_diag_part_inverts_diag():
    for shape in [(1,), (3,), (2, 3), (0,)]:
        d = np.random.default_rng(2).standard_normal(shape)
        full = ds.diag(d)
        part = ds.diag_part(full)
        assert (part.op.type, part.shape) == ("DiagPart", shape)
        np.testing.assert_array_equal(run(part), d)
    assert ds.linalg.tensor_diag_part is ds.diag_part
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        ds.diag_part(ds.zeros((2, 3)))
    with pytest.raises(ValueError, match="even and non-zero rank"):
        ds.diag_part(ds.zeros((2, 2, 2)))
    x, feed = fed(np.zeros((2, 3)))
    with pytest.raises(InvalidArgumentError, match=r"Invalid shape \[2,3\]: dimensions 0 and "
                                                   r"1 do not match"):
        run(ds.diag_part(x), feed)
    y, feed_y = fed(np.zeros((2, 3, 4)))
    with pytest.raises(InvalidArgumentError, match="even and positive, got shape "
                                                   r"\[2,3,4\]"):
        run(ds.diag_part(y), feed_y)


@pytest.mark.parametrize("shape", [(3, 3), (3, 2), (2, 4), (2, 1, 3), (1, 1), (0, 2),
                                   (2, 0, 0)], ids=str)
def test_matrix_set_diag_as_numpy(shape):
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape)
    size = min(shape[-2:])
    d = rng.standard_normal(shape[:-2] + (size,))
    y = ds.matrix_set_diag(x, d)
    assert (y.op.type, y.shape, ds.linalg.set_diag is ds.matrix_set_diag) == \
        ("MatrixSetDiagV3", shape, True)
    want = x.copy()
    i = np.arange(size)
    want[..., i, i] = d
    np.testing.assert_array_equal(run(y), want)


def test_matrix_set_diag_errors():
    with pytest.raises(ValueError, match="needs"):
        ds.matrix_set_diag(ds.zeros((2, 3)), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"needs \(1,\)"):     # (bands: test_matrix_diag.py)
        ds.matrix_set_diag(ds.zeros((2, 2)), [1.0, 2.0], k=1)
    x, feed = fed(np.zeros((2, 3), np.float32))
    d, feed_d = fed([1.0, 2.0, 3.0], np.float32)
    with pytest.raises(InvalidArgumentError, match=r"Expected diagonal shape: \[2\]"):
        run(ds.matrix_set_diag(x, d), {**feed, **feed_d})
    k = ds.placeholder(ds.int32, [])
    np.testing.assert_array_equal(run(ds.matrix_set_diag(ds.zeros((2, 2)), [5.0], k=k),
                                      {k: 1}), [[0, 5], [0, 0]])


def test_cross_matvec_normalize_as_numpy():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    c = ds.cross(a, b)
    assert (c.op.type, c.shape, ds.linalg.cross is ds.cross) == ("Cross", (4, 3), True)
    np.testing.assert_allclose(run(c), np.cross(a, b), rtol=1e-12)
    np.testing.assert_array_equal(run(ds.cross([[1, 0, 0]], [[0, 1, 0]])), [[0, 0, 1]])
    assert run(ds.cross(np.zeros((0, 3)), np.zeros((0, 3)))).shape == (0, 3)
    with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
        ds.cross([1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="one shape"):
        ds.cross(np.zeros((2, 3)), np.zeros((3, 3)))
    p, feed = fed([1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="only defined for 3-element vectors"):
        run(ds.cross(p, p), feed)
    m, v = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4))
    np.testing.assert_allclose(run(ds.linalg.matvec(m, v)), np.einsum("bij,bj->bi", m, v))
    np.testing.assert_allclose(run(ds.linalg.matvec(m, rng.standard_normal(3)[None],
                                                     adjoint_a=True)).shape, (2, 4))
    unit, size = run(ds.linalg.normalize([3.0, 4.0]))
    np.testing.assert_allclose(unit, [0.6, 0.8])
    np.testing.assert_allclose(size, [5.0])
    unit, size = run(ds.linalg.normalize(m, ord=1, axis=-1))
    np.testing.assert_allclose(size, np.abs(m).sum(-1, keepdims=True))
    np.testing.assert_allclose(unit, m / size)


# --- gradients ---------------------------------------------------------------------------------

def test_op_gradients_against_finite_differences():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 4))
    check_op_gradient(lambda t: ds.roll(t, [1, -3], [0, 1]), [x])
    check_op_gradient(lambda a, b: ds.cross(a, b), [rng.standard_normal((2, 3)),
                                                    rng.standard_normal((2, 3))])
    check_op_gradient(lambda t: ds.diag_part(t), [rng.standard_normal((2, 3, 2, 3))])
    check_op_gradient(lambda t: ds.ensure_shape(t, [None, 4]), [x])
    for shape in [(3, 4), (4, 3), (2, 3, 3)]:
        m = rng.standard_normal(shape)
        d = rng.standard_normal(shape[:-2] + (min(shape[-2:]),))
        check_op_gradient(lambda t, u: ds.matrix_set_diag(t, u), [m, d])
        check_op_gradient(lambda t, u: ds.ops.common.make_op("MatrixSetDiag", [t, u]), [m, d])


def _numeric_gradient(build, x, eps=1e-6):
    """d sum(w * build(x)) / dx by central differences, and ds.gradients' answer."""
    w = np.random.default_rng(7).standard_normal(np.shape(run(build(ds.constant(x)))))
    p = ds.placeholder(ds.float64, x.shape)
    objective = ds.reduce_sum(build(p) * w)
    (grad,) = ds.gradients(objective, [p])
    with ds.Session() as sess:
        got = sess.run(grad, {p: x})
        numeric = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[i] += eps
            down[i] -= eps
            numeric[i] = (sess.run(objective, {p: up}) - sess.run(objective, {p: down})) \
                / (2 * eps)
    return got, numeric


@pytest.mark.parametrize("build", [
    lambda t: ds.sort(t, axis=0), lambda t: ds.sort(t, direction="DESCENDING"),
    lambda t: ds.repeat(t, [2, 0, 1], axis=0), lambda t: ds.repeat(t, 2),
    lambda t: ds.batch_gather(t, [[2, 0], [1, 1], [0, 0]]),
    lambda t: ds.meshgrid(t[0], t[1], indexing="ij")[1],
    lambda t: ds.linalg.normalize(t, axis=1)[0],
    lambda t: ds.linalg.matvec(t, [1.0, -2.0, 0.5]),
], ids=["sort0", "sort_desc", "repeat", "repeat_flat", "batch_gather", "meshgrid",
        "normalize", "matvec"])
def test_composite_gradients_against_finite_differences(build):
    x = np.random.default_rng(8).permutation(9).reshape(3, 3).astype(np.float64) + 0.5
    got, numeric = _numeric_gradient(build, x)
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)


def test_index_and_shape_ops_are_not_differentiable_as_tf():
    for op in ("LowerBound", "UpperBound", "UniqueWithCounts", "ListDiff",
               "InvertPermutation", "UnravelIndex", "ShapeN", "BroadcastArgs"):
        assert get_gradient(op) is None, op


# --- kernels on every device against the reference ---------------------------------------------

def _check(device, op, dtypes_in, dtype_out, *inputs, attrs=None, outputs=None):
    node = make_node(op, dtypes_in, dtype_out, attrs)
    if outputs:
        node = node.__class__(**{**node.__dict__, "output_dtypes": tuple(outputs)})
    return check_against_ref(device, node, *inputs)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [F16, F32, F64, I32, I64], ids=str)
def test_data_kernels(device, dtype):
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((3, 4, 3)) * 5).astype(dtype)
    for shift, axis in [(np.array(2, I32), np.array(1, I32)),
                        (np.array([1, -5], I64), np.array([0, 2], I64)),
                        (np.array([0], I32), np.array([0], I32))]:
        _check(device, "Roll", [dtype, shift.dtype, axis.dtype], dtype, x, shift, axis)
    _check(device, "Roll", [dtype, I32, I32], dtype, x[:0], np.array(1, I32),
           np.array(0, I32))
    _check(device, "Cross", [dtype, dtype], dtype, x, x[::-1].copy())
    _check(device, "Cross", [dtype, dtype], dtype, x[:0], x[:0])
    _check(device, "DiagPart", [dtype], dtype, x[:, :, :1].reshape(3, 4)[:3, :3].copy())
    _check(device, "DiagPart", [dtype], dtype, rng.standard_normal((2, 1, 2, 1)).astype(dtype))
    m, d = x[:, :, :2].copy(), x[:, :2, 0].copy()
    _check(device, "MatrixSetDiag", [dtype, dtype], dtype, m, d)
    _check(device, "MatrixSetDiagV3", [dtype, dtype, I32], dtype, m, d, np.array(0, I32),
           attrs={"align": "RIGHT_LEFT"})
    _check(device, "EnsureShape", [dtype], dtype, x, attrs={"shape": (3, None, 3)})


@pytest.mark.parametrize("device", DEVICES)
def test_host_kernels(device):
    rows = np.sort(np.random.default_rng(10).integers(0, 9, (3, 6)), axis=1).astype(F32)
    values = np.random.default_rng(11).integers(-1, 10, (3, 4)).astype(F32)
    for op in ("LowerBound", "UpperBound"):
        _check(device, op, [F32, F32], I32, rows, values)
        _check(device, op, [F32, F32], I64, rows[:, :0].copy(), values, attrs={
            "out_type": I64})
    x = np.array([4, 1, 4, 0, 1, 4], I64)
    _check(device, "UniqueWithCounts", [I64], I64, x, outputs=[I64, I32, I32])
    _check(device, "UniqueWithCounts", [F32], F32, np.zeros(0, F32), outputs=[F32, I64, I64])
    _check(device, "ListDiff", [I64, I64], I64, x, np.array([1, 7], I64), outputs=[I64, I32])
    _check(device, "InvertPermutation", [I32], I32, np.array([3, 0, 2, 1], I32))
    _check(device, "InvertPermutation", [I64], I64, np.zeros(0, I64))
    _check(device, "UnravelIndex", [I32, I32], I32, np.array([0, 5, 11], I32),
           np.array([3, 4], I32))
    _check(device, "UnravelIndex", [I64, I64], I64, np.array(7, I64), np.array([2, 2, 2], I64))
    _check(device, "ShapeN", [F32, I32], I32, np.zeros((2, 0, 3), F32), np.array(1, I32),
           outputs=[I32, I32])
    _check(device, "BroadcastArgs", [I32, I32], I32, np.array([2, 1, 3], I32),
           np.array([4, 1], I32))


@pytest.mark.parametrize("device", DEVICES)
def test_kernels_name_the_node_in_their_errors(device):
    node = make_node("Roll", [F32, I32, I32], F32, name="the_roll")
    with pytest.raises(InvalidArgumentError, match="axis 3 is out of range") as info:
        run_on(device, node, np.zeros((2, 2), F32), np.array(1, I32), np.array(3, I32))
    assert info.value.node_name == "the_roll"
    node = make_node("EnsureShape", [F32], F32, {"shape": (2, 3)}, name="the_check")
    with pytest.raises(InvalidArgumentError, match=r"\[2,2\] is not compatible"):
        run_on(device, node, np.zeros((2, 2), F32))
    node = make_node("Cross", [F32, F32], F32)
    with pytest.raises(InvalidArgumentError, match="same shape"):
        run_on(device, node, np.zeros((2, 3), F32), np.zeros((1, 3), F32))
