"""Writes tf_random_ops.pb (the GraphDef TensorFlow builds for tests/random_ops_cases.py:
TF1's seeded RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt and
RandomShuffle, and a small classifier their initializers draw) and tf_random_ops.npz
(each draw's values in two runs, the classifier's initial weights and its losses over
SGD steps on fixed data, the orders of seeded ``Dataset.shuffle`` pipelines, and the
classes and expected counts of the log-uniform and uniform candidate samplers and
sample_distorted_bounding_box's crops), which tests/test_random_ops_tf_values.py compares with
devsession's.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_random_ops.py
"""

import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # tests/
import random_ops_cases as cases  # noqa: E402

tf.disable_eager_execution()
tf.disable_resource_variables()        # TF1's VariableV2 nodes, as a TF1 training graph
HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 6

rng = np.random.default_rng(3)
x_value = rng.standard_normal((cases.BATCH, cases.LAYERS[0])).astype(np.float32)
labels_value = rng.integers(0, cases.LAYERS[-1], cases.BATCH).astype(np.int32)
graph = tf.Graph()
with graph.as_default():
    tf.set_random_seed(1)
    draws = cases.draws(tf)
    x = tf.placeholder(tf.float32, [None, cases.LAYERS[0]], name="x")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    loss, train, variables = cases.classifier(tf, x, labels)
    init = tf.global_variables_initializer()
with tf.Session(graph=graph) as sess:
    runs = [sess.run(draws) for _ in range(2)]
    sess.run(init)
    initial = sess.run(variables)
    losses = [sess.run([loss, train], {x: x_value, labels: labels_value})[0]
              for _ in range(STEPS)]
orders = {}
with tf.Graph().as_default() as shuffle_graph:
    tf.set_random_seed(1)
    datasets = cases.shuffles(tf)
    nexts = {k: tf.data.make_one_shot_iterator(d).get_next() for k, d in datasets.items()}
    again = tf.data.make_initializable_iterator(datasets["shuffle_epochs"])
    with tf.Session() as sess:
        orders = {k: cases.drain(tf, sess, n) for k, n in nexts.items()}
        for start in range(2):                      # the same orders at each start
            sess.run(again.initializer)
            orders[f"restart{start}"] = cases.drain(tf, sess, again.get_next())
sampled = {}
for build, names, prefix in ((cases.samplers, cases.SAMPLER_OUTPUTS, "sampler"),
                             (cases.crops, cases.CROP_OUTPUTS, "crop")):
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        outputs = build(tf)
        with tf.Session() as sess:
            sampled.update(cases.runs_of(sess, outputs, names, prefix))
with open(os.path.join(HERE, "tf_random_ops.pb"), "wb") as f:
    f.write(graph.as_graph_def().SerializeToString())
np.savez(os.path.join(HERE, "tf_random_ops.npz"),
         **{f"run{i}:{k}": v for i, run in enumerate(runs) for k, v in run.items()},
         **{f"name:{k}": np.array(t.name) for k, t in draws.items()},
         **{f"initial:{k}": v for k, v in initial.items()},
         x=x_value, labels=labels_value, losses=np.array(losses, np.float32),
         **{f"order:{k}": np.array(v) for k, v in orders.items()}, **sampled)
print(len(draws), "draws; losses", losses)
