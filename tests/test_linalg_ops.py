"""The dense linear-algebra ops as TF1 programs build them: ``tf.matrix_inverse``,
``tf.matrix_solve``, ``tf.cholesky``, ``tf.qr``, ``tf.svd``, ``tf.self_adjoint_eig``,
``tf.linalg.slogdet``/``logdet``/``lstsq``... through a session against numpy (batches,
1 x 1 and empty matrices), their static shapes, TF's build-time ValueErrors and
TypeErrors and run-time InvalidArgumentErrors naming the node, each gradient against
float64 finite differences, the composites (``cholesky_solve``, ``logdet``, ``lstsq``,
the matrix 2-norm), and a GraphDef TensorFlow wrote (tests/data/make_tf_linalg_ops.py)
run with TF's values, static shapes and gradients.  The kernels themselves are compared
with the reference on every device in ``test_linalg_kernels.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.common import make_op
from gradient_check import check_op_gradient

F64 = np.float64


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def well_conditioned(*shape, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape)
    return x + shape[-1] * np.eye(shape[-1]) if shape[-1] else x


def positive_definite(*shape, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def normal(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.fixture(autouse=True)
def graph():
    with ds.Graph().as_default() as g:
        yield g


def _fed(value, dtype=ds.float64, unknown=False):
    shape = None if unknown else value.shape
    return ds.placeholder(dtype, shape)


# --- values against numpy, through a session -----------------------------------------------

SQUARE = [(3, 3), (2, 4, 4), (1, 1), (2, 0, 0), (0, 2, 2)]


@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_inverse_determinants_and_cholesky(shape):
    a, spd = well_conditioned(*shape), positive_definite(*shape)
    pa, ps = _fed(a), _fed(spd)
    sign, log_abs = ds.linalg.slogdet(pa)
    got = run({"inv": ds.matrix_inverse(pa), "inv_t": ds.linalg.inv(pa, adjoint=True),
               "det": ds.matrix_determinant(pa), "sign": sign, "log": log_abs,
               "chol": ds.cholesky(ps), "logdet": ds.linalg.logdet(ps)}, {pa: a, ps: spd})
    assert got["inv"].shape == shape and got["det"].shape == shape[:-2]
    if a.size:
        np.testing.assert_allclose(got["inv"], np.linalg.inv(a), rtol=1e-10)
        np.testing.assert_allclose(got["inv_t"], np.linalg.inv(np.swapaxes(a, -1, -2)),
                                   rtol=1e-10)
        np.testing.assert_allclose(got["det"], np.linalg.det(a), rtol=1e-10)
        np.testing.assert_allclose(got["chol"], np.linalg.cholesky(spd), rtol=1e-10)
    np.testing.assert_allclose(got["sign"] * np.exp(got["log"]), np.linalg.det(a) if a.size
                               else np.ones(shape[:-2]), rtol=1e-10)
    np.testing.assert_allclose(got["logdet"], np.linalg.slogdet(spd)[1] if spd.size
                               else np.zeros(shape[:-2]), rtol=1e-10)


@pytest.mark.parametrize("shapes", [((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((1, 1), (1, 1)),
                                    ((0, 0), (0, 3)), ((2, 3, 3), (2, 3, 0))], ids=str)
def test_solves(shapes):
    a, b = well_conditioned(*shapes[0]), normal(*shapes[1], seed=1)
    spd = positive_definite(*shapes[0])
    pa, pb, ps = _fed(a), _fed(b), _fed(spd)
    got = run({"solve": ds.matrix_solve(pa, pb), "solve_t": ds.linalg.solve(pa, pb, True),
               "lower": ds.matrix_triangular_solve(pa, pb),
               "upper_t": ds.linalg.triangular_solve(pa, pb, lower=False, adjoint=True),
               "chol": ds.cholesky_solve(ds.cholesky(ps), pb)}, {pa: a, pb: b, ps: spd})
    assert {v.shape for v in got.values()} == {b.shape}
    if a.size and b.size:
        t = np.swapaxes
        np.testing.assert_allclose(got["solve"], np.linalg.solve(a, b), rtol=1e-10)
        np.testing.assert_allclose(got["solve_t"], np.linalg.solve(t(a, -1, -2), b), rtol=1e-10)
        np.testing.assert_allclose(got["lower"], np.linalg.solve(np.tril(a), b), rtol=1e-10)
        np.testing.assert_allclose(got["upper_t"], np.linalg.solve(t(np.triu(a), -1, -2), b),
                                   rtol=1e-10)
        np.testing.assert_allclose(got["chol"], np.linalg.solve(spd, b), rtol=1e-10)


@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 4, 3), (2, 4, 1))],
                         ids=str)
def test_least_squares_composite_and_op(shapes, graph):
    a, b = normal(*shapes[0]), normal(*shapes[1], seed=1)
    pa, pb = _fed(a), _fed(b)
    loose = ds.placeholder(ds.float64, (None,) * len(shapes[0]))   # size unknown: the op
    fast = ds.linalg.lstsq(pa, pb)
    assert "MatrixSolveLs" not in {op.type for op in graph.get_operations()}   # TF's composite
    regularised = ds.matrix_solve_ls(pa, pb, l2_regularizer=0.25)
    by_op = ds.linalg.lstsq(loose, pb)
    minimum_norm = ds.matrix_solve_ls(pa, pb, fast=False)
    assert by_op.op.type == minimum_norm.op.type == "MatrixSolveLs"
    got = run([fast, regularised, by_op, minimum_norm], {pa: a, pb: b, loose: a})
    want = np.linalg.pinv(a) @ b
    for value in (got[0], got[2], got[3]):
        np.testing.assert_allclose(value, want, rtol=1e-8, atol=1e-10)
    at = np.swapaxes(a, -1, -2)
    n = shapes[0][-1]
    if shapes[0][-2] >= n:
        want_l2 = np.linalg.solve(at @ a + 0.25 * np.eye(n), at @ b)
    else:
        want_l2 = at @ np.linalg.solve(a @ at + 0.25 * np.eye(shapes[0][-2]), b)
    np.testing.assert_allclose(got[1], want_l2, rtol=1e-10)


RECTANGULAR = [(4, 3), (3, 4), (3, 3), (2, 5, 2), (1, 1), (0, 2), (2, 0)]


@pytest.mark.parametrize("shape", RECTANGULAR, ids=str)
def test_qr_and_svd(shape):
    x = normal(*shape)
    p = _fed(x)
    q, r = ds.qr(p)
    q_full, r_full = ds.linalg.qr(p, full_matrices=True)
    s, u, v = ds.svd(p)
    s_full, u_full, v_full = ds.linalg.svd(p, full_matrices=True)
    s_only = ds.svd(p, compute_uv=False)
    m, n, k = shape[-2], shape[-1], min(shape[-2:])
    batch = shape[:-2]
    assert q.shape == batch + (m, k) and r.shape == batch + (k, n)
    assert q_full.shape == batch + (m, m) and r_full.shape == batch + (m, n)
    assert s.shape == batch + (k,) and u.shape == batch + (m, k) and v.shape == batch + (n, k)
    assert u_full.shape == batch + (m, m) and v_full.shape == batch + (n, n)
    assert s_only.op.get_attr("compute_uv") is False and s_only.op.outputs[1].shape == (0,)
    got = run([q, r, q_full, r_full, s, u, v, s_full, u_full, v_full, s_only], {p: x})
    for qq, rr in (got[0:2], got[2:4]):
        np.testing.assert_allclose(qq @ rr, x, atol=1e-12)
        np.testing.assert_array_equal(rr, np.triu(rr))
    for ss, uu, vv in (got[4:7], got[7:10]):
        np.testing.assert_allclose((uu[..., :k] * ss[..., None, :]) @
                                   np.swapaxes(vv[..., :k], -1, -2), x, atol=1e-12)
        np.testing.assert_allclose(np.swapaxes(uu, -1, -2) @ uu,
                                   np.broadcast_to(np.eye(uu.shape[-1]), uu.shape[:-2] +
                                                   (uu.shape[-1],) * 2), atol=1e-12)
    np.testing.assert_allclose(got[10], np.linalg.svd(x, compute_uv=False), rtol=1e-12)


@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_self_adjoint_eig_reads_the_lower_triangle(shape):
    x = normal(*shape)
    symmetric = np.tril(x) + np.swapaxes(np.tril(x, -1), -1, -2)
    p = _fed(x)
    e, v = ds.self_adjoint_eig(p)
    assert e.shape == shape[:-1] and v.shape == shape
    got_e, got_v, values, lower = run([e, v, ds.self_adjoint_eigvals(p), ds.linalg.eigvalsh(p)],
                                      {p: x})
    np.testing.assert_allclose(got_e, np.linalg.eigvalsh(symmetric), atol=1e-12)
    np.testing.assert_allclose(values, got_e, atol=1e-12)
    np.testing.assert_allclose(lower, got_e, atol=1e-12)
    np.testing.assert_allclose((got_v * got_e[..., None, :]) @ np.swapaxes(got_v, -1, -2),
                               symmetric, atol=1e-12)


def test_float32_and_float16_keep_their_dtype():
    a = well_conditioned(3, 3)
    for dtype, rtol in ((ds.float32, 1e-5), (ds.float16, 5e-3)):
        p = ds.placeholder(dtype, (3, 3))
        outs = [ds.matrix_inverse(p), ds.cholesky(p @ ds.transpose(p)), ds.svd(p)[0],
                ds.self_adjoint_eigvals(p), ds.linalg.slogdet(p)[1]]
        assert {t.dtype for t in outs} == {dtype}
        got = run(outs, {p: a.astype(dtype.np)})
        assert {g.dtype for g in got} == {np.dtype(dtype.np)}
        np.testing.assert_allclose(got[0], np.linalg.inv(a), rtol=rtol * 10, atol=rtol)


def test_the_matrix_two_norm_is_the_largest_singular_value():
    x = normal(2, 3, 4)
    p = ds.placeholder(ds.float64, (2, 3, 4))
    norms = [ds.norm(p, ord=2, axis=(-2, -1)), ds.norm(p, ord=2, axis=[2, 0], keepdims=True),
             ds.linalg.norm(p, ord=2, axis=(0, 1))]
    assert [n.shape for n in norms] == [(2,), (1, 3, 1), (4,)]
    got = run(norms, {p: x})
    np.testing.assert_allclose(got[0], np.linalg.norm(x, 2, axis=(-2, -1)), rtol=1e-12)
    np.testing.assert_allclose(got[1].ravel(), np.linalg.norm(x, 2, axis=(2, 0)), rtol=1e-12)
    np.testing.assert_allclose(got[2], np.linalg.norm(x, 2, axis=(0, 1)), rtol=1e-12)
    # of a rank only a run knows: TF's permutation computed when run, the same values
    u = ds.placeholder(ds.float64, None)
    unknown = [ds.norm(u, ord=2, axis=(-2, -1)), ds.norm(u, ord=2, axis=[2, 0], keepdims=True),
               ds.linalg.norm(u, ord=2, axis=(0, 1))]
    grads = [ds.gradients(ds.reduce_sum(norms[1]), p)[0],
             ds.gradients(ds.reduce_sum(unknown[1]), u)[0]]
    got_unknown = run(unknown + grads, {p: x, u: x})
    for want, value in zip(got, got_unknown):
        assert want.shape == value.shape
        np.testing.assert_allclose(value, want, rtol=1e-12)
    np.testing.assert_allclose(got_unknown[4], got_unknown[3], rtol=1e-10)


def test_logdet_of_matrices_sized_at_run_time():
    spd = positive_definite(2, 4, 4)
    p = ds.placeholder(ds.float64, (None, None, None))
    np.testing.assert_allclose(run(ds.linalg.logdet(p), {p: spd}), np.linalg.slogdet(spd)[1],
                               rtol=1e-12)


def test_tf1_spellings():
    assert ds.linalg.inv is ds.matrix_inverse and ds.linalg.solve is ds.matrix_solve
    assert ds.linalg.triangular_solve is ds.matrix_triangular_solve
    assert ds.linalg.cholesky is ds.cholesky and ds.linalg.qr is ds.qr
    assert ds.linalg.svd is ds.svd and ds.linalg.eigh is ds.self_adjoint_eig
    assert ds.linalg.eigvalsh is ds.self_adjoint_eigvals
    assert ds.linalg.lstsq is ds.matrix_solve_ls and ds.linalg.det is ds.matrix_determinant
    assert ds.linalg.cholesky_solve is ds.cholesky_solve
    x = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(run(ds.linalg.adjoint(x)), [[1, 3], [2, 4]])
    q = ds.qr(x)
    assert (q.q is q[0], q.r is q[1], type(q).__name__) == (True, True, "Qr")
    sl = ds.linalg.slogdet(x)
    assert type(sl).__name__ == "LogMatrixDeterminant" and sl.sign is sl[0]


def test_node_names_as_tf_builds_them():
    """The names TF 2.21's compat.v1 gives these tensors in a fresh graph (what a TF1
    program that fetches or imports by name sees): the triangular solve in its wrapper's
    scope, cholesky_solve's two bare ops, logdet's ``mul``, adjoint's transpose."""
    a = ds.constant(2.0 * np.eye(3))
    b = ds.constant(np.ones((3, 1)))
    got = [ds.linalg.triangular_solve(a, b).name,
           ds.matrix_triangular_solve(a, b, lower=False).name,
           ds.linalg.triangular_solve(a, b, name="tri").name,
           ds.linalg.cholesky_solve(a, b).name,
           ds.cholesky_solve(a, b, name="cs").name,
           ds.linalg.logdet(a).name, ds.linalg.logdet(a, name="ld").name,
           ds.linalg.adjoint(a).name, ds.linalg.adjoint(a, name="adj").name,
           ds.linalg.lu_solve(*ds.linalg.lu(a), b).name]
    assert got == ["triangular_solve/MatrixTriangularSolve:0",
                   "triangular_solve_1/MatrixTriangularSolve:0",
                   "tri/MatrixTriangularSolve:0",
                   "cholesky_solve/MatrixTriangularSolve_1:0",
                   "cs/MatrixTriangularSolve_1:0",
                   "logdet/mul:0", "ld/mul:0",
                   "adjoint/matrix_transpose/transpose:0",
                   "adj/matrix_transpose/transpose:0",
                   "lu_solve/triangular_solve_1/MatrixTriangularSolve:0"]


def test_adjoint_conjugates_complex_matrices():
    x = np.array([[1 + 2j, 3j], [1.0, 2 - 1j]])
    got = run(ds.linalg.adjoint(ds.constant(x)))
    np.testing.assert_array_equal(got, x.conj().T)


# --- static shapes and TF's errors ---------------------------------------------------------------

@pytest.mark.parametrize("a_shape, b_shape, a_size, b_size, axes", [
    ((None, 5, 8), (8, 3), (2, 5, 8), (8, 3), [[2], [0]]),    # a batch of unknown size
    ((4, None), (None, 6), (4, 7), (7, 6), 1),                 # the contracted size unknown
    ((None, 3, None), (None, 3, 2), (4, 3, 5), (4, 3, 2), [[0, 1], [0, 1]]),
    ((None, 3, 2), (None, 3, None), (4, 3, 2), (5, 3, 6), [[1], [1]]),
    ((None, 3), (3, 4), (0, 3), (3, 4), 1),                    # empty, as a batch may be
    ((0, 3), (3, None), (0, 3), (3, 5), 1),
    ((None, 0), (0, 4), (2, 0), (0, 4), 1),
])
def test_tensordot_reads_sizes_unknown_at_build_time_when_it_runs(a_shape, b_shape, a_size,
                                                                  b_size, axes):
    rng = np.random.default_rng(0)
    a_value, b_value = rng.standard_normal(a_size), rng.standard_normal(b_size)
    a, b = ds.placeholder(ds.float64, a_shape), ds.placeholder(ds.float64, b_shape)
    a_known, b_known = ds.placeholder(ds.float64, a_size), ds.placeholder(ds.float64, b_size)
    y, y_known = ds.tensordot(a, b, axes), ds.tensordot(a_known, b_known, axes)
    want = np.tensordot(a_value, b_value, axes)
    assert [d in (None, size) for d, size in zip(y.shape.as_list(), want.shape)] == [
        True] * want.ndim
    grads = ds.gradients(ds.reduce_sum(y * y), [a, b])
    grads_known = ds.gradients(ds.reduce_sum(y_known * y_known), [a_known, b_known])
    with ds.Session() as sess:
        got, got_grads, want_grads = sess.run(
            [y, grads, grads_known], {a: a_value, b: b_value, a_known: a_value,
                                      b_known: b_value})
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for g, w in zip(got_grads, want_grads):      # the same as with every size known
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_tensordot_refuses_contracted_sizes_that_differ():
    # (an operand of unknown rank builds, as TF's: tests/test_unknown_rank.py)
    with pytest.raises(ValueError, match="contracted dimensions"):
        ds.tensordot(ds.placeholder(ds.float32, (None, 3)), ds.placeholder(ds.float32, (4, 2)),
                     1)


def test_static_shapes_merge_what_the_graph_knows():
    a = ds.placeholder(ds.float32, (None, 3, None))
    b = ds.placeholder(ds.float32, (2, None, 5))
    assert ds.matrix_inverse(a).shape.as_list() == [None, 3, 3]
    assert ds.matrix_solve(a, b).shape.as_list() == [2, 3, 5]
    assert ds.matrix_determinant(a).shape.as_list() == [None]
    assert ds.svd(ds.placeholder(ds.float32, (None, 4, 6)))[1].shape.as_list() == [None, 4, 4]
    unknown = ds.placeholder(ds.float32, None)
    assert ds.cholesky(unknown).shape.ndims is None
    assert ds.svd(unknown, compute_uv=False).op.outputs[2].shape == (0,)
    assert ds.self_adjoint_eigvals(unknown).op.outputs[1].shape == (0,)
    assert ds.qr(unknown).q.shape.ndims is None


@pytest.mark.parametrize("build,error,message", [
    (lambda: ds.matrix_inverse(ds.zeros((3, 4))), ValueError,
     r"Dimensions must be equal, but are 3 and 4"),
    (lambda: ds.cholesky(ds.zeros((2, 3))), ValueError, "must be square"),
    (lambda: ds.matrix_determinant(ds.zeros((2, 3))), ValueError, "but are 2 and 3"),
    (lambda: ds.matrix_inverse(ds.zeros((3,))), ValueError,
     "Shape must be at least rank 2 but is rank 1"),
    (lambda: ds.svd(ds.zeros((3,))), ValueError, "at least rank 2"),
    (lambda: ds.matrix_solve(ds.zeros((2, 3, 3)), ds.zeros((3, 3, 1))), ValueError,
     "Dimensions must be equal, but are 2 and 3"),
    (lambda: ds.matrix_solve(ds.zeros((3, 3)), ds.zeros((4, 1))), ValueError,
     "but are 3 and 4"),
    (lambda: ds.matrix_triangular_solve(ds.zeros((2, 3, 3)), ds.zeros((3, 1))), ValueError,
     "equal rank"),
    (lambda: ds.matrix_inverse(ds.zeros((3, 3), ds.int32)), TypeError,
     "DataType int32 not in list of allowed values: float64, float32, float16"),
    (lambda: ds.qr(ds.zeros((3, 3), ds.int32)), TypeError, "not in list of allowed values"),
    (lambda: ds.matrix_solve(ds.zeros((3, 3)), ds.zeros((3, 1), ds.float64)), TypeError,
     "must match"),
])
def test_build_time_errors_as_tf(build, error, message):
    with pytest.raises(error, match=message):
        build()


@pytest.mark.parametrize("build,value,message", [
    (lambda p: ds.cholesky(p, name="chol"), [[1.0, 2.0], [2.0, 1.0]],
     "Cholesky decomposition was not successful. The input might not be valid."),
    (lambda p: ds.matrix_inverse(p, name="chol"), [[1.0, 2.0], [2.0, 4.0]],
     "Input is not invertible."),
    (lambda p: ds.matrix_solve(p, p, name="chol"), [[1.0, 2.0], [2.0, 4.0]],
     "Input matrix is not invertible."),
    (lambda p: ds.matrix_inverse(p, name="chol"), [[1.0, 2.0, 3.0], [2.0, 4.0, 5.0]],
     "Input matrix must be square."),
    (lambda p: ds.self_adjoint_eigvals(p, name="chol"), [[np.nan, 0.0], [0.0, 1.0]],
     "Self-adjoint eigen decomposition was not successful"),
])
def test_run_time_errors_name_the_node(build, value, message):
    p = ds.placeholder(ds.float64, None)          # nothing is known when built
    y = build(p)
    with pytest.raises(ds.errors.InvalidArgumentError, match=message.replace(".", r"\.")) as e:
        run(y, {p: np.array(value)})
    assert "chol" in str(e.value)


# --- gradients against finite differences ------------------------------------------------------

@pytest.mark.parametrize("adjoint", [False, True])
def test_inverse_and_determinant_gradients(adjoint):
    a = well_conditioned(2, 3, 3)
    check_op_gradient(lambda t: ds.matrix_inverse(t, adjoint=adjoint), [a])
    check_op_gradient(ds.matrix_determinant, [a])
    check_op_gradient(lambda t: ds.linalg.slogdet(t)[0], [a * [[[1]], [[-1]]]])


@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("lower", [None, True, False])       # None: MatrixSolve
def test_solve_gradients(adjoint, lower):
    a, b = well_conditioned(2, 3, 3), normal(2, 3, 2, seed=1)
    if lower is None:
        check_op_gradient(lambda x, y: ds.matrix_solve(x, y, adjoint=adjoint), [a, b])
    else:
        check_op_gradient(lambda x, y: ds.matrix_triangular_solve(x, y, lower, adjoint), [a, b])


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)], ids=str)
def test_matrix_solve_ls_op_gradient(shape):
    a, b = normal(*shape), normal(*shape[:-1], 2, seed=1)

    def solve_ls(x, y):
        l2 = ds.constant(0.3, ds.float64)
        return make_op("MatrixSolveLs", [x, y, l2], {"fast": True})
    check_op_gradient(solve_ls, [a, b], rtol=1e-5)
    with pytest.raises(ValueError, match="fast=False"):
        x = ds.placeholder(ds.float64, shape)
        ds.gradients(ds.matrix_solve_ls(x, b, fast=False), [x])


@pytest.mark.parametrize("shape,full", [((5, 3), False), ((3, 3), True), ((3, 5), False),
                                        ((3, 5), True), ((2, 4, 2), False)], ids=str)
def test_qr_gradient(shape, full):
    check_op_gradient(lambda t: ds.qr(t, full_matrices=full)[0], [normal(*shape)], rtol=1e-5)


@pytest.mark.parametrize("shape,full", [((5, 3), False), ((3, 5), False), ((3, 3), False),
                                        ((4, 3), True), ((3, 4), True), ((2, 3, 2), False)],
                         ids=str)
def test_svd_gradient(shape, full):
    x = normal(*shape, seed=3)
    check_op_gradient(lambda t: ds.svd(t, full_matrices=full)[0], [x], rtol=1e-5, atol=1e-6)
    check_op_gradient(lambda t: ds.svd(t, compute_uv=False), [x], rtol=1e-5)


@pytest.mark.parametrize("compute_v", [True, False])
def test_self_adjoint_eig_gradient(compute_v):
    x = normal(2, 4, 4, seed=5)                    # distinct eigenvalues; the lower triangle
    build = ds.self_adjoint_eig if compute_v else ds.self_adjoint_eigvals   # is what counts
    check_op_gradient(lambda t: build(t)[0] if compute_v else build(t), [x], rtol=1e-5)


def check_graph_gradient(build, inputs, *, eps=1e-6, rtol=1e-5, atol=1e-8):
    """``ds.gradients`` of ``sum(w * build(*xs))`` (random ``w``) against central finite
    differences: for composites, and for ops whose gradient is one for a structured
    input (Cholesky's, of the symmetric matrix)."""
    rng = np.random.default_rng(11)
    xs = [ds.placeholder(ds.float64, v.shape) for v in inputs]
    y = build(*xs)
    w = rng.standard_normal(y.shape.as_list())
    loss = ds.reduce_sum(y * w)
    grads = ds.gradients(loss, xs)
    with ds.Session() as sess:
        got = sess.run(grads, dict(zip(xs, inputs)))
        for k, value in enumerate(inputs):
            numeric = np.zeros(value.shape)
            for i in range(value.size):
                shifted = []
                for sign in (1, -1):
                    v = value.copy()
                    v.reshape(-1)[i] += sign * eps
                    feed = dict(zip(xs, inputs))
                    feed[xs[k]] = v
                    shifted.append(sess.run(loss, feed))
                numeric.reshape(-1)[i] = (shifted[0] - shifted[1]) / (2 * eps)
            np.testing.assert_allclose(got[k], numeric, rtol=rtol, atol=atol)


def _symmetric(t):
    return (t + ds.linalg.adjoint(t)) * 0.5


def test_cholesky_gradient_is_the_symmetric_matrixs():
    x = positive_definite(2, 3, 3)
    check_graph_gradient(lambda t: ds.cholesky(_symmetric(t)), [x])


def test_composite_gradients():
    spd, b = positive_definite(3, 3), normal(3, 2, seed=1)
    check_graph_gradient(lambda t: ds.linalg.logdet(_symmetric(t)), [spd])
    check_graph_gradient(lambda t, r: ds.cholesky_solve(ds.cholesky(_symmetric(t)), r),
                         [spd, b])
    check_graph_gradient(lambda t, r: ds.linalg.lstsq(t, r), [normal(5, 3), normal(5, 2)])
    check_graph_gradient(lambda t: ds.norm(t, ord=2, axis=(-2, -1)), [normal(2, 3, 4)])


def test_gradients_tf_does_not_implement_either():
    wide_full = ds.placeholder(ds.float64, (5, 3))
    with pytest.raises(NotImplementedError, match="full_matrices"):
        ds.gradients(ds.qr(wide_full, full_matrices=True)[0], [wide_full])
    with pytest.raises(NotImplementedError, match="abs\\(m - n\\) > 1"):
        ds.gradients(ds.svd(wide_full, full_matrices=True)[1], [wide_full])
    unknown = ds.placeholder(ds.float64, (None, None))
    with pytest.raises(NotImplementedError, match="dynamic shapes"):
        ds.gradients(ds.qr(unknown)[1], [unknown])


def test_gradient_reaching_one_output_of_several():
    x = normal(4, 3)
    p = ds.placeholder(ds.float64, (4, 3))
    s, u, v = ds.svd(p)
    (through_s,) = ds.gradients(ds.reduce_sum(s), [p])
    got = run(through_s, {p: x})
    want_u, _, want_vt = np.linalg.svd(x, full_matrices=False)
    np.testing.assert_allclose(got, want_u @ want_vt, atol=1e-12)   # d(sum s)/dA = U Vᵀ
    sign, log_abs = ds.linalg.slogdet(p[:3])
    (none,) = ds.gradients(sign, [p])
    np.testing.assert_array_equal(run(none, {p: x}), np.zeros((4, 3)))


# --- GraphDefs ------------------------------------------------------------------------------

def test_graph_def_round_trip_keeps_the_attrs(graph):
    a = ds.placeholder(ds.float64, (3, 3), name="a")
    outs = [ds.matrix_inverse(a, adjoint=True), ds.matrix_triangular_solve(a, a, False, True),
            ds.qr(a, full_matrices=True)[0], ds.svd(a, compute_uv=False),
            ds.svd(a, full_matrices=True)[1], ds.self_adjoint_eigvals(a),
            ds.matrix_solve_ls(a, a, 0.5, fast=False)]
    imported = ds.Graph()
    with imported.as_default():
        ds.import_graph_def(graph.as_graph_def(), name="")
    value = well_conditioned(3, 3)
    want = run(outs, {a: value})
    with ds.Session(graph=imported) as sess:
        got = sess.run([t.name for t in outs], {"a:0": value})
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    for t in outs:
        copy = imported.get_operation_by_name(t.op.name)
        assert (copy.type, copy.attrs) == (t.op.type, t.op.attrs)


def _same_up_to_column_signs(got, want, atol=1e-10):
    signs = np.sign(np.sum(got * want, axis=-2, keepdims=True))
    np.testing.assert_allclose(got * signs, want, atol=atol)


def test_a_graph_def_written_by_tensorflow_runs_with_tfs_values_shapes_and_gradients():
    """tests/data/tf_linalg_ops.pb (make_tf_linalg_ops.py): TF's op names and attrs
    import; every fetch equals TF's value (Q, the singular vectors and the eigenvectors up
    to the signs of their columns, R's rows with Q's) with TF's static shape; logdet and
    the 2-norm equal TF's values, and each op's gradient TF's."""
    from tf_recorded import run_recorded, tf_static_shape

    graph, names, values, data = run_recorded("tf_linalg_ops")
    assert len(names) == 30
    by_key = {}
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        assert value.dtype == want.dtype and value.shape == want.shape, name
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name
        by_key[name] = (value, want)
    signed = {t.name for op in graph.get_operations() if op.type in ("Qr", "Svd",
                                                                     "SelfAdjointEigV2")
              for t in op.outputs[1 if op.type == "Svd" else 0:]
              if not (op.type == "SelfAdjointEigV2" and t is op.outputs[0])}
    for name, (value, want) in by_key.items():
        op = graph.get_tensor_by_name(name).op
        if name in signed and op.type == "Qr":
            if name.endswith(":0"):
                _same_up_to_column_signs(value, want)
            else:
                q, q_tf = by_key[op.outputs[0].name]
                k = min(q.shape[-1], value.shape[-2])
                flips = np.sign(np.sum(q[..., :k] * q_tf[..., :k], axis=-2))
                np.testing.assert_allclose(value[..., :k, :] * flips[..., :, None],
                                           want[..., :k, :], atol=1e-10, err_msg=name)
        elif name in signed and value.size:
            _same_up_to_column_signs(value, want)
        else:
            np.testing.assert_allclose(value, want, rtol=1e-10, atol=1e-12, err_msg=name)

    feeds = {k[5:]: data[k] for k in data if k.startswith("feed:")}
    with graph.as_default():
        p = {k: graph.get_tensor_by_name(f"{k}:0") for k in feeds}
        spd, tall = p["spd"], p["tall"]
        composites = {"logdet": ds.linalg.logdet(spd),
                      "lstsq_l2": ds.linalg.lstsq(tall, p["rhs4"], l2_regularizer=0.5),
                      "norm2": ds.norm(tall, ord=2, axis=[-2, -1]),
                      "norm2_batch": ds.norm(spd, ord=2, axis=(2, 1), keepdims=True)}
        grads = _recorded_gradients(graph, p, {k[7:]: data[k] for k in data
                                               if k.startswith("weight:")})
        with ds.Session(graph=graph) as sess:
            got, got_grads = sess.run([composites, grads], {p[k]: v for k, v in feeds.items()})
    for key, value in got.items():
        np.testing.assert_allclose(value, data[f"value:{key}"], rtol=1e-10, err_msg=key)
    assert set(got_grads) == {k[5:] for k in data if k.startswith("grad:")}
    for key, value in got_grads.items():
        np.testing.assert_allclose(value, data[f"grad:{key}"], rtol=1e-7, atol=1e-9,
                                   err_msg=key)


def _recorded_gradients(graph, p, w):
    """The sign-invariant losses make_tf_linalg_ops.py differentiated, on the imported
    graph's inputs, and their gradients."""
    a, spd, b, tall = p["a"], p["spd"], p["b"], p["tall"]
    w = {k: ds.constant(v) for k, v in w.items()}

    def projector(x):
        return ds.matmul(x, x, transpose_b=True)

    def total(x):
        return ds.reduce_sum(x)

    s, u, v = ds.svd(tall)
    q, r = ds.qr(tall)
    e, vectors = ds.self_adjoint_eig(spd)
    losses = {
        "inv": (total(w["m3"] * ds.matrix_inverse(a)), a),
        "inv_adjoint": (total(w["m3"] * ds.matrix_inverse(a, adjoint=True)), a),
        "det": (total(ds.matrix_determinant(spd) * [0.5, -2.0]), spd),
        "log_abs": (total(ds.linalg.slogdet(spd)[1] * [1.5, -0.5]), spd),
        "cholesky": (total(w["batch"] * ds.cholesky(spd)), spd),
        "solve": (total(w["b"] * ds.matrix_solve(a, b)), a),
        "lower": (total(w["b"] * ds.matrix_triangular_solve(a, b)), a),
        "upper_adjoint": (total(w["b"] * ds.matrix_triangular_solve(a, b, False, True)), a),
        "qr": (total(w["m44"] * projector(q)) + total(w["m3"] * ds.matmul(r, r, True)), tall),
        "svd": (total(w["m44"] * projector(u)) + total(s * [1.0, 2, 3])
                + total(w["m3"] * projector(v)), tall),
        "svd_s": (total(s * [1.0, -2, 3]), tall),
        "eigh": (total(w["batch"] * ds.matmul(vectors * ds.expand_dims(e * e, -2), vectors,
                                              transpose_b=True)), spd),
        "eigvalsh": (total(ds.self_adjoint_eigvals(spd) * [1.0, -1, 2]), spd),
    }
    return {k: ds.gradients(loss, [x])[0] for k, (loss, x) in losses.items()}
