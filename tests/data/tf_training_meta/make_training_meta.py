"""Writes TensorFlow *training* graphs, as a program saves them, for
tests/test_tf_training_graphs.py: each model's ``.meta`` (its optimizer's update ops,
gradient ops and all), the checkpoint ``saver.save`` wrote right after the variables were
initialized, and what TensorFlow computes from them.

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/tf_training_meta/make_training_meta.py

Each model is written twice (but ``RESOURCE_ONLY``), to ``<model>-ref/`` and
``<model>-resource/``: with TF1's reference variables (``VariableV2``, ``Assign``,
``ApplyAdam``...) and with the resource variables TensorFlow 2's ``tf.compat.v1`` makes by
default (``VarHandleOp``, ``ReadVariableOp``, ``ResourceApplyAdam``...).  The train op is
in the ``train_op`` collection, where TF1's ``minimize`` puts it.  ``expected.npz``: the
feed (``feed/<placeholder>``), ``losses`` (the loss ``sess.run([loss, train_op])``
returns at each of ``STEPS`` steps after ``import_meta_graph`` + ``restore``, TF1's
resume-training program) and the variables after them (``after/<name>``).  ``regression_momentum-resource/renamed.*``: the same
checkpoint and graph saved by a second Saver built with a ``var_list`` dict keying every
variable ``renamed/<name>`` (its ``.meta``'s SaverDef is that Saver's).
"""

import os
import shutil

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 4
RENAMED = "regression_momentum"     # its resource form also saves with renamed keys


def embedding_adam(rng):
    """An embedding (its gradient is row slices: Adam's sparse update) into a dense
    layer built from get_variable, bias_add and a max-with-zero, sparse xent; fixed
    batch."""
    x = tf.placeholder(tf.float32, [5, 6], name="x")
    ids = tf.placeholder(tf.int32, [5], name="ids")
    labels = tf.placeholder(tf.int32, [5], name="labels")
    emb = tf.get_variable("emb", [10, 6])
    w = tf.get_variable("w", [6, 8])
    b = tf.get_variable("b", [8], initializer=tf.zeros_initializer())
    h = tf.maximum(tf.nn.bias_add(tf.matmul(x + tf.nn.embedding_lookup(emb, ids), w), b), 0.)
    logits = tf.matmul(h, tf.get_variable("w2", [8, 3]))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits), name="loss")
    feed = {"x": rng.standard_normal((5, 6)), "ids": rng.integers(0, 10, 5),
            "labels": rng.integers(0, 3, 5)}
    return loss, tf.train.AdamOptimizer(0.05), feed


def regression_momentum(rng):
    """Two dense layers (tanh-free: matmul, add, max) with an L2 penalty, a squared
    error loss, Nesterov momentum; fixed batch."""
    x = tf.placeholder(tf.float32, [6, 3], name="x")
    y = tf.placeholder(tf.float32, [6, 2], name="y")
    w1 = tf.get_variable("w1", [3, 4], initializer=tf.truncated_normal_initializer(0, 0.5))
    b1 = tf.get_variable("b1", [4], initializer=tf.constant_initializer(0.1))
    w2 = tf.get_variable("w2", [4, 2])
    h = tf.maximum(tf.matmul(x, w1) + b1, 0.)
    loss = tf.add(tf.reduce_mean(tf.square(tf.matmul(h, w2) - y)),
                  1e-3 * (tf.nn.l2_loss(w1) + tf.nn.l2_loss(w2)), name="loss")
    feed = {"x": rng.standard_normal((6, 3)), "y": rng.standard_normal((6, 2))}
    return loss, tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True), feed


def layers_mlp_sgd(rng):
    """tf.layers.dense with ReLU (TF's ReluGrad, BiasAddGrad), a batch of unknown size
    (BroadcastGradientArgs and run-time shapes in the gradients), glorot-uniform kernels
    drawn by TF's stateless random ops, plain SGD."""
    x = tf.placeholder(tf.float32, [None, 6], name="x")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    h = tf.layers.dense(x, 16, activation=tf.nn.relu)
    h = tf.layers.dense(h, 8, activation=tf.nn.relu)
    logits = tf.layers.dense(h, 4)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits), name="loss")
    feed = {"x": rng.standard_normal((7, 6)), "labels": rng.integers(0, 4, 7)}
    return loss, tf.train.GradientDescentOptimizer(0.1), feed


def layers_convnet_adam(rng):
    """tf.layers' conv2d + ReLU, max pooling, batch normalization in training mode (its
    moving statistics updated through UPDATE_OPS), dense; softmax cross-entropy on
    one-hot labels; Adam; a batch of unknown size."""
    x = tf.placeholder(tf.float32, [None, 8, 8, 2], name="x")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    h = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.batch_normalization(h, training=True)
    logits = tf.layers.dense(tf.reshape(h, [-1, 4 * 4 * 4]), 5)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.one_hot(labels, 5), logits=logits), name="loss")
    feed = {"x": rng.standard_normal((6, 8, 8, 2)), "labels": rng.integers(0, 5, 6)}
    return loss, tf.train.AdamOptimizer(0.01), feed


def loop_rnn_sgd(rng):
    """A recurrence stepped by tf.while_loop, which TensorFlow 2 writes as control flow
    v2: a While whose body reads the variables, and whose gradient is a second While
    popping what the first pushed on TensorLists; squared error, SGD."""
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 4], name="y")
    w = tf.get_variable("w", [4, 4], initializer=tf.constant_initializer(
        0.5 * rng.standard_normal((4, 4))))
    b = tf.get_variable("b", [4], initializer=tf.zeros_initializer())
    _, h = tf.while_loop(lambda i, h: i < 3,
                         lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + b)), [0, x])
    loss = tf.reduce_mean(tf.square(h - y), name="loss")
    feed = {"x": rng.standard_normal((5, 4)), "y": rng.standard_normal((5, 4))}
    return loss, tf.train.GradientDescentOptimizer(0.2), feed


def cond_batch_norm_momentum(rng):
    """tf.layers.batch_normalization following an ``is_training`` placeholder, which
    TensorFlow 2 writes as an If (control flow v2) whose gradient reads the forward
    branch's intermediates through Optionals; a second tf.cond on the data; momentum."""
    x = tf.placeholder(tf.float32, [None, 5], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    training = tf.placeholder(tf.bool, [], name="training")
    h = tf.layers.dense(x, 6, kernel_initializer=tf.constant_initializer(
        0.4 * rng.standard_normal((5, 6))))
    h = tf.nn.relu(tf.layers.batch_normalization(h, training=training))
    h = tf.cond(tf.reduce_mean(h) > 0.5, lambda: h * 0.5, lambda: h + 0.1)
    out = tf.layers.dense(h, 2, kernel_initializer=tf.constant_initializer(
        0.4 * rng.standard_normal((6, 2))))
    loss = tf.reduce_mean(tf.square(out - y), name="loss")
    feed = {"x": rng.standard_normal((6, 5)), "y": rng.standard_normal((6, 2)),
            "training": True}
    return loss, tf.train.MomentumOptimizer(0.1, 0.9), feed


def rnn_cells_adam(rng):
    """tf.nn.dynamic_rnn over an LSTMCell (with sequence_length) and a GRUCell stacked on
    it: TF 2's loops over TensorLists, their gradients (the lists' gradients summed and
    zeroed, elements set again), Adam."""
    x = tf.placeholder(tf.float32, [None, None, 3], name="x")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(5), x, sequence_length=lengths,
                               dtype=tf.float32)
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), out, dtype=tf.float32, scope="gru")
    loss = tf.reduce_mean(tf.square(tf.reduce_sum(out, 1)), name="loss")
    feed = {"x": rng.standard_normal((3, 6, 3)), "lengths": np.array([6, 2, 4])}
    return loss, tf.train.AdamOptimizer(0.01), feed


MODELS = {"embedding_adam": embedding_adam, "regression_momentum": regression_momentum,
          "layers_mlp_sgd": layers_mlp_sgd, "layers_convnet_adam": layers_convnet_adam,
          "loop_rnn_sgd": loop_rnn_sgd, "cond_batch_norm_momentum": cond_batch_norm_momentum,
          "rnn_cells_adam": rnn_cells_adam}


def write(name, build, resource: bool):
    out = os.path.join(HERE, f"{name}-{'resource' if resource else 'ref'}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    prefix = os.path.join(out, "model")
    rng = np.random.default_rng(0)
    with tf.Graph().as_default() as graph:
        tf.set_random_seed(1)
        with tf.variable_scope("", use_resource=resource):
            loss, optimizer, feed = build(rng)
            step = tf.train.get_or_create_global_step()
            with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
                train = optimizer.minimize(loss, global_step=step, name="train")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, prefix, write_state=False)
            if resource and name == RENAMED:
                renaming = tf.train.Saver({f"renamed/{v.op.name}": v
                                           for v in tf.global_variables()}, name="renamed")
                renaming.save(sess, os.path.join(out, "renamed"), write_state=False)
    feed = {k: np.asarray(v, {"i": np.int32, "b": np.bool_}.get(np.asarray(v).dtype.kind,
                                                                   np.float32))
            for k, v in feed.items()}
    expected = {f"feed/{k}": v for k, v in feed.items()}
    with tf.Graph().as_default() as graph:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            train = tf.get_collection("train_op")[0]
            fed = {graph.get_tensor_by_name(f"{k}:0"): v for k, v in feed.items()}
            expected["losses"] = np.array(
                [sess.run(["loss:0", train], fed)[0] for _ in range(STEPS)], np.float32)
            for var in tf.global_variables():
                expected[f"after/{var.op.name}"] = sess.run(var)
        ops = sorted({n.op for n in graph.as_graph_def().node})
    np.savez(os.path.join(out, "expected.npz"), **expected)
    print(out, ops)


# TF 2.21 cannot build these with reference variables (batch norm's moving averages
# under a v2 cond take a ref input).
RESOURCE_ONLY = {"cond_batch_norm_momentum"}


def main():
    for name, build in MODELS.items():
        for resource in (True,) if name in RESOURCE_ONLY else (False, True):
            write(name, build, resource)


if __name__ == "__main__":
    main()
