"""The models tests/test_layer_options.py checks, built with the TF1 module they are given
(``tf``: TensorFlow in tests/data/make_tf_layer_options.py, which records TF's values, ``ds``
in the test), so both build exactly the same graphs."""


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
    """The layers of the "activity" case: (the layer called twice, REGULARIZATION_LOSSES)."""
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
    return layer, tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
