"""Record what TensorFlow's tf.nest returns or raises for nest_cases.CASES.

    /work/peers/bin/python tests/data/make_tf_nest.py      # writes tests/data/tf_nest.json
"""

import json
import os

import tensorflow.compat.v1 as tf

import nest_cases

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))

with tf.Graph().as_default():
    recorded = {name: nest_cases.outcome(lambda: case(tf))
                for name, case in nest_cases.CASES.items()}
with open(os.path.join(HERE, "tf_nest.json"), "w") as f:
    json.dump({"tf_version": tf.VERSION, "cases": recorded}, f, indent=1, sort_keys=True)
    f.write("\n")
print(len(recorded), "cases")
