"""Records TensorFlow 2.21's ``tf.layers.separable_conv1d`` / ``SeparableConv1D``
(tf.compat.v1 with legacy Keras) on the cases of separable_conv1d_cases.py into
tf_separable_conv1d.npz (``<case>/output``, ``<case>/grad``, ``<case>/names``), read by
tests/test_separable_conv1d.py.  Run once, with TensorFlow (never a test dependency):

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/make_tf_separable_conv1d.py
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
import separable_conv1d_cases                 # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    arrays = {}
    for name in separable_conv1d_cases.CASES:
        for key, value in separable_conv1d_cases.run(tf, name).items():
            arrays[f"{name}/{key}"] = np.asarray(value)
    np.savez(os.path.join(HERE, "tf_separable_conv1d.npz"), **arrays)


if __name__ == "__main__":
    main()
