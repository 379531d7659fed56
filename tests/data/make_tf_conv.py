"""Writes tf_conv.npz: the values of tests/data/conv_cases.py's ``tf.conv`` cases and
the messages of its build errors (``error:<name>``), as TensorFlow 2.21 gives them, and
the graph that computed the values (``graph_def``: its serialized GraphDef, of ``Conv``
nodes; ``tensor:<name>``: each case's tensor in it), for tests/test_tf_conv.py.  Run with
TensorFlow installed (not a test):

    TF_CPP_MIN_LOG_LEVEL=3 /work/peers/bin/python tests/data/make_tf_conv.py
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conv_cases  # noqa: E402

tf.disable_eager_execution()
out = {}
with tf.Graph().as_default(), tf.Session() as sess:
    built = {name: build() for name, build in conv_cases.cases(tf).items()}
    out.update(sess.run(built))
    out["graph_def"] = np.frombuffer(sess.graph.as_graph_def().SerializeToString(), np.uint8)
    out.update({f"tensor:{name}": np.array(t.name) for name, t in built.items()})
for name, build in conv_cases.build_errors(tf).items():
    with tf.Graph().as_default():
        try:
            build()
        except ValueError as e:
            out[f"error:{name}"] = np.array(str(e))
np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_conv.npz"), **out)
print(sorted(out))
