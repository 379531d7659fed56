"""tf.summary scalar/histogram/image/merge/merge_all and FileWriter, with variables updated by assign."""

import os
import tempfile

import numpy as np


def main(tf, out):
    logdir = tempfile.mkdtemp(prefix="tf1prog_summ_")
    out["merge_all_empty"] = str(tf.summary.merge_all())
    rng = np.random.RandomState(1)
    frames = rng.uniform(-1, 1, (3, 5, 6, 3)).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 5, 6, 3], name="frames")
    w = tf.Variable(np.linspace(-2, 2, 10).astype(np.float32), name="w")
    step = tf.Variable(0, name="step")
    shrink = w.assign(w * 0.5)
    tick = step.assign(step + 1)
    energy = tf.reduce_sum(tf.square(w))

    s_energy = tf.summary.scalar("energy", energy)
    with tf.name_scope("stats"):
        s_hist = tf.summary.histogram("weights", w)
        s_mean = tf.summary.scalar("frame_mean", tf.reduce_mean(x))
    tf.summary.image("frames", x, max_outputs=2)
    tf.summary.image("first_frame", x, max_outputs=1)
    again = tf.summary.scalar("energy", energy * 2.0)
    merged = tf.summary.merge_all()
    partial = tf.summary.merge([s_energy, s_mean])
    out["op_names"] = [s_energy.op.name, s_hist.op.name, s_mean.op.name, again.op.name]
    out["summary_dtypes"] = [s_energy.dtype.name, merged.dtype.name]
    out["summary_shapes"] = [s_energy.shape.as_list(), merged.shape.as_list()]

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        writer = tf.summary.FileWriter(logdir, sess.graph)
        side = tf.summary.FileWriter(os.path.join(logdir, "side"))
        side.add_graph(sess.graph)
        energies = []
        for _ in range(4):
            summ, e, k = sess.run([merged, energy, tick], {x: frames})
            out["fetch_type"] = type(summ).__name__
            writer.add_summary(summ, int(k))
            energies.append(float(e))
            side.add_summary(sess.run(partial, {x: frames[:1]}), int(k))
            sess.run(shrink)
        out["energies"] = energies
        writer.flush()
        writer.close()
        side.close()
    out["_logdirs"] = {"main": logdir, "side": os.path.join(logdir, "side")}
