"""Records how TensorFlow 2.21's TF1 optimizers train a small embedding model whose batches
leave rows out, into tf_sparse_updates.npz (the inputs and, per case, the embedding and the
dense weights after every step) and tf_sparse_updates.json (the cases), read by
tests/test_sparse_updates.py.  Run once, with TensorFlow:

    /work/peers/bin/python tests/data/make_tf_sparse_updates.py

The model: ``logits = embedding_lookup(emb, ids) @ w``, ``loss = sum((logits - y)**2)``;
TF's gradient of ``emb`` is an IndexedSlices, so its optimizers update only the rows of
the batch (SparseApply*).  Variants: "lookup" (that model), "dense_path" (an L2 penalty on
the whole of ``emb`` added: TF densifies the gradient), "two_lookups" (``emb`` gathered
twice: the sum of two IndexedSlices stays sparse), "clipped" (clip_by_global_norm of the
gradients first: TF clips the IndexedSlices' values, its norm over the values, repeated
ids counted apart).
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))
BATCHES = [[0, 1, 1], [2, 3], [0, 4], [5, 5, 1], [3], [0, 2]]   # rows left out, repeats
CASES = {
    "momentum": ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9}, "lookup"),
    "momentum_nesterov": ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9,
                                                "use_nesterov": True}, "lookup"),
    "rms_prop": ("RMSPropOptimizer", {"learning_rate": 0.05}, "lookup"),
    "rms_prop_centered": ("RMSPropOptimizer", {"learning_rate": 0.05, "centered": True},
                          "lookup"),
    "rms_prop_momentum": ("RMSPropOptimizer", {"learning_rate": 0.05, "momentum": 0.5,
                                               "epsilon": 1e-6}, "lookup"),
    "adadelta": ("AdadeltaOptimizer", {"learning_rate": 1.0, "rho": 0.9, "epsilon": 1e-6},
                 "lookup"),
    "proximal_adagrad": ("ProximalAdagradOptimizer", {
        "learning_rate": 0.1, "l1_regularization_strength": 0.01,
        "l2_regularization_strength": 0.02}, "lookup"),
    "proximal_gradient_descent": ("ProximalGradientDescentOptimizer", {
        "learning_rate": 0.05, "l1_regularization_strength": 0.01,
        "l2_regularization_strength": 0.02}, "lookup"),
    "ftrl": ("FtrlOptimizer", {"learning_rate": 0.1}, "lookup"),
    "ftrl_l1_shrinkage": ("FtrlOptimizer", {
        "learning_rate": 0.1, "l1_regularization_strength": 0.01,
        "l2_regularization_strength": 0.01, "l2_shrinkage_regularization_strength": 0.02},
        "lookup"),
    "momentum_dense_path": ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9},
                            "dense_path"),
    "momentum_two_lookups": ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9},
                             "two_lookups"),
    "momentum_clipped": ("MomentumOptimizer", {"learning_rate": 0.05, "momentum": 0.9},
                         "clipped"),
}


def inputs():
    rng = np.random.default_rng(7)
    return {"emb0": (rng.standard_normal((6, 3)) * 0.5).astype(np.float32),
            "w0": rng.standard_normal((3, 2)).astype(np.float32),
            **{f"y{k}": rng.standard_normal((len(b), 2)).astype(np.float32)
               for k, b in enumerate(BATCHES)}}


def train(data, optimizer, kwargs, variant):
    with tf.Graph().as_default(), tf.Session() as sess:
        emb = tf.Variable(data["emb0"], name="emb")
        w = tf.Variable(data["w0"], name="w")
        ids = tf.placeholder(tf.int32, [None], name="ids")
        y = tf.placeholder(tf.float32, [None, 2], name="y")
        rows = tf.nn.embedding_lookup(emb, ids)
        if variant == "two_lookups":
            rows = rows + 0.5 * tf.gather(emb, tf.reverse(ids, [0]))
        loss = tf.reduce_sum(tf.square(tf.matmul(rows, w) - y))
        if variant == "dense_path":
            loss += 0.1 * tf.reduce_sum(tf.square(emb))
        opt = getattr(tf.train, optimizer)(**kwargs)
        grads_and_vars = opt.compute_gradients(loss, [emb, w])
        want_sparse = variant != "dense_path"
        assert isinstance(grads_and_vars[0][0], tf.IndexedSlices) == want_sparse
        if variant == "clipped":
            clipped, _ = tf.clip_by_global_norm([g for g, _ in grads_and_vars], 0.5)
            assert isinstance(clipped[0], tf.IndexedSlices)
            grads_and_vars = list(zip(clipped, [emb, w]))
        step = opt.apply_gradients(grads_and_vars)
        sess.run(tf.global_variables_initializer())
        embs, ws = [], []
        for k, batch in enumerate(BATCHES):
            sess.run(step, {ids: batch, y: data[f"y{k}"]})
            embs.append(sess.run(emb))
            ws.append(sess.run(w))
        return np.stack(embs), np.stack(ws)


def main():
    data = inputs()
    out = dict(data)
    for name, (optimizer, kwargs, variant) in CASES.items():
        out[f"{name}/emb"], out[f"{name}/w"] = train(data, optimizer, kwargs, variant)
    np.savez(os.path.join(HERE, "tf_sparse_updates.npz"), **out)
    cases = {name: {"optimizer": o, "kwargs": k, "variant": v}
             for name, (o, k, v) in CASES.items()}
    with open(os.path.join(HERE, "tf_sparse_updates.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "batches": BATCHES, "cases": cases}, f,
                  indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
