"""Writes tf_data_random.npz: the elements of each dataset of data_random_cases.sources
in TensorFlow 2.21's TF1 graph mode (RandomDataset's values, sample_from_datasets'
orders), which tests/test_data_random_tf_values.py compares with devsession's.  Run with
TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_data_random.py
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # tests/
import data_random_cases as cases  # noqa: E402  (this script's folder)

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with tf.Graph().as_default():
        tf.set_random_seed(cases.GRAPH_SEED)
        datasets = cases.sources(tf)
        nexts = {k: tf.data.make_one_shot_iterator(d).get_next() for k, d in datasets.items()}
        with tf.Session() as sess:
            values = {k: cases.drain(tf, sess, n) for k, n in nexts.items()}
    np.savez(os.path.join(HERE, "tf_data_random.npz"),
             **{k: np.array(v, np.int64) for k, v in values.items()})
    print({k: len(v) for k, v in values.items()})


if __name__ == "__main__":
    main()
