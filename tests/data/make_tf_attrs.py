"""Record TensorFlow's ``op.get_attr`` for the attrs of tf_attr_cases.

    /work/peers/bin/python tests/data/make_tf_attrs.py      # writes tests/data/tf_attrs.json
"""

import json
import os

import tensorflow.compat.v1 as tf

import tf_attr_cases

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
with tf.Graph().as_default():
    recorded = {f"{case}/{name}": tf_attr_cases.describe(op.get_attr(name), tf.make_ndarray)
                for case, (op, names) in tf_attr_cases.build(tf).items() for name in names}
with open(os.path.join(HERE, "tf_attrs.json"), "w") as f:
    json.dump({"tf_version": tf.VERSION, "attrs": recorded}, f, indent=1, sort_keys=True)
    f.write("\n")
print(len(recorded), "attrs")
