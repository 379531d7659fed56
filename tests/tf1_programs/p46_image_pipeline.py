"""An image-classification input pipeline and model in the TF1 style of the CIFAR/ImageNet
tutorials: tf.data from in-memory uint8 images, a map that converts and augments each image
deterministically (convert_image_dtype, flip_left_right on odd labels,
resize_image_with_crop_or_pad, per_image_standardization), batch, repeat, an initializable
iterator re-initialised per epoch with a different feed; a convnet of tf.layers with batch
normalisation (UPDATE_OPS run with the train op), L2 kernel regularizers summed by
tf.losses.get_regularization_loss, Momentum, and streaming tf.metrics.accuracy /
mean_per_class_accuracy over an evaluation pass."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    count, size, classes = 12, 6, 3
    images = rng.randint(0, 256, (count, size, size, 3)).astype(np.uint8)
    labels = rng.randint(0, classes, count).astype(np.int64)

    images_in = tf.placeholder(tf.uint8, [None, size, size, 3], name="images")
    labels_in = tf.placeholder(tf.int64, [None], name="labels")

    def preprocess(image, label):
        image = tf.image.convert_image_dtype(image, tf.float32)
        image = tf.cond(tf.equal(label % 2, 1), lambda: tf.image.flip_left_right(image),
                        lambda: image)
        image = tf.image.resize_image_with_crop_or_pad(image, size + 2, size + 2)
        image = tf.image.per_image_standardization(image)
        return image, label

    dataset = (tf.data.Dataset.from_tensor_slices((images_in, labels_in))
               .map(preprocess).batch(4).repeat(1))
    iterator = dataset.make_initializable_iterator()
    image_batch, label_batch = iterator.get_next()
    training = tf.placeholder_with_default(False, [], name="training")

    def kernel(shape):
        return tf.constant_initializer(rng.normal(0, 0.3, shape))

    regularizer = lambda w: 0.001 * tf.nn.l2_loss(w)  # noqa: E731
    net = tf.layers.conv2d(image_batch, 4, 3, padding="same", use_bias=False,
                           kernel_initializer=kernel((3, 3, 3, 4)),
                           kernel_regularizer=regularizer, name="conv1")
    net = tf.layers.batch_normalization(net, training=training, momentum=0.9, name="bn1")
    net = tf.layers.max_pooling2d(tf.nn.relu(net), 2, 2, name="pool1")
    net = tf.layers.flatten(net)
    logits = tf.layers.dense(net, classes, kernel_initializer=kernel((64, classes)),
                             kernel_regularizer=regularizer, name="logits")
    xent = tf.losses.sparse_softmax_cross_entropy(labels=label_batch, logits=logits)
    loss = xent + tf.losses.get_regularization_loss()
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    predictions = tf.argmax(logits, 1)
    accuracy, accuracy_update = tf.metrics.accuracy(label_batch, predictions)
    per_class, per_class_update = tf.metrics.mean_per_class_accuracy(
        label_batch, predictions, classes)

    out["image_batch_shape"] = image_batch.shape.as_list()
    out["update_ops"] = sorted(op.name for op in update_ops)
    out["regularization_losses"] = len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
    out["local_variables"] = sorted(v.op.name for v in tf.local_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(iterator.initializer, {images_in: images[:1], labels_in: labels[:1]})
        out["first_image"] = sess.run(image_batch)[0]
        losses = []
        for epoch in range(3):
            sess.run(iterator.initializer, {images_in: images, labels_in: labels})
            while True:
                try:
                    losses.append(sess.run([train_op, loss], {training: True})[1])
                except tf.errors.OutOfRangeError:
                    break
        out["losses"] = np.array(losses)
        out["moving_stats"] = sess.run([v for v in tf.global_variables()
                                        if "moving" in v.op.name])
        sess.run(tf.local_variables_initializer())
        sess.run(iterator.initializer, {images_in: images, labels_in: labels})
        while True:
            try:
                sess.run([accuracy_update, per_class_update])
            except tf.errors.OutOfRangeError:
                break
        out["accuracy"] = sess.run(accuracy)
        out["mean_per_class_accuracy"] = sess.run(per_class)
