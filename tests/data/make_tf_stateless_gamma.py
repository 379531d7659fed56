"""Writes tf_stateless_gamma.json: TF 2.21's tf.random.stateless_gamma values (graph mode;
alpha below, at and above 1, beta broadcast against alpha, every float dtype) and its
node names, which tests/test_stateless_poisson.py compares devsession's with.  Run with
TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_stateless_gamma.py
"""

import os
import sys

import tensorflow as tf

v1 = tf.compat.v1
v1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from draw_record import record_draws, write_json  # noqa: E402

# name -> (shape, seed, alpha, beta, dtype)
GAMMA_CASES = {
    "one": ([6], [1, 2], 1.0, None, "float32"),
    "alphas": ([5, 3], [7, -3], [0.3, 1.0, 4.5], None, "float32"),
    "beta": ([4, 2, 2], [3, 4], [[2.0], [0.5]], [1.0, 3.0], "float64"),
    "half": ([3], [8, 9], 2.5, 2.0, "float16"),
    "large": ([4], [5, 5], 120.0, None, "float64"),
    "empty": ([0, 2], [1, 2], [1.5, 2.5], None, "float32"),
}


def main():
    record = {}
    with tf.Graph().as_default():
        fetches = {name: tf.random.stateless_gamma(shape, seed, alpha, beta, dtype=dtype)
                   for name, (shape, seed, alpha, beta, dtype) in GAMMA_CASES.items()}
        record["draw_names"] = sorted(op.name for op in tf.compat.v1.get_default_graph()
                                      .get_operations() if op.name.startswith(
                                          "stateless_random_gamma/"))
        record_draws(v1, fetches, record)
    write_json(record, "tf_stateless_gamma")


if __name__ == "__main__":
    main()
