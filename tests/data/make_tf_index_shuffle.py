"""Writes tf_index_shuffle.json: TF 2.21's tf.random_index_shuffle (RandomIndexShuffle)
values (one seed for every index, a seed and a max_index per index, block sizes from 16
to 64 bits, 6 rounds) and tf.random.experimental.index_shuffle's, and its build errors,
which tests/test_index_shuffle.py compares devsession's with.  Run with TensorFlow
installed (not a test):

    /work/peers/bin/python tests/data/make_tf_index_shuffle.py
"""

import json
import os

import tensorflow as tf

v1 = tf.compat.v1
v1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    record = {}
    with tf.Graph().as_default():
        shuffle = v1.random_index_shuffle
        fetches = {
            "range10": shuffle(tf.range(10), tf.constant([1, 2, 3]), 9),
            "scalar": shuffle(tf.constant(7, tf.int64), tf.constant([4, 5, 6], tf.int64),
                              tf.constant(100, tf.int64)),
            "batched": shuffle(tf.constant([0, 1, 2], tf.int64),
                               tf.constant([[1, 2, 3], [4, 5, 6], [7, 8, 9]], tf.int64),
                               tf.constant([5, 2**20, 2**40], tf.int64)),
            "wide": shuffle(tf.constant([0, 12345, 2**62], tf.uint64),
                            tf.constant([9, 8, 7], tf.uint64),
                            tf.constant(2**63 + 5, tf.uint64)),
            "rounds6": shuffle(tf.range(8), tf.constant([3, 1, 4]), 7, rounds=6),
            "zero_max": shuffle(tf.constant([0, 0]), tf.constant([1, 2, 3]), 0),
            "experimental": tf.random.experimental.index_shuffle(tf.range(10), [5, 9], 9),
        }
        record["names"] = {k: [t.op.type, t.op.name] for k, t in fetches.items()}
        with v1.Session() as sess:
            record["values"] = {k: {"dtype": v.dtype.name, "value": v.tolist()}
                                for k, v in sess.run(fetches).items()}
    with open(os.path.join(HERE, "tf_index_shuffle.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
