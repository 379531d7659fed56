"""Records TensorFlow 2.21's ``tf.nn.fractional_max_pool`` / ``fractional_avg_pool``
(tf.compat.v1; TF's seeded Philox sequences) on the cases of fractional_pool_cases.py into
tf_fractional_pool.npz (``<case>/<run>/<k>``: output, row sequence, column sequence and,
in run 0 of a float case, the input's gradient) and the errors into
tf_fractional_pool_errors.json, read by tests/test_fractional_pool.py.  Run once, with
TensorFlow (never a test dependency):

    /work/peers/bin/python tests/data/make_tf_fractional_pool.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
import fractional_pool_cases                 # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    arrays = {}
    for name in fractional_pool_cases.CASES:
        for run, values in enumerate(fractional_pool_cases.run(tf, name)):
            for k, v in enumerate(values):
                arrays[f"{name}/{run}/{k}"] = np.asarray(v)
    np.savez(os.path.join(HERE, "tf_fractional_pool.npz"), **arrays)
    with open(os.path.join(HERE, "tf_fractional_pool_errors.json"), "w") as f:
        json.dump(fractional_pool_cases.errors(tf), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
