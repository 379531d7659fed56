"""A normalizing-flow density model (RealNVP / Glow style) trained TF1-style: ActNorm with
data-dependent initialization (tf.assign of the first batch's statistics under a tf.cond on
an init-flag variable), affine couplings on tf.split halves and on a tf.constant
checkerboard mask with tf.layers.dense scale/shift nets and tanh-bounded log-scales, an
invertible 1x1 "convolution" W parametrized by the LU decomposition of its initial value
(tf.linalg.lu, band_part + eye for the unit lower factor, diag_part split into log|s| and
sign(s), lu_reconstruct and tf.gather by the inverse permutation); its log-determinant three
ways (slogdet, logdet of W W^T, the sum of log|s|) and their gradients; the log-likelihood
under a standard normal base in bits per dim over a few Adam steps; the inverse pass with
triangular_solve (lower, upper, adjoint), matrix_inverse, solve, lu_solve and
lu_matrix_inverse reconstructing the input; gradients of triangular_solve, matrix_inverse,
slogdet and cholesky; expm of a skew matrix (a rotation); and the errors a user hits: a
singular matrix (slogdet sign 0 and -inf, matrix_inverse InvalidArgumentError "Input is not
invertible"), cholesky of a matrix that is not positive definite, a non-square feed at run
time, and non-square shapes at build time (ValueError)."""

import numpy as np

D = 4


def _dense_init(tf, rng, shape, scale):
    return tf.constant_initializer(rng.normal(0.0, scale, shape).astype(np.float32))


def _actnorm(tf, x):
    with tf.variable_scope("actnorm"):
        loc = tf.get_variable("loc", [D], initializer=tf.zeros_initializer())
        log_scale = tf.get_variable("log_scale", [D], initializer=tf.zeros_initializer())
        initialized = tf.get_variable("initialized", [], tf.bool, trainable=False,
                                      initializer=tf.constant_initializer(False))

        def _data_init():
            mean, var = tf.nn.moments(x, axes=[0])
            new_loc = tf.assign(loc, -mean)
            new_log_scale = tf.assign(log_scale, -tf.log(tf.sqrt(var) + 1e-6))
            with tf.control_dependencies([new_loc, new_log_scale]):
                flag = tf.assign(initialized, True)
            with tf.control_dependencies([flag]):
                return tf.identity(new_loc), tf.identity(new_log_scale)

        loc_v, log_scale_v = tf.cond(
            initialized, lambda: (tf.identity(loc), tf.identity(log_scale)), _data_init)
    return ((x + loc_v) * tf.exp(log_scale_v), tf.reduce_sum(log_scale_v),
            (loc_v, log_scale_v), (loc, log_scale))


def _coupling_net(tf, rng, h, name):
    with tf.variable_scope(name, reuse=tf.AUTO_REUSE):
        n_in = h.shape.as_list()[-1]
        hidden = tf.layers.dense(h, 8, activation=tf.tanh, name="hidden",
                                 kernel_initializer=_dense_init(tf, rng, [n_in, 8], 0.5))
        shift = tf.layers.dense(hidden, n_in, name="shift",
                                kernel_initializer=_dense_init(tf, rng, [8, n_in], 0.1))
        raw = tf.layers.dense(hidden, n_in, name="raw_log_scale",
                              kernel_initializer=_dense_init(tf, rng, [8, n_in], 0.1))
        scale = tf.get_variable("scale", [], initializer=tf.constant_initializer(0.5))
    return shift, scale * tf.tanh(raw)


def main(tf, out):
    rng = np.random.RandomState(0)
    mixing = np.array([[1.0, 0.0, 0.0, 0.0], [0.8, 0.6, 0.0, 0.0],
                       [-0.3, 0.2, 0.5, 0.0], [0.1, -0.4, 0.3, 0.7]])
    data = (np.tanh(rng.normal(size=(24, D)) * 1.5).dot(mixing.T) * 2.0 + 0.5).astype(
        np.float32)
    w0 = np.linalg.qr(rng.normal(size=(D, D)))[0].astype(np.float32)
    nets = [np.random.RandomState(seed) for seed in (1, 2)]

    x = tf.placeholder(tf.float32, [None, D], name="x")
    h, logdet_actnorm, actnorm_stats, actnorm_vars = _actnorm(tf, x)

    # coupling 1: tf.split halves
    x1, x2 = tf.split(h, 2, axis=1)
    shift1, log_s1 = _coupling_net(tf, nets[0], x1, "coupling1")
    h = tf.concat([x1, x2 * tf.exp(log_s1) + shift1], axis=1)
    logdet1 = tf.reduce_sum(log_s1, axis=1)

    # invertible 1x1 convolution, parametrized by the LU decomposition of W0
    with tf.variable_scope("invconv"):
        # the LU variables start from a (frozen) variable W0: TF1 guards their initial
        # values with W0's initialized_value, whatever order the initializers run in
        w_init = tf.get_variable("w_init", initializer=w0, trainable=False)
        lu0, perm = tf.linalg.lu(w_init)
        s0 = tf.linalg.diag_part(lu0)
        lower_mask = tf.linalg.band_part(tf.ones([D, D]), -1, 0) - tf.eye(D)
        l_var = tf.get_variable("lower", initializer=lu0 * lower_mask)
        u_var = tf.get_variable("upper", initializer=lu0 * tf.transpose(lower_mask))
        log_s = tf.get_variable("log_s", initializer=tf.log(tf.abs(s0)))
        sign_s = tf.sign(s0)
        lower = tf.linalg.band_part(l_var, -1, 0) * lower_mask + tf.eye(D)
        upper = u_var * tf.transpose(lower_mask) + tf.linalg.diag(sign_s * tf.exp(log_s))
        w = tf.gather(tf.matmul(lower, upper), tf.math.invert_permutation(perm))
        w_reconstructed = tf.linalg.lu_reconstruct(lower - tf.eye(D) + upper, perm)
    h = tf.matmul(h, w, transpose_b=True)
    logdet_w = tf.reduce_sum(log_s)

    # coupling 2: a checkerboard mask
    mask = tf.constant([1.0, 0.0, 1.0, 0.0])
    shift2, log_s2 = _coupling_net(tf, nets[1], h * mask, "coupling2")
    log_s2 = log_s2 * (1.0 - mask)
    z = h * mask + (1.0 - mask) * (h * tf.exp(log_s2) + shift2 * (1.0 - mask))
    logdet2 = tf.reduce_sum(log_s2, axis=1)

    log_pz = -0.5 * tf.reduce_sum(tf.square(z), axis=1) - 0.5 * D * np.log(2.0 * np.pi)
    log_px = log_pz + logdet_actnorm + logdet1 + logdet_w + logdet2
    nll = -tf.reduce_mean(log_px)
    bits_per_dim = nll / (D * np.log(2.0))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(0.01).minimize(nll, global_step=global_step)
    params = tf.trainable_variables()

    # the inverse pass: undo coupling 2, W by triangular solves, coupling 1, actnorm
    z_in = tf.placeholder(tf.float32, [None, D], name="z")
    shift2_i, log_s2_i = _coupling_net(tf, nets[1], z_in * mask, "coupling2")
    h = z_in * mask + (1.0 - mask) * (z_in - shift2_i) * tf.exp(-log_s2_i * (1.0 - mask))
    rows = tf.gather(tf.transpose(h), perm)
    solved = tf.linalg.triangular_solve(lower, rows, lower=True)
    h_tri = tf.transpose(tf.linalg.triangular_solve(upper, solved, lower=False))
    h_adj = tf.transpose(tf.linalg.triangular_solve(tf.transpose(upper), solved, lower=True,
                                                    adjoint=True))
    h_inv = tf.matmul(h, tf.matrix_inverse(w), transpose_b=True)
    h_solve = tf.transpose(tf.linalg.solve(w, tf.transpose(h)))
    h_lu = tf.transpose(tf.linalg.lu_solve(lower - tf.eye(D) + upper, perm, tf.transpose(h)))
    y1, y2 = tf.split(h_tri, 2, axis=1)
    shift1_i, log_s1_i = _coupling_net(tf, nets[0], y1, "coupling1")
    h = tf.concat([y1, (y2 - shift1_i) * tf.exp(-log_s1_i)], axis=1)
    x_back = h * tf.exp(-actnorm_vars[1]) - actnorm_vars[0]

    logdets = {"slogdet": tf.linalg.slogdet(w)[1], "sum_log_s": logdet_w,
               "half_logdet_wwt": 0.5 * tf.linalg.logdet(tf.matmul(w, w, transpose_b=True))}
    lu_vars = [l_var, u_var, log_s]
    b = tf.constant(rng.normal(size=(D, 2)).astype(np.float32))

    def lu_grads(y):
        return tf.gradients(y, lu_vars, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    step0 = {k: lu_grads(v) for k, v in logdets.items()}
    out["unconnected"] = [g is None for g in tf.gradients(logdet_w, lu_vars)]
    step0["triangular_lower"] = lu_grads(tf.reduce_sum(tf.square(
        tf.linalg.triangular_solve(lower, b))))
    step0["triangular_upper_adjoint"] = lu_grads(tf.reduce_sum(
        tf.linalg.triangular_solve(upper, b, lower=False, adjoint=True)))
    step0["matrix_inverse"] = lu_grads(tf.reduce_sum(tf.matrix_inverse(w) * b[:, :1]))
    step0["cholesky"] = lu_grads(tf.reduce_sum(tf.linalg.cholesky(
        tf.matmul(w, w, transpose_a=True) + tf.eye(D))))
    theta = tf.placeholder(tf.float32, [], name="theta")
    skew = theta * tf.constant([[0.0, -1.0, 0.5], [1.0, 0.0, -0.25], [-0.5, 0.25, 0.0]])
    rotation = tf.linalg.expm(skew)

    square = tf.placeholder(tf.float32, [None, None], name="square")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["perm"], out["w0_from_lu"] = sess.run([perm, w_reconstructed])
        out["first_bits_per_dim"], out["actnorm_init"] = sess.run(
            [bits_per_dim, actnorm_stats], {x: data[:16]})
        out["initialized_flag"] = bool(sess.run("actnorm/initialized:0"))
        out["logdets"], out["step0_grads"] = sess.run([logdets, step0])
        out["nll_grads"] = sess.run(tf.gradients(nll, params), {x: data})
        out["bits_per_dim"] = np.array([sess.run([train_op, bits_per_dim], {x: data})[1]
                                        for _ in range(6)])
        out["global_step"] = int(sess.run(global_step))
        out["actnorm_after"] = sess.run(actnorm_vars)
        try:                 # the cond's untaken branch still reads x through its Switch
            sess.run(actnorm_stats)
            out["cond_without_feed"] = None
        except tf.errors.InvalidArgumentError:
            out["cond_without_feed"] = "InvalidArgumentError"
        out["w_after"], out["w_sign_det"] = sess.run([w, tf.linalg.slogdet(w)[0]])
        out["logdets_after"] = sess.run(logdets)
        z_data = sess.run(z, {x: data[:5]})
        out["reconstructed"] = sess.run(
            {"tri": x_back, "adjoint": h_adj, "tri_h": h_tri, "inverse": h_inv,
             "solve": h_solve, "lu_solve": h_lu}, {z_in: z_data})
        out["reconstruction_error"] = float(np.abs(out["reconstructed"]["tri"] -
                                                   data[:5]).max() < 1e-4)
        out["lu_inverse_vs_inverse"] = sess.run(tf.linalg.lu_matrix_inverse(
            lower - tf.eye(D) + upper, perm) - tf.matrix_inverse(w))
        out["samples"] = sess.run(x_back, {z_in: rng.normal(size=(3, D)).astype(np.float32)})
        out["rotation"], out["rotation_grad"] = sess.run(
            [rotation, tf.gradients(tf.reduce_sum(rotation * skew), theta)], {theta: 0.3})
        singular = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
        out["singular_slogdet"] = sess.run(tf.linalg.slogdet(square), {square: singular})
        # a W that diverged to NaN: slogdet is NaN (sign too), and the inverse refuses it
        # where its first pivot is NaN; a NaN below the diagonal passes (Eigen's pivoting)
        diverged = np.array([[np.nan, 1.0], [1.0, 2.0]], np.float32)
        out["diverged_slogdet"] = sess.run(tf.linalg.slogdet(square), {square: diverged})
        out["diverged_late_nan"] = sess.run(tf.matrix_inverse(square), {square: diverged.T[::-1]})
        out["diverged_triangular"] = sess.run(tf.linalg.triangular_solve(
            square, tf.ones([2, 1])), {square: diverged[::-1, ::-1]})
        for key, op, value in [("singular_inverse", tf.matrix_inverse(square), singular),
                               ("diverged_inverse", tf.matrix_inverse(square), diverged),
                               ("non_square_feed", tf.linalg.slogdet(square),
                                np.ones((2, 3), np.float32))]:
            try:
                sess.run(op, {square: value})
                out[key] = None
            except tf.errors.InvalidArgumentError as e:
                out[key] = ["InvalidArgumentError", "not invertible" in e.message]
        # TF1 raised InvalidArgumentError; TF 2.21's CPU kernel fills NaN (DIFFERS)
        try:
            sess.run(tf.linalg.cholesky(square), {square: [[1.0, 2.0], [2.0, 1.0]]})
            out["cholesky_not_pd"] = None
        except tf.errors.InvalidArgumentError:
            out["cholesky_not_pd"] = "InvalidArgumentError"
    for key, build in [("slogdet_shape", lambda: tf.linalg.slogdet(tf.zeros([2, 3]))),
                       ("inverse_shape", lambda: tf.matrix_inverse(tf.zeros([3, 2]))),
                       ("lu_shape", lambda: tf.linalg.lu(tf.zeros([2, 3]))),
                       ("triangular_shape", lambda: tf.linalg.triangular_solve(
                           tf.eye(3), tf.ones([2, 1])))]:
        try:
            build()
            out[key] = None
        except ValueError:
            out[key] = "ValueError"
    out["shapes"] = [t.shape.as_list() for t in [z, log_px, w, perm, rotation, h_tri]]
    out["guarded_init"] = [l_var.initial_value.name, l_var.initializer.inputs[1].name]
    loose = {"rtol": 1e-4, "atol": 1e-4}
    out["_tol"] = {**dict.fromkeys(["nll_grads", "reconstructed", "samples", "w_after",
                                    "logdets_after", "actnorm_after"], loose),
                   "step0_grads": {"rtol": 1e-4, "atol": 2e-5},
                   "lu_inverse_vs_inverse": {"rtol": 0, "atol": 1e-5},
                   # NaN is not equal to itself in the recorder's two-run check
                   **dict.fromkeys(["diverged_slogdet", "diverged_late_nan",
                                    "diverged_triangular"], {"rtol": 1e-6, "atol": 0})}
