"""Training under tf.train.MonitoredTrainingSession as TF1 scripts do: a global step,
an exponentially decayed (staircase) learning rate, StopAtStepHook, NanTensorHook, a
checkpoint every few steps into checkpoint_dir, and a second MonitoredTrainingSession
on a fresh graph that restores the last checkpoint and goes on from its step."""

import os
import tempfile

import numpy as np


def build(tf, xs, ys):
    x = tf.constant(xs)
    y = tf.constant(ys)
    w = tf.get_variable("w", initializer=np.full((3, 1), 0.1, np.float32))
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.1, step, decay_steps=2, decay_rate=0.5, staircase=True)
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=step)
    return loss, step, lr, train, w


def main(tf, out):
    rng = np.random.RandomState(0)
    xs = rng.standard_normal((8, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    ckpt_dir = tempfile.mkdtemp()

    with tf.Graph().as_default():
        loss, step, lr, train, w = build(tf, xs, ys)
        hooks = [tf.train.StopAtStepHook(last_step=5), tf.train.NanTensorHook(loss)]
        seen = []
        with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt_dir, hooks=hooks,
                                               save_checkpoint_steps=2,
                                               save_summaries_steps=None,
                                               save_summaries_secs=None,
                                               log_step_count_steps=None) as sess:
            while not sess.should_stop():
                _, l, s, r = sess.run([train, loss, step, lr])
                seen.append((float(l), int(s), float(r)))
        out["first_run"] = seen
    state = tf.train.get_checkpoint_state(ckpt_dir)
    out["latest_checkpoint"] = os.path.basename(tf.train.latest_checkpoint(ckpt_dir))
    out["checkpoints_kept"] = [os.path.basename(p) for p in state.all_model_checkpoint_paths]

    with tf.Graph().as_default():
        loss, step, lr, train, w = build(tf, xs, ys)
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=ckpt_dir, hooks=[tf.train.StopAtStepHook(num_steps=3)],
                save_checkpoint_secs=None, save_summaries_steps=None,
                save_summaries_secs=None, log_step_count_steps=None) as sess:
            out["restored_step"] = int(sess.run(step))
            out["restored_w"] = sess.run(w)
            second = []
            while not sess.should_stop():
                second.append(float(sess.run([train, loss])[1]))
            out["second_run"] = second
    with tf.Graph().as_default():
        loss, step, lr, train, w = build(tf, xs, ys)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(ckpt_dir))
            out["step_on_disk"] = int(sess.run(step))
            out["w_on_disk"] = sess.run(w)
    for root, dirs, files in os.walk(ckpt_dir, topdown=False):
        for name in files:
            os.remove(os.path.join(root, name))
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    os.rmdir(ckpt_dir)
