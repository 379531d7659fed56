"""Records what TensorFlow 2.21's ``tf.layers.batch_normalization`` (tf_keras's legacy
BatchNormalization) does with ``renorm``, ``virtual_batch_size`` and ``adjustment``, into
tf_batch_renorm.npz, read by tests/test_batch_renorm.py.  Run once, with TensorFlow
(not a test):

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/make_tf_batch_renorm.py

For each case of tests/batch_renorm_cases.py: ``<case>:y<k>`` the training output at step
k (run with the train op), ``<case>:step<k>:<variable>`` each variable after it,
``<case>:grad_h`` the loss's gradient with respect to the layer's inputs before training,
``<case>:y_infer`` the output with ``training=False`` after training,
``<case>:y_flag_<False|True>`` and ``<case>:flag_<False|True>:<variable>`` the layer with
a bool placeholder fed false then true (its update ops run), ``<case>:variables`` /
``:shapes`` / ``:trainable`` the layer's variables, ``<case>:updates`` the names of its
UPDATE_OPS, ``<case>:y_shape`` the output's static shape (-1 unknown).
"""

import os
import sys

import numpy as np

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))   # tests/: the cases shared with the test
from batch_renorm_cases import CASES, built, inputs, layout, run  # noqa: E402


def main():
    d = inputs()
    out = dict(d)
    for name in CASES:
        with tf.Graph().as_default(), tf.Session() as sess:
            t = built(tf, name, d)
            out.update({f"{name}:{k}": np.array(v) for k, v in layout(tf, t).items()})
            out.update(run(tf, sess, name, t))
    np.savez(os.path.join(HERE, "tf_batch_renorm.npz"), **out)
    print(len(out), "arrays;", {n: list(out[f"{n}:updates"]) for n in CASES})


if __name__ == "__main__":
    main()
