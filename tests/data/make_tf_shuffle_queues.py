"""Writes tf_shuffle_queues.json: the dequeue orders of shuffle_queue_cases in TensorFlow
2.21's TF1 graph mode, which tests/test_queues.py compares with devsession's.  Run with
TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_shuffle_queues.py
"""

import json
import os

import tensorflow.compat.v1 as tf

import shuffle_queue_cases as cases   # this script's folder

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    graph = tf.Graph()
    with tf.Session(graph=graph) as sess:
        got = cases.runs(tf, graph, sess)
    with open(os.path.join(HERE, "tf_shuffle_queues.json"), "w") as f:
        json.dump(got, f)
    print(got)
