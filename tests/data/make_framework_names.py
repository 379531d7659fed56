"""Records TF 2.21's outcomes of tests/data/framework_names_cases.py
(tests/data/framework_names.json) for tests/test_framework_names.py.  Run with
TensorFlow's Python: ``python tests/data/make_framework_names.py``."""

import json
import pathlib
import sys

import tensorflow.compat.v1 as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from framework_names_cases import CASES  # noqa: E402

tf.disable_v2_behavior()

recorded = {}
for name, case in CASES.items():
    with tf.Graph().as_default(), tf.Session() as sess:
        recorded[name] = case(tf, sess)
pathlib.Path(__file__).with_name("framework_names.json").write_text(
    json.dumps(recorded, indent=1, sort_keys=True) + "\n")
