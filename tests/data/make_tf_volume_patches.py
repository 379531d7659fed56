"""Records TensorFlow 2.21's ``tf.extract_volume_patches`` (tf.compat.v1) and its
gradient on the cases of volume_patches_cases.py into tf_volume_patches.npz
(``<case>/<k>``: the patches, then the input's gradient for float inputs) and the errors
into tf_volume_patches_errors.json, read by tests/test_volume_patches.py.  Run once, with
TensorFlow (never a test dependency):

    /work/peers/bin/python tests/data/make_tf_volume_patches.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf
import volume_patches_cases                 # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    arrays = {}
    for name in volume_patches_cases.CASES:
        for k, value in enumerate(volume_patches_cases.run(tf, name)):
            arrays[f"{name}/{k}"] = np.asarray(value)
    np.savez(os.path.join(HERE, "tf_volume_patches.npz"), **arrays)
    with open(os.path.join(HERE, "tf_volume_patches_errors.json"), "w") as f:
        json.dump(volume_patches_cases.errors(tf), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
