"""Writes tf_stateless_poisson.json: TF 2.21's tf.random.stateless_poisson values (graph
mode; rates below and above 10, every output dtype, a shape wider than the rates) and
errors, which tests/test_stateless_poisson.py compares devsession's with.  Run with
TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_stateless_poisson.py
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

# name -> (shape, seed, lam, dtype)
CASES = {
    "small": ([5], [1, 2], 0.5, "int32"),
    "rates": ([4, 3], [7, -3], [0.1, 3.0, 9.5], "int64"),
    "large": ([6, 2], [3, 4], [10.0, 250.5], "float32"),
    "mixed_f64": ([3, 2, 2], [5, 6], [[1.5, 12.0], [0.0, 40.0]], "float64"),
    "half": ([4], [8, 9], np.float16(20.0), "float16"),
    "int_rates": ([2, 2], [1, 1], np.array([2, 30], np.int64), "int32"),
    "empty": ([0, 3], [1, 2], [1.0, 2.0, 3.0], "int32"),
}


def main():
    record = {}
    with tf.Graph().as_default():
        fetches = {name: tf.random.stateless_poisson(shape, seed, lam, dtype=dtype)
                   for name, (shape, seed, lam, dtype) in CASES.items()}
        record_draws(v1, fetches, record)
        try:
            sess = v1.Session()
            sess.run(tf.random.stateless_poisson([4, 2], [1, 2], [1.0, 2.0, 3.0]))
        except tf.errors.InvalidArgumentError as exc:
            record["suffix_error"] = exc.message.split("\n")[-2]
    write_json(record, "tf_stateless_poisson")


if __name__ == "__main__":
    main()
