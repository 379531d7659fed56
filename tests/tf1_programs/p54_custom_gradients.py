"""Gradients customised the TF1 ways: a gradient-reversal layer for domain-adversarial
training (@tf.custom_gradient returning -dy), a straight-through binariser
(gradient_override_map {"Sign": "Identity"}), a clipped-gradient op registered with
tf.RegisterGradient, tf.stop_gradient, tf.hessians of a quadratic form, and
tf.test.compute_gradient_error checking a function in the default session."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = rng.normal(size=(8, 3)).astype(np.float32)
    y_data = rng.randint(0, 2, 8).astype(np.float32)
    domain = rng.randint(0, 2, 8).astype(np.float32)

    @tf.custom_gradient
    def reverse_gradient(x):
        return tf.identity(x), lambda dy: -0.5 * dy

    def _clip_gradient(op, grad):
        return tf.clip_by_value(grad, -0.05, 0.05)

    for attempt in range(100):    # gradient names are global: the first free one
        clip_name = "ClipGradientP54_%d" % attempt
        try:
            tf.RegisterGradient(clip_name)(_clip_gradient)
            break
        except KeyError:
            continue

    graph = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w_feat = tf.Variable(rng.normal(0, 0.5, (3, 4)).astype(np.float32), name="features")
    w_label = tf.Variable(rng.normal(0, 0.5, (4, 1)).astype(np.float32), name="label_head")
    w_domain = tf.Variable(rng.normal(0, 0.5, (4, 1)).astype(np.float32), name="domain_head")
    features = tf.tanh(tf.matmul(x, w_feat))
    with graph.gradient_override_map({"Sign": "Identity", "Identity": clip_name}):
        binary = tf.sign(features)
        clipped = tf.identity(features)
    label_logits = tf.squeeze(tf.matmul(binary + clipped, w_label), 1)
    domain_logits = tf.squeeze(tf.matmul(reverse_gradient(features), w_domain), 1)
    label_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        labels=y_data, logits=label_logits))
    domain_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
        labels=domain, logits=domain_logits))
    loss = label_loss + domain_loss
    grads = tf.gradients(loss, [w_feat, w_label, w_domain])
    train_op = tf.train.GradientDescentOptimizer(0.3).minimize(loss)

    a = tf.constant([[2.0, 1.0], [1.0, 3.0]])
    v = tf.placeholder(tf.float32, [2], name="v")
    quadratic = tf.reduce_sum(v * tf.linalg.matvec(a, v)) + tf.reduce_sum(tf.sin(v))
    (hessian,) = tf.hessians(quadratic, v)
    frozen = tf.reduce_sum(tf.stop_gradient(v) * v)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["first_grads"] = sess.run(grads, {x: x_data})
        out["losses"] = np.array([sess.run([train_op, label_loss, domain_loss],
                                           {x: x_data})[1:] for _ in range(5)])
        out["hessian"] = sess.run(hessian, {v: [0.5, -1.0]})
        out["stop_gradient"] = sess.run(tf.gradients(frozen, v)[0], {v: [0.5, -1.0]})
        with sess.as_default():
            z = tf.placeholder(tf.float64, [3], name="z")
            error = tf.test.compute_gradient_error(
                z, [3], tf.reduce_sum(z * z * z), [], x_init_value=np.array([1.0, 2.0, 3.0]))
        out["gradient_error_small"] = bool(error < 1e-4)
