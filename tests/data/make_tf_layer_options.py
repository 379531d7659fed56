"""Records what TensorFlow 2.21's TF1 layers and optimizers do with variable constraints
and activity regularizers, into tf_layer_options.npz, read by
tests/test_layer_options.py.  Run once, with TensorFlow (not a test):

    TF_USE_LEGACY_KERAS=1 /work/peers/bin/python tests/data/make_tf_layer_options.py

"constraints": a model whose variables carry constraints made every way TF1 has
(``tf.Variable(constraint=)``, ``variable_scope(constraint=)``, ``get_variable`` inside it,
``tf.layers.dense``'s kernel/bias, ``batch_normalization``'s gamma/beta, ``conv2d``'s
kernel), trained 3 steps by MomentumOptimizer (and the batch norm's UPDATE_OPS);
``step<k>:<variable>`` holds each variable after step k (TF's optimizer assigns
``v.constraint(v)`` after each update).  "activity": tf.layers with an
``activity_regularizer``; ``activity:<i>`` is the i-th REGULARIZATION_LOSSES tensor (TF's
penalty of the layer's output divided by the batch size), ``activity_name:<i>`` its name,
``activity_grad`` the gradient of their sum with respect to the first dense kernel.

The model builders take ``tf`` as an argument: the test builds the same graph with ``ds``.
"""

import os
import sys

import numpy as np

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))   # tests/: the models shared with the test
from layer_options_cases import activity_model, constraints_model  # noqa: E402


def inputs():
    rng = np.random.default_rng(11)

    def normal(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    return {"x": normal(6, 4), "y": normal(6, 2), "img": normal(2, 5, 5, 3),
            "s0": normal(4, scale=0.5), "v0": normal(4, 4), "k0": normal(4, 3),
            "c0": normal(3, 3, 3, 2, scale=0.5),
            "x2": normal(5, 4), "x3": normal(5, 3, 4), "seq": normal(2, 7, 3),
            "vol": normal(2, 4, 4, 4, 2), "a0": normal(4, 3), "pic": normal(2, 6, 6, 3)}


def main():
    d = inputs()
    out = dict(d)
    with tf.Graph().as_default(), tf.Session() as sess:
        _, train = constraints_model(tf, d)
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            sess.run(train)
            for var in tf.trainable_variables():
                out[f"step{step}:{var.op.name}"] = sess.run(var)
        out["constrained"] = np.array([v.op.name for v in tf.trainable_variables()
                                       if v.constraint is not None])
    with tf.Graph().as_default(), tf.Session() as sess:
        _, losses = activity_model(tf, d)
        kernel = tf.get_default_graph().get_tensor_by_name("dense/kernel:0")
        grad, = tf.gradients(tf.add_n(losses), [kernel])
        sess.run(tf.global_variables_initializer())
        for i, value in enumerate(sess.run(losses)):
            out[f"activity:{i}"] = value
            out[f"activity_name:{i}"] = np.array(losses[i].name)
        out["activity_grad"] = sess.run(grad)
    np.savez(os.path.join(HERE, "tf_layer_options.npz"), **out)
    print(sorted(k for k in out if ":" in k))


if __name__ == "__main__":
    main()
