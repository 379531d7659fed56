"""Writes checkpoints with real TensorFlow (TF1's Saver, the V2 tensor bundle) for
tests/test_tf_checkpoint.py, and what TensorFlow read back from them.

    /work/peers/bin/python tests/data/tf_checkpoint/make_checkpoints.py

* ``model.ckpt-3``: a dense layer trained three Adam steps (kernel, bias, their Adam
  slots, the beta powers, global_step) plus a float64, an int32 and a bool variable;
  ``expected.npz`` holds every value TensorFlow's ``NewCheckpointReader`` reads from it.
* ``partitioned.ckpt``: a variable split in two slices (read whole).
* ``strings.ckpt``: a string variable (devsession refuses it).
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def model_checkpoint():
    rng = np.random.RandomState(0)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(rng.standard_normal((8, 4)).astype(np.float32))
        y = tf.constant(rng.standard_normal((8, 2)).astype(np.float32))
        init = tf.constant_initializer(rng.standard_normal((4, 2)).astype(np.float32))
        pred = tf.layers.dense(x, 2, kernel_initializer=init, name="dense")
        loss = tf.reduce_mean(tf.square(pred - y))
        step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
        tf.Variable(np.float64(1.25), name="scale64")
        tf.Variable(np.array([3, -4], np.int32), name="counts")
        tf.Variable([True, False, True], name="mask")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            prefix = saver.save(sess, os.path.join(HERE, "model.ckpt"), global_step=step)
    with open(os.path.join(HERE, "checkpoint"), "w") as f:    # relative, as TF reads it
        f.write('model_checkpoint_path: "model.ckpt-3"\n'
                'all_model_checkpoint_paths: "model.ckpt-3"\n')
    reader = tf.train.NewCheckpointReader(prefix)
    names = sorted(reader.get_variable_to_shape_map())
    np.savez(os.path.join(HERE, "expected.npz"),
             **{name.replace("/", "__"): reader.get_tensor(name) for name in names})


def partitioned_checkpoint():
    graph = tf.Graph()
    with graph.as_default():
        tf.get_variable("split", shape=[4, 2], initializer=tf.ones_initializer(),
                        partitioner=tf.fixed_size_partitioner(2))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, os.path.join(HERE, "partitioned.ckpt"),
                                  write_meta_graph=False, write_state=False)


def strings_checkpoint():
    graph = tf.Graph()
    with graph.as_default():
        tf.Variable([b"a", b"bc"], name="words")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, os.path.join(HERE, "strings.ckpt"),
                                  write_meta_graph=False, write_state=False)


if __name__ == "__main__":
    model_checkpoint()
    partitioned_checkpoint()
    strings_checkpoint()
    for name in sorted(os.listdir(HERE)):
        if name.endswith(".meta"):
            os.remove(os.path.join(HERE, name))      # the graph is not needed
    print(sorted(os.listdir(HERE)))
