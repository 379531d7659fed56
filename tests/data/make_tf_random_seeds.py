"""Writes tf_random_seeds.json: TF 2.21's tf.random.split, fold_in, create_rng_state and
get_seed values (graph mode), which tests/test_random_seeds.py compares devsession's
with.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_random_seeds.py
"""

import json
import os

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
v1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    record = {}
    graph = tf.Graph()
    with graph.as_default():
        fetches = {
            "split": tf.random.split([1, 2], 3),
            "split_default": tf.random.split(tf.constant([7, -9], tf.int64)),
            "split_one": tf.random.split([3, 4], 1),
            "split_philox": tf.random.split([1, 2], 2, alg="philox"),
            "fold_in": tf.random.fold_in([1, 2], 3),
            "fold_in_64": tf.random.fold_in(tf.constant([7, -9], tf.int64),
                                            tf.constant(5, tf.int64)),
            "create_int": tf.random.create_rng_state(1234, "philox"),
            "create_big": tf.random.create_rng_state(2**70 + 5, "philox"),
            "create_negative": tf.random.create_rng_state(-3, 3),
            "create_vector_threefry": tf.random.create_rng_state([12, 34], "threefry"),
            "create_vector_padded": tf.random.create_rng_state([12, 34], 1),
            "create_vector_cut": tf.random.create_rng_state(np.array([1, 2, 3, 4]), "philox"),
        }
        with v1.Session() as sess:
            for name, value in sess.run(fetches).items():
                record[name] = {"dtype": value.dtype.name, "value": value.tolist()}
        record["names"] = {name: [t.op.type, t.op.name] for name, t in fetches.items()
                           if name.startswith(("split", "fold"))}
    with tf.Graph().as_default():
        seeds = [v1.get_seed(None), v1.get_seed(5), v1.get_seed(2**33)]
        v1.set_random_seed(2**31 + 6)
        seeds += [v1.get_seed(7), v1.get_seed(0)]
        v1.set_random_seed(0)
        seeds += [v1.get_seed(0)]
    record["get_seed"] = seeds
    with open(os.path.join(HERE, "tf_random_seeds.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
