"""Writes a checkpoint and its ``.meta`` with real TensorFlow (TF1's Saver) for
tests/test_meta_graph.py, and what TensorFlow computes from them.

    /work/peers/bin/python tests/data/tf_meta_graph/make_meta_graph.py

* A training graph (a two-layer regression net, plain gradient descent) is trained a few
  steps and checkpointed; its gradient ops are not part of what is shipped.
* The model graph (the same variables and names, no optimizer) restores that checkpoint
  and saves ``model.ckpt-5`` with ``saver.save``, which writes ``model.ckpt-5.meta``: the
  file a program without the model's Python code restores from.  Its collections:
  ``variables``, ``trainable_variables`` (``dense/w``, ``dense/b``, ``out/w``, ``out/b``;
  ``global_step`` and ``ema_scale`` are not trainable), ``global_step``, ``losses``
  (node list), ``inputs`` (node list: ``x:0``, ``y:0``), ``sizes`` (int64 list),
  ``rates`` (float list), ``tags`` (bytes list).
* ``renamed.ckpt`` (and ``.meta``): the same model and values in a graph with two
  Savers: the default one (``save/``) and the one that saved, built with a ``var_list``
  dict that renames every variable (``first/kernel``...; scope ``renamed_saver/``).
* ``expected.npz``: ``x``, ``y`` (the feed), ``logits`` and ``loss`` TF computes after
  ``import_meta_graph`` + ``restore``, and ``losses_after_steps``: the loss after each
  of 3 steps of ``GradientDescentOptimizer(0.05).minimize(loss)`` built on the imported
  graph (TF1's fine-tuning pattern), and the variables after them (``after/<name>``).
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = os.path.join(HERE, "model.ckpt")


def build_model(rng):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 2], name="y")
    with tf.name_scope("dense"):
        w1 = tf.Variable(rng.standard_normal((3, 4)).astype(np.float32), name="w")
        b1 = tf.Variable(np.zeros(4, np.float32), name="b")
    with tf.name_scope("out"):
        w2 = tf.Variable(rng.standard_normal((4, 2)).astype(np.float32), name="w")
        b2 = tf.Variable(np.zeros(2, np.float32), name="b")
    tf.Variable(np.float32(0.5), name="ema_scale", trainable=False)
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.identity(tf.matmul(hidden, w2) + b2, name="logits")
    loss = tf.reduce_mean(tf.square(logits - y), name="loss")
    return x, y, logits, loss


def main():
    rng = np.random.RandomState(0)
    x_in = rng.standard_normal((6, 3)).astype(np.float32)
    y_in = rng.standard_normal((6, 2)).astype(np.float32)
    train_prefix = os.path.join(HERE, "train_tmp")
    with tf.Graph().as_default():
        x, y, _, loss = build_model(np.random.RandomState(1))
        step = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                sess.run(train, {x: x_in, y: y_in})
            tf.train.Saver().save(sess, train_prefix, write_meta_graph=False,
                                  write_state=False)
    with tf.Graph().as_default():
        x, y, _, loss = build_model(np.random.RandomState(1))
        step = tf.train.get_or_create_global_step()
        tf.add_to_collection("losses", loss)
        for t in (x, y):
            tf.add_to_collection("inputs", t)
        for n in (3, 4, 2):
            tf.add_to_collection("sizes", n)
        tf.add_to_collection("rates", 0.05)
        tf.add_to_collection("rates", 0.25)
        tf.add_to_collection("tags", b"regression")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, train_prefix)
            prefix = saver.save(sess, PREFIX, global_step=step)
    with tf.Graph().as_default():
        build_model(np.random.RandomState(1))
        tf.train.get_or_create_global_step()
        default = tf.train.Saver()
        by_name = {v.op.name: v for v in tf.global_variables()}
        renamed = tf.train.Saver(
            {"first/kernel": by_name["dense/w"], "first/bias": by_name["dense/b"],
             "second/kernel": by_name["out/w"], "second/bias": by_name["out/b"],
             "scale": by_name["ema_scale"], "step": by_name["global_step"]},
            name="renamed_saver")
        with tf.Session() as sess:
            default.restore(sess, train_prefix)
            renamed.save(sess, os.path.join(HERE, "renamed.ckpt"), write_state=False)
    for name in os.listdir(HERE):
        if name.startswith("train_tmp"):
            os.remove(os.path.join(HERE, name))
    with open(os.path.join(HERE, "checkpoint"), "w") as f:    # relative, as TF reads it
        f.write('model_checkpoint_path: "model.ckpt-5"\n'
                'all_model_checkpoint_paths: "model.ckpt-5"\n')

    expected = {"x": x_in, "y": y_in}
    with tf.Graph().as_default() as graph:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            x = graph.get_tensor_by_name("x:0")
            y = graph.get_tensor_by_name("y:0")
            loss = graph.get_tensor_by_name("loss:0")
            feed = {x: x_in, y: y_in}
            expected["logits"], expected["loss"] = sess.run(
                [graph.get_tensor_by_name("logits:0"), loss], feed)
            train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
            losses = []
            for _ in range(3):
                sess.run(train, feed)
                losses.append(sess.run(loss, feed))
            expected["losses_after_steps"] = np.array(losses, np.float32)
            for var in tf.trainable_variables():
                expected["after/" + var.op.name] = sess.run(var)
    np.savez(os.path.join(HERE, "expected.npz"), **expected)
    print(sorted(os.listdir(HERE)))


if __name__ == "__main__":
    main()
