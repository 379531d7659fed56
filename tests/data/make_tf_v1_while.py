"""Writes the GraphDefs and values of tests/test_tf_v1_while_import.py: graphs TF1 code
builds with tf.while_loop, in TF1's own control flow (``Enter``/``Merge``/``Switch``/
``LoopCond``/``NextIteration``/``Exit``: what ``tf.disable_v2_behavior()`` makes
``tf.while_loop`` build, and what models frozen from TF1 code hold), and what TensorFlow
computes for them.  Run with TensorFlow installed (not a test):

    /work/peers/bin/python tests/data/make_tf_v1_while.py

* ``tf_v1_whiles.pb``: a counter loop of a constant trip count; a loop of several loop
  variables reading a captured invariant; a loop whose trip count is a placeholder,
  accumulating by concat (a loop variable whose shape changes); ``maximum_iterations``
  from a placeholder; a tf.cond inside a body; a loop nested in a loop's body; a loop
  returning a loop variable unchanged.  ``tf_v1_whiles.npz``: ``case<k>:feed:<name>``
  and ``case<k>:fetch:<tensor>`` for a few feeds.
* ``tf_v1_while_lstm.pb``: a frozen LSTM classifier over a time axis of unknown length,
  stepping with tf.while_loop over ``x[:, t]`` (LSTMCell's step written out: Keras 3's
  TF 2.21 has no tf.nn.rnn_cell; its variables frozen by
  ``convert_variables_to_constants``).  ``tf_v1_while_lstm.npz``: ``feed:x<k>`` and
  ``fetch:x<k>`` for sequences of several lengths.
* ``tf_v1_while_scan.pb``: ``tf.scan`` (as ``tf.nn.dynamic_rnn``, its loop reads and
  writes TensorFlow's TensorArrays); the test computes its values with numpy
  (make_tf_tensor_arrays.py records TF's for more such loops).
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

import graph_recording
from graph_recording import ops_of, write_graph_def

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
LOOP_OPS = {"Enter", "Merge", "Switch", "LoopCond", "NextIteration", "Exit"}


def assert_control_flow(flavour: str, graph_def) -> None:
    """TF1's loop ops ("v1"), or TF 2's functional ones ("v2")."""
    graph_recording.assert_control_flow(flavour, graph_def, LOOP_OPS, {"While", "StatelessWhile"})


def write(name: str, graph_def) -> None:
    write_graph_def(HERE, name, graph_def)


# --- loops of every shape ----------------------------------------------------------------

def whiles(flavour="v1"):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        m = tf.placeholder(tf.int32, [], name="m")
        outs = {}
        outs["counter"] = tf.while_loop(lambda i: i < 10, lambda i: i + 2, [tf.constant(0)],
                                        name="counter")
        i, a, b = tf.while_loop(
            lambda i, a, b: i < 4,
            lambda i, a, b: [i + 1, a * x + 1.0, b + tf.reduce_sum(a)],
            [tf.constant(0), tf.ones([3]), tf.constant(0.0)], name="several")
        outs["several_i"], outs["several_a"], outs["several_b"] = i, a, b
        _, acc = tf.while_loop(
            lambda i, acc: i < n,
            lambda i, acc: [i + 1, tf.concat([acc, tf.reshape(tf.cast(i, tf.float32) * x[0],
                                                             [1])], 0)],
            [tf.constant(0), tf.zeros([0])],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])], name="to_n")
        outs["to_n"] = acc
        outs["bounded"] = tf.while_loop(lambda s: s < 1000.0, lambda s: s * 2.0 + 1.0,
                                        [tf.reduce_sum(tf.abs(x))], maximum_iterations=m,
                                        name="bounded")
        _, with_cond = tf.while_loop(
            lambda i, a: i < n,
            lambda i, a: [i + 1, tf.cond(tf.equal(i % 2, 0), lambda: a + x,
                                         lambda: a * 0.5, name="parity")],
            [tf.constant(0), tf.zeros([3])], name="with_cond")
        outs["with_cond"] = with_cond

        def outer_body(i, total):
            _, inner = tf.while_loop(lambda j, s: j < i, lambda j, s: [j + 1, s + x * 1.5],
                                     [tf.constant(0), total], name="inner")
            return [i + 1, inner]

        _, nested = tf.while_loop(lambda i, total: i < n, outer_body,
                                  [tf.constant(0), tf.zeros([3])], name="nested")
        outs["nested"] = nested
        _, same = tf.while_loop(lambda i, v: i < 3, lambda i, v: [i + 1, v],
                                [tf.constant(0), x * 3.0], name="same")
        outs["same"] = same
    graph_def = graph.as_graph_def()
    assert_control_flow(flavour, graph_def)
    data = {}
    feeds = [(np.array([0.5, -1.0, 2.0], np.float32), 5, 3),
             (rng.standard_normal(3).astype(np.float32), 0, 0),
             (rng.standard_normal(3).astype(np.float32), 3, 20)]
    with tf.Session(graph=graph) as sess:
        for k, (xv, nv, mv) in enumerate(feeds):
            feed = {"x": xv, "n": np.array(nv, np.int32), "m": np.array(mv, np.int32)}
            values = sess.run(outs, {f"{name}:0": v for name, v in feed.items()})
            for name, value in feed.items():
                data[f"case{k}:feed:{name}"] = value
            for key, tensor in outs.items():
                data[f"case{k}:fetch:{tensor.name}"] = values[key]
    write(f"tf_{flavour}_whiles.pb", graph_def)
    np.savez(os.path.join(HERE, f"tf_{flavour}_whiles.npz"), **data)
    print("whiles:", {k: t.name for k, t in outs.items()})


# --- a frozen LSTM classifier stepping through time ------------------------------------------

def lstm(flavour="v1"):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, None, 4], name="x")      # batch, time, features
        batch, steps = tf.shape(x)[0], tf.shape(x)[1]
        init = tf.constant_initializer
        kernel = tf.get_variable("lstm/kernel", [4 + 5, 20],
                                 initializer=init(0.5 * rng.standard_normal((9, 20))))
        bias = tf.get_variable("lstm/bias", [20], initializer=init(0.1 * rng.standard_normal(20)))
        dense = tf.get_variable("logits/kernel", [5, 3],
                                initializer=init(rng.standard_normal((5, 3))))

        def step(t, c, h):
            # LSTMCell's step (forget bias 1): gates from [x_t, h]
            gates = tf.nn.bias_add(tf.matmul(tf.concat([x[:, t], h], 1), kernel), bias)
            i, j, f, o = tf.split(gates, 4, axis=1)
            c = tf.sigmoid(f + 1.0) * c + tf.sigmoid(i) * tf.tanh(j)
            return [t + 1, c, tf.sigmoid(o) * tf.tanh(c)]

        zeros = tf.zeros(tf.stack([batch, 5]))
        _, _, h = tf.while_loop(lambda t, c, h: t < steps, step, [tf.constant(0), zeros, zeros],
                                name="rnn")
        tf.nn.softmax(tf.matmul(h, dense), name="probs")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["probs"])
    assert_control_flow(flavour, frozen)
    assert not {"VariableV2", "VarHandleOp"} & ops_of(frozen)
    graph = tf.Graph()
    data = {}
    with graph.as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as sess:
            for k, steps in enumerate((1, 4, 9)):
                xv = rng.standard_normal((2, steps, 4)).astype(np.float32)
                data[f"feed:x{k}"] = xv
                data[f"fetch:x{k}"] = sess.run("probs:0", {"x:0": xv})
    write(f"tf_{flavour}_while_lstm.pb", frozen)
    np.savez(os.path.join(HERE, f"tf_{flavour}_while_lstm.npz"), **data)
    print("lstm:", sorted(ops_of(frozen)))


# --- dynamic_rnn: TensorArrays in the loop ------------------------------------------------------

def scan():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        tf.identity(tf.scan(lambda acc, row: acc * 0.5 + row, x), name="out")
        frozen = graph.as_graph_def()
    assert {"Enter", "Exit", "TensorArrayV3"} <= ops_of(frozen), ops_of(frozen)
    write("tf_v1_while_scan.pb", frozen)


def main(flavour: str = "v1") -> None:
    whiles(flavour)
    lstm(flavour)
    if flavour == "v1":           # TF 2's loops keep TensorLists, which do not import
        scan()


if __name__ == "__main__":
    tf.disable_v2_behavior()
    main()
