"""tf.data input as TF1 training scripts switch it between training and validation:
an initializable iterator over placeholders (re-initialized each epoch, the epoch ending
on OutOfRangeError), a one-shot iterator for validation, and a feedable iterator
(tf.data.Iterator.from_string_handle) whose string handle picks the source per run;
a model trained on the batches it yields."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    features = rng.standard_normal((10, 2)).astype(np.float32)
    targets = (features @ np.array([[2.0], [-1.0]], np.float32)).astype(np.float32)
    val_features = rng.standard_normal((4, 2)).astype(np.float32)
    val_targets = (val_features @ np.array([[2.0], [-1.0]], np.float32)).astype(np.float32)

    fx = tf.placeholder(tf.float32, [None, 2], name="fx")
    fy = tf.placeholder(tf.float32, [None, 1], name="fy")
    train_ds = tf.data.Dataset.from_tensor_slices((fx, fy)).batch(4)
    val_ds = tf.data.Dataset.from_tensor_slices((val_features, val_targets)).batch(4).repeat()
    train_iter = tf.data.make_initializable_iterator(train_ds)
    val_iter = tf.data.make_one_shot_iterator(val_ds)
    handle = tf.placeholder(tf.string, [], name="handle")
    iterator = tf.data.Iterator.from_string_handle(
        handle, tf.data.get_output_types(train_ds), tf.data.get_output_shapes(train_ds))
    x, y = iterator.get_next()
    w = tf.Variable(np.zeros((2, 1), np.float32), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    train = tf.train.GradientDescentOptimizer(0.2).minimize(loss)

    out["output_shapes"] = [s.as_list() for s in tf.data.get_output_shapes(train_ds)]
    out["next_shapes"] = [x.shape.as_list(), y.shape.as_list()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        train_handle, val_handle = sess.run([train_iter.string_handle(),
                                             val_iter.string_handle()])
        out["handles_are_bytes"] = isinstance(train_handle, bytes) and train_handle != val_handle
        epochs = []
        for epoch in range(3):
            sess.run(train_iter.initializer, {fx: features, fy: targets})
            batches = []
            while True:
                try:
                    _, l, n = sess.run([train, loss, tf.shape(x)[0]], {handle: train_handle})
                    batches.append((float(l), int(n)))
                except tf.errors.OutOfRangeError:
                    break
            val_loss = sess.run(loss, {handle: val_handle})
            epochs.append({"batches": batches, "val_loss": float(val_loss)})
        out["epochs"] = epochs
        out["w"] = sess.run(w)
