"""Record what TensorFlow's legacy tf.layers do with an InputSpec (input_spec_cases).

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/make_tf_input_spec.py
        # writes tests/data/tf_input_spec.json
"""

import json
import os

import tensorflow.compat.v1 as tf

import input_spec_cases as cases

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
calls = {}
for spec, x in cases.CALLS:
    with tf.Graph().as_default():
        calls[f"{spec}/{x}"] = cases.call_outcome(tf, spec, x)
constructions = {name: cases.construction_outcome(tf, name) for name in cases.CONSTRUCTIONS}
with open(os.path.join(HERE, "tf_input_spec.json"), "w") as f:
    json.dump({"tf_version": tf.VERSION, "calls": calls, "constructions": constructions}, f,
              indent=1, sort_keys=True)
    f.write("\n")
print(len(calls), "calls", len(constructions), "constructions")
