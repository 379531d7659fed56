"""Writes tf_stateless_truncated.json: TF 2.21's
tf.random.stateless_parameterized_truncated_normal values (graph mode; outputs small
enough that TF's CPU kernel draws them as one shard: the normal, uniform and exponential
proposals, parameters broadcast, float32 and float64), which
tests/test_stateless_rates.py compares devsession's with.  Run with TensorFlow installed
(not a test):

    /work/peers/bin/python tests/data/make_tf_stateless_truncated.py
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

# name -> (shape, seed, means, stddevs, minvals, maxvals)
TRUNCATED_CASES = {
    "standard": ([6], [1, 2], 0.0, 1.0, -2.0, 2.0),
    "narrow": ([5], [3, 4], 0.0, 1.0, 0.5, 0.7),
    "tail": ([2, 3], [5, 6], [0.0, 1.0, -1.0], [1.0, 2.0, 0.5], [3.0, 6.0, 2.0],
             [np.inf, 20.0, 9.0]),
    "upper": ([4], [7, 8], 1.0, 1.0, -np.inf, -2.0),
    "float64": ([4, 2], [9, 9], np.float64(2.0), np.float64(3.0), np.float64(-1.0),
                np.float64(4.0)),
}


def main():
    record = {}
    with tf.Graph().as_default():
        fetches = {name: tf.random.stateless_parameterized_truncated_normal(
                       shape, seed, means, stddevs, minvals, maxvals)
                   for name, (shape, seed, means, stddevs, minvals, maxvals)
                   in TRUNCATED_CASES.items()}
        record_draws(v1, fetches, record)
    write_json(record, "tf_stateless_truncated")


if __name__ == "__main__":
    main()
