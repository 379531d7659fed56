"""A TF1 tutorial-style training script, run as a program with ``import devsession as
tf``: ``tf.app.flags.DEFINE_*`` and ``FLAGS``, ``tf.logging.set_verbosity``,
``tf.gfile.Exists``/``DeleteRecursively``/``MakeDirs``, a few ``GradientDescentOptimizer``
steps and a ``Saver`` checkpoint in the flag-given directory, inside ``tf.app.run()``.
(Run with ``import tensorflow.compat.v1 as tf``, TF 2.21 prints the same losses.)"""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = '''
import os

import numpy as np

import devsession as tf

flags = tf.app.flags
FLAGS = flags.FLAGS
flags.DEFINE_string("train_dir", "/tmp/never_used", "Directory for checkpoints.")
flags.DEFINE_integer("max_steps", 10, "Number of steps to run.")
flags.DEFINE_float("learning_rate", 0.1, "Initial learning rate.")
flags.DEFINE_boolean("fresh", False, "Delete train_dir before training.")


def main(argv):
    tf.logging.set_verbosity(tf.logging.INFO)
    if FLAGS.fresh and tf.gfile.Exists(FLAGS.train_dir):
        tf.gfile.DeleteRecursively(FLAGS.train_dir)
    tf.gfile.MakeDirs(FLAGS.train_dir)

    rng = np.random.RandomState(0)
    xs = rng.rand(32, 2).astype(np.float32)
    ys = xs @ np.array([[2.0], [-1.0]], np.float32) + 0.5
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.zeros([2, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.GradientDescentOptimizer(FLAGS.learning_rate).minimize(
        loss, global_step=global_step)
    saver = tf.train.Saver()
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(FLAGS.max_steps):
            _, value = sess.run([train_op, loss], {x: xs, y: ys})
            losses.append(value)
            tf.logging.info("step %d: loss = %.4f", step, value)
        path = saver.save(sess, os.path.join(FLAGS.train_dir, "model.ckpt"),
                          global_step=global_step)
    print("saved", os.path.basename(path))
    print("rest", argv[1:])
    return 0 if losses[-1] < losses[0] else 3


if __name__ == "__main__":
    tf.app.run()
'''


def run_script(tmp_path, *args):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    return subprocess.run([sys.executable, str(script), *args], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)


def test_a_tf1_training_script_runs_under_app_run(tmp_path):
    train_dir = tmp_path / "train"
    (train_dir / "stale").mkdir(parents=True)            # --fresh deletes it
    done = run_script(tmp_path, f"--train_dir={train_dir}", "--max_steps", "4", "--fresh",
                      "positional", "--not_a_flag=1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["saved model.ckpt-4",
                                        "rest ['positional', '--not_a_flag=1']"]
    # TF 2.21 logs the same losses for this script (1.3272, 0.8133, 0.5602, 0.4331)
    assert [line for line in done.stderr.splitlines() if line.startswith("INFO:")] == [
        "INFO:devsession:step 0: loss = 1.3272", "INFO:devsession:step 1: loss = 0.8133",
        "INFO:devsession:step 2: loss = 0.5602", "INFO:devsession:step 3: loss = 0.4331"]
    files = sorted(os.listdir(train_dir))
    assert "stale" not in files and "checkpoint" in files and "model.ckpt-4.index" in files
    assert any(name.startswith("model.ckpt-4.data") for name in files), files


def test_the_script_exits_with_mains_status_and_rejects_a_bad_flag(tmp_path):
    done = run_script(tmp_path, f"--train_dir={tmp_path / 'flat'}", "--max_steps=2",
                      "--learning_rate=0")                # the loss cannot fall: main -> 3
    assert done.returncode == 3, done.stderr
    assert os.path.isdir(tmp_path / "flat")
    done = run_script(tmp_path, "--max_steps=two")
    assert done.returncode == 1
    assert "FATAL Flags parsing error: flag --max_steps=two: 'two' is not an integer" \
        in done.stderr
