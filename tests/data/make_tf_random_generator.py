"""Writes tf_random_generator.json and tf_random_generator.pb: TF 2.21's
tf.random.Generator in graph mode (random_generator_cases.py's programs, each fetch in
turn after the initializer), and the GraphDef TF wrote for them, which
tests/test_random_generator.py compares devsession's with.  Run with TensorFlow
installed (not a test):

    /work/peers/bin/python tests/data/make_tf_random_generator.py
"""

import json
import os

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_stateful_random_ops

import random_generator_cases as cases

v1 = tf.compat.v1
v1.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))


def _run(steps):
    """{name: value or error} of each fetch in turn, and the order."""
    out = {}
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        for name, fetch in steps:
            try:
                value = sess.run(fetch)
            except tf.errors.OpError as e:
                out[name] = {"error": type(e).__name__, "message": e.message}
                continue
            if value is None:
                out[name] = {"value": None}
                continue
            value = np.asarray(value)
            out[name] = {"dtype": value.dtype.name, "shape": list(value.shape),
                         "value": [int(v) if value.dtype.kind in "iu" else float(v)
                                   for v in value.reshape(-1)]}
    return out


def _errors():
    """Build-time errors: {case: [class, message]}."""
    out = {}
    cases_ = {
        "state_shape": lambda: tf.random.Generator.from_state([1, 2], "philox"),
        "alg_name": lambda: tf.random.Generator.from_seed(1, alg="mersenne"),
        "alg_type": lambda: tf.random.Generator.from_seed(1, alg=1.5),
        "key_counter_shape": lambda: tf.random.Generator.from_key_counter(1, [1, 2, 3],
                                                                          "philox"),
        "int_minval_only": lambda: tf.random.Generator.from_seed(1).uniform(
            [2], minval=1, dtype=tf.int32),
        "unknown_alg_state": lambda: tf.random.Generator.from_seed(1, alg=7),
        "split_in_graph": lambda: tf.random.Generator.from_seed(1).split(2),
        "make_seeds_unknown_alg": lambda: tf.random.Generator(
            state=tf.constant([1, 2, 3], tf.int64), alg=7).make_seeds(),
    }
    for name, make in cases_.items():
        with tf.Graph().as_default():
            try:
                make()
                out[name] = None
            except Exception as e:                 # noqa: BLE001 (recording what TF raises)
                out[name] = [type(e).__name__, str(e)]
    return out


def _run_errors():
    """Run-time errors of draws TF's CPU kernels refuse."""
    steps = []
    graph = tf.Graph()
    with graph.as_default():
        auto = tf.random.Generator.from_seed(3, alg="auto_select")
        threefry = tf.random.Generator.from_seed(3, alg="threefry")
        steps = [("binomial_auto", auto.binomial([2, 1], counts=[5.0], probs=[0.5])),
                 ("threefry_normal", threefry.normal([2])),
                 ("binomial_shape", auto.binomial([3], counts=[5.0, 6.0], probs=[0.5]))]
        return _run(steps)


def main():
    graph = tf.Graph()
    with graph.as_default():
        steps = cases.build(tf) + cases.build_raw_ops(tf, gen_stateful_random_ops)
        record = {"order": [name for name, _ in steps], "values": _run(steps),
                  "fetch_names": {name: fetch.name for name, fetch in steps},
                  "init": v1.global_variables_initializer().name}
        with open(os.path.join(HERE, "tf_random_generator.pb"), "wb") as f:
            f.write(graph.as_graph_def().SerializeToString())
    with tf.Graph().as_default():
        steps = cases.build_raw_algorithms(tf, gen_stateful_random_ops)
        record["algorithms"] = _run(steps)
    record["errors"] = _errors()
    record["run_errors"] = _run_errors()
    with open(os.path.join(HERE, "tf_random_generator.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
