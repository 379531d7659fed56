"""TF1's composite math helpers (branch tf1-math), through a session against numpy and
TF 2.21's ``tf.compat.v1`` values: ``to_float``/``to_double``/``to_int32``/``to_int64``,
``broadcast_to`` (TF's ``BroadcastTo`` op), ``norm``, ``math.reduce_variance``/
``reduce_std``, ``eye``, ``matrix_transpose``, ``trace``, ``matrix_band_part``,
``matrix_diag``/``matrix_diag_part`` and the ``ds.math`` aliases; their gradients against
float64 finite differences (they come from the ops they are built of).
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient

X = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)


@pytest.fixture(autouse=True)
def graph():
    with ds.Graph().as_default() as g:
        yield g


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape)


# --- casts, broadcast_to ---------------------------------------------------------------------

def test_to_casts_are_named_as_tf1():
    x = ds.constant([1.7, -2.5])
    got = {fn: fn(x) for fn in (ds.to_float, ds.to_double, ds.to_int32, ds.to_int64)}
    # a cast to the tensor's own dtype is the tensor itself, as TF's
    assert [t.op.name for t in got.values()] == ["Const", "ToDouble", "ToInt32", "ToInt64"]
    assert [t.dtype for t in got.values()] == [ds.float32, ds.float64, ds.int32, ds.int64]
    values = run(list(got.values()))
    np.testing.assert_array_equal(values[2], [1, -2])         # truncation toward zero
    assert values[3].dtype == np.int64
    assert ds.to_float(ds.constant([1, 2]), name="f").op.name == "f"


@pytest.mark.parametrize("shape,target", [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (0,)),
                                          ((1,), (1,)), ((2, 1, 3), (4, 2, 5, 3))], ids=str)
def test_broadcast_to(shape, target):
    x = rand(*shape).astype(np.float32)
    p = ds.placeholder(ds.float32, shape)
    y = ds.broadcast_to(p, target)
    assert (y.op.type, y.shape.as_list()) == ("BroadcastTo", list(target))
    np.testing.assert_array_equal(run(y, {p: x}), np.broadcast_to(x, target))


def test_broadcast_to_takes_a_shape_tensor_and_checks_shapes():
    p = ds.placeholder(ds.float32, (None, 1))
    dims = ds.placeholder(ds.int32, (2,))
    y = ds.broadcast_to(p, dims)
    assert y.shape.as_list() == [None, None]
    np.testing.assert_array_equal(run(y, {p: [[1], [2]], dims: [2, 3]}), [[1] * 3, [2] * 3])
    assert ds.broadcast_to(p, ds.shape(ds.zeros((5, 4)))).shape.as_list() == [5, 4]
    with pytest.raises(ValueError, match="dimensions 3 and 4 differ"):
        ds.broadcast_to(ds.zeros((2, 3)), [2, 4])
    with pytest.raises(ds.errors.InvalidArgumentError, match="unable to broadcast"):
        run(y, {p: [[1], [2]], dims: [3, 3]})


def test_broadcast_to_gradient_sums_the_copies():
    check_op_gradient(lambda x: ds.broadcast_to(x, [2, 3, 4]), [rand(3, 1)])
    check_op_gradient(lambda x: ds.broadcast_to(x, [4, 3]), [rand(3)])
    p = ds.placeholder(ds.float64, (None, 1))                # decided at run time
    (g,) = ds.gradients(ds.reduce_sum(ds.broadcast_to(p, [2, 3, 4])), [p])
    np.testing.assert_array_equal(run(g, {p: np.ones((3, 1))}), np.full((3, 1), 8.0))
    np.testing.assert_array_equal(run(g, {p: np.ones((1, 1))}), np.full((1, 1), 24.0))


# --- norms and spreads -----------------------------------------------------------------------

TF_NORMS = [  # (ord, axis, TF 2.21's value of norm(X))
    ("euclidean", None, 4.358899), ("euclidean", 1, [3.7416575, 2.236068]),
    ("euclidean", (0, 1), 4.358899), ("fro", (0, 1), 4.358899), (1, None, 9.0),
    (1, 1, [6.0, 3.0]), (1, (0, 1), 3.0), (2, None, 4.358899), (2, 1, [3.7416575, 2.236068]),
    (np.inf, None, 3.0), (np.inf, 1, [3.0, 2.0]), (np.inf, (0, 1), 6.0),
    (3, None, 3.5568933), (3, 1, [3.3019273, 2.0800838]), (0.5, None, 43.039867),
    (0.5, 1, [17.191505, 5.828428]), (1, (1, 0), 6.0), ("euclidean", -1, [3.7416575, 2.236068]),
    (2, (0, 1), 3.9396436), (2, (1, 0), 3.9396448),
]


@pytest.mark.parametrize("ord,axis,want", TF_NORMS, ids=str)
def test_norm_values_as_tf(ord, axis, want):
    np.testing.assert_allclose(run(ds.norm(ds.constant(X), ord=ord, axis=axis)), want,
                               rtol=1e-6)


def test_norm_keepdims_shapes_and_tf_errors():
    x = ds.constant(X)
    assert run(ds.norm(x, axis=1, keepdims=True)).shape == (2, 1)
    np.testing.assert_allclose(run(ds.norm(x, axis=[-2, -1], keepdims=True)), [[4.358899]])
    assert ds.norm(ds.placeholder(ds.float32, (None, 3)), axis=0).shape.as_list() == [3]
    assert run(ds.norm(ds.zeros((0,)))) == 0.0
    for kwargs, message in (({"ord": "fro"}, "supported vector norm, got fro"),
                            ({"ord": -1}, "supported vector norm, got -1"),
                            ({"ord": 3, "axis": (0, 1)}, "supported matrix norm"),
                            ({"axis": (0, 0)}, "tuple of 2 unique integers"),
                            ({"axis": [1]}, r"tuple of 2 unique integers, got \[1\]"),
                            ({"axis": (1,)}, r"tuple of 2 unique integers, got \(1,\)"),
                            ({"ord": "nuc", "axis": (0, 1)}, "supported matrix norm")):
        with pytest.raises(ValueError, match=message):
            ds.norm(x, **kwargs)


def test_the_euclidean_norm_of_complex_numbers_is_of_their_magnitudes():
    """TF's sqrt(sum(z * conj(z))): real, in the complex dtype, and TF 2.21's gradient of
    its real part (z / |z|); the other ords take |z| and are real."""
    z = ds.constant([[3 + 4j, 1j], [2, -1 - 1j]], ds.complex64)
    rows, whole, fro, ord3 = ds.norm(z, axis=1), ds.norm(z), ds.norm(z, "fro", (0, 1)), \
        ds.norm(z, ord=3)
    assert (rows.dtype, ord3.dtype) == (ds.complex64, ds.float32)
    (grad,) = ds.gradients(ds.real(whole), [z])
    got = run([rows, whole, fro, ord3, grad])
    np.testing.assert_allclose(got[0], [np.sqrt(26), np.sqrt(6)], rtol=1e-6)
    np.testing.assert_allclose(got[1:3], [np.sqrt(32)] * 2, rtol=1e-6)
    np.testing.assert_allclose(got[3], 5.152984, rtol=1e-6)          # TF 2.21's
    np.testing.assert_allclose(got[4], np.array([[3 + 4j, 1j], [2, -1 - 1j]]) / np.sqrt(32),
                               rtol=1e-6)


@pytest.mark.parametrize("ord,axis", [("euclidean", None), (1, 1), (np.inf, 0), (3, 1),
                                      ("fro", (0, 1)), (1, (0, 1)), (np.inf, (1, 0))], ids=str)
def test_norm_gradients(ord, axis):
    x = rand(3, 4, seed=3)
    x[np.abs(x) < 0.1] = 0.5                      # away from |x|'s kink
    check_op_gradient(lambda t: ds.norm(t, ord=ord, axis=axis), [x], rtol=1e-4)


@pytest.mark.parametrize("axis,keep", [(None, False), (0, False), (1, True), ([0, 1], True)],
                         ids=str)
def test_reduce_variance_and_std(axis, keep):
    x = rand(3, 4, seed=5).astype(np.float32)
    p = ds.placeholder(ds.float32, (3, 4))
    var = ds.math.reduce_variance(p, axis=axis, keepdims=keep)
    std = ds.math.reduce_std(p, axis=axis, keepdims=keep)
    got_var, got_std = run([var, std], {p: x})
    np.testing.assert_allclose(got_var, np.var(x, axis=None if axis is None else tuple(
        np.atleast_1d(axis)), keepdims=keep), rtol=1e-5)
    np.testing.assert_allclose(got_std, np.sqrt(got_var), rtol=1e-6)
    check_op_gradient(lambda t: ds.math.reduce_std(t, axis=axis, keepdims=keep),
                      [x.astype(np.float64)], rtol=1e-4)
    with pytest.raises(TypeError, match="real or complex"):
        ds.math.reduce_variance(ds.constant([1, 2, 3]))


def test_math_aliases():
    assert ds.math.l2_normalize is ds.nn.l2_normalize
    assert ds.math.softplus is ds.nn.softplus and ds.math.softsign is ds.nn.softsign
    assert ds.math.count_nonzero is ds.count_nonzero
    assert run(ds.math.count_nonzero(ds.constant([0.0, 1.0, 2.0]))) == 2


# --- matrices ----------------------------------------------------------------------------------

def test_eye():
    np.testing.assert_array_equal(run(ds.eye(2, 3, batch_shape=[2])),
                                  np.broadcast_to(np.eye(2, 3), (2, 2, 3)))
    got = run(ds.eye(2, dtype=ds.int32))
    assert got.dtype == np.int32 and (got == np.eye(2)).all()
    n = ds.placeholder(ds.int32, ())
    m = ds.eye(n, batch_shape=[3], dtype=ds.float64)
    assert m.shape.as_list() == [3, None, None]
    np.testing.assert_array_equal(run(m, {n: 2}), np.broadcast_to(np.eye(2), (3, 2, 2)))
    assert run(ds.eye(0)).shape == (0, 0)


@pytest.mark.parametrize("shape", [(2, 3), (4, 1, 3), (3, 3), (1, 1), (2, 0, 3)], ids=str)
def test_matrix_transpose_trace_diag_part(shape):
    x = rand(*shape, seed=len(shape)).astype(np.float32)
    p = ds.placeholder(ds.float32, shape)
    t, tr, d = ds.matrix_transpose(p), ds.trace(p), ds.matrix_diag_part(p)
    assert t.shape.as_list() == list(np.swapaxes(x, -1, -2).shape)
    got_t, got_tr, got_d = run([t, tr, d], {p: x})
    np.testing.assert_array_equal(got_t, np.swapaxes(x, -1, -2))
    np.testing.assert_allclose(got_tr, np.trace(x, axis1=-2, axis2=-1), rtol=1e-6)
    np.testing.assert_array_equal(got_d, np.diagonal(x, axis1=-2, axis2=-1))


def test_matrix_helpers_refuse_vectors():
    for build in (ds.matrix_transpose, ds.trace, ds.matrix_diag_part):
        with pytest.raises(ValueError, match="rank >= 2|at least rank 2"):   # (TF's op's)
            build(ds.ones((3,)))


def test_matrix_band_part_of_a_vector_is_tf_kernels_error():
    # TF 2.21 builds tf.linalg.band_part(tf.zeros([4]), 0, -1) (its shape function takes
    # any rank) and its kernel fails when run: InvalidArgumentError, not ValueError
    with pytest.raises(ds.errors.InvalidArgumentError,
                       match=r"input must be at least 2-dim, received shape: \[4\]"):
        ds.linalg.band_part(ds.zeros([4]), 0, -1)


def test_matrix_band_part_of_unknown_rank():
    # TF takes a placeholder of unknown rank: the band of the last two axes of what is fed
    p = ds.placeholder(ds.float32)
    band = ds.linalg.band_part(p, -1, 0)
    assert band.shape.ndims is None
    x = rand(2, 3, 4, seed=3).astype(np.float32)
    np.testing.assert_array_equal(run(band, {p: x}), np.tril(x))
    np.testing.assert_array_equal(run(band, {p: x[0]}), np.tril(x[0]))
    with pytest.raises(ds.errors.InvalidArgumentError):
        run(band, {p: x[0, 0]})


@pytest.mark.parametrize("lower,upper", [(1, -1), (0, 0), (-1, 0), (0, -1), (2, 1), (-1, -1)],
                         ids=str)
def test_matrix_band_part_as_tf(lower, upper):
    x = rand(2, 3, 4, seed=9).astype(np.float32)
    rows, cols = np.arange(3)[:, None], np.arange(4)[None, :]
    keep = ((lower < 0) | (rows - cols <= lower)) & ((upper < 0) | (cols - rows <= upper))
    p = ds.placeholder(ds.float32, (None, 3, None))
    got = run(ds.matrix_band_part(p, lower, upper), {p: x})
    np.testing.assert_array_equal(got, np.where(keep, x, 0))
    lo = ds.placeholder(ds.int64, ())
    np.testing.assert_array_equal(run(ds.matrix_band_part(p, lo, upper), {p: x, lo: lower}),
                                  np.where(keep, x, 0))


def test_matrix_band_part_refuses_a_band_wider_than_the_matrix_as_tf():
    # TF's kernel: tf.compat.v1.matrix_band_part(tf.ones([2, 3]), 5, 0) fails
    for lower, upper, text in (
            (5, 0, "num_lower must be negative or less or equal to number of rows (2) got: 5"),
            (3, 0, "num_lower must be negative or less or equal to number of rows (2) got: 3"),
            (0, 4, "num_upper must be negative or less or equal to number of columns (3) "
                   "got: 4"),
            (5, 5, "num_lower must be negative or less or equal to number of rows (2) got: 5"),
            (ds.constant(5, ds.int64), 0, "number of rows (2) got: 5")):
        with pytest.raises(ds.errors.InvalidArgumentError) as info:
            ds.matrix_band_part(ds.ones([2, 3]), lower, upper)
        assert text in str(info.value)
    for lower, upper in ((2, 3), (-2, 0), (0, -1)):     # TF takes these
        assert run(ds.matrix_band_part(ds.ones([2, 3]), lower, upper)).shape == (2, 3)


def test_eye_trace_and_band_part_are_named_as_tf():
    # the names TF 2.21's compat.v1 gives these in a fresh graph (eye's last op is its
    # MatrixDiag / MatrixSetDiag, trace's its Sum, band_part is one op)
    a = ds.constant(np.ones((3, 3)))
    p = ds.placeholder(ds.float32, [None, None])
    n = ds.shape(p)[0]
    got = [ds.eye(3), ds.eye(2, 3), ds.eye(3, batch_shape=[2]), ds.eye(n), ds.eye(n, 4),
           ds.eye(3, name="I"), ds.linalg.eye(2, dtype=ds.float64), ds.eye(n, batch_shape=[2]),
           ds.trace(a), ds.linalg.trace(a, name="tr"), ds.linalg.band_part(a, -1, 0),
           ds.matrix_band_part(a, 0, 0, name="bp"), ds.linalg.band_part(p, n, 0)]
    assert [t.name for t in got] == [
        "eye/diag:0", "eye_1/set_diag:0", "eye_2/diag:0", "eye_3/diag:0", "eye_4/set_diag:0",
        "I/diag:0", "eye_5/diag:0", "eye_6/diag:0", "Trace:0", "tr:0", "MatrixBandPart:0",
        "bp:0", "MatrixBandPart_1:0"]


def test_matrix_band_part_value_from_tf():
    # tf.compat.v1.matrix_band_part(tf.ones((3, 4)), 1, -1)
    np.testing.assert_array_equal(run(ds.matrix_band_part(ds.ones((3, 4)), 1, -1)),
                                  [[1, 1, 1, 1], [1, 1, 1, 1], [0, 1, 1, 1]])


def test_matrix_diag():
    d = rand(2, 3, seed=4).astype(np.float32)
    got = run(ds.matrix_diag(d))
    np.testing.assert_array_equal(got, np.stack([np.diag(row) for row in d]))


def test_matrix_gradients():
    x = rand(2, 3, 3, seed=2)
    check_op_gradient(ds.trace, [x])
    check_op_gradient(ds.matrix_transpose, [x])
    check_op_gradient(lambda t: ds.matrix_band_part(t, 1, 0), [x])
    check_op_gradient(ds.matrix_diag_part, [rand(3, 2, seed=5)])
    check_op_gradient(ds.matrix_diag, [rand(2, 3, seed=6)])
