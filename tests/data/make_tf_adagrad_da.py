"""Records TensorFlow 2.21's TF1 ``AdagradDAOptimizer`` into tf_adagrad_da.npz, read by
tests/test_adagrad_da.py.  Run once, with TensorFlow (never a test dependency):

    /work/peers/bin/python tests/data/make_tf_adagrad_da.py

Dense runs: tests/test_optimizers.py's quadratic, five ``minimize`` steps with the global
step incremented by each (ApplyAdagradDA), float32 and float64; the variable and both
slots after every step.  A sparse run: ``loss = sum((embedding_lookup(emb, ids) @ w - y)**2)``
on batches that leave rows out and repeat ids (SparseApplyAdagradDA for ``emb``), the
global step starting at 4; ``emb``, its slots and ``w`` after every step.

And a GraphDef TensorFlow wrote, tf_adagrad_da.pb, for import: under ``resource/`` that
sparse model on resource variables (TF 2's default: ResourceSparseApplyAdagradDA,
ResourceApplyAdagradDA, the global step read and incremented through its handle), its
train op ``resource/train``; under ``raw/`` the op SparseApplyAdagradDA itself on reference
variables, fed ``raw/grad``, ``raw/indices`` (repeated: TF's kernel applies them one after
another) and ``raw/global_step``, its op ``raw/apply``.  The npz keys ``graph/...`` hold
the feeds and each variable after every step.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
from adagrad_da_cases import A, CONFIGS, SPARSE, TARGET     # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
BATCHES = [[0, 1, 1], [2, 3], [0, 4], [5, 5, 1], [3], [0, 2]]


def dense(config, dtype):
    with tf.Graph().as_default(), tf.Session() as sess:
        step = tf.Variable(0, dtype=tf.int64, name="global_step")
        w = tf.Variable(np.array([0.3, -0.7, 1.1], dtype), name="w")
        wc = tf.reshape(w, (3, 1))
        loss = 0.5 * tf.reduce_sum(wc * tf.matmul(tf.constant(A.astype(dtype)), wc)) \
            - tf.reduce_sum(w * TARGET.astype(dtype))
        opt = tf.train.AdagradDAOptimizer(global_step=step, **config)
        train = opt.minimize(loss, global_step=step)
        slots = [opt.get_slot(w, k) for k in ("gradient_accumulator",
                                               "gradient_squared_accumulator")]
        assert [s.op.name for s in slots] == ["w/AdagradDA", "w/AdagradDA_1"]
        assert "ApplyAdagradDA" in {op.type for op in tf.get_default_graph().get_operations()}
        sess.run(tf.global_variables_initializer())
        out = []
        for _ in range(5):
            sess.run(train)
            out.append(np.stack(sess.run([w] + slots)))
        assert sess.run(step) == 5
        return np.stack(out)


def sparse_inputs():
    rng = np.random.default_rng(11)
    return {"emb0": (rng.standard_normal((6, 3)) * 0.5).astype(np.float32),
            "w0": rng.standard_normal((3, 2)).astype(np.float32),
            **{f"y{k}": rng.standard_normal((len(b), 2)).astype(np.float32)
               for k, b in enumerate(BATCHES)}}


def sparse(data):
    with tf.Graph().as_default(), tf.Session() as sess:
        step = tf.Variable(4, dtype=tf.int64, name="global_step")
        emb = tf.Variable(data["emb0"], name="emb")
        w = tf.Variable(data["w0"], name="w")
        ids = tf.placeholder(tf.int32, [None], name="ids")
        y = tf.placeholder(tf.float32, [None, 2], name="y")
        loss = tf.reduce_sum(tf.square(tf.matmul(tf.nn.embedding_lookup(emb, ids), w) - y))
        opt = tf.train.AdagradDAOptimizer(global_step=step, **SPARSE)
        train = opt.minimize(loss, global_step=step)
        types = {op.type for op in tf.get_default_graph().get_operations()}
        assert {"SparseApplyAdagradDA", "ApplyAdagradDA"} <= types
        slots = [opt.get_slot(emb, k) for k in ("gradient_accumulator",
                                                 "gradient_squared_accumulator")]
        sess.run(tf.global_variables_initializer())
        embs, ws = [], []
        for k, batch in enumerate(BATCHES):
            sess.run(train, {ids: batch, y: data[f"y{k}"]})
            embs.append(np.stack(sess.run([emb] + slots)))
            ws.append(sess.run(w))
        return np.stack(embs), np.stack(ws)


def resource_case(data):
    step = tf.Variable(2, dtype=tf.int64, name="global_step", use_resource=True)
    emb = tf.Variable(data["emb0"], name="emb", use_resource=True)
    w = tf.Variable(data["w0"], name="w", use_resource=True)
    ids = tf.placeholder(tf.int32, [None], name="ids")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.nn.embedding_lookup(emb, ids), w) - y))
    opt = tf.train.AdagradDAOptimizer(global_step=step, **SPARSE)
    opt.minimize(loss, global_step=step, name="train")
    return [step, emb, w] + [opt.get_slot(v, k) for v in (emb, w)
                             for k in ("gradient_accumulator", "gradient_squared_accumulator")]


def raw_case():
    shape = (5, 2)
    var = tf.Variable(np.linspace(-1, 1, 10).reshape(shape).astype(np.float32), name="var")
    accum = tf.Variable(np.zeros(shape, np.float32), name="accum")
    squared = tf.Variable(np.full(shape, 0.2, np.float32), name="squared")
    grad = tf.placeholder(tf.float32, (None, 2), name="grad")
    indices = tf.placeholder(tf.int64, (None,), name="indices")
    global_step = tf.placeholder(tf.int64, (), name="global_step")
    tf.raw_ops.SparseApplyAdagradDA(
        var=var, gradient_accumulator=accum, gradient_squared_accumulator=squared, grad=grad,
        indices=indices, lr=tf.constant(0.3), l1=tf.constant(0.05), l2=tf.constant(0.1),
        global_step=global_step, name="apply")
    return [var, accum, squared]


RAW_BATCHES = [[1, 3, 1], [0, 4], [], [2, 2, 2]]


def graph_case(data):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        with tf.variable_scope("resource"):
            resource = resource_case(data)
        with tf.variable_scope("raw"):
            raw = raw_case()
        init = tf.global_variables_initializer()
    graph_def = graph.as_graph_def()
    types = {node.op for node in graph_def.node}
    assert {"ResourceSparseApplyAdagradDA", "ResourceApplyAdagradDA",
            "SparseApplyAdagradDA"} <= types, types
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for k, batch in enumerate(BATCHES):
            sess.run("resource/train", {"resource/ids:0": batch, "resource/y:0": data[f"y{k}"]})
            for v, value in zip(resource, sess.run(resource)):
                out[f"graph/{k}/{v.op.name}"] = value
        rng = np.random.default_rng(5)
        for k, batch in enumerate(RAW_BATCHES):
            grad = rng.standard_normal((len(batch), 2)).astype(np.float32)
            feeds = {"raw/grad:0": grad, "raw/indices:0": batch, "raw/global_step:0": k + 3}
            sess.run("raw/apply", feeds)
            out[f"graph/raw_grad/{k}"] = grad
            for v, value in zip(raw, sess.run(raw)):
                out[f"graph/raw/{k}/{v.op.name}"] = value
    with open(os.path.join(HERE, "tf_adagrad_da.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    return out


def main():
    out = {}
    for name, config in CONFIGS.items():
        for dtype in (np.float32, np.float64):
            out[f"{name}/{np.dtype(dtype).name}"] = dense(config, dtype)
    data = sparse_inputs()
    out.update(data)
    out["sparse/emb"], out["sparse/w"] = sparse(data)
    out["batch_ids"] = np.concatenate(BATCHES)          # the batches, end to end
    out["batch_sizes"] = np.array([len(b) for b in BATCHES])
    out.update(graph_case(data))
    out["raw_batch_ids"] = np.concatenate(RAW_BATCHES).astype(np.int64)
    out["raw_batch_sizes"] = np.array([len(b) for b in RAW_BATCHES])
    np.savez(os.path.join(HERE, "tf_adagrad_da.npz"), **out)
    print("wrote tf_adagrad_da.npz with tensorflow", tf.__version__)


if __name__ == "__main__":
    main()
