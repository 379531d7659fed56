"""A weight gradient's product folded into its SGD update (``optimizer/gemm_updates.py``,
``kernels/cpu/sgemm.py``): where it applies, where it must not, and that training is the
same as with the product and update apart."""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.kernels.cpu import cblas, sgemm
from devsession.ops.training import MATMUL_GRADIENT_DESCENT

pytestmark = pytest.mark.skipif(not sgemm.available(),
                                reason="numpy's BLAS has no cblas_sgemm devsession can call")

LR = 0.05


def dense_model(rng, sizes=(64, 96, 80), batch=48, dtype=np.float32):
    """x -> relu(x @ w0) @ w1 -> mean squared error, SGD; (graph, x, y, loss, train, ws)."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(dtype, (batch, sizes[0]), name="x")
        y = ds.placeholder(dtype, (batch, sizes[2]), name="y")
        ws = [ds.Variable((rng.standard_normal((a, b)) * 0.1).astype(dtype), name=f"w{k}")
              for k, (a, b) in enumerate(zip(sizes, sizes[1:]))]
        out = ds.matmul(ds.nn.relu(ds.matmul(x, ws[0])), ws[1])
        loss = ds.reduce_mean(ds.square(out - y))
        train = ds.train.GradientDescentOptimizer(LR).minimize(loss)
    return g, x, y, loss, train, ws


def train(fusion: bool, steps: int = 5, **model):
    rng = np.random.default_rng(11)
    g, x, y, loss, train_op, ws = dense_model(rng, **model)
    data = rng.standard_normal(x.shape.dims).astype(np.float32)
    target = rng.standard_normal(y.shape.dims).astype(np.float32)
    options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
    with ds.Session(graph=g, options=options) as sess:
        sess.run(ds.variables_initializer(ws))
        losses = [sess.run([loss, train_op], {x: data, y: target})[0] for _ in range(steps)]
        folded = sess._prepare((x, y), (loss,), (train_op,)).plan.steps
        assert any(s.op_type == MATMUL_GRADIENT_DESCENT for s in folded) == fusion
        return losses, sess.run(ws)


def test_both_weight_updates_fold_and_training_matches_the_ops_apart():
    folded_losses, folded_ws = train(fusion=True)
    apart_losses, apart_ws = train(fusion=False)
    np.testing.assert_allclose(folded_losses, apart_losses, rtol=1e-5)
    for got, want in zip(folded_ws, apart_ws):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert folded_losses[-1] < folded_losses[0]


def test_the_plan_folds_each_big_enough_product_and_traces_both_nodes():
    rng = np.random.default_rng(3)
    g, x, y, loss, train_op, ws = dense_model(rng)
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        sess.run(ds.variables_initializer(ws))
        feed = {x: np.ones(x.shape.dims, np.float32), y: np.zeros(y.shape.dims, np.float32)}
        step = sess._prepare((x, y), (loss,), (train_op,))
        folded = [s for s in step.plan.steps if s.op_type == MATMUL_GRADIENT_DESCENT]
        assert len(folded) == 2
        assert {op for s in folded for _, op in s.members} == {"MatMul", "ApplyGradientDescent"}
        metadata = ds.RunMetadata()
        sess.run([loss, train_op], feed, options=ds.RunOptions(trace=True),
                 run_metadata=metadata)
        traced = {s.node: s.kernel for s in metadata.step_stats}
        into_updates = [n for n, kernel in traced.items() if n.startswith("gradients/MatMul")
                        and kernel.startswith("GradientDescent/update_")]
        assert len(into_updates) == 2           # the weight gradients' products


def test_a_gradient_someone_else_reads_or_fetches_is_not_folded():
    rng = np.random.default_rng(5)
    g, x, y, loss, _, ws = dense_model(rng)
    with g.as_default():
        opt = ds.train.GradientDescentOptimizer(LR)
        grads = opt.compute_gradients(loss, var_list=ws)
        norm = ds.global_norm([grad for grad, _ in grads])      # a second reader
        train_op = opt.apply_gradients(grads)
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        sess.run(ds.variables_initializer(ws))
        step = sess._prepare((x, y), (norm,), (train_op,))
        assert not [s for s in step.plan.steps if s.op_type == MATMUL_GRADIENT_DESCENT]
        step = sess._prepare((x, y), (grads[1][0],), (train_op,))   # the gradient fetched
        folded = [s for s in step.plan.steps if s.op_type == MATMUL_GRADIENT_DESCENT]
        assert [s.members[0][0] for s in folded] == [grads[0][0].op.name]
        feed = {x: np.ones(x.shape.dims, np.float32), y: np.zeros(y.shape.dims, np.float32)}
        before = sess.run(ws[1])
        fetched = sess.run([grads[1][0], train_op], feed)[0]
        np.testing.assert_allclose(sess.run(ws[1]), before - LR * fetched, rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("model", [dict(sizes=(4, 8, 3), batch=5),
                                   dict(dtype=np.float64)], ids=["small", "float64"])
def test_small_or_double_products_stay_apart(model):
    rng = np.random.default_rng(7)
    g, x, y, loss, train_op, ws = dense_model(rng, **model)
    with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
        step = sess._prepare((x, y), (loss,), (train_op,))
        assert not [s for s in step.plan.steps if s.op_type == MATMUL_GRADIENT_DESCENT]


class _Library:
    def __init__(self, path, internal_api="openblas"):
        self.filepath, self.internal_api = path, internal_api


def test_the_blas_picked_is_numpys_own_not_another_packages():
    numpy_libs = os.path.dirname(os.path.realpath(np.__file__)) + ".libs"
    ours = _Library(f"{numpy_libs}/libscipy_openblas64_-x.so")
    scipys = _Library("/site-packages/scipy.libs/libscipy_openblas-y.so")
    assert cblas.numpys([scipys, ours]) == [ours]
    assert cblas.numpys([scipys]) == [scipys]          # the only BLAS loaded
    assert cblas.numpys([scipys, _Library("/usr/lib/libopenblas.so")]) == []
    assert cblas.numpys([scipys, _Library("/opt/libmkl_rt.so", "mkl")]) == []   # numpy's MKL


@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_sgemm_update_against_numpy(transpose_a, transpose_b, rng):
    m, k, n = 70, 33, 51
    a = rng.standard_normal((k, m) if transpose_a else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if transpose_b else (k, n)).astype(np.float32)
    var = rng.standard_normal((m, n)).astype(np.float32)
    want = var - np.float32(0.25) * ((a.T if transpose_a else a) @ (b.T if transpose_b else b))
    sgemm.sgemm_update(var, np.float32(0.25), a[::1], transpose_a, b, transpose_b)
    np.testing.assert_allclose(var, want, rtol=1e-5, atol=1e-5)


def test_a_transposed_product_in_the_graph_folds_and_trains_as_apart():
    """``w @ x.T`` and ``x.T @ w`` give the other transpose combinations."""
    runs = []
    for fusion in (True, False):
        rng = np.random.default_rng(2)
        g = ds.Graph()
        with g.as_default():
            x = ds.placeholder(ds.float32, (64, 96), name="x")
            w = ds.Variable((rng.standard_normal((80, 96)) * 0.1).astype(np.float32))
            v = ds.Variable((rng.standard_normal((64, 72)) * 0.1).astype(np.float32))
            h = ds.matmul(w, x, transpose_b=True)                # (80, 64)
            out = ds.matmul(h, v)                                # (80, 72)
            loss = ds.reduce_mean(ds.square(out))
            train_op = ds.train.GradientDescentOptimizer(LR).minimize(loss)
        options = ds.SessionOptions(device="cpu",
                                    optimizer=ds.OptimizerOptions(fusion=fusion))
        with ds.Session(graph=g, options=options) as sess:
            sess.run(ds.variables_initializer([w, v]))
            step = sess._prepare((x,), (loss,), (train_op,))
            folded = [s for s in step.plan.steps if s.op_type == MATMUL_GRADIENT_DESCENT]
            assert len(folded) == (2 if fusion else 0)
            data = rng.standard_normal((64, 96)).astype(np.float32)
            losses = [sess.run([loss, train_op], {x: data})[0] for _ in range(4)]
            runs.append((losses, sess.run([w, v])))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-5)
    for got, want in zip(runs[0][1], runs[1][1]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
