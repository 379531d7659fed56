"""Writes the GraphDefs and values of tests/test_tf_v1_cond_import.py: graphs TF1 code
builds with tf.cond, in TF1's own control flow (``Switch``/``Merge``: what
``tf.disable_v2_behavior()`` makes ``tf.cond`` build, and what models frozen from TF1 code
hold), and what TensorFlow computes for them.  Run with TensorFlow installed (not a
test):

    /work/peers/bin/python tests/data/make_tf_v1_cond.py

* ``tf_v1_cond_mlp.pb``: a small MLP whose batch norm and dropout are switched by a bool
  ``is_training`` placeholder, as ``tf.layers`` builds them (batch statistics through
  ``FusedBatchNormV3`` with ``is_training`` when training, the moving ones otherwise;
  the dropout a fixed mask, so the training branch is deterministic), frozen by
  ``convert_variables_to_constants``.  ``tf_v1_cond_mlp.npz``: ``feed:x`` and, per mode,
  ``train:<tensor>`` / ``infer:<tensor>`` (the softmax, the logits, the batch norm's
  output and its mean: the cond's second output).
* ``tf_v1_conds.pb``: tf.cond with several outputs, nested conds (the inner predicate a
  placeholder, or computed inside the branch), a branch returning its input unchanged,
  branches of constants, a predicate computed from data, two conds in a row on one
  predicate, and a hand-made Switch/Merge whose ``value_index`` is read.
  ``tf_v1_conds.npz``: ``case<k>:feed:<name>`` and ``case<k>:fetch:<tensor>`` for every
  combination of the two predicates and two inputs.
"""

import itertools
import os

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import control_flow_ops

import graph_recording
from graph_recording import ops_of, write_graph_def

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(5)


def assert_control_flow(flavour: str, graph_def) -> None:
    """TF1's Switch/Merge conds ("v1"), or TF 2's functional ones ("v2")."""
    graph_recording.assert_control_flow(flavour, graph_def, {"Switch", "Merge"},
                                        {"If", "StatelessIf"})


def write(name: str, graph_def) -> None:
    write_graph_def(HERE, name, graph_def)


# --- the MLP ------------------------------------------------------------------------------

def mlp(flavour="v1"):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        is_training = tf.placeholder(tf.bool, [], name="is_training")
        init = tf.constant_initializer
        w1 = tf.get_variable("dense/kernel", [4, 6], initializer=init(rng.standard_normal((4, 6))))
        b1 = tf.get_variable("dense/bias", [6], initializer=init(rng.standard_normal(6)))
        gamma = tf.get_variable("bn/gamma", [6], initializer=init(1 + rng.random(6)))
        beta = tf.get_variable("bn/beta", [6], initializer=init(rng.standard_normal(6)))
        moving_mean = tf.get_variable("bn/moving_mean", [6],
                                      initializer=init(rng.standard_normal(6)))
        moving_var = tf.get_variable("bn/moving_variance", [6],
                                     initializer=init(0.5 + rng.random(6)))
        w2 = tf.get_variable("logits/kernel", [6, 3], initializer=init(rng.standard_normal((6, 3))))
        h = tf.nn.bias_add(tf.matmul(x, w1), b1)
        h4 = tf.reshape(h, [-1, 1, 1, 6])
        # tf.layers.batch_normalization's fused path: batch statistics or the moving ones
        normed, batch_mean, _ = tf.cond(
            is_training,
            lambda: tf.nn.fused_batch_norm(h4, gamma, beta, epsilon=1e-3),
            lambda: tf.nn.fused_batch_norm(h4, gamma, beta, moving_mean, moving_var,
                                           epsilon=1e-3, is_training=False),
            name="bn")
        h = tf.nn.relu(tf.reshape(normed, [-1, 6]))
        # dropout with a fixed mask (deterministic): constants inside the training branch
        mask = (rng.random(6) > 0.3).astype(np.float32)
        h = tf.cond(is_training, lambda: h * tf.constant(mask) / 0.7, lambda: tf.identity(h),
                    name="dropout")
        logits = tf.matmul(h, w2, name="logits")
        tf.nn.softmax(logits, name="out")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["out", batch_mean.op.name])
    assert_control_flow(flavour, frozen)
    assert not {"VariableV2", "RefSwitch", "VarHandleOp"} & ops_of(frozen), ops_of(frozen)
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(frozen, name="")
        fetches = ["out:0", "logits:0", normed.name, batch_mean.name]
        feed = {"x": rng.standard_normal((5, 4)).astype(np.float32)}
        data = {"feed:x": feed["x"]}
        with tf.Session() as sess:
            for mode, flag in (("train", True), ("infer", False)):
                values = sess.run(fetches, {"x:0": feed["x"], "is_training:0": flag})
                for name, value in zip(fetches, values):
                    data[f"{mode}:{name}"] = value
    write(f"tf_{flavour}_cond_mlp.pb", frozen)
    np.savez(os.path.join(HERE, f"tf_{flavour}_cond_mlp.npz"), **data)
    print("mlp:", sorted(ops_of(frozen)))


# --- conds of every shape -------------------------------------------------------------------

def conds(flavour="v1"):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [3, 4], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        q = tf.placeholder(tf.bool, [], name="q")
        outs = {}
        two = tf.cond(p, lambda: (x * 2, tf.reduce_sum(x)), lambda: (x - 1, tf.reduce_max(x)),
                      name="several")
        outs["several_0"], outs["several_1"] = two
        outs["nested"] = tf.cond(p, lambda: tf.cond(q, lambda: x * 3, lambda: x - 3),
                                 lambda: x + 10, name="nested")
        outs["nested_inner_pred"] = tf.cond(
            p, lambda: tf.cond(tf.reduce_mean(x) > 0.1, lambda: x * x, lambda: -x) + 1,
            lambda: x, name="inner_pred")
        outs["passthrough"] = tf.cond(p, lambda: x, lambda: x * 2, name="passthrough")
        outs["constants"] = tf.cond(p, lambda: tf.constant([1., 2., 3., 4.]) * x,
                                    lambda: tf.fill([3, 4], 7.0), name="constants")
        outs["only_constants"] = tf.cond(p, lambda: tf.constant(1.5), lambda: tf.constant(-2.5),
                                         name="only_constants")
        big = tf.reduce_sum(x) > 0
        outs["data_pred"] = tf.cond(big, lambda: tf.nn.relu(x), lambda: tf.abs(x) * 0.5,
                                    name="data_pred")
        first = tf.cond(p, lambda: x * 2, lambda: x + 2, name="first")
        outs["in_a_row"] = tf.cond(p, lambda: first - 1, lambda: first * first, name="in_a_row")
        outs["int_branch"] = tf.cond(q, lambda: tf.shape(x)[0] * 2, lambda: tf.constant(-1),
                                     name="int_branch")
        false_side, true_side = control_flow_ops.switch(x, q, name="by_hand/switch")
        merged, value_index = control_flow_ops.merge([false_side * 4, true_side - 4],
                                                     name="by_hand/merge")
        outs["by_hand"] = merged
        outs["value_index"] = tf.cast(value_index, tf.float32, name="by_hand/which") + 0.5
    graph_def = graph.as_graph_def()
    assert_control_flow(flavour, graph_def)
    inputs = [rng.standard_normal((3, 4)).astype(np.float32),
              np.abs(rng.standard_normal((3, 4))).astype(np.float32)]
    data = {}
    with tf.Session(graph=graph) as sess:
        for k, (pv, qv, xv) in enumerate(itertools.product((True, False), (True, False),
                                                            inputs)):
            feed = {"x": xv, "p": np.array(pv), "q": np.array(qv)}
            values = sess.run(outs, {f"{n}:0": v for n, v in feed.items()})
            for name, value in feed.items():
                data[f"case{k}:feed:{name}"] = value
            for key, tensor in outs.items():
                data[f"case{k}:fetch:{tensor.name}"] = values[key]
    write(f"tf_{flavour}_conds.pb", graph_def)
    np.savez(os.path.join(HERE, f"tf_{flavour}_conds.npz"), **data)
    print("conds:", {k: t.name for k, t in outs.items()})


def main(flavour: str = "v1") -> None:
    mlp(flavour)
    conds(flavour)


if __name__ == "__main__":
    tf.disable_v2_behavior()
    main()
