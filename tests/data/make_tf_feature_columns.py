"""Writes tf_feature_columns.npz: what TensorFlow computes for the feature-column
models of tests/data/feature_column_cases.py (input_layer and linear_model over numeric,
bucketized, categorical, indicator and embedding columns, and a few training steps),
and the errors TF raises for bad columns (tf_feature_column_errors.json), which
tests/test_feature_column.py compares devsession with.  Run with TensorFlow installed
(not a test):

    /work/peers/bin/python tests/data/make_tf_feature_columns.py
"""

import json
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import feature_column_cases  # noqa: E402
import feature_column_errors  # noqa: E402


def flatten(prefix, value, into):
    if isinstance(value, dict):
        for key, item in value.items():
            flatten(f"{prefix}/{key}", item, into)
    elif isinstance(value, list):
        into[prefix] = np.array(json.dumps(value))
    else:
        into[prefix] = np.asarray(value)


arrays = {}
for name, build in feature_column_cases.CASES.items():
    flatten(name, build(tf), arrays)
np.savez(os.path.join(HERE, "tf_feature_columns.npz"), **arrays)

errors = {}
for name, build in feature_column_errors.ERRORS.items():
    try:
        with tf.Graph().as_default():
            build(tf)
    except Exception as error:  # noqa: BLE001  (recording whatever TF raises)
        errors[name] = [type(error).__name__, str(error)]
    else:
        errors[name] = None
with open(os.path.join(HERE, "tf_feature_column_errors.json"), "w") as f:
    json.dump(errors, f, indent=1, sort_keys=True)
    f.write("\n")
print(len(arrays), "arrays,", len(errors), "errors")
