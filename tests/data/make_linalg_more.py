"""Writes linalg_more.npz: TF 2.21's values of the cases of linalg_more_cases.py
(``tf.linalg.lu`` and its compositions, ``sqrtm``, ``logm``, ``expm``, ``pinv``,
``matrix_rank``, the tridiagonal functions and gradients) and the messages of Lu's
run-time errors, which tests/test_linalg_more.py compares devsession
with.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_linalg_more.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

import linalg_more_cases as cases

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

record = {}
graph = tf.Graph()
with graph.as_default():
    fetches = cases.build(tf)
    with tf.Session() as sess:
        values = sess.run(fetches)
        for name, value in values.items():
            for k, part in enumerate(value if isinstance(value, tuple) else (value,)):
                record[f"{name}:{k}"] = np.asarray(part)
        for name in cases.ERRORS:
            fetch, feed = cases.build_error(tf, name)
            try:
                sess.run(fetch, feed)
                record[f"error:{name}"] = np.array("")
            except tf.errors.InvalidArgumentError as e:
                record[f"error:{name}"] = np.array(e.message.splitlines()[-2]
                                                   if "Graph execution" in e.message
                                                   else e.message)
np.savez(os.path.join(HERE, "linalg_more.npz"), **record)
print(len(record), "values")
