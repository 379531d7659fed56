"""Kernels of the inverses, solves and decompositions on every device against the numpy
reference (``kernel_cases.DEVICES``: the CPU, a GPU where there is one, the CUDA kernels
on the cupy stand-in), and the reference against numpy's formulas.

MatrixInverse, MatrixSolve, MatrixTriangularSolve, MatrixSolveLs, Cholesky,
LogMatrixDeterminant and the singular and eigenvalues are unique, so devices must agree
with the reference; Q, the singular vectors and the eigenvectors are unique only up to
the sign of each column (LAPACK and cuSOLVER may choose differently), so those are
checked by what defines them (products, orthonormal columns, triangles) and against the
reference up to signs.  Batches, 1 x 1 and empty matrices, float16 (computed in float32)
to float64, TF's run-time errors naming the node.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from devsession.errors import InvalidArgumentError
from kernel_cases import DEVICES, F16, F32, F64, check_against_ref, make_node, rng_for, run_on

COVERED = {"MatrixInverse", "MatrixSolve", "MatrixTriangularSolve", "MatrixSolveLs",
           "Cholesky", "Qr", "Svd", "SelfAdjointEigV2", "LogMatrixDeterminant"}
FLOATS = [F16, F32, F64]
SQUARE = [(3, 3), (2, 4, 4), (1, 1), (2, 0, 0), (0, 3, 3), (2, 1, 5, 5)]
TOLERANCE = {F16: {"rtol": 2e-2, "atol": 2e-2}, F32: {"rtol": 1e-4, "atol": 1e-5},
             F64: {"rtol": 1e-10, "atol": 1e-12}}
pytestmark = pytest.mark.parametrize("device", DEVICES)


def well_conditioned(key, shape, dtype):
    """Random matrices plus ``n`` on the diagonal: far from singular."""
    x = rng_for(*key, shape).standard_normal(shape)
    return (x + shape[-1] * np.eye(shape[-1])).astype(dtype) if shape[-1] else x.astype(dtype)


def positive_definite(key, shape, dtype):
    x = rng_for(*key, shape).standard_normal(shape)
    return (x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def node(op, dtypes, out, attrs=None, outputs=1):
    n = make_node(op, dtypes, out, attrs)
    return dataclasses.replace(n, output_dtypes=(np.dtype(out),) * outputs) if outputs > 1 \
        else n


# --- unique results: every device against the reference --------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SQUARE, ids=str)
@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_inverse(device, dtype, shape, adjoint):
    x = well_conditioned(("inv",), shape, dtype)
    got = check_against_ref(device, node("MatrixInverse", [dtype], dtype,
                                         {"adjoint": adjoint}), x, **TOLERANCE[dtype])
    if x.size and dtype == F64:
        want = np.linalg.inv(np.swapaxes(x, -1, -2) if adjoint else x)
        np.testing.assert_allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", [((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)),
                                    ((1, 1), (1, 3)), ((2, 0, 0), (2, 0, 3)),
                                    ((3, 3), (3, 0)), ((0, 2, 2), (0, 2, 1))], ids=str)
@pytest.mark.parametrize("adjoint", [False, True])
def test_matrix_solve(device, dtype, shapes, adjoint):
    a = well_conditioned(("solve",), shapes[0], dtype)
    b = rng_for("rhs", shapes).standard_normal(shapes[1]).astype(dtype)
    got = check_against_ref(device, node("MatrixSolve", [dtype, dtype], dtype,
                                         {"adjoint": adjoint}), a, b, **TOLERANCE[dtype])
    if a.size and b.size and dtype == F64:
        np.testing.assert_allclose(got, np.linalg.solve(
            np.swapaxes(a, -1, -2) if adjoint else a, b), rtol=1e-10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("lower,adjoint", [(True, False), (True, True), (False, False),
                                           (False, True)])
@pytest.mark.parametrize("shapes", [((4, 4), (4, 3)), ((2, 3, 3), (2, 3, 1)),
                                    ((0, 0), (0, 2)), ((1, 1), (1, 1))], ids=str)
def test_matrix_triangular_solve_reads_one_triangle(device, dtype, lower, adjoint, shapes):
    a = well_conditioned(("tri",), shapes[0], dtype)
    b = rng_for("rhs", shapes).standard_normal(shapes[1]).astype(dtype)
    attrs = {"lower": lower, "adjoint": adjoint}
    got = check_against_ref(device, node("MatrixTriangularSolve", [dtype, dtype], dtype, attrs),
                            a, b, **TOLERANCE[dtype])
    triangle = np.tril(a) if lower else np.triu(a)
    if a.size and dtype == F64:
        np.testing.assert_allclose(got, np.linalg.solve(
            np.swapaxes(triangle, -1, -2) if adjoint else triangle, b), rtol=1e-10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_cholesky_reads_the_lower_triangle(device, dtype, shape):
    x = positive_definite(("chol",), shape, dtype)
    if x.size:
        x[..., 0, -1] += 100.0 if shape[-1] > 1 else 0.0     # the upper triangle is not read
    got = check_against_ref(device, node("Cholesky", [dtype], dtype), x, **TOLERANCE[dtype])
    assert np.array_equal(got, np.tril(got))
    if x.size and dtype == F64:
        symmetric = np.tril(x) + np.swapaxes(np.tril(x, -1), -1, -2)
        np.testing.assert_allclose(got @ np.swapaxes(got, -1, -2), symmetric, rtol=1e-10)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_log_matrix_determinant(device, dtype, shape):
    x = well_conditioned(("slogdet",), shape, dtype)
    if x.size:
        x[..., 0, :] *= -1.0                       # a negative determinant somewhere
    sign, log_abs = check_against_ref(
        device, node("LogMatrixDeterminant", [dtype], dtype, outputs=2), x,
        **TOLERANCE[dtype])
    assert sign.shape == log_abs.shape == shape[:-2]
    if dtype == F64:
        want = np.linalg.slogdet(x)
        np.testing.assert_array_equal(sign, want[0])
        np.testing.assert_allclose(log_abs, want[1], rtol=1e-12)


def test_log_determinant_of_singular_and_empty_matrices(device):
    sign, log_abs = run_on(device, node("LogMatrixDeterminant", [F64], F64, outputs=2),
                           np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]]]))
    np.testing.assert_array_equal(sign, [0.0, 1.0])
    np.testing.assert_allclose(log_abs, [-np.inf, np.log(6.0)])
    sign, log_abs = run_on(device, node("LogMatrixDeterminant", [F32], F32, outputs=2),
                           np.zeros((3, 0, 0), np.float32))
    np.testing.assert_array_equal(sign, [1, 1, 1])             # det of 0 x 0 is 1
    np.testing.assert_array_equal(log_abs, [0, 0, 0])


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 4, 4), (2, 4, 1)),
                                    ((0, 3), (0, 2)), ((3, 2), (3, 0))], ids=str)
@pytest.mark.parametrize("fast", [True, False])
def test_matrix_solve_ls(device, dtype, shapes, fast):
    a = rng_for("ls", shapes).standard_normal(shapes[0]).astype(dtype)
    b = rng_for("ls rhs", shapes).standard_normal(shapes[1]).astype(dtype)
    l2 = np.array(0.0)
    got = check_against_ref(device, node("MatrixSolveLs", [dtype, dtype, F64], dtype,
                                         {"fast": fast}), a, b, l2, rtol=1e-3, atol=1e-4)
    assert got.shape == shapes[0][:-2] + (shapes[0][-1], shapes[1][-1])
    if a.size and b.size and dtype == F64:
        want = np.linalg.pinv(a) @ b                       # the minimum-norm solution
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


def test_matrix_solve_ls_regularised(device):
    a = rng_for("ls l2").standard_normal((4, 3))
    b = rng_for("ls l2 rhs").standard_normal((4, 2))
    got = run_on(device, node("MatrixSolveLs", [F64, F64, F64], F64, {"fast": True}),
                 a, b, np.array(0.5))
    np.testing.assert_allclose(got, np.linalg.solve(a.T @ a + 0.5 * np.eye(3), a.T @ b))
    with pytest.raises(InvalidArgumentError, match="l2_regularizer must be >= 0"):
        run_on(device, node("MatrixSolveLs", [F64, F64, F64], F64), a, b, np.array(-1.0))
    with pytest.raises(InvalidArgumentError, match="rank deficient or ill-conditioned"):
        run_on(device, node("MatrixSolveLs", [F64, F64, F64], F64), np.ones((3, 2)),
               np.ones((3, 1)), np.array(0.0))


# --- unique up to signs: defining properties, and the reference up to signs -------------------

def _columns_signed_as(got, ref):
    """``got`` with each column's sign flipped to agree with ``ref``'s column."""
    signs = np.sign(np.sum(got * ref, axis=-2, keepdims=True))
    return got * np.where(signs == 0, 1, signs)


def _orthonormal_columns(q, rtol):
    eye = np.eye(q.shape[-1])
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(eye, q.shape[:-2]
                                                                          + eye.shape),
                               atol=rtol)


RECTANGULAR = [(5, 3), (3, 5), (4, 4), (2, 4, 2), (1, 1), (0, 3), (3, 0), (0, 2, 2)]


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("shape", RECTANGULAR, ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_qr(device, dtype, shape, full):
    x = rng_for("qr", shape).standard_normal(shape).astype(dtype)
    n = node("Qr", [dtype], dtype, {"full_matrices": full}, outputs=2)
    q, r = run_on(device, n, x)
    q_ref, r_ref = run_on("REF", n, x)
    m, p = shape[-2], min(shape[-2:])
    assert q.shape == shape[:-2] + (m, m if full else p) == q_ref.shape
    assert r.shape == shape[:-2] + (m if full else p, shape[-1]) == r_ref.shape
    tol = 1e-4 if dtype == F32 else 1e-10
    np.testing.assert_allclose(q @ r, x, atol=tol)
    np.testing.assert_array_equal(r, np.triu(r))
    _orthonormal_columns(q, tol)
    k = min(q.shape[-1], r.shape[-2])
    signs = np.sign(np.sum(q[..., :k] * q_ref[..., :k], axis=-2))  # flip a column of Q,
    np.testing.assert_allclose(q[..., :k] * signs[..., None, :], q_ref[..., :k],
                               atol=tol)                            # the row of R with it
    np.testing.assert_allclose(r[..., :k, :] * signs[..., :, None], r_ref[..., :k, :],
                               atol=tol * 10)


@pytest.mark.parametrize("dtype", [F32, F64])
@pytest.mark.parametrize("shape", RECTANGULAR, ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_svd(device, dtype, shape, full):
    x = rng_for("svd", shape).standard_normal(shape).astype(dtype)
    n = node("Svd", [dtype], dtype, {"full_matrices": full, "compute_uv": True}, outputs=3)
    s, u, v = run_on(device, n, x)
    s_ref, u_ref, v_ref = run_on("REF", n, x)
    m, k, p = shape[-2], shape[-1], min(shape[-2:])
    assert s.shape == shape[:-2] + (p,)
    assert u.shape == shape[:-2] + (m, m if full else p) == u_ref.shape
    assert v.shape == shape[:-2] + (k, k if full else p) == v_ref.shape
    tol = 1e-4 if dtype == F32 else 1e-10
    np.testing.assert_allclose(s, s_ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(s, np.linalg.svd(x.astype(F64), compute_uv=False), atol=tol)
    assert np.all(np.diff(s, axis=-1) <= 0)                    # descending
    np.testing.assert_allclose((u[..., :p] * s[..., None, :]) @ np.swapaxes(v[..., :p], -1, -2),
                               x, atol=tol * 10)
    _orthonormal_columns(u, tol)
    _orthonormal_columns(v, tol)
    np.testing.assert_allclose(_columns_signed_as(u[..., :p], u_ref[..., :p]), u_ref[..., :p],
                               atol=tol * 10)
    s_only = run_on(device, node("Svd", [dtype], dtype, {"compute_uv": False}, outputs=3), x)
    np.testing.assert_allclose(s_only[0], s_ref, rtol=tol, atol=tol)
    assert s_only[1].shape == s_only[2].shape == (0,)           # the op's static [0]


def test_svd_of_a_matrix_with_nan_is_nan_as_tf(device):
    x = np.stack([np.eye(2), [[1.0, np.nan], [0.0, 1.0]]])
    s, u, v = run_on(device, node("Svd", [F64], F64, {"compute_uv": True}, outputs=3), x)
    np.testing.assert_allclose(s[0], [1, 1])
    assert np.isnan(s[1]).all() and np.isnan(u[1]).all() and np.isnan(v[1]).all()
    assert not np.isnan(u[0]).any()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_self_adjoint_eig_reads_the_lower_triangle(device, dtype, shape):
    x = rng_for("eig", shape).standard_normal(shape).astype(dtype)   # not symmetric:
    symmetric = np.tril(x) + np.swapaxes(np.tril(x, -1), -1, -2)      # its lower triangle is
    n = node("SelfAdjointEigV2", [dtype], dtype, {"compute_v": True}, outputs=2)
    e, v = run_on(device, n, x)
    e_ref, v_ref = run_on("REF", n, x)
    tol = {F16: 2e-2, F32: 1e-4, F64: 1e-10}[dtype]
    np.testing.assert_allclose(e, e_ref, rtol=tol, atol=tol)
    if x.size:
        want = np.linalg.eigvalsh(symmetric.astype(F64))
        np.testing.assert_allclose(e.astype(F64), want, rtol=tol, atol=tol * 10)
        np.testing.assert_allclose((v.astype(F64) * e.astype(F64)[..., None, :])
                                   @ np.swapaxes(v, -1, -2), symmetric, atol=tol * 100)
        np.testing.assert_allclose(_columns_signed_as(v, v_ref), v_ref, atol=tol * 100)
    e_only, v_only = run_on(device, node("SelfAdjointEigV2", [dtype], dtype,
                                         {"compute_v": False}, outputs=2), x)
    np.testing.assert_allclose(e_only, e_ref, rtol=tol, atol=tol)
    assert v_only.shape == (0,)


# --- TF's run-time errors, naming the node ------------------------------------------------------

def test_a_failed_gpu_factor_is_recognised(device):
    """cuSOLVER reports a failed Cholesky only in an info array: the GPU kernels check the
    factor itself (``factored``), which must accept good factors and refuse others."""
    from devsession.kernels.reference.linalg_factor import factored

    a = positive_definite(("factored",), (2, 3, 3), F64)
    good = np.linalg.cholesky(a)
    assert factored(np, a, good) and factored(np, a.astype(F32), good.astype(F32))
    wrong = good.copy()
    wrong[1, 2, 1] += 0.5                        # a positive diagonal, a wrong row
    assert not factored(np, a, wrong)
    unfinished = good.copy()
    unfinished[0, 2, 2] = -1.0                   # LAPACK's failed pivot left in place
    assert not factored(np, a, unfinished)
    assert not factored(np, a, np.full_like(good, np.nan))



SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize("op,inputs,message", [
    ("MatrixInverse", [SINGULAR], "Input is not invertible."),
    ("MatrixSolve", [SINGULAR, np.ones((2, 1))], "Input matrix is not invertible."),
    ("MatrixTriangularSolve", [np.array([[1.0, 0.0], [2.0, 0.0]]), np.ones((2, 1))],
     "Input matrix is not invertible."),
    ("Cholesky", [np.array([[1.0, 2.0], [2.0, 1.0]])],
     "Cholesky decomposition was not successful. The input might not be valid."),
    ("Cholesky", [np.array([[-1.0]])], "Cholesky decomposition was not successful"),
    ("SelfAdjointEigV2", [np.array([[1.0, 0.0], [np.nan, 1.0]])],
     "Self-adjoint eigen decomposition was not successful. The input might not be valid."),
    ("MatrixInverse", [np.ones((2, 3))], "Input matrix must be square."),
    ("Cholesky", [np.ones(3)], "Input tensor 0 must have rank >= 2, got 1"),
    ("MatrixSolve", [np.eye(2), np.ones((3, 1))], "Input matrix and rhs are incompatible."),
    ("MatrixSolve", [np.ones((2, 2, 2)), np.ones((3, 2, 1))],
     "All input tensors must have the same outer dimensions."),
    ("MatrixTriangularSolve", [np.eye(2), np.ones(2)],
     "All input tensors must have the same rank."),
    ("LogMatrixDeterminant", [np.ones((3, 2))], "Input matrix must be square."),
])
def test_errors_name_the_node(device, op, inputs, message):
    outputs = {"SelfAdjointEigV2": 2, "LogMatrixDeterminant": 2}.get(op, 1)
    n = node(op, [F64] * len(inputs), F64, outputs=outputs)
    with pytest.raises(InvalidArgumentError, match=message.replace(".", r"\.")) as info:
        run_on(device, n, *inputs)
    assert info.value.node_name == n.name and f"'{n.name}'" in str(info.value)
