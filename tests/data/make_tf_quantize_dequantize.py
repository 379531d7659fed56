"""Writes tf_quantize_dequantize.pb (a GraphDef TensorFlow builds with the
QuantizeAndDequantizeV2/V3/V4 ops and their gradients: quantize_dequantize_cases.py) and
tf_quantize_dequantize.npz (its feeds, TF's fetched values and static shapes), which
tests/test_quantize_dequantize.py imports and runs, and builds again through devsession.
Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_quantize_dequantize.py
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quantize_dequantize_cases  # noqa: E402

graph = tf.Graph()
with graph.as_default():
    placeholders = quantize_dequantize_cases.placeholders(tf)
    outs = quantize_dequantize_cases.all_ops(tf, placeholders)

feeds = quantize_dequantize_cases.feeds()
with tf.Session(graph=graph) as sess:
    values = sess.run(outs, {placeholders[k]: v for k, v in feeds.items()})
names = {k: t.name for k, t in outs.items()}
with open(os.path.join(HERE, "tf_quantize_dequantize.pb"), "wb") as f:
    f.write(graph.as_graph_def().SerializeToString())
static = {f"static:{t.name}": np.array([-2] if t.shape.rank is None else
                                       [-1 if d is None else d for d in t.shape.as_list()],
                                       np.int64) for t in outs.values()}
np.savez(os.path.join(HERE, "tf_quantize_dequantize.npz"),
         **{f"feed:{k}": v for k, v in feeds.items()},
         **{f"fetch:{names[k]}": v for k, v in values.items()},
         **{f"key:{k}": np.array(names[k]) for k in outs}, **static)
print(len(outs), "fetches;", sorted({n.op for n in graph.as_graph_def().node}))
