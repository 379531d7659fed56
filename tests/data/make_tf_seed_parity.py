"""Writes tf_seed_parity.npz: for each case of tests/seed_parity_cases.py, built by
TensorFlow (``tensorflow.compat.v1`` after ``disable_v2_behavior()``, in a graph of its
own seeded by ``set_random_seed(1)``), the seeds of its ops (``types:<case>``, and
``seeds:<case>``: ``[seed, seed2]`` rows in the order the ops were built), its variables'
initial values (``var:<case>:<name>``) and the first run of its fetches
(``run:<case>:<key>``), which tests/test_seed_parity.py compares with devsession's.
Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_seed_parity.py
"""

import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")     # tf.layers and rnn_cell: tf_keras
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # tests/
import seed_parity_cases as cases  # noqa: E402

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))

recorded = {}
for name in cases.CASES:
    graph, fetches, variables, init = cases.built(tf, name)
    ops = cases.seeded_ops(graph)
    recorded[f"types:{name}"] = np.array([t for t, _, _ in ops])
    recorded[f"seeds:{name}"] = np.array([s for _, *s in ops], np.int64).reshape(-1, 2)
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for v in variables:
            recorded[f"var:{name}:{v.op.name}"] = sess.run(v)
        for key, value in sess.run(fetches).items():
            recorded[f"run:{name}:{key}"] = value
    print(f"{name:32s} {len(ops):3d} seeded ops {len(variables):3d} variables")
np.savez(os.path.join(HERE, "tf_seed_parity.npz"), **recorded)
