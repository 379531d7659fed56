"""Writes tf_stateless_binomial.json: TF 2.21's tf.random.stateless_binomial values (graph
mode; inversion and BTRS, p below and above 0.5, p of 0 and 1, counts of 0, counts and
probs broadcast, output dtypes), which tests/test_stateless_rates.py compares
devsession's with.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_stateless_binomial.py
"""

import os
import sys

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
v1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from draw_record import record_draws, write_json  # noqa: E402

# name -> (shape, seed, counts, probs, output_dtype)
BINOMIAL_CASES = {
    "small": ([6], [1, 2], 10.0, 0.3, "int32"),
    "btrs": ([4, 3], [7, -3], [50.0, 200.0, 1000.0], [0.4, 0.7, 0.05], "int64"),
    "edges": ([3, 2, 4], [3, 4], [[0.0], [5.0]], [0.0, 1.0, 0.5, 0.9], "float32"),
    "float64": ([5], [5, 6], np.float64(80.0), np.float64(0.2), "float64"),
    "empty": ([0, 2], [1, 2], [3.0, 4.0], 0.5, "int32"),
}


def main():
    record = {}
    with tf.Graph().as_default():
        fetches = {name: tf.random.stateless_binomial(shape, seed, counts, probs,
                                                      output_dtype=dtype)
                   for name, (shape, seed, counts, probs, dtype) in BINOMIAL_CASES.items()}
        record_draws(v1, fetches, record)
    write_json(record, "tf_stateless_binomial")


if __name__ == "__main__":
    main()
