"""Gaussian-process regression with its kernel hyperparameters trained TF1-style (as GPflow
1.x and the TF1 GP tutorials did): an RBF kernel from pairwise squared distances with
softplus-constrained lengthscale, variance and noise variables, tf.linalg.cholesky,
triangular_solve (lower, upper, adjoint) and cholesky_solve, the log marginal likelihood
from the Cholesky diagonal, cross-checked against slogdet, logdet, matrix_determinant,
matrix_inverse and matrix_solve; eye, set_diag, matrix_diag, band_part, adjoint and trace,
also in GPflow 1.x's spellings (tf.cholesky, tf.matrix_triangular_solve, ...); two outputs
as one batch of kernels; Adam steps (and GradientDescent on the noise alone) on the negative
log marginal likelihood with their losses and gradients, gradients through cholesky,
triangular_solve, slogdet, logdet, matrix_determinant and matrix_inverse, the predictive
mean and variance and the held-out log density (tf.distributions.Normal), tf.hessians of
the likelihood in the hyperparameters, a float32 case, static shapes and node names, and
the errors a user hits: a matrix that is not positive definite or singular and a feed of
the wrong length at run time (InvalidArgumentError), shape mismatches at build time
(ValueError)."""

import numpy as np


def _inverse_softplus(value):
    return np.log(np.expm1(value))


def _squared_distances(tf, a, b):
    a2 = tf.reduce_sum(tf.square(a), axis=1, keepdims=True)
    b2 = tf.reduce_sum(tf.square(b), axis=1, keepdims=True)
    return tf.maximum(a2 - 2.0 * tf.matmul(a, b, transpose_b=True) + tf.transpose(b2), 0.0)


def _rbf(tf, a, b, lengthscale, variance):
    return variance * tf.exp(-0.5 * _squared_distances(tf, a / lengthscale, b / lengthscale))


def _negative_log_marginal_likelihood(tf, x, y, params, dtype):
    lengthscale, variance, noise = [tf.nn.softplus(p) for p in params]
    n = tf.shape(x)[0]
    kxx = _rbf(tf, x, x, lengthscale, variance)
    k = tf.linalg.set_diag(kxx, tf.linalg.diag_part(kxx) + noise)
    chol = tf.linalg.cholesky(k)
    alpha = tf.linalg.cholesky_solve(chol, y)
    data_fit = 0.5 * tf.reduce_sum(y * alpha)
    complexity = tf.reduce_sum(tf.log(tf.linalg.diag_part(chol)))
    constant = 0.5 * tf.cast(n, dtype) * np.log(2.0 * np.pi)
    return data_fit + complexity + constant, k, chol


def main(tf, out):
    rng = np.random.RandomState(0)
    x_data = np.sort(rng.uniform(-3.0, 3.0, (10, 1)), axis=0)
    y_data = (np.sin(x_data) + 0.1 * rng.normal(size=(10, 1)))
    x_new = np.linspace(-3.5, 3.5, 6)[:, None]
    start = _inverse_softplus(np.array([0.7, 1.5, 0.2]))

    x = tf.placeholder(tf.float64, [None, 1], name="x")
    y = tf.placeholder(tf.float64, [None, 1], name="y")
    x_star = tf.placeholder(tf.float64, [None, 1], name="x_star")
    with tf.variable_scope("gp"):
        params = [tf.get_variable(name, initializer=np.float64(value)) for name, value
                  in zip(["raw_lengthscale", "raw_variance", "raw_noise"], start)]
    nlml, k, chol = _negative_log_marginal_likelihood(tf, x, y, params, tf.float64)
    lengthscale, variance, noise = [tf.nn.softplus(p) for p in params]
    n = tf.cast(tf.shape(x)[0], tf.float64)

    # the same likelihood four other ways
    sign, logabsdet = tf.linalg.slogdet(k)
    k_inv = tf.matrix_inverse(k)
    quad_inv = tf.reduce_sum(y * tf.matmul(k_inv, y))
    nlml_slogdet = 0.5 * quad_inv + 0.5 * logabsdet + 0.5 * n * np.log(2.0 * np.pi)
    checks = {"sign": sign, "logabsdet": logabsdet, "logdet": tf.linalg.logdet(k),
              "log_det_from_chol": 2.0 * tf.reduce_sum(tf.log(tf.linalg.diag_part(chol))),
              "log_determinant": tf.log(tf.matrix_determinant(k)), "nlml_slogdet": nlml_slogdet}
    v = tf.linalg.triangular_solve(chol, y, lower=True)
    chol_t = tf.linalg.adjoint(chol)
    checks["alpha_upper"] = tf.linalg.triangular_solve(chol_t, v, lower=False)
    checks["alpha_adjoint"] = tf.linalg.triangular_solve(chol, v, adjoint=True)
    checks["alpha_inverse"] = tf.matmul(k_inv, y)
    checks["band_lower_is_chol"] = tf.reduce_max(tf.abs(tf.linalg.band_part(chol, -1, 0) - chol))
    checks["band_diag"] = tf.linalg.band_part(k, 0, 0) - tf.matrix_diag(tf.linalg.diag_part(k))
    checks["reconstruct"] = tf.reduce_max(tf.abs(tf.matmul(chol, chol, transpose_b=True) - k))
    checks["identity"] = tf.reduce_max(tf.abs(tf.matmul(k, k_inv) - tf.eye(tf.shape(x)[0],
                                                                          dtype=tf.float64)))

    # predictive mean and variance at new points
    k_star = _rbf(tf, x, x_star, lengthscale, variance)
    a = tf.linalg.triangular_solve(chol, k_star, lower=True)
    mean = tf.matmul(a, v, transpose_a=True)
    var = variance - tf.reduce_sum(tf.square(a), axis=0)
    y_new = tf.placeholder(tf.float64, [None], name="y_new")
    predictive = tf.distributions.Normal(loc=mean[:, 0], scale=tf.sqrt(var + noise))
    log_density = tf.check_numerics(tf.reduce_sum(predictive.log_prob(y_new)), "log density")

    # the same prediction in GPflow 1.x's spellings, and two outputs as one batch
    chol_v1 = tf.cholesky(tf.matrix_set_diag(k, tf.matrix_diag_part(k) + 1e-6))
    a_v1 = tf.matrix_triangular_solve(chol_v1, k_star, lower=True)
    checks["var_v1"] = variance - tf.reduce_sum(tf.square(a_v1), 0)
    checks["trace_band"] = tf.trace(tf.matrix_band_part(chol_v1, 0, 0))
    checks["solve"] = tf.matrix_solve(k, y)
    batch = tf.stack([k, _rbf(tf, x, x, 2.0 * lengthscale, variance) + 0.5 * tf.eye(
        tf.shape(x)[0], dtype=tf.float64)])
    batch_chol = tf.linalg.cholesky(batch)
    batch_y = tf.tile(y[None], [2, 1, 1])
    batch_solve = tf.linalg.triangular_solve(batch_chol, batch_y, lower=True)
    batch_fit = tf.reduce_sum(tf.square(batch_solve), axis=[1, 2])

    grads = tf.gradients(nlml, params)
    grads_slogdet = tf.gradients(nlml_slogdet, params)
    other_grads = {"var": tf.gradients(tf.reduce_sum(var), params),
                   "var_v1": tf.gradients(tf.reduce_sum(checks["var_v1"]), params),
                   "logdet": tf.gradients(tf.linalg.logdet(k), params),
                   "determinant": tf.gradients(tf.matrix_determinant(k), params),
                   "solve": tf.gradients(tf.reduce_sum(checks["solve"]), params),
                   "batch": tf.gradients(tf.reduce_sum(batch_fit), params),
                   "upper": tf.gradients(tf.reduce_sum(checks["alpha_upper"]), params),
                   "adjoint": tf.gradients(tf.reduce_sum(checks["alpha_adjoint"]), params)}
    var_hessians = tf.hessians(nlml, params)
    train_op = tf.train.AdamOptimizer(0.1).minimize(nlml)
    noise_step = tf.train.GradientDescentOptimizer(0.05).minimize(nlml, var_list=params[2:])

    theta = tf.placeholder(tf.float64, [3], name="theta")
    small_nlml, small_k, _ = _negative_log_marginal_likelihood(
        tf, tf.constant(x_data[:4]), tf.constant(y_data[:4]), tf.unstack(theta), tf.float64)
    (hessian,) = tf.hessians(small_nlml, theta)
    (hessian_slogdet,) = tf.hessians(tf.linalg.slogdet(small_k)[1] + tf.reduce_sum(
        tf.matrix_inverse(small_k)), theta)

    x32 = tf.constant(x_data.astype(np.float32))
    y32 = tf.constant(y_data.astype(np.float32))
    params32 = [tf.constant(p, tf.float32) for p in start.astype(np.float32)]
    nlml32, _, _ = _negative_log_marginal_likelihood(tf, x32, y32, params32, tf.float32)
    grads32 = tf.gradients(nlml32, params32)

    not_pd = tf.placeholder(tf.float64, [3, 3], name="not_pd")
    feed = {x: x_data, y: y_data, x_star: x_new}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["initial_nlml"], out["initial_grads"], out["initial_grads_slogdet"] = sess.run(
            [nlml, grads, grads_slogdet], feed)
        out["checks"] = sess.run(checks, feed)
        out["chol"] = sess.run(chol, feed)
        losses, steps = [], []
        for _ in range(8):
            _, loss = sess.run([train_op, nlml], feed)
            losses.append(loss)
            steps.append(sess.run(grads, feed))
        out["losses"], out["step_grads"] = np.array(losses), np.array(steps)
        out["hyperparameters"] = sess.run([lengthscale, variance, noise])
        out["noise_steps"] = [sess.run([noise_step, nlml, noise], feed)[1:] for _ in range(3)]
        out["batch_fit"], out["other_grads"] = sess.run([batch_fit, other_grads], feed)
        out["variable_hessians"] = sess.run(var_hessians, feed)
        out["predictive_mean"], out["predictive_var"], out["log_density"] = sess.run(
            [mean, var, log_density], {y_new: np.sin(x_new[:, 0]), **feed})
        out["hessian"], out["hessian_slogdet"] = sess.run([hessian, hessian_slogdet],
                                                          {theta: start})
        out["nlml32"], out["grads32"] = sess.run([nlml32, grads32])
        out["static_shapes"] = [t.shape.as_list() for t in [
            k, chol, checks["alpha_upper"], sign, k_inv, mean, var, batch_chol, batch_fit,
            hessian, var_hessians[0], checks["solve"], checks["trace_band"]]]
        out["names"] = [t.name for t in [chol, sign, logabsdet, k_inv, checks["logdet"], v,
                                         chol_t, checks["alpha_upper"], chol_v1, a_v1,
                                         batch_solve, tf.linalg.cholesky_solve(chol, y),
                                         checks["trace_band"], tf.linalg.band_part(k, -1, 0),
                                         tf.eye(tf.shape(x)[0], dtype=tf.float64)]]
        out["dtypes"] = [t.dtype.name for t in [nlml, nlml32, sign, hessian]]
        # TF1 raised InvalidArgumentError for a matrix that is not positive definite
        # (TF 2.21's CPU kernel fills NaN: test_tf1_programs.DIFFERS)
        indefinite = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        for key, op in [("cholesky_error", tf.linalg.cholesky(not_pd)),
                        ("inverse_error", tf.matrix_inverse(not_pd))]:
            try:
                sess.run(op, {not_pd: indefinite if key == "cholesky_error"
                              else np.ones((3, 3))})
                out[key] = None
            except tf.errors.InvalidArgumentError:
                out[key] = "InvalidArgumentError"
        try:                                         # one target too few, found at run time
            sess.run(nlml, {x: x_data, y: y_data[:-1]})
            out["feed_mismatch_error"] = None
        except tf.errors.InvalidArgumentError:
            out["feed_mismatch_error"] = "InvalidArgumentError"
        out["empty_chol"] = sess.run(tf.linalg.cholesky(tf.zeros([0, 0], tf.float64)))
    for key, build in [("non_square_error", lambda: tf.linalg.cholesky(tf.zeros([2, 3]))),
                       ("solve_shape_error", lambda: tf.linalg.triangular_solve(
                           tf.eye(3), tf.ones([4, 1]))),
                       ("cholesky_solve_error", lambda: tf.linalg.cholesky_solve(
                           tf.eye(3, batch_shape=[2]), tf.ones([2, 4, 1]))),
                       ("kernel_shape_error", lambda: tf.matmul(
                           tf.ones([5, 1], tf.float64), tf.ones([2, 5], tf.float64)))]:
        try:
            build()
            out[key] = None
        except ValueError:
            out[key] = "ValueError"
    double = {"rtol": 1e-9, "atol": 1e-12}     # LAPACK's orders of summation, no more
    out["_tol"] = {**dict.fromkeys(["initial_nlml", "initial_grads", "initial_grads_slogdet",
                                    "checks", "chol", "losses", "step_grads",
                                    "hyperparameters", "noise_steps", "batch_fit",
                                    "other_grads", "variable_hessians", "predictive_mean",
                                    "predictive_var", "log_density", "hessian",
                                    "hessian_slogdet"], double),
                   "nlml32": {"rtol": 1e-5, "atol": 1e-6},
                   "grads32": {"rtol": 2e-5, "atol": 1e-6}}
