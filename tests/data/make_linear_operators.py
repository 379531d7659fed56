"""Writes linear_operators.npz and linear_operators.json: TF 2.21's values, static
facts, build-time errors and run-time assertion failures of the cases of
linear_operator_cases.py, which tests/test_linear_operators.py compares devsession
with.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_linear_operators.py
"""

import json
import os

import numpy as np
import tensorflow.compat.v1 as tf

import linear_operator_cases as cases

tf.disable_eager_execution()
tf.get_logger().setLevel("ERROR")
HERE = os.path.dirname(os.path.abspath(__file__))



def _assertion_message(text):
    """The caller's message of a failed Assert (TF appends '.  ' to it)."""
    if "assertion failed: [" in text:
        text = text.split("assertion failed: [", 1)[1].split("]", 1)[0]
    return text.splitlines()[0].rstrip(". ")


values, record = {}, {"facts": {}, "errors": {}, "asserts": {}}
graph = tf.Graph()
with graph.as_default():
    fetches = {}
    for name, op in cases.operators(tf).items():
        record["facts"][name] = cases.facts(tf, name, op)
        for method, tensor in cases.probe(tf, name, op).items():
            fetches[f"{name}/{method}"] = tensor
    for name, build in cases.ERRORS.items():
        try:
            build(tf)
            record["errors"][name] = None
        except Exception as e:  # noqa: BLE001  (the class is what is recorded)
            record["errors"][name] = [type(e).__name__, str(e)]
    asserts = {}
    for name, build in cases.ASSERTS.items():
        try:        # constant inputs: TF's check_ops may fail when building
            asserts[name] = build(tf)
        except tf.errors.InvalidArgumentError as e:
            record["asserts"][name] = _assertion_message(e.message)
    with tf.Session() as sess:
        values.update(sess.run(fetches))
        for name, check in asserts.items():
            try:
                sess.run(check)
                record["asserts"][name] = None
            except tf.errors.InvalidArgumentError as e:
                record["asserts"][name] = _assertion_message(e.message)
np.savez(os.path.join(HERE, "linear_operators.npz"),
         **{k: np.asarray(v) for k, v in values.items()})
with open(os.path.join(HERE, "linear_operators.json"), "w") as f:
    json.dump(record, f, indent=1, sort_keys=True)
print(len(values), "values,", len(record["errors"]), "errors")
