"""Partitioned embeddings for parameter-server training: a wide model whose embedding is
cut by tf.fixed_size_partitioner, looked up with partition_strategy "div" and "mod",
trained a few Adagrad steps, saved, and restored into a graph cut in another number of
parts and into an unpartitioned one."""

import os
import tempfile

import numpy as np


def build(tf, parts, emb0, wide0):
    """The model; ``parts`` None: no partitioner."""
    ids = tf.placeholder(tf.int64, [None, 2], name="ids")
    labels = tf.placeholder(tf.float32, [None, 1], name="labels")
    partitioner = tf.fixed_size_partitioner(parts) if parts else None
    with tf.variable_scope("wide", partitioner=partitioner):
        emb = tf.get_variable("emb", [11, 4] if parts else None, initializer=emb0)
        wide = tf.get_variable("wide_w", [4, 1] if parts else None, initializer=wide0)
        bias = tf.get_variable("bias", [], initializer=tf.constant_initializer(0.1))
    rows = tf.nn.embedding_lookup(emb, ids, partition_strategy="div")
    features = tf.reduce_sum(rows, axis=1)
    logits = tf.matmul(features, wide) + bias
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels,
                                                                  logits=logits))
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdagradOptimizer(0.5).minimize(loss, global_step=step)
    return ids, labels, emb, loss, train


def main(tf, out):
    ckpt_dir = tempfile.mkdtemp(prefix="tf1prog_partitioned_")
    rng = np.random.RandomState(0)
    emb0 = rng.standard_normal((11, 4)).astype(np.float32)
    wide0 = rng.standard_normal((4, 1)).astype(np.float32)
    batch_ids = rng.randint(0, 11, size=(6, 2)).astype(np.int64)
    batch_labels = (rng.uniform(size=(6, 1)) > 0.5).astype(np.float32)

    out["fixed_3"] = tf.fixed_size_partitioner(3)(shape=tf.TensorShape([11, 4]),
                                                  dtype=tf.float32)
    out["axis_size"] = tf.variable_axis_size_partitioner(64)(tf.TensorShape([11, 4]),
                                                             tf.float32)
    out["min_max"] = tf.min_max_variable_partitioner(4, min_slice_size=48)(
        tf.TensorShape([11, 4]), tf.float32)

    with tf.Graph().as_default():
        ids, labels, emb, loss, train = build(tf, 3, emb0, wide0)
        out["parts"] = [v.op.name for v in emb]
        out["part_shapes"] = [v.get_shape().as_list() for v in emb]
        out["len"] = len(emb)
        out["full_shape"] = emb.get_shape().as_list()
        out["trainable"] = [v.op.name for v in tf.trainable_variables()]
        out["slots"] = sorted(v.op.name for v in tf.global_variables()
                              if v.op.name.endswith("Adagrad"))
        mod_rows = tf.nn.embedding_lookup(list(emb), [[0, 10], [5, 3]])
        saver = tf.train.Saver()
        feed = {ids: batch_ids, labels: batch_labels}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["initial"] = sess.run(tf.convert_to_tensor(emb))
            out["mod_rows"] = sess.run(mod_rows)
            out["losses"] = [float(sess.run([loss, train], feed)[0]) for _ in range(4)]
            out["trained"] = sess.run(emb.as_tensor())
            out["trained_parts"] = sess.run(list(emb))
            path = saver.save(sess, os.path.join(ckpt_dir, "model.ckpt"), global_step=4)
            out["loss_at_save"] = float(sess.run(loss, feed))
    reader = tf.train.NewCheckpointReader(path)
    shapes = reader.get_variable_to_shape_map()
    out["checkpoint_shapes"] = {name: shapes[name] for name in sorted(shapes)}
    out["checkpoint_emb"] = reader.get_tensor("wide/emb")

    for parts in (2, None):
        with tf.Graph().as_default():
            ids, labels, emb, loss, train = build(tf, parts, emb0, wide0)
            feed = {ids: batch_ids, labels: batch_labels}
            with tf.Session() as sess:
                tf.train.Saver().restore(sess, path)
                key = f"restored_{parts or 'whole'}"
                out[key] = sess.run(tf.convert_to_tensor(emb))
                out[key + "_loss"] = float(sess.run(loss, feed))
                sess.run(train, feed)
                out[key + "_after_step"] = sess.run(tf.convert_to_tensor(emb))
    for name in os.listdir(ckpt_dir):
        os.remove(os.path.join(ckpt_dir, name))
    os.rmdir(ckpt_dir)
