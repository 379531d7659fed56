"""``ds.distributions`` (TF1's ``tf.distributions``): log-densities, CDFs, entropies,
means, variances and modes against hand formulas (numpy and ``math``), KL divergences
against their closed forms and Monte Carlo, sample moments against analytic ones
(tolerances sized for the sample count), gradients through reparameterised samples,
shapes broadcast, and TF1's errors and reparameterisation types."""

from __future__ import annotations

import math

import numpy as np
import pytest

import devsession as ds
from devsession.errors import InvalidArgumentError

tfd = ds.distributions
N = 40000
lgamma = np.vectorize(math.lgamma)


def digamma(x):
    """Tests-only digamma: the recurrence up to 6, then the asymptotic series."""
    x = np.asarray(x, np.float64)
    out = np.zeros_like(x)
    while np.any(x < 6):
        small = x < 6
        out -= np.where(small, 1.0 / x, 0.0)
        x = np.where(small, x + 1, x)
    inv = 1.0 / (x * x)
    return out + np.log(x) - 0.5 / x - inv * (1 / 12 - inv * (1 / 120 - inv / 252))


def run(*tensors):
    with ds.Session() as sess:
        return sess.run(list(tensors))


def test_normal_values_against_formulas(graph):
    loc, scale = np.array([0.0, 1.5]), np.array([[1.0], [2.0], [0.5]])
    x = np.array([0.3, -1.0])
    d = tfd.Normal(loc, scale)
    assert d.batch_shape == ds.TensorShape([3, 2]) and d.event_shape == ds.TensorShape([])
    assert d.dtype == ds.float64 and d.reparameterization_type is tfd.FULLY_REPARAMETERIZED
    lp, p, cdf, ent, mean, std, var, q = run(d.log_prob(x), d.prob(x), d.cdf(x), d.entropy(),
                                             d.mean(), d.stddev(), d.variance(),
                                             d.quantile(0.975))
    z = (x - loc) / scale
    expected = -0.5 * z ** 2 - 0.5 * np.log(2 * np.pi) - np.log(scale)
    np.testing.assert_allclose(lp, expected, rtol=1e-12)
    np.testing.assert_allclose(p, np.exp(expected), rtol=1e-12)
    np.testing.assert_allclose(cdf, 0.5 * np.vectorize(math.erfc)(-z / math.sqrt(2)),
                               rtol=1e-12)
    np.testing.assert_allclose(ent, np.broadcast_to(0.5 * np.log(2 * np.pi * np.e * scale ** 2),
                                                    (3, 2)), rtol=1e-12)
    np.testing.assert_allclose(mean, np.broadcast_to(loc, (3, 2)))
    np.testing.assert_allclose(std, np.broadcast_to(scale, (3, 2)))
    np.testing.assert_allclose(var, np.broadcast_to(scale ** 2, (3, 2)))
    np.testing.assert_allclose(q, loc + scale * 1.959963984540054, rtol=1e-9)


def test_normal_sample_moments_shapes_and_reparameterised_gradient(graph):
    loc = ds.constant([1.0, -2.0], ds.float64)
    scale = ds.constant([0.5, 3.0], ds.float64)
    d = tfd.Normal(loc, scale)
    s = d.sample([N // 2, 2], seed=3)
    assert s.shape.as_list() == [N // 2, 2, 2]
    grads = ds.gradients(ds.reduce_sum(s), [loc, scale])
    drawn, (g_loc, g_scale) = run(s, grads)
    flat = drawn.reshape(-1, 2)
    assert np.all(np.abs(flat.mean(0) - [1.0, -2.0]) < 5 * np.array([0.5, 3.0]) / np.sqrt(N))
    np.testing.assert_allclose(flat.std(0), [0.5, 3.0], rtol=0.03)
    # sample = loc + scale * eps: d/dloc = N, d/dscale = sum(eps) = sum((s - loc) / scale)
    np.testing.assert_allclose(g_loc, [N, N])
    np.testing.assert_allclose(g_scale, ((flat - [1.0, -2.0]) / [0.5, 3.0]).sum(0),
                               rtol=1e-9)


def test_uniform_laplace_exponential_values(graph):
    u = tfd.Uniform([0.0, -1.0], [2.0, 3.0])
    lap = tfd.Laplace(1.0, [0.5, 2.0])
    ex = tfd.Exponential([0.5, 3.0])
    x = np.array([1.5, 3.0], np.float32)
    got = run(u.prob(x), u.cdf(x), u.entropy(), u.mean(), u.variance(),
              lap.log_prob(x), lap.cdf(x), lap.entropy(), lap.stddev(),
              ex.log_prob(x), ex.cdf(x), ex.entropy(), ex.mean(), ex.variance())
    expected = [[0.5, 0.0], [0.75, 1.0], np.log([2.0, 4.0]), [1.0, 1.0], [4 / 12, 16 / 12],
                -np.log(2 * np.array([0.5, 2.0])) - np.abs(x - 1.0) / [0.5, 2.0],
                1 - 0.5 * np.exp(-(x - 1.0) / [0.5, 2.0]), 1 + np.log(2 * np.array([0.5, 2.0])),
                np.sqrt(2) * np.array([0.5, 2.0]),
                np.log([0.5, 3.0]) - [0.5, 3.0] * x, 1 - np.exp(-np.array([0.5, 3.0]) * x),
                1 - np.log([0.5, 3.0]), [2.0, 1 / 3], [4.0, 1 / 9]]
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-5)


def test_gamma_beta_student_t_values(graph):
    c, r = np.array([0.5, 2.0, 7.5]), np.array([1.0, 3.0, 0.5])
    x = np.array([0.2, 0.6, 0.9])
    g = tfd.Gamma(c, r)
    b = tfd.Beta(c, r)
    t = tfd.StudentT(c + 1.0, np.float64(0.5), r)      # TF: a Python 0.5 is float32
    got = run(g.log_prob(x), g.entropy(), g.mean(), g.variance(), g.mode(),
              b.log_prob(x), b.entropy(), b.mean(), b.variance(),
              t.log_prob(x), t.entropy(), t.mean(), t.variance())
    lbeta = lgamma(c) + lgamma(r) - lgamma(c + r)
    df, y = c + 1.0, (x - 0.5) / r
    expected = [
        (c - 1) * np.log(x) - r * x - lgamma(c) + c * np.log(r),
        c - np.log(r) + lgamma(c) + (1 - c) * digamma(c), c / r, c / r ** 2,
        [np.nan, 1 / 3, 6.5 / 0.5],
        (c - 1) * np.log(x) + (r - 1) * np.log1p(-x) - lbeta,
        lbeta - (c - 1) * digamma(c) - (r - 1) * digamma(r) + (c + r - 2) * digamma(c + r),
        c / (c + r), c * r / ((c + r) ** 2 * (c + r + 1)),
        lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * np.log(df * np.pi) - np.log(r)
        - (df + 1) / 2 * np.log1p(y ** 2 / df),
        (df + 1) / 2 * (digamma((df + 1) / 2) - digamma(df / 2)) + np.log(np.sqrt(df) * r)
        + lgamma(df / 2) + lgamma(0.5) - lgamma((df + 1) / 2),
        [0.5, 0.5, 0.5], [np.inf, r[1] ** 2 * 3 / 1, r[2] ** 2 * 8.5 / 6.5]]
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-7)


def test_bernoulli_and_categorical_values(graph):
    logits = np.array([0.3, -2.0, 4.0])
    bp = tfd.Bernoulli(logits=logits, dtype=ds.float32)
    bq = tfd.Bernoulli(probs=[0.5, 0.25, 0.9])
    assert bp.dtype == ds.float32 and bq.dtype == ds.int32
    assert bq.reparameterization_type is tfd.NOT_REPARAMETERIZED
    cat_logits = np.array([[0.0, 1.0, 2.0], [3.0, -1.0, 0.5]])
    c = tfd.Categorical(logits=cat_logits)
    assert c.batch_shape == ds.TensorShape([2]) and c.event_shape == ds.TensorShape([])
    got = run(bp.log_prob([1, 0, 1]), bp.entropy(), bp.mean(), bp.variance(), bp.mode(),
              bq.logits, bq.log_prob([[0], [1]]), c.log_prob([2, 1]), c.log_prob([[0], [1]]),
              c.entropy(), c.mode(), c.probs)
    p = 1 / (1 + np.exp(-logits))
    q = np.array([0.5, 0.25, 0.9])
    logp = cat_logits - np.log(np.exp(cat_logits).sum(-1, keepdims=True))
    expected = [np.log([p[0], 1 - p[1], p[2]]), -(p * np.log(p) + (1 - p) * np.log(1 - p)),
                p, p * (1 - p), [1, 0, 1], np.log(q / (1 - q)),
                np.log([1 - q, q]), [logp[0, 2], logp[1, 1]], logp.T[:2],
                -(np.exp(logp) * logp).sum(-1), [2, 0], np.exp(logp)]
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-6)


def test_dirichlet_and_multinomial_values(graph):
    alpha = np.array([[1.5, 2.0, 3.0], [0.5, 0.5, 4.0]])
    x = np.array([0.2, 0.3, 0.5])
    d = tfd.Dirichlet(alpha)
    assert d.batch_shape == ds.TensorShape([2]) and d.event_shape == ds.TensorShape([3])
    probs = np.array([0.2, 0.3, 0.5])
    m = tfd.Multinomial([4.0, 6.0], probs=probs)
    counts = np.array([[1.0, 1.0, 2.0], [0.0, 6.0, 0.0]])
    got = run(d.log_prob(x), d.entropy(), d.mean(), d.variance(), d.covariance(),
              m.log_prob(counts), m.mean(), m.variance())
    total = alpha.sum(-1)
    lbeta = lgamma(alpha).sum(-1) - lgamma(total)
    mean = alpha / total[:, None]
    cov = (np.einsum("bi,ij->bij", mean, np.eye(3)) - mean[:, :, None] * mean[:, None, :]) \
        / (1 + total)[:, None, None]
    n = np.array([4.0, 6.0])
    expected = [((alpha - 1) * np.log(x)).sum(-1) - lbeta,
                lbeta + (total - 3) * digamma(total) - ((alpha - 1) * digamma(alpha)).sum(-1),
                mean, mean * (1 - mean) / (1 + total)[:, None], cov,
                lgamma(n + 1) - lgamma(counts + 1).sum(-1) + (counts * np.log(probs)).sum(-1),
                n[:, None] * probs, n[:, None] * probs * (1 - probs)]
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-5)


@pytest.mark.parametrize("make,mean,var", [
    (lambda: tfd.Uniform([0.0, -1.0], [2.0, 3.0]), [1.0, 1.0], [4 / 12, 16 / 12]),
    (lambda: tfd.Laplace([0.0, 1.0], [0.5, 2.0]), [0.0, 1.0], [0.5, 8.0]),
    (lambda: tfd.Exponential([0.5, 3.0]), [2.0, 1 / 3], [4.0, 1 / 9]),
    (lambda: tfd.Gamma([0.5, 4.0], [1.0, 2.0]), [0.5, 2.0], [0.5, 1.0]),
    (lambda: tfd.Beta([0.5, 4.0], [1.0, 2.0]), [1 / 3, 2 / 3], [0.5 / (2.25 * 2.5), 8 / (36 * 7)]),
    (lambda: tfd.Bernoulli(probs=[0.1, 0.7]), [0.1, 0.7], [0.09, 0.21]),
    (lambda: tfd.Categorical(probs=[[0.2, 0.8], [0.5, 0.5]]), [0.8, 0.5], [0.16, 0.25]),
    (lambda: tfd.StudentT([5.0, 9.0], [0.0, 2.0], 1.0), [0.0, 2.0], [5 / 3, 9 / 7]),
    (lambda: tfd.Dirichlet([2.0, 6.0]), [0.25, 0.75], [0.25 * 0.75 / 9] * 2),
    (lambda: tfd.Multinomial(5.0, probs=[0.3, 0.7]), [1.5, 3.5], [1.05, 1.05]),
], ids=["Uniform", "Laplace", "Exponential", "Gamma", "Beta", "Bernoulli", "Categorical",
        "StudentT", "Dirichlet", "Multinomial"])
def test_sample_moments(graph, make, mean, var):
    d = make()
    s = d.sample(N, seed=7)
    assert s.shape.as_list() == [N] + d.batch_shape.as_list() + d.event_shape.as_list()
    (drawn,) = run(s)
    drawn = drawn.astype(np.float64)
    mean, var = np.array(mean), np.array(var)
    assert np.all(np.abs(drawn.mean(0) - mean) <= 5 * np.sqrt(var / N)), drawn.mean(0)
    np.testing.assert_allclose(drawn.var(0), var, rtol=0.1)


def test_kl_divergences_against_closed_forms(graph):
    na, nb = tfd.Normal([0.0, 1.0], [1.0, 2.0]), tfd.Normal(0.5, [3.0, 0.5])
    ba, bb = tfd.Bernoulli(probs=[0.2, 0.9]), tfd.Bernoulli(logits=[0.0, -1.0])
    ca = tfd.Categorical(probs=[[0.2, 0.3, 0.5]])
    cb = tfd.Categorical(logits=[[1.0, 0.0, -1.0]])
    kls = run(tfd.kl_divergence(na, nb), tfd.kl_divergence(ba, bb),
              tfd.kl_divergence(ca, cb), na.kl_divergence(na), na.cross_entropy(nb))
    ra = np.array([1.0, 2.0]) ** 2 / np.array([3.0, 0.5]) ** 2
    normal = (np.array([-0.5, 0.5]) ** 2 / (2 * np.array([9.0, 0.25]))
              + 0.5 * (ra - 1 - np.log(ra)))
    p, q = np.array([0.2, 0.9]), 1 / (1 + np.exp(-np.array([0.0, -1.0])))
    bern = p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))
    pc, qc = np.array([0.2, 0.3, 0.5]), np.exp([1.0, 0.0, -1.0]) / np.exp([1.0, 0.0, -1.0]).sum()
    np.testing.assert_allclose(kls[0], normal, rtol=1e-5)
    np.testing.assert_allclose(kls[1], bern, rtol=1e-5)
    np.testing.assert_allclose(kls[2], [(pc * np.log(pc / qc)).sum()], rtol=1e-5)
    np.testing.assert_allclose(kls[3], [0.0, 0.0], atol=1e-7)
    np.testing.assert_allclose(kls[4], 0.5 * np.log(2 * np.pi * np.e) + np.log([1.0, 2.0])
                               + normal, rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda: (tfd.Gamma([0.7, 3.0], [1.0, 2.0]), tfd.Gamma(2.0, [0.5, 1.5])),
    lambda: (tfd.Beta([0.7, 3.0], [1.0, 2.0]), tfd.Beta(2.0, [0.5, 1.5])),
    lambda: (tfd.Dirichlet([[0.7, 3.0, 1.0]]), tfd.Dirichlet([2.0, 0.5, 1.5])),
], ids=["Gamma", "Beta", "Dirichlet"])
def test_kl_divergences_against_monte_carlo(graph, make):
    a, b = make()
    x = ds.stop_gradient(a.sample(N, seed=11))
    estimate = ds.reduce_mean(a.log_prob(x) - b.log_prob(x), 0)
    kl, mc = run(tfd.kl_divergence(a, b), estimate)
    np.testing.assert_allclose(kl, mc, rtol=0.05, atol=0.01)


def test_register_kl_and_its_errors(graph):
    class MyNormal(tfd.Normal):
        pass

    a = MyNormal(0.0, 1.0)
    (inherited,) = run(tfd.kl_divergence(a, tfd.Normal(1.0, 1.0)))  # the parents' pair
    assert inherited == pytest.approx(0.5)

    @tfd.RegisterKL(MyNormal, tfd.Normal)
    def _mine(x, y, name=None):
        return ds.constant(42.0)
    (mine,) = run(tfd.kl_divergence(a, tfd.Normal(1.0, 1.0)))
    assert mine == 42.0
    with pytest.raises(ValueError, match="already been registered"):
        tfd.RegisterKL(MyNormal, tfd.Normal)(_mine)
    with pytest.raises(NotImplementedError, match="No KL"):
        tfd.kl_divergence(tfd.Normal(0.0, 1.0), tfd.Uniform())


@pytest.mark.parametrize("build, match", [
    (lambda: tfd.Normal(ds.constant(0.0, ds.float64), 1.0),
     r"scale, type=float32, must be of the same type \(float64\) as loc"),
    (lambda: tfd.Uniform(low=ds.constant(0.0, ds.float64)), "high, type=float32"),
    (lambda: tfd.Gamma(ds.constant(2.0, ds.float64), 1.0), "rate, type=float32"),
    (lambda: tfd.StudentT(3, 0.0, 1.0), r"loc, type=float32, .* \(int32\) as df"),
    (lambda: tfd.Normal(0, 1), "Expected floating point type, got int32"),
    (lambda: tfd.Exponential(2), "Expected floating point type, got int32"),
])
def test_parameters_of_two_dtypes_are_tf_value_errors(graph, build, match):
    """TF converts each parameter alone (a Python number is float32, an int int32) and
    then asserts one floating dtype: a float64 loc with scale 1.0 is TF's ValueError."""
    with pytest.raises(ValueError, match=match):
        build()
    assert tfd.Normal(np.zeros(2, np.float32), 1.0).dtype == ds.float32
    assert tfd.Normal(ds.constant(0.0, ds.float64), np.float64(2.0)).dtype == ds.float64
    assert tfd.DirichletMultinomial(5.0, ds.constant([1.0, 2.0], ds.float64)).dtype == \
        ds.float64                                        # TF's total_count is lenient


@pytest.mark.parametrize("build, match", [
    (lambda: tfd.Categorical(logits=[1, 2]), "logits must having floating type"),
    (lambda: tfd.Bernoulli(probs=[1, 0]), "probs must having floating type"),
    (lambda: tfd.Multinomial(3.0, logits=ds.constant([1, 0])), "logits must having"),
])
def test_integer_logits_or_probs_are_tf_type_errors(graph, build, match):
    """TF's get_logits_and_probs keeps the value's dtype (Python ints are int32)."""
    with pytest.raises(TypeError, match=match):
        build()
    assert tfd.Categorical(logits=np.array([1.0, 2.0])).logits.dtype == ds.float64


def test_tf1_errors_and_unsupported_methods(graph):
    with pytest.raises(ValueError, match="probs or logits"):
        tfd.Bernoulli(logits=[0.0], probs=[0.5])
    with pytest.raises(ValueError, match="probs or logits"):
        tfd.Categorical()
    with pytest.raises(ValueError, match="must be of the same type"):
        tfd.Normal(np.float64(0.0), np.float32(1.0))
    with pytest.raises(NotImplementedError, match="cdf"):
        tfd.Dirichlet([1.0, 2.0]).cdf([0.3, 0.7])
    with pytest.raises(NotImplementedError, match="mode"):
        tfd.Uniform().mode()
    with pytest.raises(AttributeError, match="tf.distributions.Logistic"):
        tfd.Logistic   # noqa: B018
    scale = ds.placeholder(ds.float32, ())
    checked = tfd.Normal(0.0, scale, validate_args=True)
    strict = tfd.Gamma(0.5, 1.0, allow_nan_stats=False)
    with ds.Session() as sess:
        assert sess.run(checked.stddev(), {scale: 2.0}) == 2.0
        with pytest.raises(InvalidArgumentError):
            sess.run(checked.mean(), {scale: -1.0})
        with pytest.raises(InvalidArgumentError, match="concentration <= 1"):
            sess.run(strict.mode())
    assert repr(tfd.FULLY_REPARAMETERIZED) == "<Reparameterization Type: FULLY_REPARAMETERIZED>"


def test_names_scopes_and_run_time_shapes(graph):
    loc = ds.placeholder(ds.float32, (None,), name="loc")
    d = tfd.Normal(loc, 1.0, name="policy")
    assert d.name == "policy/" and d.batch_shape.as_list() == [None]
    s = d.sample(3, seed=1)
    lp = d.log_prob(s)
    assert s.name.startswith("policy/sample/") and lp.name.startswith("policy/log_prob/")
    assert s.shape.as_list() == [3, None]
    drawn, shape = run_fed([s, d.batch_shape_tensor()], {loc: np.zeros(4, np.float32)})
    assert drawn.shape == (3, 4) and shape.tolist() == [4]


def run_fed(fetches, feed):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def test_betainc_gradient_of_a_scalar_x_sums_over_the_batch(graph):
    """d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b), summed where one x meets a batch."""
    from math import lgamma

    a, b = np.array([2.0, 3.5]), np.array([1.5, 4.0])
    x = ds.constant(0.3, ds.float64)
    (grad,) = ds.gradients(ds.reduce_sum(ds.math.betainc(a, b, x)), [x])
    want = sum(np.exp((ai - 1) * np.log(0.3) + (bi - 1) * np.log(0.7) - lgamma(ai) - lgamma(bi)
                      + lgamma(ai + bi)) for ai, bi in zip(a, b))
    with ds.Session() as sess:
        np.testing.assert_allclose(sess.run(grad), want, rtol=1e-12)


def _lbeta(c):
    return lgamma(c).sum(-1) - lgamma(c.sum(-1))


def test_dirichlet_multinomial_against_formulas(graph):
    """TF1's DirichletMultinomial: ``n!/prod(x!) B(c + x) / B(c)``, its moments (TF's
    ``total_count * c / c0`` and overdispersed variance), covariance, shapes, samples."""
    c = np.array([[1.5, 2.0, 3.0], [0.5, 4.0, 1.2]])
    x = np.array([[1.0, 2.0, 2.0], [0.0, 3.0, 2.0]])
    d = tfd.DirichletMultinomial(5.0, c)
    assert d.batch_shape.as_list() == [2] and d.event_shape.as_list() == [3]
    assert d.reparameterization_type is tfd.NOT_REPARAMETERIZED and d.dtype == ds.float64
    lp, mean, var, cov, shapes, draws = run(
        d.log_prob(x), d.mean(), d.variance(), d.covariance(),
        [d.batch_shape_tensor(), d.event_shape_tensor()], d.sample(4, seed=3))
    want = (_lbeta(c + x) - _lbeta(c) + math.lgamma(6.0) - lgamma(x + 1).sum(-1))
    np.testing.assert_allclose(lp, want, rtol=1e-12)
    c0 = c.sum(-1, keepdims=True)
    p = c / c0
    np.testing.assert_allclose(mean, 5.0 * p, rtol=1e-12)
    np.testing.assert_allclose(var, 5.0 * p * (1 - p) * (5.0 + c0) / (1 + c0), rtol=1e-12)
    off = -5.0 * p[:, :, None] * p[:, None, :] * ((5.0 + c0) / (1 + c0))[:, :, None]
    np.testing.assert_allclose(cov, off + np.stack([np.diag(v) for v in var]) -
                               np.stack([np.diag(np.diag(o)) for o in off]), rtol=1e-12)
    assert [s.tolist() for s in shapes] == [[2], [3]]
    assert draws.shape == (4, 2, 3) and (draws.sum(-1) == 5.0).all() and (draws >= 0).all()
    for method in ("entropy", "mode", "cdf"):
        with pytest.raises(NotImplementedError, match=method):
            getattr(d, method)(*([x] if method == "cdf" else []))


def test_dirichlet_multinomial_validate_args(graph):
    n = ds.placeholder(ds.float32, ())
    d = tfd.DirichletMultinomial(n, [1.0, 2.0], validate_args=True)
    with ds.Session() as sess:
        assert np.isfinite(sess.run(d.log_prob([1.0, 2.0]), {n: 3.0}))
        with pytest.raises(InvalidArgumentError, match="must sum to"):
            sess.run(d.log_prob([1.0, 1.0]), {n: 3.0})
        with pytest.raises(InvalidArgumentError, match="non-integer"):
            sess.run(d.mean(), {n: 2.5})
    with pytest.raises(InvalidArgumentError):
        tfd.DirichletMultinomial(2.0, [1.0, -2.0], validate_args=True)


def test_categorical_cdf_sums_the_classes_below_k(graph):
    """TF's Categorical cdf is ``P[X < k]`` (its sequence mask of k), with k broadcast
    against the batch; log_cdf and the survival function follow from it."""
    probs = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], np.float32)
    d = tfd.Categorical(probs=probs)
    cdf, log_cdf, survival, table = run(d.cdf([2, 0]), d.log_cdf([1, 3]),
                                        d.survival_function([2, 1]),
                                        d.cdf(ds.range(4)[:, None]))
    below = np.concatenate([np.zeros((2, 1), np.float32), np.cumsum(probs, -1)], -1)  # [2, 4]
    np.testing.assert_allclose(cdf, [below[0, 2], below[1, 0]], rtol=1e-6)
    np.testing.assert_allclose(log_cdf, np.log([below[0, 1], below[1, 3]]), rtol=1e-6)
    np.testing.assert_allclose(survival, 1 - np.array([below[0, 2], below[1, 1]]), rtol=1e-6)
    np.testing.assert_allclose(table, below.T, rtol=1e-6)
    (from_logits,) = run(tfd.Categorical(logits=np.log(probs)).cdf([2, 0]))
    np.testing.assert_allclose(from_logits, cdf, rtol=1e-6)


def test_undefined_statistics_of_constants_fail_while_building(graph):
    """Without allow_nan_stats, TF asserts ``1 < parameter``: a constant parameter fails
    at build time, a fed one at run time; a defined statistic passes."""
    builders = {"Gamma": lambda c: tfd.Gamma(c, 1.0, allow_nan_stats=False).mode(),
                "Beta": lambda c: tfd.Beta(2.0, c, allow_nan_stats=False).mode(),
                "Dirichlet": lambda c: tfd.Dirichlet(ds.stack([c, c], -1),
                                                     allow_nan_stats=False).mode(),
                "StudentT mean": lambda c: tfd.StudentT(c, 0.0, 1.0,
                                                        allow_nan_stats=False).mean(),
                "StudentT variance": lambda c: tfd.StudentT(c, 0.0, 1.0,
                                                            allow_nan_stats=False).variance()}
    for label, build in builders.items():
        with pytest.raises(InvalidArgumentError):
            build(ds.constant([0.5, 3.0]))
        fed = ds.placeholder(ds.float32, [2])
        stat = build(fed)
        with ds.Session() as sess:
            with pytest.raises(InvalidArgumentError):
                sess.run(stat, {fed: [0.5, 3.0]})
            assert np.isfinite(sess.run(stat, {fed: [2.5, 3.0]})).all(), label


def test_exponential_and_student_t_modes_as_tf(graph):
    """Exponential's mode is Gamma's (concentration 1 is not above 1: NaN, as TF's);
    StudentT's is its loc unbroadcast (TF's ``identity(loc)``)."""
    exponential, student = run(tfd.Exponential([0.5, 2.0]).mode(),
                               tfd.StudentT([1.5, 5.0], 0.5, 2.0).mode())
    assert np.isnan(exponential).all() and exponential.shape == (2,)
    assert student.shape == () and student == 0.5
    with pytest.raises(InvalidArgumentError):
        tfd.Exponential([0.5], allow_nan_stats=False).mode()


def test_validate_args_checks_probabilities_and_points(graph):
    """TF's validate_args checks: Bernoulli/Categorical probs in [0, 1] (Categorical's
    summing to 1), Beta points in (0, 1), Dirichlet points on the simplex, Multinomial
    counts whole and summing to total_count; constants fail while building."""
    with pytest.raises(InvalidArgumentError, match="greater than 1"):
        tfd.Bernoulli(probs=1.5, validate_args=True)
    with pytest.raises(InvalidArgumentError, match="less than 0"):
        tfd.Categorical(probs=[-0.1, 1.1], validate_args=True)
    with pytest.raises(InvalidArgumentError, match="less than `1`"):
        tfd.Beta(2.0, 3.0, validate_args=True).prob(1.5)
    assert tfd.Bernoulli(probs=1.5).probs.op.type != "Assert"      # unchecked without it
    p = ds.placeholder(ds.float32, [2])
    counts = ds.placeholder(ds.float32, [2])
    x = ds.placeholder(ds.float32, [3])
    categorical = tfd.Categorical(probs=p, validate_args=True).probs
    multinomial = tfd.Multinomial(4.0, probs=[0.5, 0.5], validate_args=True).log_prob(counts)
    dirichlet = tfd.Dirichlet([1.0, 2.0, 3.0], validate_args=True).log_prob(x)
    beta = tfd.Beta(2.0, 3.0, validate_args=True).cdf(x)
    with ds.Session() as sess:
        sess.run(categorical, {p: [0.25, 0.75]})
        with pytest.raises(InvalidArgumentError, match="sum to 1"):
            sess.run(categorical, {p: [0.5, 0.6]})
        np.testing.assert_allclose(sess.run(multinomial, {counts: [1.0, 3.0]}),
                                   np.log(4 / 16), rtol=1e-6)
        with pytest.raises(InvalidArgumentError, match="must sum to"):
            sess.run(multinomial, {counts: [1.0, 2.0]})
        with pytest.raises(InvalidArgumentError, match="non-integer"):
            sess.run(multinomial, {counts: [1.5, 2.5]})
        sess.run(dirichlet, {x: [0.2, 0.3, 0.5]})
        with pytest.raises(InvalidArgumentError, match="sum to `1`"):
            sess.run(dirichlet, {x: [0.5, 0.6, 0.2]})
        with pytest.raises(InvalidArgumentError):
            sess.run(dirichlet, {x: [-0.2, 0.7, 0.5]})
        with pytest.raises(InvalidArgumentError, match="positive"):
            sess.run(beta, {x: [0.0, 0.5, 0.5]})


def test_vector_distributions_take_their_event_from_the_last_axis():
    """Dirichlet, Multinomial and DirichletMultinomial over a batch of two 3-vectors:
    events of 3, a batch of 2, statically and, from a parameter of unknown shape, when
    run."""
    concentration = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]], np.float32)
    fed = ds.placeholder(ds.float32, [None, None])

    def dists(c):
        return [tfd.Dirichlet(c), tfd.Multinomial(5.0, logits=c),
                tfd.DirichletMultinomial(5.0, c)]
    for dist in dists(concentration):
        assert dist.event_shape.as_list() == [3] and dist.batch_shape.as_list() == [2]
    for dist in dists(fed):
        assert dist.event_shape.as_list() == [None]
    with ds.Session() as sess:
        shapes = sess.run([(d.event_shape_tensor(), d.batch_shape_tensor())
                           for d in dists(fed)], {fed: concentration})
    for event, batch in shapes:
        assert event.tolist() == [3] and batch.tolist() == [2]
