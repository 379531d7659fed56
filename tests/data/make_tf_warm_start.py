"""Records TensorFlow 2.21's TF1 ``tf.train.warm_start`` into tf_warm_start/, read by
tests/test_warm_start.py.  Run once, with TensorFlow (never a test dependency):

    /work/peers/bin/python tests/data/make_tf_warm_start.py

``old.ckpt`` is the model warm-started from: ``emb`` [5, 3] (rows for old_vocab.txt),
``out/kernel`` [2, 4] (columns for old_classes.txt), ``w`` [2, 2], ``part`` [6, 2] in three
parts (saved sliced, as TF saves partitioned variables), ``prev/bias`` [3] and a
non-trainable ``steps`` [2].  Each case builds a new model (values 9.0 before warm-starting),
calls warm_start as warm_start_cases.py's cases say and records every variable's value, ``<case>/<name>``, in
expected.npz.  The backup initializers are ones or zeros (TF's constant initializer cannot take the
count of missing cells, a tensor): which cells get them is what is checked.
"""

import os

import numpy as np
import tensorflow.compat.v1 as tf
from warm_start_cases import cases, new_model     # this script's folder

tf.disable_v2_behavior()

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_warm_start")
OLD = {"emb": np.arange(15, dtype=np.float32).reshape(5, 3) + 0.25,
       "out/kernel": np.arange(8, dtype=np.float32).reshape(2, 4) * -1.5,
       "w": np.array([[1, 2], [3, 4]], np.float32),
       "part": np.arange(12, dtype=np.float32).reshape(6, 2) / 4,
       "prev/bias": np.array([0.5, -0.5, 2.0], np.float32),
       "steps": np.array([7, 8], np.float32)}
VOCABS = {"old_vocab.txt": ["a", "b", "c", "d", "e"],
          "new_vocab.txt": ["d", "x", "a", "e", "y", "b"],
          "old_classes.txt": ["k0", "k1", "k2", "k3"],
          "new_classes.txt": ["k2", "n", "k0"]}


def write_old():
    for name, words in VOCABS.items():
        with open(os.path.join(OUT, name), "w") as f:
            f.write("".join(w + "\n" for w in words))
    with tf.Graph().as_default(), tf.Session() as sess:
        for name, value in OLD.items():
            if name == "part":
                tf.get_variable(name, initializer=tf.constant(value),
                                partitioner=tf.fixed_size_partitioner(3))
            else:
                tf.get_variable(name, initializer=tf.constant(value),
                                trainable=name != "steps")
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, os.path.join(OUT, "old.ckpt"), write_meta_graph=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    write_old()
    expected = {}
    for case, (model, kwargs) in cases(tf, OUT).items():
        with tf.Graph().as_default(), tf.Session() as sess:
            new_model(tf, **model)
            tf.train.warm_start(os.path.join(OUT, "old.ckpt"), **kwargs)
            sess.run(tf.global_variables_initializer())
            full = {}
            for v in tf.global_variables():
                info = v._get_save_slice_info()
                name = info.full_name if info else v.op.name
                full.setdefault(name, []).append(sess.run(v))
            for name, parts in full.items():
                expected[f"{case}/{name}"] = np.concatenate(parts)
    np.savez(os.path.join(OUT, "expected.npz"), **expected)
    for k, v in expected.items():
        print(k, v.tolist())


if __name__ == "__main__":
    main()
