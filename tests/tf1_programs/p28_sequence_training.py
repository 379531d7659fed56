"""A TF1 training script of the kind people port: an LSTM over padded sequences
(sequence_length), a batch-normalized dense head whose moving averages run with the
train op (UPDATE_OPS), RMSProp, an exponential moving average of the weights, a
streaming accuracy on local variables, and a keep probability that is 1 unless fed."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    steps, depth, batch = 6, 3, 16
    xs = rng.standard_normal((batch, steps, depth)).astype(np.float32)
    lengths = rng.randint(1, steps + 1, batch).astype(np.int32)
    labels = (xs[:, 0, 0] > 0).astype(np.int64)

    x = tf.placeholder(tf.float32, [None, steps, depth], name="x")
    seq_len = tf.placeholder(tf.int32, [None], name="seq_len")
    y = tf.placeholder(tf.int64, [None], name="y")
    training = tf.placeholder_with_default(False, [], name="training")
    keep = tf.placeholder_with_default(1.0, [], name="keep")

    init = tf.constant_initializer(0.1)
    with tf.variable_scope("model", initializer=tf.random_uniform_initializer(-0.3, 0.3, seed=1)):
        cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(8, initializer=init),
                                             output_keep_prob=keep)
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=seq_len, dtype=tf.float32)
        first, rest = tf.split(outputs, [1, steps - 1], axis=1)
        features = tf.concat([state.h, tf.reduce_mean(rest, axis=1)], 1)
        hidden = tf.layers.dense(features, 8, kernel_initializer=init, name="hidden")
        hidden = tf.nn.relu6(tf.layers.batch_normalization(hidden, training=training,
                                                           momentum=0.8))
        logits = tf.layers.dense(hidden, 2, kernel_initializer=tf.constant_initializer(0.05),
                                 name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    step = tf.train.get_or_create_global_step()
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.RMSPropOptimizer(0.01, momentum=0.5).minimize(loss, global_step=step)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
    with tf.control_dependencies([train]):
        train_and_average = ema.apply(tf.trainable_variables())
    accuracy, accuracy_update = tf.metrics.accuracy(y, tf.argmax(logits, 1))

    out["variables"] = sorted(v.op.name for v in tf.global_variables())
    out["local_variables"] = sorted(v.op.name for v in tf.local_variables())
    out["update_ops"] = sorted(o.name for o in tf.get_collection(tf.GraphKeys.UPDATE_OPS))
    out["static_shapes"] = [outputs.shape.as_list(), first.shape.as_list(),
                            features.shape.as_list()]
    feed = {x: xs, seq_len: lengths, y: labels}
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        out["loss_before"] = sess.run(loss, feed)
        train_feed = dict(feed)
        train_feed[training] = True
        losses = []
        for _ in range(8):
            losses.append(sess.run([train_and_average, loss], train_feed)[1])
        out["losses"] = np.array(losses)
        out["loss_after"] = sess.run(loss, feed)
        moving = [v for v in tf.global_variables() if "moving_" in v.op.name]
        out["moving_mean_variance"] = sess.run(moving)
        out["shadow_of_logits_kernel"] = sess.run(
            ema.average([v for v in tf.trainable_variables()
                         if v.op.name == "model/logits/kernel"][0]))
        sess.run(accuracy_update, feed)
        out["accuracy"] = sess.run(accuracy)
        out["global_step"] = int(sess.run(step))
