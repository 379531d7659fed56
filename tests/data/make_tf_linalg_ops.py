"""Writes tf_linalg_ops.pb (a GraphDef TensorFlow builds with the dense linear-algebra
ops: MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixSolve,
MatrixTriangularSolve, cholesky_solve, lstsq, MatrixSolveLs, Qr, Svd, SelfAdjointEigV2)
and tf_linalg_ops.npz (its feeds, TF's fetched values and static shapes), which
tests/test_linalg_ops.py imports and runs.  Besides what ``tf_recorded`` reads, the npz
holds ``value:<name>`` (TF's values of composites whose graphs use ops devsession
spells differently: logdet, a regularised lstsq, the matrix 2-norm), ``grad:<name>``
(TF's gradients of sign-invariant losses of each op, with respect to its matrix) and
``weight:<name>`` (the losses' weights).  Run with TensorFlow
installed (not a test):

    /work/peers/bin/python tests/data/make_tf_linalg_ops.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2024)
square = rng.standard_normal((3, 3)) + 3 * np.eye(3)
half = rng.standard_normal((2, 3, 3))
feeds = {"a": square, "spd": half @ np.swapaxes(half, -1, -2) + 3 * np.eye(3),
         "b": rng.standard_normal((3, 2)), "tall": rng.standard_normal((4, 3)),
         "wide": rng.standard_normal((2, 4)), "rhs4": rng.standard_normal((4, 2))}

graph = tf.Graph()
with graph.as_default():
    p = {k: tf.placeholder(tf.float64, v.shape, name=k) for k, v in feeds.items()}
    a, spd, b, tall, wide = p["a"], p["spd"], p["b"], p["tall"], p["wide"]
    sign, log_abs = tf.linalg.slogdet(spd)
    q, r = tf.linalg.qr(tall)
    q_full, r_full = tf.linalg.qr(tall, full_matrices=True)
    q_wide, r_wide = tf.linalg.qr(wide)
    s, u, v = tf.linalg.svd(tall)
    s_full, u_full, v_full = tf.linalg.svd(wide, full_matrices=True)
    e, vectors = tf.linalg.eigh(spd)
    outs = {
        "inv": tf.linalg.inv(a), "inv_adjoint": tf.linalg.inv(a, adjoint=True),
        "det": tf.linalg.det(spd), "sign": sign, "log_abs": log_abs,
        "cholesky": tf.linalg.cholesky(spd),
        "solve": tf.linalg.solve(a, b), "solve_adjoint": tf.linalg.solve(a, b, adjoint=True),
        "lower": tf.linalg.triangular_solve(a, b),
        "upper_adjoint": tf.linalg.triangular_solve(a, b, lower=False, adjoint=True),
        "cholesky_solve": tf.linalg.cholesky_solve(tf.linalg.cholesky(spd[0]), b),
        "lstsq": tf.linalg.lstsq(tall, p["rhs4"]),
        "lstsq_wide": tf.linalg.lstsq(wide, b[:2]),
        "solve_ls": tf.linalg.lstsq(tall, p["rhs4"], fast=False),
        "q": q, "r": r, "q_full": q_full, "r_full": r_full, "q_wide": q_wide, "r_wide": r_wide,
        "s": s, "u": u, "v": v, "s_full": s_full, "u_full": u_full, "v_full": v_full,
        "s_only": tf.linalg.svd(tall, compute_uv=False),
        "e": e, "vectors": vectors, "e_only": tf.linalg.eigvalsh(spd),
    }
    graph_def = graph.as_graph_def()          # before the composites and gradients below

    values = {"logdet": tf.linalg.logdet(spd),        # (TF builds λI with MatrixDiagV3:)
              "lstsq_l2": tf.linalg.lstsq(tall, p["rhs4"], l2_regularizer=0.5),
              "norm2": tf.norm(tall, ord=2, axis=[-2, -1]),
              "norm2_batch": tf.norm(spd, ord=2, axis=(2, 1), keepdims=True)}
    weights = {k: tf.constant(rng.standard_normal(shape)) for k, shape in
               [("m3", (3, 3)), ("m44", (4, 4)), ("b", (3, 2)), ("batch", (2, 3, 3))]}

    def projector(x):                       # sign-invariant: x xᵀ
        return tf.matmul(x, x, transpose_b=True)

    losses = {  # name: (loss, the input it is differentiated by)
        "inv": (tf.reduce_sum(weights["m3"] * tf.linalg.inv(a)), a),
        "inv_adjoint": (tf.reduce_sum(weights["m3"] * tf.linalg.inv(a, adjoint=True)), a),
        "det": (tf.reduce_sum(tf.linalg.det(spd) * [0.5, -2.0]), spd),
        "log_abs": (tf.reduce_sum(log_abs * [1.5, -0.5]), spd),
        "cholesky": (tf.reduce_sum(weights["batch"] * tf.linalg.cholesky(spd)), spd),
        "solve": (tf.reduce_sum(weights["b"] * tf.linalg.solve(a, b)), a),
        "lower": (tf.reduce_sum(weights["b"] * tf.linalg.triangular_solve(a, b)), a),
        "upper_adjoint": (tf.reduce_sum(weights["b"] * tf.linalg.triangular_solve(
            a, b, lower=False, adjoint=True)), a),
        "qr": (tf.reduce_sum(weights["m44"] * projector(q))
               + tf.reduce_sum(weights["m3"] * tf.matmul(r, r, transpose_a=True)), tall),
        "svd": (tf.reduce_sum(weights["m44"] * projector(u)) + tf.reduce_sum(s * [1., 2, 3])
                + tf.reduce_sum(weights["m3"] * projector(v)), tall),
        "svd_s": (tf.reduce_sum(s * [1., -2, 3]), tall),
        "eigh": (tf.reduce_sum(weights["batch"] * tf.matmul(
            vectors * tf.expand_dims(e * e, -2), vectors, transpose_b=True)), spd),
        "eigvalsh": (tf.reduce_sum(tf.linalg.eigvalsh(spd) * [1., -1, 2]), spd),
    }
    grads = {k: tf.gradients(loss, x)[0] for k, (loss, x) in losses.items()}

with tf.Session(graph=graph) as sess:
    fed = {p[k]: v for k, v in feeds.items()}
    fetched, computed, gradients, weight_values = sess.run([outs, values, grads, weights], fed)
names = {k: t.name for k, t in outs.items()}
with open(os.path.join(HERE, "tf_linalg_ops.pb"), "wb") as f:
    f.write(graph_def.SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_linalg_ops.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in fetched.items()}, **static,
         **{f"value:{k}": v for k, v in computed.items()},
         **{f"grad:{k}": v for k, v in gradients.items()},
         **{f"weight:{k}": v for k, v in weight_values.items()})
print(f"{len(outs)} fetches, {len(values)} values, {len(grads)} gradients written")
