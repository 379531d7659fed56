"""Writes tf_matrix_diag.pb (a GraphDef TensorFlow builds with its diagonal ops: the V3
ops of tf.linalg.diag / diag_part / set_diag in several bands, alignments, paddings,
shapes and batches; the V1 and V2 ops through tf.raw_ops; a band fed at run time; the
gradients tf.gradients writes for the V3 and V1 ops, for tf.linalg.cholesky and for
tf.linalg.inv) and tf_matrix_diag.npz (its feeds, TF's fetched values and static shapes,
as tests/tf_recorded.py reads them), which tests/test_matrix_diag.py imports and runs.
Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_matrix_diag.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")
rng = np.random.default_rng(77)
half = rng.standard_normal((2, 3, 3))
feeds = {"m34": rng.standard_normal((3, 4)), "m43": rng.standard_normal((4, 3)),
         "b235": rng.standard_normal((2, 3, 5)), "b33": rng.standard_normal((2, 3, 3)),
         "v3": rng.standard_normal(3), "bv24": rng.standard_normal((2, 4)),
         "band3": rng.standard_normal((3, 3)), "bband": rng.standard_normal((2, 2, 3)),
         "i34": rng.integers(-9, 9, (3, 4)).astype(np.int32),
         "spd": half @ np.swapaxes(half, -1, -2) + 3 * np.eye(3),
         "k": np.array([-1, 1], np.int32)}

graph = tf.Graph()
with graph.as_default():
    p = {k: tf.placeholder(tf.as_dtype(v.dtype), v.shape, name=k) for k, v in feeds.items()}
    dyn = tf.placeholder(tf.float64, (None, None, 4), name="dyn")   # unknown batch, rows
    feeds["dyn"] = rng.standard_normal((2, 3, 4))
    outs = {}
    for align in ALIGNS:
        a = align.lower()
        outs[f"part_band_{a}"] = tf.linalg.diag_part(p["m34"], k=(-1, 2), padding_value=7,
                                                     align=align)
        outs[f"part_tall_{a}"] = tf.linalg.diag_part(p["m43"], k=(-2, 1), align=align)
        outs[f"part_batch_{a}"] = tf.linalg.diag_part(p["b235"], k=(-2, 3), padding_value=-1,
                                                      align=align)
        outs[f"diag_band_{a}"] = tf.linalg.diag(p["band3"], k=(-1, 1), padding_value=5,
                                                align=align)
        outs[f"diag_rect_{a}"] = tf.linalg.diag(p["bband"], k=(0, 1), num_rows=3,
                                                num_cols=4, align=align)
        outs[f"set_band_{a}"] = tf.linalg.set_diag(
            p["m34"], tf.linalg.diag_part(p["m34"] * 2 + 1, k=(-1, 2), align=align),
            k=(-1, 2), align=align)
        outs[f"set_batch_{a}"] = tf.linalg.set_diag(p["b235"], p["bband"], k=(1, 2),
                                                    align=align)
    outs.update({
        "part_main": tf.linalg.diag_part(p["b33"]),
        "part_super": tf.linalg.diag_part(p["m34"], k=2),
        "part_sub": tf.linalg.diag_part(p["m43"], k=-3, padding_value=4),
        "part_int": tf.linalg.diag_part(p["i34"], k=(0, 1), padding_value=-5),
        "part_dyn": tf.linalg.diag_part(dyn, k=(-1, 1)),
        "part_fed_k": tf.linalg.diag_part(p["m34"], k=p["k"]),
        "diag_main": tf.linalg.diag(p["bv24"]),
        "diag_super": tf.linalg.diag(p["v3"], k=1),
        "diag_sub_cols": tf.linalg.diag(p["v3"], k=-2, num_cols=4, padding_value=3),
        "diag_rows": tf.linalg.diag(p["v3"], num_rows=3, num_cols=5),
        "diag_fed_k": tf.linalg.diag(p["band3"], k=p["k"]),
        "set_main": tf.linalg.set_diag(p["m43"], p["v3"]),
        "set_sub": tf.linalg.set_diag(p["m34"], p["v3"][:2], k=-1),
        "set_fed_k": tf.linalg.set_diag(p["band3"], p["band3"] * 3, k=p["k"]),
        "set_dyn": tf.linalg.set_diag(dyn, tf.linalg.diag_part(dyn) + 1),
        # the V1 and V2 ops (TF1.x graphs): V2 packs LEFT_LEFT
        "v1_diag": tf.raw_ops.MatrixDiag(diagonal=p["bv24"]),
        "v1_part": tf.raw_ops.MatrixDiagPart(input=p["b235"]),
        "v1_set": tf.raw_ops.MatrixSetDiag(input=p["m43"], diagonal=p["v3"]),
        "v2_diag": tf.raw_ops.MatrixDiagV2(diagonal=p["band3"], k=[-1, 1], num_rows=-1,
                                           num_cols=-1, padding_value=tf.constant(2.0,
                                                                                  tf.float64)),
        "v2_diag_rows": tf.raw_ops.MatrixDiagV2(diagonal=p["v3"], k=1, num_rows=5,
                                                num_cols=-1, padding_value=tf.constant(
                                                    0.0, tf.float64)),
        "v2_part": tf.raw_ops.MatrixDiagPartV2(input=p["m34"], k=[-1, 2],
                                               padding_value=tf.constant(9.0, tf.float64)),
        "v2_set": tf.raw_ops.MatrixSetDiagV2(input=p["m34"], diagonal=tf.raw_ops.
                                             MatrixDiagPartV2(input=p["m34"] + 3, k=[-1, 2],
                                                              padding_value=tf.constant(
                                                                  0.0, tf.float64)),
                                             k=[-1, 2]),
    })
    # gradients: of the ops themselves (V3 bands and alignments, V1) and of the linalg
    # ops whose gradients TF writes with them
    # (weights for the known shapes; sin for an unknown one)
    losses = {k: tf.reduce_sum(tf.constant(rng.standard_normal(outs[k].shape.as_list()))
                               * outs[k])
              for k in ("part_band_right_left", "part_batch_left_right",
                        "diag_band_right_right", "diag_rect_left_left", "set_band_left_right",
                        "set_batch_right_right", "v1_diag", "v1_part", "v1_set")}
    # (TF's own shape function fails on a band's gradient of an unknown matrix: k = 0)
    outs["part_dyn_main"] = tf.linalg.diag_part(dyn)
    losses["part_dyn_main"] = tf.reduce_sum(tf.sin(outs["part_dyn_main"]))
    grads = {}
    for name, loss in losses.items():
        inputs = [t for t in outs[name].op.inputs if t.dtype == tf.float64
                  and t.op.type == "Placeholder"]
        for i, g in enumerate(tf.gradients(loss, inputs)):
            grads[f"grad_{name}_{i}"] = g
    w33 = tf.constant(rng.standard_normal((2, 3, 3)))
    grads["grad_cholesky"] = tf.gradients(tf.reduce_sum(w33 * tf.linalg.cholesky(p["spd"])),
                                          p["spd"])[0]
    grads["grad_inverse"] = tf.gradients(tf.reduce_sum(w33 * tf.linalg.inv(p["spd"])),
                                         p["spd"])[0]
    outs.update(grads)
    graph_def = graph.as_graph_def()

with tf.Session(graph=graph) as sess:
    fed = {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()}
    fetched = sess.run(outs, fed)
names = {k: t.name for k, t in outs.items()}
types = sorted({n.op for n in graph_def.node if "Diag" in n.op})
with open(os.path.join(HERE, "tf_matrix_diag.pb"), "wb") as f:
    f.write(graph_def.SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_matrix_diag.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in fetched.items()}, **static,
         **{f"key:{k}": np.array(names[k]) for k in outs})
print(f"{len(outs)} fetches ({len(grads)} gradients); diagonal op types: {types}")
