"""TF1's sparse updates: a gradient that TF keeps as an IndexedSlices (an embedding's)
updates only the rows of the batch, for the optimizers whose dense step would move the
other rows too (momentum and RMSProp decay their slots, Adadelta too, the proximal ones
and FTRL shrink or recompute the value).

Compared with TensorFlow 2.21's trajectories, recorded once by
tests/data/make_tf_sparse_updates.py (the cases are in its JSON): a small embedding
model trained on batches that leave rows out and repeat ids.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import devsession as ds
from devsession.ops.indexed_rows import rows_of

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(HERE, "tf_sparse_updates.json")) as _f:
    SPEC = json.load(_f)
TF = np.load(os.path.join(HERE, "tf_sparse_updates.npz"))
BATCHES = SPEC["batches"]


def build(optimizer, kwargs, variant, variables_device=None):
    """The generator's model (see its docstring), in devsession; (train op, emb, w, ids,
    y, the gradient of emb)."""
    with ds.device(variables_device):
        emb = ds.Variable(TF["emb0"], name="emb")
        w = ds.Variable(TF["w0"], name="w")
    ids = ds.placeholder(ds.int32, [None], name="ids")
    y = ds.placeholder(ds.float32, [None, 2], name="y")
    rows = ds.nn.embedding_lookup(emb, ids)
    if variant == "two_lookups":
        rows = rows + 0.5 * ds.gather(emb, ds.reverse(ids, [0]))
    loss = ds.reduce_sum(ds.square(ds.matmul(rows, w) - y))
    if variant == "dense_path":
        loss += 0.1 * ds.reduce_sum(ds.square(emb))
    opt = getattr(ds.train, optimizer)(**kwargs)
    grads_and_vars = opt.compute_gradients(loss, [emb, w])
    grad = grads_and_vars[0][0]
    if variant == "clipped":
        clipped, _ = ds.clip_by_global_norm([g for g, _ in grads_and_vars], 0.5)
        grads_and_vars = list(zip(clipped, [emb, w]))
    return opt.apply_gradients(grads_and_vars), emb, w, ids, y, grad


def trajectory(sess, train, emb, w, ids, y):
    embs, ws = [], []
    for k, batch in enumerate(BATCHES):
        sess.run(train, {ids: batch, y: TF[f"y{k}"]})
        embs.append(sess.run(emb))
        ws.append(sess.run(w))
    return np.stack(embs), np.stack(ws)


@pytest.mark.parametrize("case", sorted(SPEC["cases"]))
def test_embedding_training_follows_tensorflow(case):
    spec = SPEC["cases"][case]
    train, emb, w, ids, y, grad = build(spec["optimizer"], spec["kwargs"], spec["variant"])
    assert (rows_of(grad) is None) == (spec["variant"] == "dense_path")
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        embs, ws = trajectory(sess, train, emb, w, ids, y)
    np.testing.assert_allclose(embs, TF[f"{case}/emb"], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(ws, TF[f"{case}/w"], rtol=2e-5, atol=2e-6)


def test_rows_left_out_keep_their_value_and_slots():
    train, emb, _, ids, y, _ = build("MomentumOptimizer",
                                     {"learning_rate": 0.05, "momentum": 0.9}, "lookup")
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(train, {ids: [0, 1], y: np.ones((2, 2), np.float32)})
        before = sess.run(emb)
        sess.run(train, {ids: [2], y: np.ones((1, 2), np.float32)})
        after = sess.run(emb)
    np.testing.assert_array_equal(after[[0, 1, 3, 4, 5]], before[[0, 1, 3, 4, 5]])
    assert not np.allclose(after[2], before[2])


def test_repeated_ids_are_summed_before_the_update():
    emb = ds.Variable(np.ones((3, 2), np.float32), name="emb")
    ids = ds.placeholder(ds.int32, [None])
    loss = ds.reduce_sum(ds.nn.embedding_lookup(emb, ids))
    opt = ds.train.RMSPropOptimizer(0.1)
    train = opt.minimize(loss)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(train, {ids: [1, 1, 1]})
        rms = sess.run(opt.get_slot(emb, "rms"))
    # one row's gradient of 3 (not three of 1): ms = 1 + (9 - 1) * 0.1, other rows 1
    np.testing.assert_allclose(rms, [[1, 1], [1.8, 1.8], [1, 1]], rtol=1e-6)
    update_ops = {op.type for op in ds.get_default_graph().get_operations()}
    assert {"Unique", "ScatterUpdate"} <= update_ops and "ApplyRMSProp" not in update_ops


def test_only_gathers_and_reads_keep_a_gradient_sparse():
    emb = ds.Variable(np.ones((4, 2), np.float32), name="emb")
    other = ds.Variable(np.ones((4, 2), np.float32), name="other")
    ids = ds.constant([0, 2])
    looked_up = ds.gather(emb, ids)
    g_gather, = ds.gradients(ds.reduce_sum(looked_up), [emb])
    g_sum, g_other = ds.gradients(ds.reduce_sum(ds.gather(emb + other, ids)), [emb, other])
    g_axis1, = ds.gradients(ds.reduce_sum(ds.gather(emb, [1], axis=1)), [emb])
    g_mixed, = ds.gradients(ds.reduce_sum(looked_up) + ds.reduce_sum(emb), [emb])
    assert rows_of(g_gather) is not None
    assert rows_of(g_sum) is None and rows_of(g_other) is None    # TF densifies an Add
    assert rows_of(g_axis1) is None and rows_of(g_mixed) is None


def test_a_dense_and_a_gather_path_update_every_row():
    emb = ds.Variable(np.ones((3, 2), np.float32), name="emb")
    loss = ds.reduce_sum(ds.gather(emb, [0])) + 0.0 * ds.reduce_sum(emb)
    opt = ds.train.MomentumOptimizer(0.1, 0.9)
    train = opt.minimize(loss)
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run(ds.assign(opt.get_slot(emb, "momentum"), np.ones((3, 2), np.float32)))
        sess.run(train)
        accum = sess.run(opt.get_slot(emb, "momentum"))
    np.testing.assert_allclose(accum, [[1.9, 1.9], [0.9, 0.9], [0.9, 0.9]], rtol=1e-6)


@pytest.mark.parametrize("case", ["momentum", "rms_prop_centered"])
def test_every_session_type_updates_the_same_rows(make_session, case):
    spec = SPEC["cases"][case]
    graph = ds.Graph()
    with graph.as_default():
        # the variables (and their slots) together; the gathers and scatters may not be
        train, emb, w, ids, y, _ = build(spec["optimizer"], spec["kwargs"], spec["variant"],
                                         variables_device="/device:CPU:0")
        init = ds.global_variables_initializer()
    sess = make_session(graph)
    sess.run(init)
    embs, ws = trajectory(sess, train, emb, w, ids, y)
    np.testing.assert_allclose(embs, TF[f"{case}/emb"], rtol=2e-5, atol=2e-6)


def test_clipped_sparse_gradients_stay_sparse_as_tf():
    """clip_by_norm's norm is over the rows' values (a repeated id's rows apart), and
    after clip_by_norm or clip_by_value an L1-regularized Ftrl still updates only the
    looked-up row (TF 2.21's values)."""
    table = ds.Variable(np.ones((4, 2), np.float32))
    (grad,) = ds.gradients(ds.reduce_sum(ds.nn.embedding_lookup(table, [0, 0, 1])), [table])
    by_norm, by_value = ds.clip_by_norm(grad, 1.0), ds.clip_by_value(grad, 0.5, 1.5)
    trained = []
    for clip in (lambda g: ds.clip_by_norm(g, 10.0), lambda g: ds.clip_by_value(g, -5., 5.)):
        v = ds.Variable(np.ones((3, 2), np.float32))
        (g,) = ds.gradients(ds.reduce_sum(ds.nn.embedding_lookup(v, [0])), [v])
        opt = ds.train.FtrlOptimizer(0.1, l1_regularization_strength=0.1)
        trained.append((v, opt.apply_gradients([(clip(g), v)])))
    assert rows_of(by_norm) is not None and rows_of(by_value) is not None
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        norm_value, clip_value = sess.run([by_norm, by_value])
        sess.run([train for _, train in trained])
        after = sess.run([v for v, _ in trained])
    values = np.ones((3, 2))                     # the three looked-up rows' gradients
    np.testing.assert_allclose(norm_value[:2], [[2, 2], [1, 1]] / np.linalg.norm(values),
                               rtol=1e-6)
    np.testing.assert_array_equal(clip_value, [[2, 2], [1, 1], [0, 0], [0, 0]])
    for value in after:
        np.testing.assert_allclose(value[0], 0.5936077, rtol=1e-6)
        np.testing.assert_array_equal(value[1:], 1.0)


def test_convert_to_tensor_densifies_a_sparse_gradient_and_identity_keeps_it_as_tf():
    """tf.convert_to_tensor of a gradient TF keeps as an IndexedSlices (or of one built by
    hand) is dense, so an L1-regularized Ftrl zeroes the rows left out; tf.identity of one
    is an IndexedSlices again, so only the looked-up row moves (TF 2.21's values)."""
    def built(_):
        return ds.IndexedSlices(ds.constant([[1.0, 1.0]]), ds.constant([0]),
                                ds.constant([3, 2]))
    posts = [ds.convert_to_tensor, ds.identity, lambda g: ds.convert_to_tensor(built(g)),
             lambda g: ds.identity(built(g))]
    trained = []
    for post in posts:
        v = ds.Variable(np.ones((3, 2), np.float32))
        (g,) = ds.gradients(ds.reduce_sum(ds.nn.embedding_lookup(v, [0])), [v])
        opt = ds.train.FtrlOptimizer(0.1, l1_regularization_strength=0.1)
        trained.append((v, opt.apply_gradients([(post(g), v)])))
    with ds.Session() as sess:
        sess.run(ds.global_variables_initializer())
        sess.run([train for _, train in trained])
        after = sess.run([v for v, _ in trained])
    for value, left_out in zip(after, [0.0, 1.0, 0.0, 1.0]):
        np.testing.assert_allclose(value[0], 0.5936077, rtol=1e-6)
        np.testing.assert_array_equal(value[1:], left_out)
