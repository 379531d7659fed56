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
same weights and feeds), but ``tf.scan``: TF 2's loops keep TensorLists, recorded in
``tf_v2_tensor_lists`` (below) with more of them.  And ``tf_v2_resource_loop`` (below):
functions reading resource variables; ``tf_v2_function_calls``: tf.functions called in a
graph; ``tf_v2_keras_rnn``: Keras 2's recurrent layers, frozen.
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
    read (``ReadVariableOp``, ``ResourceGather`` of the handle passed in), and a loop
    whose body adds to a variable and reads it back.  ``tf_v2_resource_loop.npz``:
    ``feed:x``, ``fetch:y``, ``fetch:counted`` (the second loop's result) and
    ``fetch:counter`` (the variable after it, ``counter_after:0``), the initializer run
    first."""
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
        counter = tf.get_variable("counter", [], initializer=tf.zeros_initializer())

        def count(i, total):                  # assigns a variable, reads it back
            with tf.control_dependencies([counter.assign_add(tf.reduce_sum(x) * 0.5)]):
                return i + 1, total + counter.read_value()

        # one iteration at a time: TF runs iterations in parallel otherwise, and a read
        # may then see a later iteration's add
        _, counted = tf.while_loop(lambda i, t: i < 4, count, [0, 0.0], parallel_iterations=1)
        tf.identity(counted, name="counted")
        with tf.control_dependencies([counted]):
            tf.identity(counter.read_value(), name="counter_after")
        tf.variables_initializer([w, emb, counter], name="init")
        graph_def = graph.as_graph_def()
        feed = rng.standard_normal((4, 3)).astype(np.float32)
        with tf.Session() as sess:
            sess.run("init")
            value = sess.run("y:0", {x: feed})
            counted = sess.run(["counted:0", "counter_after:0"], {x: feed})
    ops = {n.op for n in graph_def.node}
    assert {"VarHandleOp", "While"} <= ops, ops
    with open(os.path.join(HERE, "tf_v2_resource_loop.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    np.savez(os.path.join(HERE, "tf_v2_resource_loop.npz"),
             **{"feed:x": feed, "fetch:y": value, "fetch:counted": counted[0],
                "fetch:counter": counted[1]})


def record_cases(stem, graph, graph_def, outs: dict, x, rng, rows, init=None) -> None:
    """Writes ``<stem>.pb`` and ``<stem>.npz``: per count of ``rows``, a random ``x`` of
    that many rows of 3 (``case<k>:feed:x``) and what TF computes for ``outs``
    (``case<k>:fetch:<tensor>``), after running ``init`` when given."""
    data = {}
    with tf.Session(graph=graph) as sess:
        if init is not None:
            sess.run(init)
        for k, count in enumerate(rows):
            feed = rng.standard_normal((count, 3)).astype(np.float32)
            values = sess.run(outs, {x: feed})
            data[f"case{k}:feed:x"] = feed
            for name, value in values.items():
                data[f"case{k}:fetch:{outs[name].name}"] = value
    with open(os.path.join(HERE, f"{stem}.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    np.savez(os.path.join(HERE, f"{stem}.npz"), **data)


def tensor_lists():
    """``tf_v2_tensor_lists.pb``: TF 2's TensorArrays (TensorLists) in loops: ``tf.map_fn``
    (one output and two), ``tf.scan``, a ``tf.TensorArray`` of dynamic size written in a
    ``tf.while_loop`` and read back by ``stack``, ``gather``, ``read`` and ``size``, a
    map_fn nested in a map_fn, a loop whose cond reads a list's size, and the gradient of a loop (its accumulators pushed and
    popped back).  ``tf_v2_tensor_lists.npz``: ``case<k>:feed:x`` (rows of several
    counts) and ``case<k>:fetch:<tensor>``."""
    rng = np.random.default_rng(13)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        outs = {"map": tf.map_fn(lambda r: r * 2.0 + tf.reduce_sum(r), x)}
        outs["map_pair_sum"], outs["map_pair_max"] = tf.map_fn(
            lambda r: (tf.reduce_sum(r), tf.reduce_max(r)), x, dtype=(tf.float32, tf.float32))
        outs["scan"] = tf.scan(lambda acc, r: acc * 0.5 + r, x)

        def write(i, ta):
            return i + 1, ta.write(i, x[i] * tf.cast(i + 1, tf.float32))

        _, written = tf.while_loop(lambda i, ta: i < tf.shape(x)[0], write,
                                   [0, tf.TensorArray(tf.float32, size=0, dynamic_size=True)])
        outs["stacked"] = written.stack()
        outs["gathered"] = written.gather([0, 0])
        outs["read"] = written.read(0)
        outs["size"] = written.size()
        outs["nested"] = tf.map_fn(lambda r: tf.map_fn(lambda v: v * v, r), x)
        _, sized = tf.while_loop(lambda i, ta: ta.size() < 4,        # the cond reads a list
                                 lambda i, ta: (i + 1, ta.write(i, tf.reduce_sum(x) * 2.0)),
                                 [0, tf.TensorArray(tf.float32, size=0, dynamic_size=True)])
        outs["size_cond"] = sized.stack()
        _, rows = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(h * 1.5)),
                                [0, x])
        (outs["loop_gradient"],) = tf.gradients(tf.reduce_sum(rows), [x])
        outs = {k: tf.identity(v, name=k) for k, v in outs.items()}
    graph_def = graph.as_graph_def()
    ops = {n.op for n in graph_def.node} | {n.op for f in graph_def.library.function
                                             for n in f.node_def}
    assert {"TensorListReserve", "TensorListPopBack", "TensorListPushBack"} <= ops, ops
    record_cases("tf_v2_tensor_lists", graph, graph_def, outs, x, rng, (1, 4, 6))
    print("tensor lists:", sorted(o for o in ops if "TensorList" in o))


def function_calls():
    """``tf_v2_function_calls.pb``: ``tf.function``s called in a graph (TF's
    ``StatefulPartitionedCall``/``PartitionedCall``): one of two results, one calling
    another, one stepping a loop, one reading a resource variable passed in.
    ``tf_v2_function_calls.npz``: ``case<k>:feed:x`` and ``case<k>:fetch:<tensor>``."""
    rng = np.random.default_rng(17)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.get_variable("w", [3, 3], initializer=tf.constant_initializer(
            rng.standard_normal((3, 3))))

        @tf.function
        def affine(a, b):
            return a * 2.0 + b, tf.reduce_sum(a)

        @tf.function
        def twice(a):
            return affine(a, 1.0)[0] * affine(a, -1.0)[1]

        @tf.function
        def steps(a):
            return tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, tf.tanh(h)), [0, a])[1]

        @tf.function
        def project(a):
            return tf.matmul(a, w)

        first, total = affine(x, 0.5)
        outs = {"first": first, "total": total, "twice": twice(x), "steps": steps(x),
                "project": project(x)}
        outs = {k: tf.identity(v, name=k) for k, v in outs.items()}
        tf.variables_initializer([w], name="init")
    graph_def = graph.as_graph_def()
    ops = {n.op for n in graph_def.node}
    assert ops & {"PartitionedCall", "StatefulPartitionedCall"}, ops
    record_cases("tf_v2_function_calls", graph, graph_def, outs, x, rng, (1, 4), init="init")
    print("function calls:", sorted(ops))


def keras_rnn():
    """``tf_v2_keras_rnn.pb``: Keras 2's Bidirectional LSTM and GRU layers in TF 2's graph
    mode, frozen: loops that push every intermediate (lists among them) onto lists for a
    gradient that is not there.  ``tf_v2_keras_rnn.npz``: ``case<k>:feed:x`` (sequences
    of several lengths) and ``case<k>:fetch:y:0``."""
    import tf_keras as keras

    rng = np.random.default_rng(19)
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, None, 3], name="x")
        h = keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True))(x)
        tf.identity(keras.layers.GRU(3)(h), name="y")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["y"])
            data = {}
            for k, steps in enumerate((1, 5)):
                feed = rng.standard_normal((2, steps, 3)).astype(np.float32)
                data[f"case{k}:feed:x"] = feed
                data[f"case{k}:fetch:y:0"] = sess.run("y:0", {x: feed})
    assert "TensorListPushBack" in {n.op for f in frozen.library.function for n in f.node_def}
    with open(os.path.join(HERE, "tf_v2_keras_rnn.pb"), "wb") as f:
        f.write(frozen.SerializeToString())
    np.savez(os.path.join(HERE, "tf_v2_keras_rnn.npz"), **data)


resource_loop()
tensor_lists()
function_calls()
keras_rnn()
