"""tf.train.Saver: save with global_step, restore in place and into a fresh graph, renamed vars."""

import os
import tempfile

import numpy as np


def main(tf, out):
    ckpt_dir = tempfile.mkdtemp(prefix="tf1prog_ckpt_")
    rng = np.random.RandomState(0)
    xs = rng.standard_normal((20, 3)).astype(np.float32)
    ys = xs @ np.array([[1.0, 0.0], [0.5, -1.0], [0.0, 2.0]], np.float32)

    w = tf.Variable(np.full((3, 2), 0.1, np.float32), name="w")
    b = tf.Variable(tf.zeros([2]), name="b")
    step = tf.Variable(0, trainable=False, name="global_step")
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(xs), w) + b - ys))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    saver = tf.train.Saver()

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            sess.run(train)
        saved = sess.run([w, b, step])
        path = saver.save(sess, os.path.join(ckpt_dir, "model.ckpt"), global_step=step)
        out["saved_path_basename"] = os.path.basename(path)
        out["saved_path_in_dir"] = os.path.dirname(path) == ckpt_dir
        out["latest_checkpoint_basename"] = os.path.basename(tf.train.latest_checkpoint(ckpt_dir))
        out["saved_values"] = saved
        out["loss_at_save"] = float(sess.run(loss))
        sess.run([w.assign(tf.zeros([3, 2])), b.assign([9.0, 9.0])])
        saver.restore(sess, path)
        out["restored_in_place"] = sess.run([w, b, step])
        out["loss_after_restore"] = float(sess.run(loss))
    out["checkpoint_files"] = sorted(os.listdir(ckpt_dir))

    fresh = tf.Graph()
    with fresh.as_default():
        w2 = tf.Variable(tf.zeros([3, 2]), name="w")
        b2 = tf.Variable(tf.ones([2]), name="b")
        step2 = tf.Variable(0, trainable=False, name="global_step")
        other = tf.Variable(tf.zeros([2]), name="other")
        only_w = tf.train.Saver([w2])
        renamed = tf.train.Saver({"b": other})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            only_w.restore(sess, tf.train.latest_checkpoint(ckpt_dir))
            out["partial_restore_w_b_step"] = sess.run([w2, b2, step2])
            renamed.restore(sess, path)
            out["renamed_restore_other"] = sess.run(other)
            try:
                only_w.restore(sess, os.path.join(ckpt_dir, "missing.ckpt"))
                out["restore_missing_error"] = "no error"
            except (ValueError, tf.errors.NotFoundError) as e:
                out["restore_missing_error"] = type(e).__name__
            second = only_w.save(sess, os.path.join(ckpt_dir, "only_w"))
            out["second_save_basename"] = os.path.basename(second)
            out["latest_after_second_save"] = os.path.basename(
                tf.train.latest_checkpoint(ckpt_dir))

    for name in os.listdir(ckpt_dir):                 # tidy up the temporary directory
        os.remove(os.path.join(ckpt_dir, name))
    os.rmdir(ckpt_dir)
