"""Record what TensorFlow's tf.debugging.assert_shapes does for assert_shapes_cases.

    /work/peers/bin/python tests/data/make_tf_assert_shapes.py
        # writes tests/data/tf_assert_shapes.json
"""

import json
import os

import tensorflow.compat.v1 as tf

import assert_shapes_cases as cases

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
recorded = {}
for name in cases.CASES:
    with tf.Graph().as_default():
        recorded[name] = cases.outcome(tf, name)
with open(os.path.join(HERE, "tf_assert_shapes.json"), "w") as f:
    json.dump({"tf_version": tf.VERSION, "cases": recorded}, f, indent=1, sort_keys=True)
    f.write("\n")
print(len(recorded), "cases")
