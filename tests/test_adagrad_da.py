"""``ds.train.AdagradDAOptimizer`` and TF's ApplyAdagradDA / SparseApplyAdagradDA, against
TensorFlow 2.21's runs recorded by tests/data/make_tf_adagrad_da.py: the dense steps
(float32 and float64, with and without L1/L2), an embedding trained on batches that
leave rows out and repeat ids, and a GraphDef TensorFlow wrote (resource variables:
ResourceApplyAdagradDA, ResourceSparseApplyAdagradDA; the raw op with repeated ids).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import devsession as ds
from devsession.ops.indexed_rows import rows_of
from devsession.ops.sparse_training import sparse_apply
from devsession.ops.training import apply_adagrad_da
from adagrad_da_cases import A, CONFIGS, SPARSE, TARGET

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
TF = np.load(os.path.join(DATA, "tf_adagrad_da.npz"))
SLOTS = ("gradient_accumulator", "gradient_squared_accumulator")


def batches(prefix=""):
    ids = TF[f"{prefix}batch_ids"]
    ends = np.cumsum(TF[f"{prefix}batch_sizes"])
    return [ids[end - size:end] for end, size in zip(ends, TF[f"{prefix}batch_sizes"])]


def numpy_steps(config, dtype, n=5):
    """TF1's ApplyAdagradDA in numpy on the quadratic (the step count ``t`` from 1)."""
    lr = dtype(np.float32(config["learning_rate"]))
    l1 = dtype(np.float32(config.get("l1_regularization_strength", 0.0)))
    l2 = dtype(np.float32(config.get("l2_regularization_strength", 0.0)))
    w = np.array([0.3, -0.7, 1.1], dtype)
    g, gg = np.zeros(3, dtype), np.full(3, config.get(
        "initial_gradient_squared_accumulator_value", 0.1), dtype)
    out = []
    for t in range(1, n + 1):
        grad = A.astype(dtype) @ w - TARGET.astype(dtype)
        g, gg = g + grad, gg + grad * grad
        shrunk = np.sign(g) * np.maximum(np.abs(g) - t * l1, 0)
        w = -lr * shrunk / (l2 * t * lr + np.sqrt(gg))
        out.append(np.stack([w, g, gg]))
    return np.stack(out)


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_steps_are_tensorflows(name, dtype):
    step = ds.Variable(np.int64(0), name="global_step")
    w = ds.Variable(np.array([0.3, -0.7, 1.1], dtype), name="w")
    wc = ds.reshape(w, (3, 1))
    loss = 0.5 * ds.reduce_sum(wc * ds.matmul(ds.constant(A.astype(dtype)), wc)) \
        - ds.reduce_sum(w * TARGET.astype(dtype))
    opt = ds.train.AdagradDAOptimizer(global_step=step, **CONFIGS[name])
    train = opt.minimize(loss, global_step=step)
    slots = [opt.get_slot(w, k) for k in SLOTS]
    assert [s.op.name for s in slots] == ["w/AdagradDA", "w/AdagradDA_1"]
    assert "AdagradDA/update_w/ApplyAdagradDA" in \
        {op.name for op in ds.get_default_graph().get_operations()}
    got = []
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        for _ in range(5):
            sess.run(train)
            got.append(np.stack(sess.run([w] + slots)))
        assert sess.run(step) == 5
    got = np.stack(got)
    want = TF[f"{name}/{np.dtype(dtype).name}"]
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-14,
                               atol=1e-7 if dtype == np.float32 else 1e-15)
    np.testing.assert_allclose(got, numpy_steps(CONFIGS[name], dtype),
                               rtol=2e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def test_embedding_rows_follow_tensorflow():
    """Rows a batch leaves out keep their value and slots (SparseApplyAdagradDA, ids
    summed first); the global step starts at 4, so the first step's ``t`` is 5."""
    step = ds.Variable(np.int64(4), name="global_step")
    emb = ds.Variable(TF["emb0"], name="emb")
    w = ds.Variable(TF["w0"], name="w")
    ids = ds.placeholder(ds.int32, [None], name="ids")
    y = ds.placeholder(ds.float32, [None, 2], name="y")
    loss = ds.reduce_sum(ds.square(ds.matmul(ds.nn.embedding_lookup(emb, ids), w) - y))
    opt = ds.train.AdagradDAOptimizer(global_step=step, **SPARSE)
    grads_and_vars = opt.compute_gradients(loss, [emb, w])
    assert rows_of(grads_and_vars[0][0]) is not None
    train = opt.apply_gradients(grads_and_vars, global_step=step)
    types = {op.type for op in ds.get_default_graph().get_operations()}
    assert {"SparseApplyAdagradDA", "ApplyAdagradDA"} <= types
    slots = [opt.get_slot(emb, k) for k in SLOTS]
    embs, ws = [], []
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        for k, batch in enumerate(batches()):
            sess.run(train, {ids: batch, y: TF[f"y{k}"]})
            embs.append(np.stack(sess.run([emb] + slots)))
            ws.append(sess.run(w))
    np.testing.assert_allclose(np.stack(embs), TF["sparse/emb"], rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(np.stack(ws), TF["sparse/w"], rtol=2e-6, atol=1e-7)
    untouched = np.setdiff1d(np.arange(6), batches()[0])
    np.testing.assert_array_equal(embs[0][0][untouched], TF["emb0"][untouched])


def test_a_graph_tensorflow_wrote_trains_to_its_values():
    """TF's resource-variable graph (ResourceApplyAdagradDA, ResourceSparseApplyAdagradDA)
    imports onto ApplyAdagradDA / SparseApplyAdagradDA; the raw op applies repeated ids
    one after another, and an empty batch changes nothing."""
    graph_def = ds.read_graph_def(os.path.join(DATA, "tf_adagrad_da.pb"))
    assert {"ResourceApplyAdagradDA", "ResourceSparseApplyAdagradDA",
            "SparseApplyAdagradDA"} <= {node.op for node in graph_def.node}
    graph = ds.Graph()
    with graph.as_default():
        ds.import_graph_def(graph_def, name="")
    assert {"ApplyAdagradDA", "SparseApplyAdagradDA"} <= \
        {op.type for op in graph.get_operations()}
    prefix = "graph/0/resource/"
    names = [key[len(prefix):] for key in TF if key.startswith(prefix)]
    assert len(names) == 7          # the step, emb, w and their four slots
    with ds.Session(graph=graph) as sess:
        sess.run(graph.get_operation_by_name("init"))
        for k, batch in enumerate(batches()):
            sess.run(graph.get_operation_by_name("resource/train"),
                     {"resource/ids:0": batch, "resource/y:0": TF[f"y{k}"]})
            for name, got in zip(names, sess.run([f"resource/{n}:0" for n in names])):
                np.testing.assert_allclose(got, TF[f"graph/{k}/resource/{name}"], rtol=2e-6,
                                           atol=1e-7, err_msg=f"step {k} {name}")
        raw = ("var", "accum", "squared")
        for k, batch in enumerate(batches("raw_")):
            sess.run(graph.get_operation_by_name("raw/apply"),
                     {"raw/grad:0": TF[f"graph/raw_grad/{k}"], "raw/indices:0": batch,
                      "raw/global_step:0": k + 3})
            for name, got in zip(raw, sess.run([f"raw/{n}:0" for n in raw])):
                np.testing.assert_allclose(got, TF[f"graph/raw/{k}/raw/{name}"], rtol=2e-6,
                                           atol=1e-7, err_msg=f"raw step {k} {name}")


def test_tf1s_argument_checks_and_op_errors():
    with pytest.raises(ValueError, match="initial_gradient_squared_accumulator_value must be "
                                         "positive: 0.0"):
        ds.train.AdagradDAOptimizer(0.1, ds.Variable(np.int64(0)),
                                    initial_gradient_squared_accumulator_value=0.0)
    v, a, b = (ds.Variable(np.ones(3, np.float32)) for _ in range(3))
    with pytest.raises(TypeError, match="global_step .* must be int64, not int32"):
        apply_adagrad_da(v, a, b, np.ones(3, np.float32), 0.1, 0.0, 0.0,
                         ds.constant(1, ds.int32))
    with pytest.raises(ValueError, match="global_step .* must be a scalar"):
        apply_adagrad_da(v, a, b, np.ones(3, np.float32), 0.1, 0.0, 0.0,
                         ds.constant([1, 2], ds.int64))
    with pytest.raises(TypeError, match="global_step .* must be int64"):
        sparse_apply("SparseApplyAdagradDA", v, a, b, np.ones((1,), np.float32), [0], 0.1,
                     0.0, 0.0, ds.constant(1.0))
    with pytest.raises(ValueError, match="grad .* has shape \\(2,\\)"):
        apply_adagrad_da(v, a, b, np.ones(2, np.float32), 0.1, 0.0, 0.0, 1)
    grad = ds.placeholder(ds.float32, None)
    update = apply_adagrad_da(v, a, b, grad, 0.1, 0.0, 0.0, 1, name="da")
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        with pytest.raises(ds.errors.InvalidArgumentError, match="da.*var and grad do not"):
            sess.run(update, {grad: np.ones(2, np.float32)})
