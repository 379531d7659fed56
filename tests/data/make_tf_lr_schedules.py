"""Writes tf_lr_schedules.json: TF1's learning-rate schedules (``tf.train.*_decay``,
``piecewise_constant``) evaluated by TensorFlow at a range of global steps, which
tests/test_lr_schedules.py compares devsession's with.  Run with TensorFlow installed
(not a test):

    python tests/data/make_tf_lr_schedules.py
"""

import json
import os

import tensorflow.compat.v1 as tf

from lr_schedule_cases import CASES, STEPS

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))

graph = tf.Graph()
with graph.as_default():
    step = tf.placeholder(tf.int64, (), name="global_step")
    rates = {name: getattr(tf.train, fn)(**{k: (step if v == "STEP" else v)
                                            for k, v in kwargs.items()})
             for name, (fn, kwargs) in CASES.items()}
    with tf.Session() as sess:
        values = {name: [float(sess.run(rate, {step: s})) for s in STEPS]
                  for name, rate in rates.items()}
with open(os.path.join(HERE, "tf_lr_schedules.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "steps": STEPS, "values": values}, f, indent=1)
    f.write("\n")
