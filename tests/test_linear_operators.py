"""TF's ``tf.linalg.LinearOperator`` family (devsession/linalg_operators/) against
what TF 2.21 computed for the cases of tests/data/linear_operator_cases.py (recorded
by make_linear_operators.py): every method's values (products and solves with the
adjoint flags, dense forms, diagonals, determinants, traces, eigenvalues, the dense
forms of adjoints, inverses, Cholesky factors and operator products), the static
facts (shapes, hints, the classes that adjoint()/inverse()/``@`` return), TF's
build-time errors with their messages, the run-time assertions' messages, and
gradients through matmul and solve against finite differences.
"""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

import devsession as ds
import linear_operator_cases as cases
from test_linalg_ops import check_graph_gradient

HERE = os.path.dirname(cases.__file__)
VALUES = np.load(os.path.join(HERE, "linear_operators.npz"))
with open(os.path.join(HERE, "linear_operators.json")) as f:
    RECORD = json.load(f)
CASES = sorted(RECORD["facts"])


@pytest.fixture(scope="module")
def built():
    graph = ds.Graph()
    with graph.as_default():
        operators = cases.operators(ds)
        fetches = {}
        for name, op in operators.items():
            for method, tensor in cases.probe(ds, name, op).items():
                fetches[f"{name}/{method}"] = tensor
        with ds.Session(graph=graph) as sess:
            return graph, operators, sess.run(fetches)


@pytest.mark.parametrize("case", CASES)
def test_values_are_tfs(built, case):
    _, _, values = built
    want_keys = sorted(k for k in VALUES if k.startswith(case + "/"))
    got_keys = sorted(k for k in values if k.startswith(case + "/"))
    assert got_keys == want_keys
    for key in want_keys:
        want, got = VALUES[key], np.asarray(values[key])
        assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
        assert got.shape == want.shape, (key, got.shape, want.shape)
        tol = 2e-5 if want.dtype in (np.float32, np.complex64) else 1e-10
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=key)


@pytest.mark.parametrize("case", CASES)
def test_static_facts_are_tfs(built, case):
    graph, operators, _ = built
    with graph.as_default():
        assert cases.facts(ds, case, operators[case]) == RECORD["facts"][case]


def _normalise(message):
    """TF's messages with the tensor or dtype reprs they embed cut off."""
    message = re.sub(r"<dtype: '(\w+)'>|\b(?:ds|tf)\.(\w+)", r"\1\2", message)
    return re.split(r"Found:|Received:|in tensor |Found \(", message)[0]


@pytest.mark.parametrize("name", sorted(cases.ERRORS))
def test_build_errors_are_tfs(name):
    want = RECORD["errors"][name]
    with ds.Graph().as_default():
        if want is None:
            cases.ERRORS[name](ds)
            return
        with pytest.raises(Exception) as info:
            cases.ERRORS[name](ds)
    assert type(info.value).__name__ == want[0]
    assert _normalise(str(info.value)) == _normalise(want[1])


@pytest.mark.parametrize("name", sorted(cases.ASSERTS))
def test_run_time_assertions_are_tfs(name):
    want = RECORD["asserts"][name]
    with ds.Graph().as_default():
        try:
            check = cases.ASSERTS[name](ds)
            with ds.Session() as sess:
                sess.run(check)
            got = None
        except ds.errors.InvalidArgumentError as e:
            got = str(e)
    if want is None:
        assert got is None
    else:
        assert got is not None and want in got, (got, want)


def test_gradients_flow_through_matmul_and_solve():
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    rhs = rng.standard_normal((3, 2))
    check_graph_gradient(lambda a, b: cases.gradient_case(ds, a, b)[None],
                         [matrix, rhs])


def test_linalg_namespace_exports_tfs_names():
    for name in ("LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorDiag",
                 "LinearOperatorIdentity", "LinearOperatorScaledIdentity",
                 "LinearOperatorLowerTriangular", "LinearOperatorZeros",
                 "LinearOperatorComposition", "LinearOperatorAdjoint",
                 "LinearOperatorInversion", "LinearOperatorBlockDiag",
                 "LinearOperatorKronecker", "LinearOperatorLowRankUpdate",
                 "LinearOperatorPermutation", "LinearOperatorHouseholder",
                 "LinearOperatorToeplitz", "LinearOperatorTridiag",
                 "LinearOperatorCirculant", "LinearOperatorCirculant2D",
                 "LinearOperatorCirculant3D", "LinearOperatorBlockLowerTriangular"):
        assert getattr(ds.linalg, name).__name__ == name
        assert name in ds.linalg.__all__


def test_name_scopes_are_the_operators():
    with ds.Graph().as_default():
        op = ds.linalg.LinearOperatorDiag(ds.constant([1.0, 2.0]), name="my_diag")
        assert op.matvec(ds.constant([3.0, 4.0])).name.startswith("my_diag/matvec/")
        assert op.log_abs_determinant().name.startswith("my_diag/log_abs_det/")


def test_unknown_batch_sizes_run_as_the_fed_ones():
    """Placeholders of unknown batch size: static shapes keep the unknown, the
    dense forms (an identity's product without static sizes) and solves run."""
    rng = np.random.default_rng(5)
    matrix = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    diag, rhs = rng.random((2, 3)) + 1.0, rng.standard_normal((2, 3, 2))
    la = ds.linalg
    with ds.Graph().as_default():
        p = ds.placeholder(ds.float64, [None, 3, 3])
        d = ds.placeholder(ds.float64, [None, 3])
        x = ds.placeholder(ds.float64, [None, 3, 2])
        ops = [la.LinearOperatorComposition([la.LinearOperatorFullMatrix(p),
                                             la.LinearOperatorDiag(d)]),
               la.LinearOperatorLowRankUpdate(la.LinearOperatorDiag(d), x),
               la.LinearOperatorIdentity(3, batch_shape=ds.shape(d)[:1], dtype=ds.float64)]
        assert [op.shape.as_list() for op in ops] == [[None, 3, 3]] * 3
        fetches = [(op.to_dense(), op.solve(x)) for op in ops]
        with ds.Session() as sess:
            got = sess.run(fetches, {p: matrix, d: diag, x: rhs})
    want = [matrix * diag[:, None, :],
            diag[:, :, None] * np.eye(3) + rhs @ rhs.transpose(0, 2, 1),
            np.broadcast_to(np.eye(3), (2, 3, 3))]
    for (dense, solution), expected in zip(got, want):
        np.testing.assert_allclose(dense, expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(expected @ solution, rhs, rtol=1e-10, atol=1e-10)


def test_gradients_flow_through_structured_operators():
    """Finite differences of a loss through a triangular solve, a tridiagonal solve,
    a low-rank update's log-determinant (its capacitance) and a Kronecker product."""
    rng = np.random.default_rng(8)
    tril = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    diagonals = rng.standard_normal((3, 3)) + np.array([[0.0], [4.0], [0.0]])
    u = rng.standard_normal((3, 2))
    rhs = rng.standard_normal((3, 2))
    la = ds.linalg

    def loss(t, d, factor, x):
        ops = [la.LinearOperatorLowerTriangular(t), la.LinearOperatorTridiag(d),
               la.LinearOperatorLowRankUpdate(la.LinearOperatorDiag(ds.ones([3], ds.float64)),
                                              factor)]
        kron = la.LinearOperatorKronecker([la.LinearOperatorFullMatrix(t[:2, :2]),
                                           la.LinearOperatorFullMatrix(d[:, :2])])
        total = (ds.reduce_sum(ops[0].solve(x) ** 2) + ds.reduce_sum(ops[1].solve(x))
                 + ops[2].log_abs_determinant() + ds.reduce_sum(kron.to_dense() ** 2))
        return total[None]

    check_graph_gradient(loss, [tril, diagonals, u, rhs], rtol=1e-5, atol=1e-7)
