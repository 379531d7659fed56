"""A bidirectional GRU sequence classifier in the TF1 style of sentiment tutorials:
embedding lookup, tf.nn.bidirectional_dynamic_rnn over GRU cells with per-example
sequence_length, a masked mean over time (tf.sequence_mask), Adam with an exponentially
decayed (staircase) learning rate, gradients clipped by value, and an exponential moving
average of the weights (ExponentialMovingAverage.apply after the train op,
ema.average, variables_to_restore) evaluated through a Saver that restores the averages."""

import os
import tempfile

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    vocab, emb, units, batch, steps = 13, 5, 4, 4, 6
    tokens = rng.randint(1, vocab, (3, batch, steps)).astype(np.int32)
    lengths = np.array([[6, 3, 1, 4], [2, 6, 5, 6], [6, 1, 2, 3]], np.int32)
    labels = rng.randint(0, 2, (3, batch)).astype(np.int64)

    words = tf.placeholder(tf.int32, [None, steps], name="words")
    length = tf.placeholder(tf.int32, [None], name="length")
    label = tf.placeholder(tf.int64, [None], name="label")
    with tf.variable_scope("classifier"):
        table = tf.get_variable(
            "embedding", initializer=rng.uniform(-0.5, 0.5, (vocab, emb)).astype(np.float32))
        embedded = tf.nn.embedding_lookup(table, words)
        kernels = np.random.RandomState(1)

        def init(shape, dtype=None, **_):
            return tf.constant(kernels.uniform(-0.4, 0.4, shape).astype(np.float32))

        with tf.variable_scope("rnn", initializer=tf.glorot_uniform_initializer(seed=1)):
            fw = tf.nn.rnn_cell.GRUCell(units, kernel_initializer=init, name="fw")
            bw = tf.nn.rnn_cell.GRUCell(units, kernel_initializer=init, name="bw")
            (out_fw, out_bw), (state_fw, state_bw) = tf.nn.bidirectional_dynamic_rnn(
                fw, bw, embedded, sequence_length=length, dtype=tf.float32)
        both = tf.concat([out_fw, out_bw], axis=2)
        mask = tf.cast(tf.sequence_mask(length, steps), tf.float32)
        pooled = tf.reduce_sum(both * mask[:, :, None], axis=1) / tf.cast(
            tf.maximum(length, 1), tf.float32)[:, None]
        w = tf.get_variable("w", initializer=rng.uniform(-0.5, 0.5, (2 * units, 2)).astype(
            np.float32))
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        logits = tf.matmul(pooled, w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=label, logits=logits))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), label), tf.float32))

    global_step = tf.train.get_or_create_global_step()
    rate = tf.train.exponential_decay(0.05, global_step, decay_steps=2, decay_rate=0.5,
                                      staircase=True)
    optimizer = tf.train.AdamOptimizer(rate)
    grads_and_vars = [(tf.clip_by_value(g, -0.1, 0.1), v)
                      for g, v in optimizer.compute_gradients(loss)]
    minimize = optimizer.apply_gradients(grads_and_vars, global_step=global_step)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=global_step)
    with tf.control_dependencies([minimize]):
        train_op = ema.apply(tf.trainable_variables())

    out["trainable"] = [v.op.name for v in tf.trainable_variables()]
    out["state_shapes"] = [state_fw.shape.as_list(), state_bw.shape.as_list()]
    out["average_name"] = ema.average_name(w)
    out["restore_names"] = sorted(ema.variables_to_restore().keys())
    saver = tf.train.Saver()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.ckpt")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses, rates = [], []
            for step in range(6):
                batch_i = step % 3
                feed = {words: tokens[batch_i], length: lengths[batch_i],
                        label: labels[batch_i]}
                _, l, r = sess.run([train_op, loss, rate], feed)
                losses.append(l)
                rates.append(r)
            out["losses"] = np.array(losses)
            out["rates"] = np.array(rates)
            out["w"] = sess.run(w)
            out["w_average"] = sess.run(ema.average(w))
            out["final_fw_state"] = sess.run(state_fw, {words: tokens[0], length: lengths[0]})
            saver.save(sess, path)
        averaged = tf.train.Saver(ema.variables_to_restore())
        with tf.Session() as sess:
            averaged.restore(sess, path)
            out["w_restored_from_average"] = sess.run(w)
            out["accuracy_with_averages"] = sess.run(
                accuracy, {words: tokens[1], length: lengths[1], label: labels[1]})
