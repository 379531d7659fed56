"""Writes the GraphDefs and values of tests/test_tf_tensor_array_import.py: graphs whose
TF1 while loops read and write TensorFlow's TensorArrays (``TensorArrayV3``,
``TensorArrayWriteV3``, ``TensorArrayReadV3``, ``TensorArrayScatterV3``,
``TensorArrayGatherV3``, ``TensorArraySizeV3``, ``TensorArraySplitV3``,
``TensorArrayConcatV3``: what tf.scan, tf.map_fn and tf.nn.dynamic_rnn build under
``tf.disable_v2_behavior()``), and what TensorFlow computes for them.  Run with
TensorFlow and tf_keras installed (not a test; ``TF_USE_LEGACY_KERAS`` brings back
tf.nn.rnn_cell and tf.nn.dynamic_rnn):

    /work/peers/bin/python tests/data/make_tf_tensor_arrays.py

* ``tf_tensor_arrays.pb``: a cumulative sum by tf.scan; an RNN-like tf.scan over a
  time-major sequence from an initial state; tf.map_fn of rows to scalars; a
  tf.while_loop writing a TensorArray of a placeholder's size and stacking it, reading
  an unstacked one; a ``dynamic_size`` TensorArray grown in a loop, with its size; a
  TensorArray split into pieces of unequal length and concatenated.
  ``tf_tensor_arrays.npz``: ``case<k>:feed:<name>`` and ``case<k>:fetch:<tensor>``.
* ``tf_tensor_array_rnn.pb``: a frozen tf.nn.dynamic_rnn LSTM classifier over a time
  axis of unknown length with ``sequence_length`` (its variables made constants by
  ``convert_variables_to_constants``).  ``tf_tensor_array_rnn.npz``: ``feed:x<k>``,
  ``feed:lengths<k>``, ``fetch:probs<k>`` and ``fetch:outputs<k>``.
"""

import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(11)
TENSOR_ARRAY_OPS = {"TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3",
                    "TensorArrayScatterV3", "TensorArrayGatherV3", "TensorArraySizeV3",
                    "TensorArraySplitV3", "TensorArrayConcatV3"}


def ops_of(graph_def) -> set:
    return {node.op for node in graph_def.node}


def write(name: str, graph_def) -> None:
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(graph_def.SerializeToString())


# --- scan, map_fn and hand-written TensorArray loops ----------------------------------------

def tensor_arrays():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        seq = tf.placeholder(tf.float32, [None, 2, 3], name="seq")      # time, batch, features
        n = tf.placeholder(tf.int32, [], name="n")
        outs = {}
        outs["cumsum"] = tf.identity(tf.scan(lambda acc, row: acc + row, x, name="cumsum"),
                                     name="cumsum_out")
        w = tf.constant(0.5 * rng.standard_normal((3, 5)), tf.float32)
        u = tf.constant(0.5 * rng.standard_normal((5, 5)), tf.float32)
        outs["rnn_scan"] = tf.identity(
            tf.scan(lambda h, xt: tf.tanh(tf.matmul(xt, w) + tf.matmul(h, u)), seq,
                    initializer=tf.zeros([2, 5]), name="rnn_scan"), name="rnn_scan_out")
        outs["map_fn"] = tf.identity(
            tf.map_fn(lambda row: tf.reduce_sum(row * row) + row[0], x, name="map"),
            name="map_out")
        outs["map_pairs"] = tf.identity(
            tf.map_fn(lambda row: tf.cast(tf.argmax(row), tf.int32) * 2, x,
                      dtype=tf.int32, name="map_int"), name="map_int_out")

        rows = tf.TensorArray(tf.float32, size=tf.shape(x)[0], name="rows").unstack(x)
        squares = tf.TensorArray(tf.float32, size=tf.shape(x)[0], name="squares")
        _, squares = tf.while_loop(
            lambda i, ta: i < tf.shape(x)[0],
            lambda i, ta: [i + 1, ta.write(i, rows.read(i) * tf.cast(i + 1, tf.float32))],
            [tf.constant(0), squares], name="written")
        outs["written"] = tf.identity(squares.stack(), name="written_out")

        grown = tf.TensorArray(tf.int32, size=0, dynamic_size=True, name="grown")
        _, grown = tf.while_loop(lambda i, ta: i < n,
                                 lambda i, ta: [i + 1, ta.write(i, tf.fill([2], i * i))],
                                 [tf.constant(0), grown], name="grow")
        outs["grown_size"] = tf.identity(grown.size(), name="grown_size")
        outs["grown"] = tf.identity(grown.stack(), name="grown_out")

        pieces = tf.TensorArray(tf.float32, size=2, infer_shape=False, clear_after_read=False,
                                name="pieces")
        pieces = pieces.split(tf.reshape(x, [-1]), tf.stack([3, tf.size(x) - 3]))
        outs["concat"] = tf.identity(pieces.concat() * 2.0, name="concat_out")
        outs["piece1"] = tf.identity(pieces.read(1), name="piece1_out")
    graph_def = graph.as_graph_def()
    assert TENSOR_ARRAY_OPS <= ops_of(graph_def), TENSOR_ARRAY_OPS - ops_of(graph_def)
    data = {}
    feeds = [(rng.standard_normal((5, 4)), rng.standard_normal((6, 2, 3)), 3),
             (rng.standard_normal((1, 4)), rng.standard_normal((1, 2, 3)), 0),
             (rng.standard_normal((2, 4)), rng.standard_normal((3, 2, 3)), 5)]
    with tf.Session(graph=graph) as sess:
        for k, (xv, sv, nv) in enumerate(feeds):
            feed = {"x": xv.astype(np.float32), "seq": sv.astype(np.float32),
                    "n": np.array(nv, np.int32)}
            values = sess.run(outs, {f"{name}:0": v for name, v in feed.items()})
            for name, value in feed.items():
                data[f"case{k}:feed:{name}"] = value
            for key, tensor in outs.items():
                data[f"case{k}:fetch:{tensor.name}"] = values[key]
    write("tf_tensor_arrays.pb", graph_def)
    np.savez(os.path.join(HERE, "tf_tensor_arrays.npz"), **data)
    print("tensor arrays:", {k: t.name for k, t in outs.items()})


# --- a frozen dynamic_rnn classifier -----------------------------------------------------------

def dynamic_rnn():
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, None, 4], name="x")      # batch, time, features
        lengths = tf.placeholder(tf.int32, [None], name="lengths")
        cell = tf.nn.rnn_cell.LSTMCell(6)
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths,
                                           dtype=tf.float32, scope="rnn")
        tf.identity(outputs, name="outputs")
        dense = tf.get_variable("logits/kernel", [6, 3],
                                initializer=tf.constant_initializer(rng.standard_normal((6, 3))))
        tf.nn.softmax(tf.matmul(state.h, dense), name="probs")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["probs", "outputs"])
    assert {"TensorArrayV3", "TensorArrayWriteV3", "Enter"} <= ops_of(frozen), ops_of(frozen)
    assert "VariableV2" not in ops_of(frozen)
    graph = tf.Graph()
    data = {}
    with graph.as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as sess:
            for k, (batch, steps) in enumerate(((2, 1), (3, 5), (1, 8))):
                xv = rng.standard_normal((batch, steps, 4)).astype(np.float32)
                lv = rng.integers(0, steps + 1, batch).astype(np.int32)
                probs, outputs = sess.run(["probs:0", "outputs:0"],
                                          {"x:0": xv, "lengths:0": lv})
                data.update({f"feed:x{k}": xv, f"feed:lengths{k}": lv,
                             f"fetch:probs{k}": probs, f"fetch:outputs{k}": outputs})
    write("tf_tensor_array_rnn.pb", frozen)
    np.savez(os.path.join(HERE, "tf_tensor_array_rnn.npz"), **data)
    print("dynamic_rnn:", sorted(ops_of(frozen)))


tensor_arrays()
dynamic_rnn()
