"""Writes tf_composite_nodes.pb and tf_composite_nodes.npz (tests/tf_recorded.py's format)
for tests/test_tf_composite_nodes.py: a GraphDef TensorFlow builds with the ops that
TensorFlow models frozen from TF1 code hold and devsession builds from other ops:
Select (tf.where with a vector condition picking rows), BatchMatMulV2 (tf.matmul of
batches, adjoints, broadcast batch dimensions), Einsum, MatrixBandPart (a causal mask),
ReverseV2 (tf.reverse) and ReverseSequence (what bidirectional RNNs build).  Run with
TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_composite_nodes.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
from graph_recording import record_fetches

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

rng = np.random.default_rng(11)
feeds = {"rows": np.array([True, False, True]),
         "square": rng.standard_normal((3, 3)).astype(np.float32),
         "a": rng.standard_normal((2, 1, 3, 4)).astype(np.float32),
         "b": rng.standard_normal((5, 4, 6)).astype(np.float32),
         "q": rng.standard_normal((2, 3, 5, 4)).astype(np.float32),
         "seq": rng.standard_normal((3, 5, 2)).astype(np.float32),
         "lengths": np.array([5, 2, 0], np.int64)}

graph = tf.Graph()
with graph.as_default():
    t = {k: tf.placeholder(tf.as_dtype(v.dtype), v.shape, name=k) for k, v in feeds.items()}
    scores = tf.einsum("bhqd,bhkd->bhqk", t["q"], t["q"])
    outs = {
        "select_rows": tf.where(t["rows"], t["square"], -t["square"]),
        "select_same": tf.where(t["square"] > 0, t["square"], tf.zeros_like(t["square"])),
        "batch_matmul": tf.matmul(t["a"], t["b"]),
        "batch_matmul_adjoint": tf.matmul(t["q"], t["q"], adjoint_b=True),
        "batch_matmul_adjoint_a": tf.linalg.matmul(t["q"], t["q"], adjoint_a=True),
        "einsum": scores,
        "einsum_reduce": tf.einsum("ij->j", t["square"]),
        "causal": tf.linalg.band_part(scores, -1, 0),
        "band": tf.matrix_band_part(t["square"], 1, 0),
        "reverse": tf.reverse(t["seq"], [1, -1]),
        "reverse_sequence": tf.reverse_sequence(t["seq"], t["lengths"], seq_axis=1,
                                                batch_axis=0),
        "reverse_sequence_time_major": tf.reverse_sequence(
            tf.transpose(t["seq"], [1, 0, 2]), t["lengths"], seq_axis=0, batch_axis=1),
    }
graph_def = record_fetches(HERE, "tf_composite_nodes", graph, outs, t, feeds, tf)
print({k: t.op.type for k, t in outs.items()})
