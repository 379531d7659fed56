"""Writes tf_fake_quant.pb (a GraphDef TensorFlow builds with the fake quantization ops
FakeQuantWithMinMaxArgs/Vars/VarsPerChannel and, through tf.gradients, their gradient
ops) and tf_fake_quant.npz (its feeds, TF's fetched values and static shapes), which
tests/test_fake_quant.py imports and runs.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_fake_quant.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
q = tf.quantization

graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, (None, 6), name="x")
    lo = tf.placeholder(tf.float32, (), name="lo")
    hi = tf.placeholder(tf.float32, (), name="hi")
    lo_c = tf.placeholder(tf.float32, (6,), name="lo_c")
    hi_c = tf.placeholder(tf.float32, (6,), name="hi_c")
    weights = tf.constant(np.linspace(-1.0, 2.0, 6, dtype=np.float32), name="weights")
    outs = {}
    for k, (mn, mx, bits, narrow) in enumerate([(-6.0, 6.0, 8, False), (-1.3, 2.1, 5, False),
                                                 (0.0, 1.0, 8, True), (0.5, 3.0, 4, False),
                                                 (-3.0, -0.5, 3, True), (-0.2, 0.9, 16, False)]):
        y = q.fake_quant_with_min_max_args(x, min=mn, max=mx, num_bits=bits,
                                           narrow_range=narrow, name=f"args{k}")
        outs[f"args{k}"] = y
        outs[f"args{k}_grad"] = tf.gradients(tf.reduce_sum(y * weights), x)[0]
    for k, (bits, narrow) in enumerate([(8, False), (4, True), (2, False)]):
        y = q.fake_quant_with_min_max_vars(x, lo, hi, num_bits=bits, narrow_range=narrow,
                                           name=f"vars{k}")
        outs[f"vars{k}"] = y
        for name, g in zip(("x", "min", "max"),
                           tf.gradients(tf.reduce_sum(y * weights), [x, lo, hi])):
            outs[f"vars{k}_grad_{name}"] = g
        y = q.fake_quant_with_min_max_vars_per_channel(x, lo_c, hi_c, num_bits=bits,
                                                       narrow_range=narrow,
                                                       name=f"channels{k}")
        outs[f"channels{k}"] = y
        for name, g in zip(("x", "min", "max"),
                           tf.gradients(tf.reduce_sum(y * weights), [x, lo_c, hi_c])):
            outs[f"channels{k}_grad_{name}"] = g

grid = np.linspace(-3.5, 3.5, 57, dtype=np.float32)
edges = np.array([-6.0, 6.0, -1.3, 2.1, 0.0, 1.0, 0.5, 3.0, -0.5, -0.7, 1.9, 0.9], np.float32)
feeds = {"x": np.concatenate([grid, edges, np.float32([0.05, -0.05, 7.0])]).reshape(-1, 6),
         "lo": np.float32(-0.7), "hi": np.float32(1.9),
         "lo_c": np.float32([-1.0, 0.3, -2.0, -0.1, 0.0, -3.2]),
         "hi_c": np.float32([1.0, 2.5, -0.4, 0.1, 3.0, 0.7])}
with tf.Session(graph=graph) as sess:
    values = sess.run(outs, {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()})
names = {k: t.name for k, t in outs.items()}
with open(os.path.join(HERE, "tf_fake_quant.pb"), "wb") as f:
    f.write(graph.as_graph_def().SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_fake_quant.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in values.items()}, **static)
