"""A small residual convnet trained as TF1 image-classification scripts do: conv2d
layers with kernel_regularizer (regularization losses collected and added), batch
normalization in training mode with its UPDATE_OPS run by a control dependency, a
residual shortcut, global average pooling by reduce_mean over [1, 2], one-hot labels
into softmax_cross_entropy_with_logits_v2, a piecewise-constant learning rate, Momentum
with Nesterov, and accuracy from argmax; then evaluation with training=False."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, size, channels, classes = 4, 6, 3, 3
    images = rng.standard_normal((batch, size, size, channels)).astype(np.float32)
    labels = rng.randint(0, classes, batch).astype(np.int32)

    x = tf.placeholder(tf.float32, [None, size, size, channels], name="images")
    y = tf.placeholder(tf.int32, [None], name="labels")
    is_training = tf.placeholder_with_default(False, [], name="is_training")
    reg = lambda w: 1e-3 * tf.nn.l2_loss(w)  # noqa: E731

    def conv(t, filters, name):
        shape = (3, 3, t.shape.as_list()[-1], filters)
        return tf.layers.conv2d(
            t, filters, 3, padding="same", use_bias=False, name=name,
            kernel_initializer=tf.constant_initializer(
                rng.standard_normal(shape).astype(np.float32) * 0.2),
            kernel_regularizer=reg)

    def bn_relu(t, name):
        return tf.nn.relu(tf.layers.batch_normalization(t, training=is_training, name=name))

    h = bn_relu(conv(x, 4, "conv0"), "bn0")
    shortcut = h
    h = bn_relu(conv(h, 4, "conv1"), "bn1")
    h = tf.layers.batch_normalization(conv(h, 4, "conv2"), training=is_training, name="bn2")
    h = tf.nn.relu(h + shortcut)
    pooled = tf.reduce_mean(h, axis=[1, 2])
    logits = tf.layers.dense(pooled, classes, name="fc",
                             kernel_initializer=tf.constant_initializer(
                                 rng.standard_normal((4, classes)).astype(np.float32) * 0.3),
                             kernel_regularizer=reg)
    xent = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.one_hot(y, classes), logits=logits))
    reg_losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    loss = xent + tf.add_n(reg_losses)
    step = tf.train.get_or_create_global_step()
    lr = tf.train.piecewise_constant(step, [2, 4], [0.1, 0.05, 0.01])
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train = tf.train.MomentumOptimizer(lr, 0.9, use_nesterov=True).minimize(
            loss, global_step=step)
    correct = tf.equal(tf.argmax(logits, 1, output_type=tf.int32), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    out["regularization_losses"] = len(reg_losses)
    out["update_ops"] = len(update_ops)
    out["pooled_shape"] = pooled.shape.as_list()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["eval_before"] = sess.run([loss, accuracy], {x: images, y: labels})
        history = []
        for _ in range(6):
            _, l, r = sess.run([train, loss, lr], {x: images, y: labels, is_training: True})
            history.append((float(l), float(r)))
        out["history"] = history
        out["eval_after"] = sess.run([loss, accuracy], {x: images, y: labels})
        out["bn0_moving_mean"] = sess.run(
            tf.get_default_graph().get_tensor_by_name("bn0/moving_mean:0"))
        out["global_step"] = int(sess.run(step))
