"""A ReLU's gradient folded into the product that makes the gradient it gates
(``optimizer/relu_gate_folds.py``: ``_MatMulReluGrad``): where it applies, where it must
not, and that the values are the bits of the ops apart (the kernel's every path:
tests/test_register_gemm.py)."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.ops.linalg import MATMUL_RELU_GRAD
from devsession.optimizer import pipeline

F32 = np.float32


@pytest.fixture
def apart(monkeypatch):
    """A function that runs like ``run`` with this fold (only) turned off."""
    def run_apart(*args, **kwargs):
        with monkeypatch.context() as patch:
            patch.setattr(pipeline, "fold_relu_gates", lambda ops, fetched, placements: ops)
            return run(*args, **kwargs)
    return run_apart


def run(g, feeds: dict, fetches: list, fusion=True, trace=False):
    """(fetched values, the plan's folded steps[, the run's step stats])."""
    options = ds.SessionOptions(device="cpu", optimizer=ds.OptimizerOptions(fusion=fusion))
    with ds.Session(graph=g, options=options) as sess:
        metadata = ds.RunMetadata()
        values = sess.run(fetches, feeds, options=ds.RunOptions(trace=trace),
                          run_metadata=metadata)
        steps = sess._prepare(tuple(feeds), tuple(fetches), ()).plan.steps
    folds = [s for s in steps if s.op_type == MATMUL_RELU_GRAD]
    return (values, folds, metadata.step_stats) if trace else (values, folds)


def gated(*, m=20, k=30, n=40, transpose_a=False, transpose_b=False, dtype=F32,
          mask_first=False, threshold=0.0, y_shape=None, y_dtype=None, y_first=False):
    """(graph, feeds, r, g, mask, greater): r = g * cast(y > threshold), g = a @ w."""
    rng = np.random.default_rng(11)
    g = ds.Graph()
    with g.as_default():
        a_value = rng.standard_normal((k, m) if transpose_a else (m, k)).astype(dtype)
        w_value = rng.standard_normal((n, k) if transpose_b else (k, n)).astype(dtype)
        y_value = rng.standard_normal(y_shape or (m, n)).astype(y_dtype or dtype)
        y_value[y_value < -0.5] = 0
        y_value.flat[::7] = -0.0
        y_value.flat[3::11] = np.nan
        a, w = ds.placeholder(dtype, a_value.shape, "a"), ds.constant(w_value, name="w")
        y = ds.placeholder(y_value.dtype, y_value.shape, "y")
        product = ds.matmul(a, w, transpose_a=transpose_a, transpose_b=transpose_b)
        zero = ds.constant(np.asarray(threshold, y_value.dtype))
        greater = ds.math.greater(zero, y) if y_first else ds.math.greater(y, zero)
        mask = ds.cast(greater, dtype)
        r = mask * product if mask_first else product * mask
    return g, {a: a_value, y: y_value}, r, product, mask, greater


@pytest.mark.parametrize("shape", [dict(), dict(m=7, k=10, n=100), dict(m=64, k=300, n=10),
                                   dict(m=0), dict(k=0), dict(m=1, n=1)],
                         ids=["plain", "short k", "narrow C", "no rows", "no k", "one value"])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("transpose_a", [False, True])
def test_a_gated_product_folds_with_the_bits_of_the_ops_apart(apart, shape, transpose_a,
                                                              transpose_b):
    g, feeds, r, *_ = gated(transpose_a=transpose_a, transpose_b=transpose_b, **shape)
    (got,), (fold,) = run(g, feeds, [r])
    assert [op for _, op in fold.members] == ["MatMul", "Greater", "Cast", "Mul"]
    (want,), folds = apart(g, feeds, [r])
    assert not folds
    np.testing.assert_array_equal(got, want)
    a, y = feeds.values()
    w = g.get_tensor_by_name("w:0").op.attrs["value"]
    product = (a.T if transpose_a else a).astype(np.float64) @ (w.T if transpose_b else w)
    np.testing.assert_allclose(got, product * (y > 0), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("variant", [dict(dtype=np.float64), dict(mask_first=True)],
                         ids=["float64", "mask times product"])
def test_both_operand_orders_and_float64_fold(apart, variant):
    g, feeds, r, *_ = gated(**variant)
    (got,), (fold,) = run(g, feeds, [r])
    (want,), _ = apart(g, feeds, [r])
    np.testing.assert_array_equal(got, want)
    assert got.dtype == variant.get("dtype", F32)


def test_an_mlps_gradients_fold_each_hidden_layer_with_the_same_bits(monkeypatch):
    """The pattern as ``ds.gradients`` builds it: each hidden ReLU's gradient gates the
    next layer's input gradient (its forward products fold their bias and ReLU)."""
    rng = np.random.default_rng(3)
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(F32, (32, 50), "x")
        labels = ds.placeholder(ds.int32, (32,), "labels")
        h = x
        for width in (64, 48):
            w = ds.Variable(rng.standard_normal((h.shape[1], width)).astype(F32) * 0.2)
            h = ds.nn.relu(ds.matmul(h, w) + ds.Variable(np.full(width, 0.1, F32)))
        logits = ds.matmul(h, ds.Variable(rng.standard_normal((48, 10)).astype(F32)))
        loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        grads = ds.gradients(loss, ds.trainable_variables() + [x])
        init = ds.global_variables_initializer()
    feeds = {x: rng.standard_normal((32, 50)).astype(F32),
             labels: rng.integers(0, 10, 32).astype(np.int32)}

    def gradients():
        with ds.Session(graph=g, options=ds.SessionOptions(device="cpu")) as sess:
            sess.run(init)
            values = sess.run(grads, feeds)
            steps = sess._prepare(tuple(feeds), tuple(grads), ()).plan.steps
        return values, [s for s in steps if s.op_type == MATMUL_RELU_GRAD]

    folded, folds = gradients()
    assert len(folds) == 2
    monkeypatch.setattr(pipeline, "fold_relu_gates", lambda ops, fetched, placements: ops)
    unfolded, folds = gradients()
    assert not folds
    for got, want in zip(folded, unfolded, strict=True):
        np.testing.assert_array_equal(got, want)


def test_the_trace_names_every_node_it_replaces():
    g, feeds, r, product, mask, greater = gated()
    _, (fold,), stats = run(g, feeds, [r], trace=True)
    kernels = {s.node: s.kernel for s in stats}
    for op in (product.op, greater.op, mask.op, r.op):
        assert kernels[op.name] == r.op.name


def test_what_is_fetched_or_read_elsewhere_stays_apart(apart):
    g, feeds, r, product, mask, greater = gated()
    _, folds = run(g, feeds, [r, product])
    assert not folds
    (got, got_mask), (fold,) = run(g, feeds, [r, mask])     # the mask stays, the fold too
    assert [op for _, op in fold.members] == ["MatMul", "Mul"]
    (want, want_mask), _ = apart(g, feeds, [r, mask])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_mask, want_mask)
    with g.as_default():
        other = ds.reduce_sum(ds.cast(greater, ds.int32))
    (got, _), (fold,) = run(g, feeds, [r, other])           # the Greater stays
    assert [op for _, op in fold.members] == ["MatMul", "Cast", "Mul"]
    with g.as_default():
        twice = r + ds.reduce_sum(product)
    _, folds = run(g, feeds, [twice])
    assert not folds


@pytest.mark.parametrize("variant", [
    dict(threshold=0.5), dict(y_first=True), dict(y_shape=(1, 40)),
    dict(y_dtype=np.float64)],
    ids=["not zero", "zero > y", "broadcast gate", "gate of another dtype"])
def test_masks_that_are_not_this_products_relu_gradient_do_not_fold(variant):
    g, feeds, r, *_ = gated(**variant)
    (got,), folds = run(g, feeds, [r])
    assert not folds
    (want,), _ = run(g, feeds, [r], fusion=False)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_a_batch_product_does_not_fold():
    g = ds.Graph()
    with g.as_default():
        a = ds.placeholder(F32, (2, 3, 4), "a")
        y = ds.placeholder(F32, (2, 3, 5), "y")
        r = ds.matmul(a, ds.constant(np.ones((2, 4, 5), F32))) * ds.cast(y > 0.0, F32)
    feeds = {a: np.ones((2, 3, 4), F32), y: np.linspace(-1, 1, 30, dtype=F32).reshape(2, 3, 5)}
    (got,), folds = run(g, feeds, [r])
    assert not folds
    np.testing.assert_array_equal(got, 4 * (feeds[y] > 0))


def test_a_gate_that_broadcasts_at_run_time_is_applied_as_the_mul_would(apart):
    """Shapes unknown when the plan is built match statically; fed one gate row for four
    rows of product, the fold broadcasts it as the Mul it replaced does."""
    g = ds.Graph()
    with g.as_default():
        a = ds.placeholder(F32, (None, 6), "a")
        y = ds.placeholder(F32, (None, 8), "y")
        w = ds.constant(np.arange(48, dtype=F32).reshape(6, 8) - 20)
        r = ds.matmul(a, w) * ds.cast(ds.math.greater(y, 0.0), F32)
    feeds = {a: np.ones((4, 6), F32), y: np.array([[1, -1, 0, 2, 3, -2, 1, 0]], F32)}
    (got,), (fold,) = run(g, feeds, [r])
    (want,), _ = apart(g, feeds, [r])
    np.testing.assert_array_equal(got, want)
    assert got.shape == (4, 8)
