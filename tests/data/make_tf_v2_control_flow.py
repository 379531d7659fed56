"""Writes the GraphDefs and values of tests/test_tf_v2_control_flow_import.py: the models
and cases of make_tf_v1_cond.py and make_tf_v1_while.py built in TensorFlow 2's graph mode
(``tf.compat.v1`` with eager execution off, nothing else disabled: what a TF1 program run
on TensorFlow 2 writes), where ``tf.cond`` and ``tf.while_loop`` are control flow v2:
``If``/``StatelessIf`` and ``While``/``StatelessWhile`` nodes whose branches, conds and
bodies are functions of the GraphDef's library.  Run with TensorFlow installed (not a
test):

    /work/peers/bin/python tests/data/make_tf_v2_control_flow.py

Writes ``tf_v2_cond_mlp``, ``tf_v2_conds``, ``tf_v2_whiles``, ``tf_v2_while_lstm``
(``.pb`` and ``.npz``), each as its ``tf_v1_`` twin describes (the same rng draws, so the
same weights and feeds).  ``tf.scan`` is left out: TF 2's loops keep TensorLists.  And
``tf_v2_resource_loop`` (below): functions reading resource variables.
"""

import os

import make_tf_v1_cond
import make_tf_v1_while
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
make_tf_v1_cond.main("v2")
make_tf_v1_while.main("v2")


def resource_loop():
    """``tf_v2_resource_loop.pb``: a graph as TF 2 writes it before freezing, its
    variables resources (constant-initialized) that a While's body and an If's branch
    read (``ReadVariableOp``, ``ResourceGather`` of the handle passed in).
    ``tf_v2_resource_loop.npz``: ``feed:x``, ``fetch:y`` after the initializer ran."""
    rng = np.random.default_rng(11)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        init = tf.constant_initializer
        w = tf.get_variable("w", [3, 3], initializer=init(rng.standard_normal((3, 3))))
        emb = tf.get_variable("emb", [5, 3], initializer=init(rng.standard_normal((5, 3))))

        def body(i, h):
            return i + 1, tf.tanh(tf.matmul(h, w)) + tf.gather(emb, i % 5)

        _, h = tf.while_loop(lambda i, h: i < 3, body, [0, x])
        y = tf.cond(tf.reduce_sum(h) > 0, lambda: h * tf.reduce_sum(w), lambda: h - 1.0)
        tf.identity(y, name="y")
        tf.variables_initializer([w, emb], name="init")
        graph_def = graph.as_graph_def()
        feed = rng.standard_normal((4, 3)).astype(np.float32)
        with tf.Session() as sess:
            sess.run("init")
            value = sess.run("y:0", {x: feed})
    ops = {n.op for n in graph_def.node}
    assert {"VarHandleOp", "While"} <= ops, ops
    with open(os.path.join(HERE, "tf_v2_resource_loop.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    np.savez(os.path.join(HERE, "tf_v2_resource_loop.npz"), **{"feed:x": feed, "fetch:y": value})


resource_loop()
