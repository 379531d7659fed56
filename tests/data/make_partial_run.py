"""Records TF 2.21's partial-run outcomes (tests/data/partial_run.json) for
tests/test_session_partial_run.py.  Run with TensorFlow's Python:
``python tests/data/make_partial_run.py``."""

import json
import pathlib
import sys

import tensorflow.compat.v1 as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from partial_run_cases import CASES  # noqa: E402

tf.disable_v2_behavior()     # reference variables, as devsession's

recorded = {}
for name, case in CASES.items():
    with tf.Graph().as_default(), tf.Session() as sess:
        recorded[name] = case(tf, sess)
pathlib.Path(__file__).with_name("partial_run.json").write_text(
    json.dumps(recorded, indent=1, sort_keys=True) + "\n")
