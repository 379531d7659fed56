"""Object-based checkpoints in a TF1 training script: a small regression model held by a
tf.Module and trained with Adam is saved every two steps through tf.train.Checkpoint and a
CheckpointManager keeping two; a fresh graph builds the model again, restores the latest
checkpoint (the optimizer's slots and step counter included, assert_consumed passing) and
trains on, giving the same losses as the uninterrupted run."""

import tempfile

import numpy as np


def build(tf):
    class Linear(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(np.array([[0.5], [-0.25], [0.1]], np.float32), name="w")
                self.b = tf.Variable(np.zeros([1], np.float32), name="b")

    x = tf.constant(np.array([[1, 2, 3], [0, 1, -1], [2, 0, 1], [1, 1, 1]], np.float32))
    y = tf.constant(np.array([[1], [0], [2], [1.5]], np.float32))
    model = Linear(name="linear")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, model.w) + model.b - y))
    step = tf.train.get_or_create_global_step()
    opt = tf.train.AdamOptimizer(0.05)
    train = opt.minimize(loss, global_step=step)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step)
    return ckpt, loss, train


def main(tf, out):
    with tempfile.TemporaryDirectory() as directory:
        with tf.Graph().as_default():
            ckpt, loss, train = build(tf)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
                losses, saved = [], []
                for i in range(6):
                    losses.append(sess.run([train, loss])[1])
                    if i % 2 == 1:
                        with sess.as_default():
                            saved.append(manager.save(checkpoint_number=ckpt.step))
                more = [sess.run([train, loss])[1] for _ in range(3)]
                out["losses"] = np.array(losses)
                out["losses_after"] = np.array(more)
                out["saved"] = [s[len(directory) + 1:] for s in saved]
                out["kept"] = [s[len(directory) + 1:] for s in manager.checkpoints]
                out["save_counter"] = sess.run(ckpt.save_counter)
        latest = tf.train.latest_checkpoint(directory)
        out["latest"] = latest[len(directory) + 1:]
        with tf.Graph().as_default():
            ckpt, loss, train = build(tf)
            status = ckpt.restore(latest)
            with tf.Session() as sess:
                status.assert_consumed().run_restore_ops(sess)
                out["restored_step"] = sess.run(ckpt.step)
                out["restored_w"] = sess.run(ckpt.model.w)
                out["resumed_losses"] = np.array([sess.run([train, loss])[1]
                                                  for _ in range(3)])
                out["restored_counter"] = sess.run(ckpt.save_counter)
