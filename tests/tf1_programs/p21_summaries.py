"""tf.summary scalar/histogram/image, merge_all/merge, FileWriter add_summary/add_graph/flush/close."""

import os
import tempfile

import numpy as np


def main(tf, out):
    logdir = tempfile.mkdtemp(prefix="tf1prog_logs_")
    eval_dir = os.path.join(logdir, "eval")
    out["merge_all_with_no_summaries"] = str(tf.summary.merge_all())

    rng = np.random.RandomState(0)
    xs = rng.uniform(0, 1, (8, 4, 4, 1)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 4, 4, 1], name="x")
    w = tf.Variable(np.linspace(-1, 1, 16).astype(np.float32).reshape(16, 1), name="w")
    pred = tf.matmul(tf.reshape(x, [-1, 16]), w)
    loss = tf.reduce_mean(tf.square(pred - 1.0))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)

    loss_summary = tf.summary.scalar("loss", loss)
    with tf.name_scope("params"):
        w_hist = tf.summary.histogram("w", w)
        w_norm = tf.summary.scalar("w_norm", tf.sqrt(tf.reduce_sum(tf.square(w))))
    tf.summary.image("inputs", x, max_outputs=2)
    merged = tf.summary.merge_all()
    eval_only = tf.summary.merge([loss_summary, w_norm])
    out["summary_dtypes"] = [loss_summary.dtype.name, merged.dtype.name, w_hist.dtype.name]
    out["summary_static_shapes"] = [loss_summary.shape.as_list(), merged.shape.as_list()]

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        writer = tf.summary.FileWriter(logdir, sess.graph)
        eval_writer = tf.summary.FileWriter(eval_dir)
        eval_writer.add_graph(sess.graph)
        losses = []
        for step in range(6):
            # The summaries read w, which train updates: in one run the order is TF1's
            # scheduler's choice (it varies), so they are fetched in a run of their own.
            summ, lv = sess.run([merged, loss], {x: xs})
            sess.run(train, {x: xs})
            out["merged_fetch_type"] = type(summ).__name__
            writer.add_summary(summ, step)
            losses.append(float(lv))
            if step % 2 == 0:
                writer.flush()
                ev = sess.run(eval_only, {x: xs[:4]})
                eval_writer.add_summary(ev, step)
        out["eval_fetch_type"] = type(ev).__name__
        out["losses"] = losses
        writer.flush()
        writer.close()
        eval_writer.close()
        out["final_w_head"] = sess.run(w)[:4, 0]
    out["_logdirs"] = {"train": logdir, "eval": eval_dir}
