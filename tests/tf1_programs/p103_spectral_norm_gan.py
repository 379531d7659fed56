"""A small SN-GAN (Miyato et al.) as TF1 code wrote it, on 8x8x1 synthetic images with the
noise fed from numpy: a generator of tf.layers.dense, reshape, tf.layers.batch_normalization
(training fed through a placeholder_with_default, its UPDATE_OPS run by the generator step)
and tf.nn.conv2d_transpose with an output_shape built by tf.stack from tf.shape(z)[0]; a
discriminator whose conv and dense weights are spectrally normalized the classic way (a
non-trainable u per weight, one power iteration with tf.nn.l2_normalize and / tf.norm,
tf.stop_gradient on u and v, sigma = v W u^T, u written back by tf.assign under
tf.control_dependencies on every training call and not at eval), reused by tf.AUTO_REUSE for
real and fake; the hinge loss, two Adam(2e-4, beta1=0, beta2=0.9) on var_lists by scope,
alternating D and G steps; sigma against tf.linalg.svd and tf.norm(ord=2), the gradient
of the top singular value; and the errors a user hits
(conv2d_transpose output_shape, reuse=True of a missing variable, tf.assign of a wrong shape)
and a non-trainable variable passed to minimize explicitly (it is trained)."""

import numpy as np


def main(tf, out):
    rng = np.random.RandomState(0)
    batch, side, noise_dim, steps = 4, 8, 6, 4
    real_data = np.tanh(rng.normal(0.2, 0.7, (steps, batch, side, side, 1))).astype(np.float32)
    noise_data = rng.uniform(-1, 1, (steps + 1, batch, noise_dim)).astype(np.float32)

    def init(*shape):
        return tf.constant_initializer(rng.normal(0, 0.3, shape))

    def generator(z, training):
        with tf.variable_scope("generator", reuse=tf.AUTO_REUSE):
            h = tf.layers.dense(z, 4 * 4 * 8, kernel_initializer=init(noise_dim, 128), name="fc")
            h = tf.layers.batch_normalization(tf.reshape(h, [-1, 4, 4, 8]), training=training,
                                              momentum=0.8, name="bn")
            kernel = tf.get_variable("deconv_w", initializer=rng.normal(
                0, 0.3, (3, 3, 1, 8)).astype(np.float32))
            output_shape = tf.stack([tf.shape(z)[0], side, side, 1])
            h = tf.nn.conv2d_transpose(tf.nn.relu(h), kernel, output_shape, [1, 2, 2, 1], "SAME")
            bias = tf.get_variable("deconv_b", [1], initializer=tf.zeros_initializer())
            return tf.tanh(h + bias)

    def spectral_norm(w, update):
        shape = w.shape.as_list()
        w_mat = tf.reshape(w, [-1, shape[-1]])
        u = tf.get_variable(w.op.name.split("/")[-1] + "_u", [1, shape[-1]], trainable=False,
                            initializer=init(1, shape[-1]))
        v_hat = tf.nn.l2_normalize(tf.matmul(u, w_mat, transpose_b=True))
        u_new = tf.matmul(v_hat, w_mat)
        u_hat = tf.stop_gradient(u_new / tf.norm(u_new))
        v_hat = tf.stop_gradient(v_hat)
        sigma = tf.matmul(tf.matmul(v_hat, w_mat), u_hat, transpose_b=True)[0, 0]
        sigmas.append(sigma)
        if not update:
            return w / sigma
        with tf.control_dependencies([tf.assign(u, u_hat)]):
            return tf.reshape(w_mat / sigma, shape)

    def discriminator(x, update=True):
        with tf.variable_scope("discriminator", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("conv_w", initializer=rng.normal(
                0, 0.3, (3, 3, 1, 8)).astype(np.float32))
            b = tf.get_variable("conv_b", [8], initializer=tf.zeros_initializer())
            h = tf.nn.leaky_relu(tf.nn.conv2d(x, spectral_norm(w, update), [1, 2, 2, 1], "SAME")
                                 + b, alpha=0.1)
            h = tf.reshape(h, [-1, 4 * 4 * 8])
            for name, units in (("fc1", 16), ("fc2", 1)):
                w = tf.get_variable(name + "_w", [h.shape.as_list()[-1], units],
                                    initializer=init(h.shape.as_list()[-1], units))
                b = tf.get_variable(name + "_b", [units], initializer=tf.zeros_initializer())
                h = tf.matmul(h, spectral_norm(w, update)) + b
                h = tf.nn.leaky_relu(h, alpha=0.1) if units > 1 else h
            return h

    sigmas = []
    real = tf.placeholder(tf.float32, [None, side, side, 1], name="real")
    z = tf.placeholder(tf.float32, [None, noise_dim], name="z")
    is_training = tf.placeholder_with_default(True, [], name="is_training")
    fake = generator(z, is_training)
    d_real = discriminator(real)
    train_sigmas = list(sigmas)
    d_fake = discriminator(fake)
    d_eval = discriminator(fake, update=False)
    eval_sigmas = sigmas[6:]
    d_loss = tf.reduce_mean(tf.nn.relu(1.0 - d_real)) + tf.reduce_mean(tf.nn.relu(1.0 + d_fake))
    g_loss = -tf.reduce_mean(d_fake)

    d_vars = [v for v in tf.trainable_variables() if v.name.startswith("discriminator/")]
    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="generator")
    us = [v for v in tf.global_variables() if v.name.endswith("_u:0")]
    d_train = tf.train.AdamOptimizer(2e-4, beta1=0.0, beta2=0.9).minimize(d_loss,
                                                                          var_list=d_vars)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        g_train = tf.train.AdamOptimizer(2e-4, beta1=0.0, beta2=0.9).minimize(g_loss,
                                                                              var_list=g_vars)
    grads = tf.gradients(d_loss, [d_vars[0], us[0], g_vars[-2]])
    g_grads = tf.gradients(g_loss, [g_vars[-2], z])
    w_mats = [tf.reshape(v, [-1, v.shape.as_list()[-1]]) for v in d_vars if "_w" in v.name]
    true_sigmas = [tf.linalg.svd(m, compute_uv=False)[0] for m in w_mats]
    spectral_norms = [tf.norm(m, ord=2, axis=[-2, -1]) for m in w_mats]
    sigma_grad = tf.gradients(true_sigmas[0], d_vars[0])[0]     # u1 v1^T, as conv_w

    out["d_vars"] = [v.name for v in d_vars]
    out["g_vars"] = [v.name for v in g_vars]
    out["u_vars"] = [[v.name, v.shape.as_list(), v in tf.trainable_variables()] for v in us]
    out["none_gradient_for_u"] = grads[1] is None
    out["fake_shape"] = fake.shape.as_list()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {real: real_data[0], z: noise_data[0]}
        out["initial"] = sess.run({"d_loss": d_loss, "g_loss": g_loss, "u": us,
                                   "sigmas": train_sigmas, "d_grads": [grads[0], grads[2]],
                                   "g_grads": g_grads}, feed)
        history, sigma_history, u_history = [], [], []
        for step in range(steps):
            feed = {real: real_data[step], z: noise_data[step]}
            _, dl, s = sess.run([d_train, d_loss, train_sigmas], feed)
            _, gl = sess.run([g_train, g_loss], {z: noise_data[step + 1]})
            history.append([dl, gl])
            sigma_history.append(s)
            u_history.append(np.concatenate([u[0] for u in sess.run(us)]))
        out["history"] = np.array(history)
        out["sigma_history"] = np.array(sigma_history)
        out["u_history"] = np.array(u_history)
        before = sess.run(us)
        eval_feed = {z: noise_data[0], is_training: False}
        out["eval"] = sess.run({"images": fake, "d": d_eval, "sigmas": eval_sigmas}, eval_feed)
        out["eval_leaves_u"] = all(np.array_equal(a, b) for a, b in zip(before, sess.run(us)))
        estimated, exact, norms = sess.run([eval_sigmas, true_sigmas, spectral_norms])
        out["true_sigmas"] = np.array([exact, norms])
        out["sigma_grad"] = sess.run(sigma_grad)
        out["sigma_close"] = bool(np.all(np.abs(np.array(estimated) / exact - 1) < 0.02))
        out["moving_statistics"] = sess.run([v for v in tf.global_variables()
                                             if "moving" in v.name])

    def error(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the class is what the program records
            return type(e).__name__
        return None

    x = tf.placeholder(tf.float32, [None, 4, 4, 8])
    kernel = tf.constant(rng.normal(size=(3, 3, 1, 8)).astype(np.float32))
    wrong_spatial = tf.stack([tf.shape(x)[0], 5, 5, 1])
    static = tf.nn.conv2d_transpose(x, kernel, [2, 5, 5, 1], [1, 2, 2, 1], "SAME")
    dynamic = tf.nn.conv2d_transpose(x, kernel, wrong_spatial, [1, 2, 2, 1], "SAME")
    out["unchecked_shapes"] = [t.shape.as_list() for t in (static, dynamic)]
    out["channels_error"] = error(lambda: tf.nn.conv2d_transpose(x, kernel, [2, 8, 8, 3],
                                                                 [1, 2, 2, 1], "SAME"))
    errors = {"assign_wrong_shape": error(lambda: tf.assign(us[0], tf.zeros([1, 3]))),
              "assign_transposed": error(lambda: us[0].assign(tf.zeros([8, 1])))}
    with tf.variable_scope("discriminator", reuse=True):
        errors["reuse_missing"] = error(lambda: tf.get_variable("missing", [2]))
    temperature = tf.get_variable("temperature", initializer=2.0, trainable=False)
    tempered = tf.reduce_mean(tf.square(d_eval / temperature - 0.5))
    tempered_train = tf.train.GradientDescentOptimizer(0.5).minimize(tempered,
                                                                     var_list=[temperature])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        run_errors = {}
        for name, t in (("static", static), ("dynamic", dynamic)):
            try:
                sess.run(t, {x: np.ones((2, 4, 4, 8), np.float32)})
            except tf.errors.OpError as e:
                run_errors[name] = type(e).__name__
        sess.run(tempered_train, {z: noise_data[0]})
        out["temperature_trained"] = sess.run(temperature)
    out["errors"] = errors
    out["run_errors"] = run_errors
    out["run_errors_raised"] = sorted(run_errors)
