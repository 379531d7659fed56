"""Records how TensorFlow 2.21's TF1 ``ProfilerHook``, ``CheckpointSaverListener`` (through
``CheckpointSaverHook``), ``basic_train_loop`` and ``assert_global_step`` behave into
tf_train_loops.json, read by tests/test_train_loops.py.  Run once, with TensorFlow (never
a test dependency):

    /work/peers/bin/python tests/data/make_tf_train_loops.py

``profiler``: save_steps -> the steps of the timeline-<step>.json files after 7 runs of a
train op incrementing the global step.  ``listener``: the listener's calls (name, step)
for save_steps -> a run of 7 steps; ``stop_after_save``: the same when ``after_save``
returns True at step 4 (how many runs the loop made).  ``basic_loop``: the calls a fake
supervisor saw.  ``assert_global_step``: case -> the error's class and message or None.
"""

import json
import os
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf
from train_loops_cases import basic_loop, profile, run_listener     # this script's folder

tf.disable_v2_behavior()

HERE = os.path.dirname(os.path.abspath(__file__))


def assert_cases():
    with tf.Graph().as_default():
        cases = {
            "int64_variable": tf.Variable(0, dtype=tf.int64),
            "int32_tensor": tf.constant(3),
            "float_variable": tf.Variable(0.0),
            "vector": tf.Variable([1, 2]),
            "unknown_shape": tf.placeholder(tf.int64, None),
            "partly_known": tf.placeholder(tf.int64, [None, 2]),
            "python_int": 3,
        }
        out = {}
        for name, value in cases.items():
            try:
                tf.train.assert_global_step(value)
                out[name] = None
            except Exception as e:  # noqa: BLE001  (recording what TF raises)
                out[name] = [type(e).__name__, str(e)]
        return out


def main():
    def in_temp(run, *args, **kwargs):
        with tempfile.TemporaryDirectory() as d:
            return run(tf, d, *args, **kwargs)

    record = {"profiler": {str(n): in_temp(profile, n) for n in (1, 2, 3)},
              "listener": {str(n): in_temp(run_listener, n) for n in (2, 3)},
              "stop_after_save": in_temp(run_listener, 1, stop_at=4),
              "basic_loop": basic_loop(tf),
              "assert_global_step": assert_cases()}
    with open(os.path.join(HERE, "tf_train_loops.json"), "w") as f:
        json.dump(record, f, indent=1)
    print(json.dumps(record))


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main()
