"""tf.distributions as TF1 probabilistic models used it: every class's log_prob, prob,
cdfs, entropy and moments (NaN or an error for an undefined mean or mode, as
allow_nan_stats says), static and tensor batch/event shapes with broadcast parameters,
the registered KL divergences, gradients of log_prob/entropy/kl in the parameters,
validate_args errors, samples by shape and range only, and a mixture density network (a
Categorical over components, a Normal per component) trained a few Adam steps."""

import numpy as np

STATS = ["entropy", "mean", "variance", "stddev", "mode"]
PER_POINT = ["log_prob", "prob", "cdf", "log_cdf", "survival_function"]


def main(tf, out):
    ds = tf.distributions
    mix = [[1.5, 2.0, 3.0], [0.5, 4.0, 1.2]]
    dists = {
        "bernoulli": (ds.Bernoulli(logits=[-1.0, 0.0, 2.0]), [1, 0, 1]),
        "beta": (ds.Beta([0.5, 2.0, 3.0], [0.7, 2.0, 1.5]), [0.3, 0.5, 0.9]),
        "dirichlet": (ds.Dirichlet(mix), [[0.2, 0.3, 0.5], [0.1, 0.7, 0.2]]),
        "dirichlet_multinomial": (ds.DirichletMultinomial(5.0, mix),
                                  [[1.0, 2.0, 2.0], [0.0, 3.0, 2.0]]),
        "gamma": (ds.Gamma([0.5, 2.0, 3.0], [1.0, 0.5, 2.0]), [0.4, 3.0, 1.2]),
        "exponential": (ds.Exponential([0.5, 2.0]), [1.5, 0.25]),
        "laplace": (ds.Laplace([0.0, 1.0], [1.0, 0.5]), [[-0.5], [1.2]]),
        "multinomial": (ds.Multinomial([4.0, 6.0], logits=[[0.1, -0.4, 1.0], [0.0, 0.0, 0.5]]),
                        [[1.0, 0.0, 3.0], [2.0, 2.0, 2.0]]),
        "uniform": (ds.Uniform([0.0, -1.0], [1.0, 3.0]), [0.25, 3.5]),
        "student": (ds.StudentT([0.8, 1.5, 5.0], 0.5, 2.0), [-1.0, 0.5, 2.5]),
        "categorical": (ds.Categorical(probs=[[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]), [2, 0]),
        "normal": (ds.Normal(loc=[[0.0], [1.0]], scale=[0.5, 1.0, 2.0]), [0.3, -0.2, 1.5]),
    }
    fetch, missing = {}, {}
    for key, (dist, point) in dists.items():
        out[key + "_shapes"] = [dist.batch_shape.as_list(), dist.event_shape.as_list(),
                                dist.dtype.name]
        fetch[key + "_shape_tensors"] = [dist.batch_shape_tensor(), dist.event_shape_tensor()]
        for method in PER_POINT + STATS:
            if key == "dirichlet" and method == "mode":
                continue    # TF 2's where_v2 can't broadcast its batch's mask (TF1's where could)
            try:
                fn = getattr(dist, method)
                fetch[key + "_" + method] = fn(point) if method in PER_POINT else fn()
            except NotImplementedError:
                missing.setdefault(key, []).append(method)
    out["not_implemented"] = missing

    strict = {  # allow_nan_stats=False: TF checks at build when it can, else at run time
        "gamma_mode": lambda: ds.Gamma([0.5, 2.0], 1.0, allow_nan_stats=False).mode(),
        "gamma_mode_fed": lambda: ds.Gamma(tf.placeholder_with_default([0.5, 2.0], [2]), 1.0,
                                           allow_nan_stats=False).mode(),
        "beta_mode": lambda: ds.Beta([0.5, 2.0], 2.0, allow_nan_stats=False).mode(),
        "dirichlet_mode": lambda: ds.Dirichlet(mix, allow_nan_stats=False).mode(),
        "student_mean": lambda: ds.StudentT([0.8, 3.0], 0.0, 1.0,
                                            allow_nan_stats=False).mean(),
        "student_variance": lambda: ds.StudentT([1.5], 0.0, 1.0,
                                                allow_nan_stats=False).variance(),
        "student_variance_ok": lambda: ds.StudentT([2.5], 0.0, 1.0,
                                                   allow_nan_stats=False).variance(),
        "gamma_mode_ok": lambda: ds.Gamma([1.5, 2.0], 1.0, allow_nan_stats=False).mode(),
        "kl_nan": lambda: ds.kl_divergence(ds.Normal(0.0, [1.0, np.nan]), ds.Normal(0.0, 1.0),
                                           allow_nan_stats=False)}

    c1 = tf.constant([1.5, 0.7])
    c0 = tf.constant([2.0, 3.0])
    loc = tf.constant([0.2, -0.3])
    scale = tf.constant([1.0, 2.0])
    conc = tf.constant(mix)
    logits = tf.constant([[0.5, -1.0, 0.2], [0.0, 2.0, -0.5]])
    df = tf.constant([3.0, 7.0])
    pairs = {
        "bernoulli": (ds.Bernoulli(logits=logits[0]), ds.Bernoulli(probs=[0.3, 0.5, 0.9])),
        "beta": (ds.Beta(c1, c0), ds.Beta(2.0, [1.0, 4.0])),
        "categorical": (ds.Categorical(logits=logits), ds.Categorical(probs=[0.2, 0.3, 0.5])),
        "dirichlet": (ds.Dirichlet(conc), ds.Dirichlet([1.0, 2.0, 0.5])),
        "gamma": (ds.Gamma(c1, c0), ds.Gamma([2.0, 1.0], 3.0)),
        "exponential_gamma": (ds.Exponential(c0), ds.Gamma(c1, 1.5)),
        "normal": (ds.Normal(loc, scale), ds.Normal(0.0, [0.5, 3.0])),
    }
    params = [c1, c0, loc, scale, conc, logits, df]
    for key, (a, b) in pairs.items():
        kl = ds.kl_divergence(a, b)
        fetch["kl_" + key] = [kl, [g for g in tf.gradients(kl, params) if g is not None]]
    try:
        ds.kl_divergence(ds.Laplace(0.0, 1.0), ds.Normal(0.0, 1.0))
    except NotImplementedError:
        out["kl_unregistered"] = "NotImplementedError"
    grad_terms = {
        "gamma_log_prob": ds.Gamma(c1, c0).log_prob([0.5, 2.0]),
        "beta_log_prob": ds.Beta(c1, c0).log_prob([0.3, 0.8]),
        "beta_entropy": ds.Beta(c1, c0).entropy(),
        "student_log_prob": ds.StudentT(df, loc, scale).log_prob([1.0, -2.0]),
        "student_entropy": ds.StudentT(df, loc, scale).entropy(),
        "laplace_log_prob": ds.Laplace(loc, scale).log_prob([1.0, -2.0]),
        "dirichlet_log_prob": ds.Dirichlet(conc).log_prob([0.2, 0.3, 0.5]),
        "dirichlet_multinomial_log_prob": ds.DirichletMultinomial(4.0, conc).log_prob(
            [1.0, 1.0, 2.0]),
        "multinomial_log_prob": ds.Multinomial(3.0, logits=logits).log_prob([1.0, 0.0, 2.0]),
        "uniform_entropy": ds.Uniform(loc, loc + scale).entropy(),
    }
    for key, term in grad_terms.items():
        fetch["grad_" + key] = [g for g in tf.gradients(term, params) if g is not None]

    samples = {"bernoulli": ds.Bernoulli(probs=[0.2, 0.9]).sample(5, seed=1),
               "beta": ds.Beta([0.5, 2.0], 3.0).sample([2, 3], seed=2),
               "dirichlet": ds.Dirichlet(mix).sample(4, seed=3),
               "dirichlet_multinomial": ds.DirichletMultinomial(5.0, mix).sample(3, seed=4),
               "multinomial": ds.Multinomial([4.0, 6.0], probs=[0.2, 0.3, 0.5]).sample(
                   3, seed=5),
               "gamma": ds.Gamma([0.5, 2.0], 1.0).sample(6, seed=6),
               "uniform": ds.Uniform(-1.0, [0.0, 2.0]).sample(6, seed=7),
               "categorical": ds.Categorical(logits=logits).sample(6, seed=8),
               "student": ds.StudentT(3.0, [0.0, 1.0], 1.0).sample(2, seed=9)}
    checks = {"bernoulli": lambda s: bool(np.isin(s, [0, 1]).all()),
              "beta": lambda s: bool(((s > 0) & (s < 1)).all()),
              "dirichlet": lambda s: bool(np.allclose(s.sum(-1), 1.0, atol=1e-5)),
              "dirichlet_multinomial": lambda s: s.sum(-1).tolist(),
              "multinomial": lambda s: s.sum(-1).tolist(),
              "gamma": lambda s: bool((s > 0).all()),
              "uniform": lambda s: bool(((s >= -1) & (s < [0.0, 2.0])).all()),
              "categorical": lambda s: bool(((s >= 0) & (s < 3)).all()),
              "student": lambda s: bool(np.isfinite(s).all())}

    # a mixture density network: y given x as a mixture of three Normals
    rng = np.random.RandomState(0)
    xs = rng.uniform(-1, 1, (32, 1)).astype(np.float32)
    ys = (np.sin(3 * xs) + 0.1 * rng.normal(size=(32, 1))).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 1])
    y = tf.placeholder(tf.float32, [None, 1])
    hidden = tf.tanh(tf.matmul(x, tf.Variable(rng.normal(0, 1, (1, 8)).astype(np.float32)))
                     + tf.Variable(np.zeros(8, np.float32)))
    heads = tf.matmul(hidden, tf.Variable(rng.normal(0, 0.5, (8, 9)).astype(np.float32)))
    mix_logits, mu, log_sigma = tf.split(heads, 3, axis=1)
    components = ds.Categorical(logits=mix_logits)
    gaussians = ds.Normal(loc=mu, scale=tf.exp(log_sigma))
    log_weights = tf.transpose(components.log_prob(tf.range(3)[:, None]))   # [N, 3]
    loss = -tf.reduce_mean(tf.reduce_logsumexp(log_weights + gaussians.log_prob(y), axis=1))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)

    fetch["dirichlet_mode"] = [ds.Dirichlet([2.0, 3.0, 4.0]).mode(),
                               tf.is_nan(ds.Dirichlet([0.5, 2.0, 3.0]).mode())]
    with tf.Session() as sess:
        for key, value in sess.run(fetch).items():
            out[key] = value
            if isinstance(value, np.ndarray) and np.isnan(value).any():
                out[key] = [np.isnan(value), np.nan_to_num(value)]    # NaN where undefined
        for key, value in sess.run(samples).items():
            out["sample_" + key] = [list(value.shape), value.dtype.name, checks[key](value)]
        sess.run(tf.global_variables_initializer())
        out["mdn_losses"] = [float(sess.run([loss, train], {x: xs, y: ys})[0])
                             for _ in range(6)]
        out["mdn_mixture"] = sess.run(components.probs, {x: xs[:3]})
        out["mdn_shapes"] = [components.batch_shape.as_list(), gaussians.batch_shape.as_list(),
                             sess.run([components.batch_shape_tensor(),
                                       gaussians.batch_shape_tensor()], {x: xs[:5]})]
        a, b = pairs["normal"]
        out["method_forms"] = sess.run([a.kl_divergence(b), a.cross_entropy(b)])

        bad = {"normal_scale": lambda: ds.Normal(0.0, -1.0, validate_args=True).sample(),
               "bernoulli_probs": lambda: ds.Bernoulli(probs=1.5, validate_args=True).mean(),
               "dirichlet_conc": lambda: ds.Dirichlet([1.0, -1.0], validate_args=True).mean(),
               "both_logits_probs": lambda: ds.Categorical(logits=[0.0], probs=[1.0]),
               "beta_value": lambda: ds.Beta(2.0, 3.0, validate_args=True).prob(1.5),
               "dirichlet_value": lambda: ds.Dirichlet(mix, validate_args=True).log_prob(
                   [0.5, 0.6, 0.2]),
               "multinomial_counts": lambda: ds.Multinomial(
                   4.0, probs=[0.5, 0.5], validate_args=True).log_prob([1.0, 2.0])}
        for key, build in list(strict.items()) + list(bad.items()):
            stage = "build"
            try:
                tensor = build()
                stage = "run"
                out["checked_" + key] = sess.run(tensor)
            except (ValueError, tf.errors.OpError) as e:
                out["checked_" + key] = [stage, type(e).__name__]
    out["_tol"] = {"mdn_losses": {"rtol": 1e-4, "atol": 1e-5},
                   "mdn_mixture": {"rtol": 1e-4, "atol": 1e-5}}
