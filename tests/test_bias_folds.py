"""A bias and ReLU folded into the convolution or dense layer's product before them
(``optimizer/bias_folds.py``: ``_Conv2DBias``, ``_MatMulBias``): where it applies,
where it must not, and that the values are the ops' apart on every path the CPU
convolution and product take."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.linalg import MATMUL_BIAS
from devsession.ops.nn_conv import CONV2D_BIAS
from fold_training import sgd_losses

F32 = np.float32


def layer(*, add="add", relu=True, stride=1, k=3, dtype=F32, shape=(3, 9, 8, 4), out=20,
          extra_reader=False):
    """(graph, x, y): y = [relu](conv(x, f) <add> b), and the tensors along the way."""
    rng = np.random.default_rng(5)
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(dtype, shape, name="x")
        f = ds.constant(rng.standard_normal((k, k, shape[3], out)).astype(dtype), name="f")
        b = ds.constant(rng.standard_normal(out).astype(dtype), name="b")
        conv = ds.nn.conv2d(x, f, strides=[1, stride, stride, 1], padding="SAME")
        y, summed = with_bias(conv, b, add, relu, extra_reader)
    return g, x, y, conv, summed


def with_bias(base, b, add, relu, extra_reader):
    """(y, summed): summed = base <add> b, y = [relu](summed) [+ another read of base]."""
    summed = {"add": lambda: base + b, "reversed": lambda: b + base,
              "bias_add": lambda: ds.nn.bias_add(base, b)}[add]()
    y = ds.nn.relu(summed) if relu else summed
    if extra_reader:
        y = y + ds.reduce_sum(base)
    return y, summed


def run(g, x, y, data, fusion=True, fetch=(), folded=CONV2D_BIAS):
    options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
    with ds.Session(graph=g, options=options) as sess:
        values = sess.run([y, *fetch], {x: data})
        steps = sess._prepare((x,), (y, *fetch), ()).plan.steps
    return values, [s for s in steps if s.op_type == folded]


def data_for(x, rng_seed=1):
    rng = np.random.default_rng(rng_seed)
    return rng.standard_normal(x.shape.dims).astype(x.dtype.np)


@pytest.mark.parametrize("geometry", [
    dict(stride=1), dict(stride=2), dict(k=1), dict(dtype=np.float64),
    dict(shape=(2, 7, 7, 1), out=33), dict(shape=(2, 5, 6, 0)),
    dict(shape=(2, 9, 7, 32), k=5, out=64)],
    ids=["in place", "packed", "pointwise", "float64", "one channel", "no channels",
         "filter in blocks"])
def test_every_convolution_path_adds_the_bias(geometry):
    g, x, y, _, _ = layer(**geometry)
    data = data_for(x)
    (folded,), (fold,) = run(g, x, y, data)
    (apart,), _ = run(g, x, y, data, fusion=False)
    np.testing.assert_allclose(folded, apart, rtol=1e-5, atol=1e-5)


def test_nan_stays_nan_through_the_relu():
    g, x, y, _, _ = layer()
    data = data_for(x)
    data[0, 2, 3, 1] = np.nan
    (folded,), (fold,) = run(g, x, y, data)
    (apart,), _ = run(g, x, y, data, fusion=False)
    np.testing.assert_array_equal(np.isnan(folded), np.isnan(apart))
    assert np.isnan(folded).any()
    np.testing.assert_allclose(folded, apart, rtol=1e-6, atol=1e-6)


def test_what_is_fetched_or_read_elsewhere_stays_apart():
    g, x, y, conv, summed = layer()
    data = data_for(x)
    _, folds = run(g, x, y, data, fetch=(conv,))
    assert not folds
    (_, got_sum), (fold,) = run(g, x, y, data, fetch=(summed,))   # conv + bias only
    assert [op for _, op in fold.members] == ["Conv2D", "AddV2"]
    (_, want_sum), _ = run(g, x, y, data, fusion=False, fetch=(summed,))
    np.testing.assert_allclose(got_sum, want_sum, rtol=1e-6, atol=1e-6)
    g, x, y, _, _ = layer(extra_reader=True)
    _, folds = run(g, x, y, data)
    assert not folds


def test_an_addend_that_is_not_a_per_channel_bias_does_not_fold():
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(F32, (2, 5, 5, 3), name="x")
        f = ds.constant(np.ones((3, 3, 3, 4), F32))
        conv = ds.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
        y = ds.nn.relu(conv + ds.constant(np.ones((5, 1, 4), F32)))
    data = data_for(x)
    (got,), folds = run(g, x, y, data)
    assert not folds
    np.testing.assert_allclose(got, run(g, x, y, data, fusion=False)[0][0])


# --- dense layers: MatMul + bias (+ ReLU) -----------------------------------------------

def dense(*, add="add", relu=True, shape=(20, 30), out=40, transpose_b=False, dtype=F32,
          extra_reader=False, bias_shape=None):
    """(graph, x, y, product, summed): y = [relu](x @ w <add> b)."""
    rng = np.random.default_rng(7)
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(dtype, shape, name="x")
        w = rng.standard_normal((out, shape[-1]) if transpose_b else (shape[-1], out))
        w = ds.constant(w.astype(dtype), name="w")
        b = ds.constant(rng.standard_normal(bias_shape or out).astype(dtype), name="b")
        product = ds.matmul(x, w, transpose_b=transpose_b)
        y, summed = with_bias(product, b, add, relu, extra_reader)
    return g, x, y, product, summed


def run_dense(g, x, y, data, **kw):
    return run(g, x, y, data, folded=MATMUL_BIAS, **kw)


@pytest.mark.parametrize("add", ["add", "reversed", "bias_add"])
@pytest.mark.parametrize("relu", [True, False])
@pytest.mark.parametrize("base", ["Conv2D", "MatMul"])
def test_bias_and_relu_fold_into_the_convolution_or_product(base, add, relu):
    build, folded_op = (layer, CONV2D_BIAS) if base == "Conv2D" else (dense, MATMUL_BIAS)
    g, x, y, _, _ = build(add=add, relu=relu)
    data = data_for(x)
    (folded, *_), (fold,) = run(g, x, y, data, folded=folded_op)
    (apart, *_), none = run(g, x, y, data, fusion=False, folded=folded_op)
    assert not none
    assert [op for _, op in fold.members] == [base, "BiasAdd" if add == "bias_add" else
                                              "AddV2"] + (["Relu"] if relu else [])
    np.testing.assert_allclose(folded, apart, rtol=1e-6, atol=1e-6)
    assert (folded < 0).any() != relu


@pytest.mark.parametrize("layer_kw", [
    dict(shape=(256, 300), out=700), dict(shape=(40, 300), out=70, transpose_b=True),
    dict(shape=(300, 200), out=600, transpose_b=True), dict(shape=(256, 64), out=10),
    dict(shape=(5, 0), out=7), dict(shape=(0, 9), out=7), dict(dtype=np.float64)],
    ids=["packed panels", "sums along k", "B.T packed", "narrow", "no k", "no rows",
         "float64"])
@pytest.mark.parametrize("engine", ["register_gemm", "blas_shares"])
def test_every_product_path_adds_the_bias(monkeypatch, engine, layer_kw):
    """On each engine of plain products (``register_gemm``'s kernels forced to run on
    any CPU): the same bits as the product, the addition and the ReLU apart."""
    from devsession.kernels.cpu import blas, blas_shares, register_gemm

    monkeypatch.setattr(register_gemm, "FORCE", True)
    monkeypatch.setattr(register_gemm, "_ENABLED", True)
    chosen = {"register_gemm": register_gemm, "blas_shares": blas_shares}[engine]
    if not chosen.usable():
        pytest.skip("numpy's BLAS has no cblas_sgemm with one thread count per process")
    monkeypatch.setattr(blas, "_chosen_engine", lambda: chosen)
    g, x, y, _, _ = dense(**layer_kw)
    data = data_for(x)
    (folded,), (fold,) = run_dense(g, x, y, data)
    (apart,), _ = run_dense(g, x, y, data, fusion=False)
    np.testing.assert_array_equal(folded, apart)


def test_nan_stays_nan_through_the_dense_relu():
    g, x, y, _, _ = dense(shape=(64, 300), out=200)
    data = data_for(x)
    data[3, 7] = np.nan
    (folded,), (fold,) = run_dense(g, x, y, data)
    assert np.isnan(folded[3]).all() and not np.isnan(np.delete(folded, 3, axis=0)).any()


def test_a_product_fetched_read_elsewhere_batched_or_with_a_broadcast_addend_stays_apart():
    g, x, y, product, summed = dense()
    data = data_for(x)
    _, folds = run_dense(g, x, y, data, fetch=(product,))
    assert not folds
    g, x, y, _, _ = dense(extra_reader=True)
    assert not run_dense(g, x, y, data)[1]
    g, x, y, _, _ = dense(bias_shape=(20, 40))                 # a (m, n) addend
    (got,), folds = run_dense(g, x, y, data)
    assert not folds
    np.testing.assert_allclose(got, run_dense(g, x, y, data, fusion=False)[0][0])
    g = ds.Graph()
    with g.as_default():                                      # a batch of products
        x = ds.placeholder(F32, (3, 4, 5), name="x")
        y = ds.nn.relu(ds.matmul(x, ds.constant(np.ones((3, 5, 6), F32))) +
                       ds.constant(np.arange(6, dtype=F32) - 3))
    data = data_for(x)
    (got,), folds = run_dense(g, x, y, data)
    assert not folds
    np.testing.assert_allclose(got, run_dense(g, x, y, data, fusion=False)[0][0])


def conv_model(rng):
    """(x, its data, loss, variables): relu(conv(x, f) + b), squared from 1."""
    x = ds.placeholder(F32, (4, 8, 8, 2), name="x")
    f = ds.Variable(rng.standard_normal((3, 3, 2, 6)).astype(F32) * 0.3, name="f")
    b = ds.Variable(np.full(6, 0.1, F32), name="b")
    h = ds.nn.relu(ds.nn.conv2d(x, f, [1, 1, 1, 1], "SAME") + b)
    return x, rng.standard_normal((4, 8, 8, 2)).astype(F32), \
        ds.reduce_mean(ds.square(h - 1.0)), [f, b]


def mlp_model(rng):
    """(x, its data, loss, variables): relu(x @ w + b) @ v, squared from 1."""
    x = ds.placeholder(F32, (64, 20), name="x")
    w = ds.Variable(rng.standard_normal((20, 300)).astype(F32) * 0.2, name="w")
    b = ds.Variable(np.full(300, 0.05, F32), name="b")
    v = ds.Variable(rng.standard_normal((300, 1)).astype(F32) * 0.02, name="v")
    h = ds.nn.relu(ds.matmul(x, w) + b)
    return x, rng.standard_normal((64, 20)).astype(F32), \
        ds.reduce_mean(ds.square(ds.matmul(h, v) - 1.0)), [w, b, v]


@pytest.mark.parametrize("model,base,rate", [(conv_model, "Conv2D", 0.05),
                                             (mlp_model, "MatMul", 0.01)])
def test_a_traced_step_names_every_folded_node_and_training_is_the_same(model, base, rate):
    def train(fusion):
        g = ds.Graph()
        with g.as_default():
            x, data, loss, variables = model(np.random.default_rng(3))
        return sgd_losses(g, {x: data}, loss, variables, rate, 6, fusion)

    losses, metadata = train(True)
    apart, unfolded = train(False)
    assert not any(s.kernel for s in unfolded.step_stats)     # apart means apart
    np.testing.assert_allclose(losses, apart, rtol=1e-5)
    assert losses[-1] < losses[0]
    kernels = {s.node: s.kernel for s in metadata.step_stats}
    assert kernels["Relu"] and {n for n, k in kernels.items() if k == kernels["Relu"]} == {
        base, "add", "Relu"}
