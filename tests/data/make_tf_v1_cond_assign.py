"""Writes tests/data/tf_v1_cond_batch_norm/ for tests/test_tf_v1_cond_import.py: a program's
``.meta`` and checkpoint of ``tf.layers.batch_normalization`` following a bool ``training``
placeholder, built with TF1's own control flow and reference variables, so that the
moving averages are assigned inside conds through ``RefSwitch``es of the variables; and
``expected.npz``, what TensorFlow computes after ``import_meta_graph`` + ``restore``:
``y`` fetched with the ``update_ops`` collection in inference mode, then in training mode
three times (each run updates the moving averages: ``moving_mean_<k>``,
``moving_variance_<k>``), then in inference mode again.
Run with TensorFlow installed (not a test):

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/make_tf_v1_cond_assign.py
"""

import os
import shutil

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
tf.disable_resource_variables()
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_v1_cond_batch_norm")


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    prefix = os.path.join(OUT, "model")
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        training = tf.placeholder(tf.bool, [], name="training")
        normed = tf.layers.batch_normalization(x, training=training, momentum=0.9)
        tf.identity(normed * 2.0, name="y")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, prefix, write_state=False)
    feed = (rng.standard_normal((4, 3)) * 3 + 1).astype(np.float32)
    expected = {"feed_x": feed}
    with tf.Graph().as_default() as graph:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        ops = sorted({n.op for n in graph.as_graph_def().node})
        assert "RefSwitch" in ops, ops
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)     # the AssignMovingAvgs
            run = lambda mode: sess.run(["y:0", updates], {"x:0": feed, "training:0": mode})[0]
            expected["infer_before"] = run(False)
            for k in range(3):
                expected[f"train_{k}"] = run(True)
                expected[f"moving_mean_{k}"] = sess.run("batch_normalization/moving_mean:0")
                expected[f"moving_variance_{k}"] = sess.run(
                    "batch_normalization/moving_variance:0")
            expected["infer_after"] = run(False)
    np.savez(os.path.join(OUT, "expected.npz"), **expected)
    print(OUT, ops)


if __name__ == "__main__":
    main()
