"""A product whose B is a graph constant packs B once, on its first run
(``optimizer/constant_weights.py``, ``register_gemm.pack_b``), and only such a B: a fed
tensor or a variable is packed as it goes, so what changes between runs is always read
anew.  ``FORCE`` runs the kernels on any CPU."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from devsession.kernels.cpu import blas, register_gemm

F32 = np.float32


@pytest.fixture(autouse=True)
def tiles(monkeypatch):
    """The tiles run every float32 product, and every ``pack_b`` that packed is listed."""
    monkeypatch.setattr(register_gemm, "FORCE", True)
    monkeypatch.setattr(register_gemm, "_ENABLED", True)
    monkeypatch.setattr(blas, "_chosen_engine", lambda: register_gemm)
    monkeypatch.delenv("DEVSESSION_PRODUCTS", raising=False)
    packed = []
    real = register_gemm.pack_b

    def spy(b):
        result = real(b)
        if result is not None:
            packed.append(b.shape)
        return result
    monkeypatch.setattr(register_gemm, "pack_b", spy)
    return packed


@pytest.fixture
def products(monkeypatch):
    """(B's shape, whether the packing handed with it holds it) for each product."""
    seen = []
    real = register_gemm.gemm_into

    def spy(a, b, out, **options):
        given = options.get("packed_b")
        seen.append((b.shape, given is not None and given.holds(b)))
        return real(a, b, out, **options)
    monkeypatch.setattr(register_gemm, "gemm_into", spy)
    return seen


def frozen_mlp(w1, w2, transpose_b=False):
    """(graph, x, y): two dense layers whose weights are constants, as in a frozen .pb."""
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, w1.shape[1] if transpose_b else w1.shape[0]),
                           name="x")
        b1 = ds.constant(np.linspace(-1, 1, w2.shape[0], dtype=F32), name="b1")
        h = ds.nn.relu(ds.matmul(x, ds.constant(w1, name="w1"), transpose_b=transpose_b) + b1)
        y = ds.matmul(h, ds.constant(w2, name="w2"))
    return g, x, y


def reference(x, w1, w2, transpose_b=False):
    bias = np.linspace(-1, 1, w2.shape[0], dtype=F32).astype(np.float64)
    w1 = w1.T if transpose_b else w1
    return np.maximum(x.astype(np.float64) @ w1 + bias, 0) @ w2


@pytest.mark.parametrize("transpose_b", [False, True])
def test_constant_weights_are_packed_on_the_first_run_only(tiles, products, transpose_b):
    rng = np.random.default_rng(11)
    w1 = rng.standard_normal((700, 300) if transpose_b else (300, 700)).astype(F32)
    w2 = rng.standard_normal((700, 400)).astype(F32) / 30
    g, x, y = frozen_mlp(w1, w2, transpose_b)
    with ds.Session(graph=g) as sess:
        assert sess.wait_compiled(120)
        for batch in (40, 5, 40):
            data = rng.standard_normal((batch, 300)).astype(F32)
            np.testing.assert_allclose(sess.run(y, {x: data}),
                                       reference(data, w1, w2, transpose_b),
                                       rtol=1e-4, atol=1e-3)
    assert tiles == [(300, 700), (700, 400)]        # each once, over three runs
    assert [used for b, used in products] == [True] * 6        # B is (k, n) either way


def test_an_input_gradient_through_constant_weights_packs_them_once(tiles, products):
    """``d(sum(relu(x @ w1) @ w2)) / dx`` of a frozen network (saliency): the gradient of
    the hidden layer is a product by the constant ``w2.T``, gated by the ReLU
    (``_MatMulReluGrad``), and it packs ``w2.T`` once too."""
    rng = np.random.default_rng(17)
    w1 = rng.standard_normal((300, 700)).astype(F32) / 20
    w2 = rng.standard_normal((700, 400)).astype(F32) / 30
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (None, 300), name="x")
        h = ds.nn.relu(ds.matmul(x, ds.constant(w1, name="w1")))
        y = ds.matmul(h, ds.constant(w2, name="w2"))
        dx, = ds.gradients(ds.reduce_sum(y * y), [x])
    with ds.Session(graph=g) as sess:
        assert sess.wait_compiled(120)
        for batch in (40, 40):
            data = rng.standard_normal((batch, 300)).astype(F32)
            pre = data.astype(np.float64) @ w1
            out = np.maximum(pre, 0) @ w2
            want = ((2 * out) @ w2.T * (pre > 0)) @ w1.T
            np.testing.assert_allclose(sess.run(dx, {x: data}), want, rtol=1e-3, atol=1e-3)
        steps = sess._prepare((x,), (dx,), ()).plan.steps
    assert [s.op_type for s in steps].count("_MatMulReluGrad") == 1
    assert (400, 700) in tiles and tiles.count((400, 700)) == 1    # w2.T, packed once
    assert [used for shape, used in products if shape == (400, 700)] == [True, True]


def test_one_packing_serves_every_plan_and_session_reading_the_constant(tiles, products):
    """Each fetch signature builds its own kernels; they share one packed copy."""
    rng = np.random.default_rng(14)
    w1 = rng.standard_normal((300, 700)).astype(F32)
    w2 = rng.standard_normal((700, 400)).astype(F32) / 30
    g, x, y = frozen_mlp(w1, w2)
    data = rng.standard_normal((40, 300)).astype(F32)
    want = reference(data, w1, w2)
    for _ in range(2):
        with ds.Session(graph=g) as sess:
            assert sess.wait_compiled(120)
            np.testing.assert_allclose(sess.run(y, {x: data}), want, rtol=1e-4, atol=1e-3)
            doubled, = sess.run([y * 2.0], {x: data})
            np.testing.assert_allclose(doubled, 2 * want, rtol=1e-4, atol=1e-3)
    assert tiles == [(300, 700), (700, 400)]
    assert all(used for _, used in products)


@pytest.mark.parametrize("off", ["option", "DEVSESSION_PRODUCTS=blas"])
def test_packing_constants_can_be_turned_off(tiles, monkeypatch, off):
    rng = np.random.default_rng(15)
    w1 = rng.standard_normal((300, 700)).astype(F32)
    w2 = rng.standard_normal((700, 400)).astype(F32) / 30
    g, x, y = frozen_mlp(w1, w2)
    options = ds.SessionOptions()
    if off == "option":
        options = ds.SessionOptions(optimizer=ds.OptimizerOptions(pack_constant_weights=False))
    else:
        monkeypatch.setenv("DEVSESSION_PRODUCTS", "blas")
    data = rng.standard_normal((40, 300)).astype(F32)
    with ds.Session(graph=g, options=options) as sess:
        assert sess.wait_compiled(120)
        np.testing.assert_allclose(sess.run(y, {x: data}), reference(data, w1, w2),
                                   rtol=1e-4, atol=1e-3)
    assert tiles == []


def test_a_fed_weight_changed_in_place_between_runs_is_read_anew(tiles):
    """Feeding a constant's tensor replaces it: the product reads the fed array, even
    the same array object with new values."""
    rng = np.random.default_rng(12)
    w1 = rng.standard_normal((300, 700)).astype(F32)
    w2 = rng.standard_normal((700, 400)).astype(F32) / 30
    g, x, y = frozen_mlp(w1, w2)
    data = rng.standard_normal((40, 300)).astype(F32)
    fed = rng.standard_normal((700, 400)).astype(F32)
    with ds.Session(graph=g) as sess:
        assert sess.wait_compiled(120)
        w2_tensor = g.get_tensor_by_name("w2:0")
        for scale in (1.0, -3.0):
            fed *= scale
            np.testing.assert_allclose(sess.run(y, {x: data, w2_tensor: fed}),
                                       reference(data, w1, fed), rtol=1e-4, atol=1e-3)
    assert tiles == [(300, 700)]


def test_a_variable_weight_is_read_anew_after_each_assignment(tiles):
    rng = np.random.default_rng(13)
    g = ds.Graph()
    with g.as_default():
        x = ds.placeholder(ds.float32, (40, 300), name="x")
        w = ds.Variable(np.zeros((300, 700), F32), name="w")
        new = ds.placeholder(ds.float32, (300, 700))
        assign = ds.assign(w, new)
        y = ds.matmul(x, w)
    data = rng.standard_normal((40, 300)).astype(F32)
    with ds.Session(graph=g) as sess:
        assert sess.wait_compiled(120)
        for _ in range(2):
            value = rng.standard_normal((300, 700)).astype(F32)
            sess.run(assign, {new: value})
            np.testing.assert_allclose(sess.run(y, {x: data}), data.astype(np.float64) @ value,
                                       rtol=1e-4, atol=1e-3)
    assert tiles == []
