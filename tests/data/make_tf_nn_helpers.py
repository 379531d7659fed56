"""Records TensorFlow 2.21's ``required_space_to_batch_paddings``,
``nn.with_space_to_batch``, ``nn.collapse_repeated``, ``nn.ctc_unique_labels``,
``nn.compute_average_loss`` and ``nn.scale_regularization_loss`` (tf.compat.v1) on the
programs of nn_helpers_cases.py into tf_nn_helpers.npz (``<case>/<fetch>``) and the
errors they raise when building into tf_nn_helpers_errors.json, read by
tests/test_nn_helpers.py.  Run once, with TensorFlow (never a test dependency):

    /work/peers/bin/python tests/data/make_tf_nn_helpers.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
import nn_helpers_cases                 # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    arrays = {}
    for case in nn_helpers_cases.CASES:
        for name, value in nn_helpers_cases.run(tf, case).items():
            arrays[f"{case.__name__}/{name}"] = np.asarray(value)
    np.savez(os.path.join(HERE, "tf_nn_helpers.npz"), **arrays)
    with open(os.path.join(HERE, "tf_nn_helpers_errors.json"), "w") as f:
        json.dump(nn_helpers_cases.errors(tf), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
