"""A WGAN-GP training loop as improved_wgan_training wrote it in TF1: a generator (dense,
tf.layers.batch_normalization with its UPDATE_OPS, tf.nn.conv2d) and a critic
(tf.layers.conv2d, a tf.nn.moments layer norm, leaky ReLU, tf.layers.dense with a kernel
regularizer) called three times through tf.AUTO_REUSE; the gradient penalty on
interpolates between real and fake (alpha fed, not drawn), so training the critic takes
second-order gradients through conv2d, the layer norm, dense, leaky ReLU and the norm;
var_lists by scope, the critic on Adam(beta1=0.5, beta2=0.9) with tf.clip_by_global_norm
(one gradient None), the generator on centered RMSProp with tf.clip_by_norm, a checksum
read after the critic step and a critic-then-generator run by tf.control_dependencies;
then the tf.losses family under every Reduction, get_losses/get_total_loss/
get_regularization_loss, tf.nn.weighted_cross_entropy_with_logits and a user's errors."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, side, noise_dim, steps = 4, 6, 5, 4
    real_data = np.tanh(rng.normal(0.3, 0.8, (steps, batch, side, side, 1))).astype(np.float32)
    noise_data = rng.uniform(-1, 1, (steps, batch, noise_dim)).astype(np.float32)
    alpha_data = rng.uniform(0, 1, (steps, batch, 1, 1, 1)).astype(np.float32)

    def init(*shape):
        return tf.constant_initializer(rng.normal(0, 0.3, shape))

    def generator(z):
        with tf.variable_scope("generator", reuse=tf.AUTO_REUSE):
            h = tf.nn.leaky_relu(tf.layers.dense(z, side * side * 2, kernel_initializer=init(
                noise_dim, side * side * 2), name="fc"), alpha=0.2)
            h = tf.layers.batch_normalization(tf.reshape(h, [-1, side, side, 2]), training=True,
                                              momentum=0.8)
            kernel = tf.get_variable("conv_w", initializer=rng.normal(
                0, 0.3, (3, 3, 2, 1)).astype(np.float32))
            return tf.tanh(tf.nn.conv2d(h, kernel, [1, 1, 1, 1], "SAME"))

    def critic(x):
        with tf.variable_scope("critic", reuse=tf.AUTO_REUSE) as scope:
            scopes.append([scope.name, tf.get_variable_scope().reuse == tf.AUTO_REUSE])
            h = tf.layers.conv2d(x, 4, 3, strides=2, padding="same", kernel_initializer=init(
                3, 3, 1, 4), bias_initializer=init(4), name="conv")
            mean, variance = tf.nn.moments(h, [1, 2, 3], keep_dims=True)   # layer norm
            h = (h - mean) * tf.rsqrt(variance + 1e-5)
            h = tf.reshape(tf.nn.leaky_relu(h), [-1, 3 * 3 * 4])
            tf.get_variable("unused_scale", initializer=1.0)
            return tf.layers.dense(h, 1, kernel_initializer=init(36, 1), name="fc",
                                   kernel_regularizer=lambda w: 1e-3 * tf.nn.l2_loss(w))

    scopes = []
    real = tf.placeholder(tf.float32, [None, side, side, 1], name="real")
    z = tf.placeholder(tf.float32, [None, noise_dim], name="z")
    alpha = tf.placeholder(tf.float32, [None, 1, 1, 1], name="alpha")
    fake = generator(z)
    d_real, d_fake = critic(real), critic(fake)
    interpolates = real + alpha * (fake - real)
    slope_grad = tf.gradients(critic(interpolates), [interpolates])[0]
    slopes = tf.sqrt(tf.reduce_sum(tf.square(slope_grad), reduction_indices=[1, 2, 3]))
    norms = tf.norm(tf.reshape(slope_grad, [tf.shape(slope_grad)[0], -1]), axis=1)
    other_norms = [tf.norm(slope_grad, ord="fro", axis=[1, 2]),
                   tf.norm(tf.reshape(slope_grad, [-1, side * side]), ord=1, axis=-1),
                   tf.norm(slope_grad, ord=np.inf, axis=1, keepdims=True),
                   tf.norm(slope_grad[..., 0], ord=2, axis=[1, 2])]
    penalty = tf.reduce_mean((slopes - 1.0) ** 2)
    wasserstein = tf.reduce_mean(d_fake) - tf.reduce_mean(d_real)
    d_loss = wasserstein + 10.0 * penalty + tf.losses.get_regularization_loss()
    g_loss = -tf.reduce_mean(d_fake)

    d_vars = tf.trainable_variables(scope=scopes[0][0])
    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="generator")
    d_grads, d_used = zip(*tf.train.AdamOptimizer(1e-3, beta1=0.5, beta2=0.9)
                          .compute_gradients(d_loss, var_list=d_vars))
    clipped, global_norm = tf.clip_by_global_norm(list(d_grads), 1.0)
    nothing_clipped, no_norm = tf.clip_by_global_norm([None, None], 1.0)
    d_opt = tf.train.AdamOptimizer(1e-3, beta1=0.5, beta2=0.9)
    d_train = d_opt.apply_gradients(list(zip(clipped, d_used)))
    with tf.control_dependencies([d_train]):
        d_checksum = tf.add_n([tf.reduce_sum(v.read_value()) for v in d_vars])
    g_opt = tf.train.RMSPropOptimizer(5e-3, momentum=0.2, centered=True)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS, "generator")):
        g_train = g_opt.apply_gradients([(tf.clip_by_norm(g, 0.5), v) for g, v in
                                         g_opt.compute_gradients(g_loss, var_list=g_vars)])
    with tf.control_dependencies([d_train]):    # one run: a critic step, then the generator's
        g_loss_after = -tf.reduce_mean(critic(generator(z)))
        both_steps = g_opt.minimize(g_loss_after, var_list=g_vars)
    second_order = tf.gradients(penalty, d_vars[0])[0]
    penalty_generator = tf.gradients(penalty, g_vars)

    out["scopes"] = scopes
    out["optimizer_variables"] = [[v.op.name for v in opt.variables()] for opt in (d_opt, g_opt)]
    out["slot_names"] = [d_opt.get_slot_names(), g_opt.get_slot_names()]
    out["d_vars"] = [v.name for v in d_vars]
    out["g_vars"] = [v.name for v in g_vars]
    out["none_gradient"] = [g is None for g in d_grads]
    out["clipped_none"] = [g is None for g in clipped] + nothing_clipped
    out["regularization_losses"] = [t.op.name for t in
                                    tf.losses.get_regularization_losses(scope="critic")]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {real: real_data[0], z: noise_data[0], alpha: alpha_data[0]}
        out["initial"] = sess.run({"slopes": slopes, "norms": norms, "penalty": penalty,
                                   "global_norm": global_norm, "second_order": second_order,
                                   "other_norms": other_norms,
                                   "penalty_generator": penalty_generator,
                                   "no_norm": no_norm}, feed)
        history, checksums = [], []
        for step in range(steps):
            feed = {real: real_data[step], z: noise_data[step], alpha: alpha_data[step]}
            _, dl, gp, checksum = sess.run([d_train, d_loss, penalty, d_checksum], feed)
            if step % 2:
                _, gl = sess.run([both_steps, g_loss_after], feed)
            else:
                _, gl = sess.run([g_train, g_loss], {z: noise_data[step]})
            history.append([dl, gp, gl])
            checksums.append([checksum, sum(float(np.sum(v)) for v in sess.run(g_vars))])
        out["history"] = np.array(history)
        out["checksums"] = np.array(checksums)
        out["samples"] = sess.run(fake, {z: noise_data[0][:2]})
        out["moving_statistics"] = sess.run([v for v in tf.global_variables()
                                             if "moving" in v.name])

    labels = (rng.uniform(size=(4, 3)) > 0.5).astype(np.float32)
    predictions = rng.uniform(0.05, 0.95, (4, 3)).astype(np.float32)
    logits = tf.constant(rng.normal(0, 2, (4, 3)).astype(np.float32))
    weights = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)
    onehot = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
    reductions = {"NONE": tf.losses.Reduction.NONE, "SUM": tf.losses.Reduction.SUM,
                  "MEAN": tf.losses.Reduction.MEAN,
                  "SUM_BY_NONZERO_WEIGHTS": tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS,
                  "SUM_OVER_BATCH_SIZE": tf.losses.Reduction.SUM_OVER_BATCH_SIZE}
    families = {
        "huber": lambda **kw: tf.losses.huber_loss(labels, logits, delta=0.7, **kw),
        "log": lambda **kw: tf.losses.log_loss(labels, predictions, **kw),
        "hinge": lambda **kw: tf.losses.hinge_loss(labels, logits, **kw),
        "cosine": lambda **kw: tf.losses.cosine_distance(
            tf.nn.l2_normalize(labels + 0.1, 1), tf.nn.l2_normalize(predictions, 1), axis=1,
            **kw),
        "absolute": lambda **kw: tf.losses.absolute_difference(labels, predictions, **kw),
        "squared": lambda **kw: tf.losses.mean_squared_error(labels, predictions, **kw),
        "sigmoid": lambda **kw: tf.losses.sigmoid_cross_entropy(
            labels, logits, label_smoothing=0.2, **kw),
        "softmax": lambda **kw: tf.losses.softmax_cross_entropy(
            onehot, logits, label_smoothing=0.1, **kw)}
    built = {}
    for family, loss in families.items():
        for mode, reduction in reductions.items():
            built[family + "_" + mode] = loss(
                weights=weights[:, 0] if family == "softmax" else weights,
                reduction=reduction, loss_collection=None)
        built[family + "_zero_weights"] = loss(
            weights=0.0, reduction=tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS)
    built["pairwise"] = tf.losses.mean_pairwise_squared_error(labels, predictions,
                                                              weights=weights)
    built["pairwise_scalar_weight"] = tf.losses.mean_pairwise_squared_error(
        labels, predictions, weights=3.0)
    built["weighted_xent"] = tf.nn.weighted_cross_entropy_with_logits(
        labels=labels, logits=logits, pos_weight=2.5)
    built["weighted_xent_targets"] = tf.nn.weighted_cross_entropy_with_logits(
        targets=labels, logits=logits, pos_weight=0.5)
    built["compute_weighted"] = tf.losses.compute_weighted_loss(
        tf.square(logits), weights=weights, scope="custom", reduction=tf.losses.Reduction.MEAN)
    fed_weights = tf.placeholder(tf.float32, [None, None], name="fed_weights")
    fed_loss = tf.losses.absolute_difference(labels, predictions, weights=fed_weights,
                                             loss_collection=None)
    built["gradient"] = tf.gradients(
        [built[k] for k in ("huber_MEAN", "hinge_SUM", "sigmoid_SUM_BY_NONZERO_WEIGHTS",
                            "softmax_SUM_OVER_BATCH_SIZE")], logits)[0]
    out["loss_shapes"] = {k: v.shape.as_list() for k, v in built.items()}
    out["collected_losses"] = [t.op.name for t in tf.losses.get_losses()]
    out["scoped_losses"] = [t.op.name for t in tf.losses.get_losses(scope="custom")]
    out["reduction_keys"] = list(tf.losses.Reduction.all())
    built["total_loss"] = tf.losses.get_total_loss()
    built["total_without_regularization"] = tf.losses.get_total_loss(
        add_regularization_losses=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["losses"] = sess.run(built)
        out["fed_weights_loss"] = sess.run(fed_loss, {fed_weights: weights})
        try:
            sess.run(fed_loss, {fed_weights: np.ones((2, 3), np.float32)})
        except tf.errors.OpError as e:
            out["fed_weights_error"] = type(e).__name__

    def error(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the class is what the program records
            return type(e).__name__
        return None

    out["errors"] = {
        "cosine_without_axis": error(lambda: tf.losses.cosine_distance(labels, predictions)),
        "shape_mismatch": error(lambda: tf.losses.mean_squared_error(labels, predictions[:2])),
        "bad_reduction": error(lambda: tf.losses.absolute_difference(
            labels, predictions, reduction="bogus")),
        "labels_none": error(lambda: tf.losses.log_loss(None, predictions)),
        "bad_weights": error(lambda: tf.losses.huber_loss(labels, logits, weights=weights[:3])),
        "norm_three_axes": error(lambda: tf.norm(slope_grad, axis=[1, 2, 3])),
        "validate": error(lambda: tf.losses.Reduction.validate("bogus")),
        "no_gradients": error(lambda: tf.train.AdamOptimizer(0.1).apply_gradients(
            [(None, v) for v in d_vars]))}
    out["_tol"] = {"initial": {"rtol": 1e-4, "atol": 1e-5},
                   "history": {"rtol": 1e-4, "atol": 1e-5},
                   "checksums": {"rtol": 1e-4, "atol": 1e-4},
                   "samples": {"rtol": 1e-4, "atol": 1e-5},
                   "moving_statistics": {"rtol": 1e-4, "atol": 1e-5}}
