"""Records TensorFlow 2.21's ``tf.nn.raw_rnn`` and ``tf.nn.static_state_saving_rnn``
(tf.compat.v1, legacy Keras cells) on the programs of raw_rnn_cases.py into
tf_raw_rnn.npz, read by tests/test_raw_rnn.py, and their errors into
tf_raw_rnn_errors.json.  Run once, with TensorFlow (never a test
dependency):

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/make_tf_raw_rnn.py

Keys: ``<case>/<feed index>/<fetch name>``.
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
import raw_rnn_cases                 # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    arrays = {}
    for case in raw_rnn_cases.FEEDS:
        for k, values in enumerate(raw_rnn_cases.run(tf, case)):
            for name, value in values.items():
                arrays[f"{case}/{k}/{name}"] = np.asarray(value)
    np.savez(os.path.join(HERE, "tf_raw_rnn.npz"), **arrays)
    with open(os.path.join(HERE, "tf_raw_rnn_errors.json"), "w") as f:
        json.dump(raw_rnn_cases.errors(tf), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
