"""A tiny U-Net for binary segmentation, the TF1 way: tf.layers.conv2d encoders with
max_pooling2d, a decoder up-sampling both with tf.layers.conv2d_transpose and with
tf.image.resize_images (bilinear and nearest) and with tf.nn.conv2d_transpose whose
output_shape is built from tf.shape at run time (the batch is None), skip connections by
tf.concat, a per-pixel sigmoid cross entropy weighted by tf.where, Adam, and tf.metrics.mean_iou
over the thresholded predictions."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    size, batch = 8, 3
    images = rng.normal(size=(2, batch, size, size, 1)).astype(np.float32)
    masks = (images > 0.3).astype(np.float32)

    x = tf.placeholder(tf.float32, [None, size, size, 1], name="image")
    y = tf.placeholder(tf.float32, [None, size, size, 1], name="mask")

    def init(shape):
        return tf.constant_initializer(rng.normal(0, 0.4, shape))

    down1 = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu,
                             kernel_initializer=init((3, 3, 1, 4)), name="down1")
    pooled1 = tf.layers.max_pooling2d(down1, 2, 2, name="pool1")
    down2 = tf.layers.conv2d(pooled1, 6, 3, padding="same", activation=tf.nn.relu,
                             kernel_initializer=init((3, 3, 4, 6)), name="down2")
    pooled2 = tf.layers.max_pooling2d(down2, 2, 2, name="pool2")

    up2 = tf.layers.conv2d_transpose(pooled2, 6, 2, strides=2, padding="same",
                                     kernel_initializer=init((2, 2, 6, 6)), name="up2")
    resized = tf.image.resize_images(pooled2, [size // 2, size // 2],
                                     method=tf.image.ResizeMethod.BILINEAR)
    merged2 = tf.concat([up2 + resized, down2], axis=3)
    filters = tf.get_variable("up1_filter", initializer=rng.normal(
        0, 0.4, (2, 2, 4, 12)).astype(np.float32))
    shape = tf.stack([tf.shape(merged2)[0], size, size, 4])
    up1 = tf.nn.conv2d_transpose(merged2, filters, shape, [1, 2, 2, 1], padding="SAME")
    nearest = tf.image.resize_nearest_neighbor(down1, [size, size])
    merged1 = tf.concat([tf.nn.relu(up1), nearest], axis=3)
    logits = tf.layers.conv2d(merged1, 1, 1, kernel_initializer=init((1, 1, 8, 1)),
                              name="logits")

    weights = tf.where(y > 0.5, tf.fill(tf.shape(y), 2.0), tf.ones_like(y))
    loss = tf.losses.sigmoid_cross_entropy(y, logits, weights=weights)
    train_op = tf.train.AdamOptimizer(0.02).minimize(loss)
    predicted = tf.cast(logits > 0.0, tf.int32)
    iou, iou_update = tf.metrics.mean_iou(tf.cast(y, tf.int32), predicted, num_classes=2)

    out["shapes"] = [t.shape.as_list() for t in (up2, resized, up1, logits)]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        losses = []
        for step in range(10):
            feed = {x: images[step % 2], y: masks[step % 2]}
            losses.append(sess.run([train_op, loss], feed)[1])
        out["losses"] = np.array(losses)
        for i in range(2):
            sess.run(iou_update, {x: images[i], y: masks[i]})
        out["mean_iou"] = sess.run(iou)
        out["logits"] = sess.run(logits, {x: images[0][:1]})[0, :, :, 0]
