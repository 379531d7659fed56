"""Writes tf_linalg_more.pb (a GraphDef TensorFlow builds with Lu, lu_solve,
MatrixSquareRoot, MatrixLogarithm, TridiagonalSolve and TridiagonalMatMul, over
placeholders of partly unknown shapes) and tf_linalg_more.npz (its feeds, TF's fetched
values and static shapes, as tests/tf_recorded.py reads them), which
tests/test_linalg_more.py imports and runs.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_linalg_more_graph.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(11)
half = rng.standard_normal((2, 3, 3))
feeds = {"a": rng.standard_normal((2, 3, 3)) + 2 * np.eye(3),
         "spd": half @ np.swapaxes(half, -1, -2) + np.eye(3),
         "b": rng.standard_normal((2, 3, 2)),
         "diags": rng.standard_normal((2, 3, 4)), "rhs": rng.standard_normal((2, 4, 2))}
feeds["c"] = (feeds["spd"] + 0.2j * rng.standard_normal((2, 3, 3))).astype(np.complex128)

graph = tf.Graph()
with graph.as_default():
    p = {k: tf.placeholder(tf.as_dtype(v.dtype), [None] + list(v.shape[1:]), name=k)
         for k, v in feeds.items()}
    lu, perm = tf.linalg.lu(p["a"])
    lu64, perm64 = tf.linalg.lu(p["a"], output_idx_type=tf.int64)
    outs = {"lu": lu, "perm": perm, "perm64": perm64,
            "lu_solve": tf.linalg.lu_solve(lu, perm, p["b"]),
            "sqrtm": tf.linalg.sqrtm(p["spd"]), "logm": tf.linalg.logm(p["c"]),
            "tri_solve": tf.linalg.tridiagonal_solve(p["diags"], p["rhs"]),
            "tri_thomas": tf.linalg.tridiagonal_solve(p["diags"] + [[0.], [6.], [0.]],
                                                      p["rhs"], partial_pivoting=False),
            "tri_matmul": tf.linalg.tridiagonal_matmul(p["diags"], p["rhs"])}
    graph_def = graph.as_graph_def()

with tf.Session(graph=graph) as sess:
    fetched = sess.run(outs, {p[k]: v for k, v in feeds.items()})
names = {k: t.name for k, t in outs.items()}
with open(os.path.join(HERE, "tf_linalg_more.pb"), "wb") as f:
    f.write(graph_def.SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_linalg_more.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in fetched.items()}, **static)
print(f"{len(outs)} fetches written")
