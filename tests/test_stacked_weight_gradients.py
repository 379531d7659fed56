"""A weight used at several places (a recurrent cell's kernel over its time steps) gets its
gradient as one MatMul of the stacked inputs and output gradients, ``[x_1; x_2; ...]^T .
[dz_1; dz_2; ...]``, instead of a product per use and a chain of adds: the same sum, one
product over the summed batch rows (``gradients._sum``).  Checked here: the values
(against numpy, and against the per-use products and adds), where it applies (three uses
or more, on one device) and where it does not."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import devsession as ds

gradients_module = importlib.import_module("devsession.gradients")   # ds.gradients: the function


def steps_through(w, xs):
    """sum_t tanh(x_t . w), each step a MatMul of its own input with the shared ``w``."""
    return ds.add_n([ds.reduce_sum(ds.tanh(ds.matmul(x, w))) for x in xs])


def stacked(graph) -> list:
    return [op for op in graph.get_operations() if op.name.endswith("stacked_products")]


@pytest.mark.parametrize("uses", [1, 2, 3, 7])
def test_a_weights_gradient_over_its_uses_equals_numpys(uses, rng):
    xs_np = [rng.standard_normal((4, 5)).astype(np.float32) for _ in range(uses)]
    w_np = rng.standard_normal((5, 3)).astype(np.float32)
    g = ds.Graph()
    with g.as_default():
        w = ds.constant(w_np)
        xs = [ds.constant(x) for x in xs_np]
        (dw,) = ds.gradients(steps_through(w, xs), [w])
    with ds.Session(graph=g) as sess:
        got = sess.run(dw)
    want = sum(x.T @ (1 - np.tanh(x @ w_np) ** 2) for x in xs_np)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5)
    assert len(stacked(g)) == (1 if uses >= gradients_module.STACKED_PRODUCTS else 0)


def test_stacking_gives_the_per_use_sum(rng, monkeypatch):
    """The same graph with stacking turned off: the same gradients, to float32 rounding;
    a dynamic_rnn's LSTM kernel and a dense layer's kernel used once."""
    x_np = rng.standard_normal((3, 6, 4)).astype(np.float32)

    def lstm_gradients():
        g = ds.Graph()
        with g.as_default():
            ds.set_random_seed(5)
            cell = ds.nn.rnn_cell.LSTMCell(5)
            out, _ = ds.nn.dynamic_rnn(cell, ds.constant(x_np), dtype=ds.float32)
            loss = ds.reduce_sum(ds.layers.dense(out[:, -1], 2) ** 2)
            variables = ds.trainable_variables()
            grads = ds.gradients(loss, variables)
            init = ds.global_variables_initializer()
        with ds.Session(graph=g) as sess:
            sess.run(init)
            return sess.run(grads), len(stacked(g))

    with_stacking, count = lstm_gradients()
    monkeypatch.setattr(gradients_module, "STACKED_PRODUCTS", 10**9)
    without, none = lstm_gradients()
    assert count == 1 and none == 0           # the cell's kernel; the dense kernel is used once
    for a, b in zip(with_stacking, without):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_products_on_different_devices_or_of_other_forms_are_added():
    """``_sum`` of weight-gradient products: three on one device are stacked; two on each
    of two devices, or products with the weight as the left factor, are not."""
    g = ds.Graph()
    with g.as_default():
        x = ds.constant(np.eye(2, dtype=np.float32))
        dz = ds.constant(np.full((2, 2), 2.0, np.float32))
        spread = []
        for k in range(4):
            with ds.device(f"/job:worker/task:{k % 2}"):
                spread.append(ds.matmul(x, dz, transpose_a=True))
        others = [ds.matmul(x, dz, transpose_b=True) for _ in range(3)]
        with ds.device("/job:worker/task:1"):
            together = [ds.matmul(x, dz, transpose_a=True) for _ in range(3)]
        sums = [gradients_module._sum(parts) for parts in (spread, others, together)]
        assert len(stacked(g)) == 1 and stacked(g)[0].device == "/job:worker/task:1"
    with ds.Session(graph=g) as sess:
        assert [v.tolist() for v in sess.run(sums)] == [[[8.0] * 2] * 2, [[6.0] * 2] * 2,
                                                        [[6.0] * 2] * 2]
