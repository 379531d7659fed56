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

import numpy as np

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def inputs():
    rng = np.random.default_rng(11)

    def normal(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)
    return {"x": normal(6, 4), "y": normal(6, 2), "img": normal(2, 5, 5, 3),
            "s0": normal(4, scale=0.5), "v0": normal(4, 4), "k0": normal(4, 3),
            "c0": normal(3, 3, 3, 2, scale=0.5),
            "x2": normal(5, 4), "x3": normal(5, 3, 4), "seq": normal(2, 7, 3),
            "vol": normal(2, 4, 4, 4, 2), "a0": normal(4, 3), "pic": normal(2, 6, 6, 3)}


def max_norm(tf, m, axes=0):
    """tf.keras.constraints.MaxNorm's formula as a lambda (no Keras needed)."""
    def constrain(w):
        norms = tf.sqrt(tf.reduce_sum(tf.square(w), axis=axes, keepdims=True))
        return w * (tf.clip_by_value(norms, 0.0, m) / (1e-7 + norms))
    return constrain


def constraints_model(tf, d):
    """The loss and the train op of the "constraints" case (``tf``: TF or ``ds``)."""
    x, y, img = (tf.constant(d[k]) for k in ("x", "y", "img"))
    with tf.variable_scope("scoped", constraint=lambda w: tf.clip_by_value(w, -0.3, 0.3)):
        s = tf.get_variable("s", initializer=d["s0"])
    v = tf.Variable(d["v0"], name="v", constraint=lambda w: tf.clip_by_norm(w, 1.0, axes=[0]))
    h = tf.matmul(x * s, v)
    h = tf.layers.dense(h, 3, activation=tf.tanh, name="dense",
                        kernel_initializer=tf.constant_initializer(d["k0"]),
                        bias_initializer=tf.constant_initializer(0.1),
                        kernel_constraint=max_norm(tf, 0.8),
                        bias_constraint=lambda b: tf.clip_by_value(b, -0.05, 0.05))
    h = tf.layers.batch_normalization(
        h, training=True, name="bn",
        gamma_constraint=lambda g: tf.clip_by_value(g, 0.9, 1.1),
        beta_constraint=lambda b: tf.clip_by_value(b, -0.02, 0.02))
    c = tf.layers.conv2d(img, 2, 3, name="conv", kernel_initializer=tf.constant_initializer(
        d["c0"]), kernel_constraint=max_norm(tf, 0.5, axes=[0, 1, 2]))
    loss = tf.reduce_mean(tf.square(h[:, :2] - y)) + 0.5 * tf.reduce_mean(tf.square(c))
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.MomentumOptimizer(0.2, 0.9).minimize(loss)
    return loss, train


def activity_model(tf, d):
    """The layers of the "activity" case; their penalties join REGULARIZATION_LOSSES."""
    def l2(t):
        return 0.01 * tf.reduce_sum(tf.square(t))

    def l1(t):
        return 0.02 * tf.reduce_sum(tf.abs(t))
    const = tf.constant_initializer
    tf.layers.dense(tf.constant(d["x2"]), 3, activation=tf.nn.relu, activity_regularizer=l2,
                    kernel_initializer=const(d["a0"]), name="dense")
    tf.layers.dense(tf.constant(d["x3"]), 2, activity_regularizer=l1, name="dense3",
                    kernel_initializer=const(0.3))
    pic, seq, vol = (tf.constant(d[k]) for k in ("pic", "seq", "vol"))
    tf.layers.conv2d(pic, 2, 3, activity_regularizer=l1, kernel_initializer=const(0.1),
                     name="conv2d")
    tf.layers.conv1d(seq, 2, 3, activity_regularizer=l2, kernel_initializer=const(-0.2),
                     name="conv1d")
    tf.layers.separable_conv2d(pic, 2, 3, activity_regularizer=l2, name="separable",
                               depthwise_initializer=const(0.2),
                               pointwise_initializer=const(0.3))
    tf.layers.conv2d_transpose(pic, 2, 2, strides=2, activity_regularizer=l1,
                               kernel_initializer=const(0.1), name="transpose")
    tf.layers.conv3d(vol, 2, 2, activity_regularizer=l2, kernel_initializer=const(0.15),
                     name="conv3d")
    layer = tf.layers.Dense(2, activity_regularizer=l1, kernel_initializer=const(0.5),
                            name="shared")
    layer(tf.constant(d["x2"]))
    layer(tf.constant(d["x2"][:3]))        # a second call: a second penalty, batch of 3
    return tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)


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
        losses = activity_model(tf, d)
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
