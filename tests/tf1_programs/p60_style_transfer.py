"""Optimising an image instead of weights, as TF1 neural-style scripts do: the image is the
only trainable variable (the "network", two fixed conv layers of constants, is not
trained: var_list), content and Gram-matrix style losses (tf.einsum and matmul with
transpose_a), tf.image.total_variation, Adam, and a tf.assign clipping the image back into
[0, 1] after each step through tf.control_dependencies."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    size = 8
    content_image = rng.uniform(0, 1, (1, size, size, 3)).astype(np.float32)
    style_image = rng.uniform(0, 1, (1, size, size, 3)).astype(np.float32)
    filters1 = rng.normal(0, 0.5, (3, 3, 3, 4)).astype(np.float32)
    filters2 = rng.normal(0, 0.5, (3, 3, 4, 4)).astype(np.float32)

    def features(image):
        h1 = tf.nn.relu(tf.nn.conv2d(image, filters1, [1, 1, 1, 1], "SAME"))
        h2 = tf.nn.relu(tf.nn.conv2d(tf.nn.avg_pool(h1, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
                                     filters2, [1, 1, 1, 1], "SAME"))
        return h1, h2

    def gram(feature):
        channels = int(feature.shape[-1])
        flat = tf.reshape(feature, [-1, channels])
        return tf.matmul(flat, flat, transpose_a=True) / tf.cast(tf.shape(flat)[0],
                                                                  tf.float32)

    image = tf.Variable(content_image, name="image")
    content_target = features(tf.constant(content_image))[1]
    style_targets = [tf.einsum("bhwc,bhwd->cd", f, f) / float(np.prod(f.shape[1:3]))
                     for f in features(tf.constant(style_image))]
    generated = features(image)
    content_loss = tf.reduce_mean(tf.square(generated[1] - content_target))
    style_loss = tf.add_n([tf.reduce_mean(tf.square(gram(f) - t))
                           for f, t in zip(generated, style_targets)])
    variation = tf.reduce_sum(tf.image.total_variation(image))
    loss = content_loss + 10.0 * style_loss + 1e-3 * variation
    optimizer = tf.train.AdamOptimizer(0.05)
    step = optimizer.minimize(loss, var_list=[image])
    with tf.control_dependencies([step]):
        train_op = tf.assign(image, tf.clip_by_value(image, 0.0, 1.0))

    out["trainable"] = [v.op.name for v in tf.trainable_variables()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["initial"] = np.array(sess.run([content_loss, style_loss, variation]))
        losses = [sess.run([train_op, loss])[1] for _ in range(10)]
        out["losses"] = np.array(losses)
        final = sess.run(image)
        out["image_range"] = [float(final.min()) >= 0.0, float(final.max()) <= 1.0]
        out["image_corner"] = final[0, :2, :2]
