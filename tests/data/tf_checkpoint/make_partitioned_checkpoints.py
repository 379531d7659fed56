"""Writes a checkpoint of partitioned variables with real TensorFlow (TF1's Saver writes
each as slices of one tensor) for tests/test_partitioned_checkpoints.py, and what
TensorFlow read back from it and computed after restoring it.

    /work/peers/bin/python tests/data/tf_checkpoint/make_partitioned_checkpoints.py

``embeddings.ckpt``: a wide model, ``wide/emb`` [7, 3] in 3 parts (rows 3, 2, 2) and
``wide/cols`` [4, 5] float64 cut in 2 along axis 1, trained 3 Adagrad steps (so the
Adagrad slots are sliced too), with an unpartitioned ``wide/bias`` and ``global_step``.
``embeddings_expected.npz``: every tensor ``NewCheckpointReader`` reads from it (keys with
"/" as "__"), and under ``after__*`` the full variables after TensorFlow restores the
checkpoint into the same model cut in 2 parts and trains 2 more steps.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = os.path.join(HERE, "embeddings.ckpt")
IDS = [np.array([0, 6, 3, 3], np.int64), np.array([5, 1], np.int64),
       np.array([2, 4, 6], np.int64), np.array([6, 0], np.int64),
       np.array([1, 1, 3], np.int64)]


def model(parts: int):
    rng = np.random.RandomState(0)
    emb0 = rng.standard_normal((7, 3)).astype(np.float32)
    cols0 = rng.standard_normal((4, 5))
    ids = tf.placeholder(tf.int64, [None], name="ids")
    with tf.variable_scope("wide", partitioner=tf.fixed_size_partitioner(parts)):
        emb = tf.get_variable("emb", [7, 3], initializer=emb0)
        cols = tf.get_variable("cols", [4, 5], tf.float64, initializer=cols0,
                               partitioner=tf.fixed_size_partitioner(2, axis=1))
        bias = tf.get_variable("bias", [], initializer=tf.constant_initializer(0.5))
    rows = tf.nn.embedding_lookup(emb, ids, partition_strategy="div")
    extra = tf.cast(tf.reduce_sum(tf.square(tf.convert_to_tensor(cols))), tf.float32)
    loss = tf.reduce_sum(tf.square(rows - 1.0)) + bias * bias + 0.01 * extra
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdagradOptimizer(0.3).minimize(loss, global_step=step)
    return ids, (emb, cols, bias), train


def main():
    with tf.Graph().as_default():
        ids, _, train = model(3)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for batch in IDS[:3]:
                sess.run(train, {ids: batch})
            tf.train.Saver().save(sess, PREFIX, write_meta_graph=False, write_state=False)
    reader = tf.train.NewCheckpointReader(PREFIX)
    expected = {name.replace("/", "__"): reader.get_tensor(name)
                for name in sorted(reader.get_variable_to_shape_map())}
    with tf.Graph().as_default():
        ids, (emb, cols, bias), train = model(2)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, PREFIX)
            for batch in IDS[3:]:
                sess.run(train, {ids: batch})
            for name, value in zip(("emb", "cols", "bias"),
                                   sess.run([emb.as_tensor(), cols.as_tensor(), bias])):
                expected[f"after__{name}"] = value
    np.savez(os.path.join(HERE, "embeddings_expected.npz"), **expected)
    print(sorted(expected))


if __name__ == "__main__":
    main()
