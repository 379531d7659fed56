"""Complex dense linear algebra (ops/linalg_solve.py, linalg_factor.py and their
gradients; kernels/reference/linalg_solve.py, linalg_factor.py): MatrixInverse,
MatrixSolve, MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixTriangularSolve,
Qr, Svd, SelfAdjointEigV2 and least squares on complex64/complex128, with TF's adjoints
(conjugate transposes) and TF's gradients, as TensorFlow computes them: a GraphDef TF wrote
(tests/data/make_tf_complex_linalg.py) imports and gives TF's values, and devsession
builds the same program from the same source on direct, gRPC and stand-in GPU sessions."""

from __future__ import annotations

import os

import numpy as np
import pytest

import complex_linalg_cases as cases
import devsession as ds
from gradient_check import numeric_gradient
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)
from tf_recorded import DATA, assert_built_as_tf, assert_imported_as_tf, run_recorded


@pytest.fixture(scope="module")
def recorded():
    return run_recorded("tf_complex_linalg")


def _close(got, want, name):
    tolerance = 1e-11 if want.dtype in (np.complex128, np.float64) else 5e-5
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance, err_msg=name)
    assert got.dtype == want.dtype and got.shape == want.shape, name


def test_a_graph_tf_wrote_gives_tfs_values(recorded):
    written = ds.read_graph_def(os.path.join(DATA, "tf_complex_linalg.pb"))
    assert {"MatrixInverse", "MatrixSolve", "MatrixDeterminant", "LogMatrixDeterminant",
            "Cholesky", "MatrixTriangularSolve", "Qr", "Svd", "SelfAdjointEigV2"} <= {
                node.op for node in written.node}
    assert_imported_as_tf(recorded, _close)


def _built_by_ds(data, session):
    assert_built_as_tf(cases, data, session, _close, 59)


def test_ds_builds_tfs_values_and_gradients(recorded, make_session):
    graph = ds.Graph()
    with graph.as_default():
        _built_by_ds(recorded[3], lambda: make_session(graph))


def test_on_the_stand_in_gpu(recorded, standin):  # noqa: F811
    with ds.Graph().as_default():
        _built_by_ds(recorded[3], lambda: ds.Session(options=ds.SessionOptions(device="gpu:0")))


def test_the_solve_gradient_by_finite_differences():
    """L = sum(Re(w * solve(A, b))): TF's gradient dL/dRe(A) + 1j dL/dIm(A)."""
    rng = np.random.default_rng(5)
    a0 = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)) + 3 * np.eye(3)
    b0 = rng.normal(size=(3, 1)) + 1j * rng.normal(size=(3, 1))
    w0 = rng.normal(size=(3, 1)) + 1j * rng.normal(size=(3, 1))
    with ds.Graph().as_default():
        a = ds.placeholder(ds.complex128, [3, 3])
        loss = ds.reduce_sum(ds.real(w0 * ds.linalg.solve(a, b0, adjoint=True)))
        (grad,) = ds.gradients(loss, [a])
        with ds.Session() as sess:
            def value(parts):
                return sess.run(loss, {a: (parts[:9] + 1j * parts[9:]).reshape(3, 3)})
            numeric = numeric_gradient(value, np.concatenate([a0.real.ravel(),
                                                              a0.imag.ravel()]))
            np.testing.assert_allclose(sess.run(grad, {a: a0}),
                                       (numeric[:9] + 1j * numeric[9:]).reshape(3, 3),
                                       rtol=1e-6)


def test_hermitian_ops_read_the_lower_triangle_and_refusals():
    # the upper triangle is unread, and the diagonal's imaginary part (Eigen's, LAPACK's)
    h = np.array([[4 + 5j, 9 + 9j], [1 - 2j, 3]], np.complex64)
    with ds.Graph().as_default():
        chol = ds.linalg.cholesky(h)
        e = ds.linalg.eigvalsh(h)
        with ds.Session() as sess:
            got_chol, got_e = sess.run([chol, e])
    full = np.array([[4, 1 + 2j], [1 - 2j, 3]])
    np.testing.assert_allclose(got_chol, np.linalg.cholesky(full), rtol=1e-6)
    np.testing.assert_allclose(got_e, np.linalg.eigvalsh(full), rtol=1e-6)
    assert got_e.dtype == np.complex64
    with ds.Graph().as_default():
        with pytest.raises(TypeError, match="int32 not in list of allowed values: float64, "
                                            "float32, float16, complex64, complex128"):
            ds.linalg.inv(ds.ones([2, 2], ds.int32))
        with pytest.raises(TypeError, match="complex128"):
            ds.linalg.solve(ds.ones([2, 2], ds.complex64), ds.ones([2, 1], ds.complex128))
