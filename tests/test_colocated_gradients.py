"""``colocate_gradients_with_ops=True`` (``ds.gradients``, an optimizer's ``minimize`` and
``compute_gradients``), as TF1 scripts pass it for models spread over devices or tasks:
each op's gradient ops are placed with the op, so a layer on task 1 is differentiated on
task 1.  Without it, gradient ops take the device scope ``gradients`` is called in (none:
the session's default device), as TF1's.  Before, the argument was accepted and ignored,
so a model-parallel graph ran its whole backward pass on the master's task."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
from sessions import local_cluster

HERE, THERE = "/job:worker/task:0", "/job:worker/task:1"


def model_parallel(colocate: bool, rng_seed: int = 0):
    """Two dense layers, the first on task 0 and the second on task 1, one SGD step's
    train op; (graph, loss, train op, variables)."""
    rng = np.random.default_rng(rng_seed)
    g = ds.Graph()
    with g.as_default():
        x = ds.constant(rng.standard_normal((8, 5)).astype(np.float32))
        y = ds.constant(rng.standard_normal((8, 2)).astype(np.float32))
        with ds.device(HERE):
            w1 = ds.Variable(rng.standard_normal((5, 4)).astype(np.float32), name="w1")
            h = ds.nn.relu(ds.matmul(x, w1, name="layer1"))
        with ds.device(THERE):
            w2 = ds.Variable(rng.standard_normal((4, 2)).astype(np.float32), name="w2")
            out = ds.matmul(h, w2, name="layer2")
            loss = ds.reduce_mean(ds.square(out - y))
        train = ds.train.GradientDescentOptimizer(0.1).minimize(
            loss, colocate_gradients_with_ops=colocate)
        init = ds.global_variables_initializer()
    return g, loss, train, init, (w1, w2)


def gradient_ops(graph, forward: str) -> list:
    return [op for op in graph.get_operations()
            if op.name.startswith(f"gradients/{forward}_grad/")]


def test_each_gradient_is_placed_with_its_op():
    g, *_ = model_parallel(colocate=True)
    for forward, task in (("layer1", HERE), ("layer2", THERE)):
        ops = gradient_ops(g, forward)
        assert ops and all(op.device.startswith(task) for op in ops), forward
        assert all(f"loc:@{forward}".encode() in op.colocation_groups() for op in ops)


def test_without_it_gradient_ops_take_the_callers_scope():
    g, *_ = model_parallel(colocate=False)
    assert all(op.device == "" for op in gradient_ops(g, "layer2"))
    with g.as_default(), ds.device(THERE):
        loss = g.get_tensor_by_name("Mean:0")
        (grad,) = ds.gradients(loss, [g.get_tensor_by_name("w1:0")], name="again")
    assert grad.op.device.startswith(THERE)


@pytest.mark.parametrize("colocate", [False, True])
def test_training_on_a_cluster_gives_a_direct_sessions_values(colocate):
    def train(target):
        g, loss, step, init, variables = model_parallel(colocate)
        if target:
            ds.reset(ds.SessionOptions(target=target))
        with ds.Session(target, graph=g) as sess:
            sess.run(init)
            losses = [sess.run([loss, step])[0] for _ in range(3)]
            return losses, sess.run(list(variables))

    cluster = train(local_cluster()[0].target)
    direct = train("")
    np.testing.assert_allclose(cluster[0], direct[0], rtol=1e-6)
    for a, b in zip(cluster[1], direct[1]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert cluster[0][2] < cluster[0][0]
