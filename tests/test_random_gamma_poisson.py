"""``ds.random.gamma`` / ``ds.random_gamma`` (TF's ``RandomGamma``) and
``ds.random.poisson`` / ``ds.random_poisson`` (``RandomPoissonV2``): sample moments
against the analytic ones (tolerances sized for the sample count), the shape prepended
to the parameters' as TF's, seeding, TF's answers for degenerate parameters, alpha's
implicit-reparameterisation gradient, the build and run errors, the stand-in GPU."""

from __future__ import annotations

import numpy as np
import pytest

import devsession as ds
import test_gpu_cupy_standin
from devsession.errors import InvalidArgumentError

standin = test_gpu_cupy_standin.standin      # the fixture: the stand-in cupy on a fake GPU
N = 40000


def within(sample_mean, mean, variance, n=N, sigmas=5.0):
    """The sample mean of ``n`` draws lies within ``sigmas`` standard errors."""
    return np.all(np.abs(sample_mean - mean) <= sigmas * np.sqrt(variance / n))


def test_gamma_moments_shape_and_rate(graph):
    alpha = np.array([[0.3, 1.0, 4.5]])
    beta = np.array([[1.0], [2.5]])
    x = ds.random.gamma([N], alpha, beta=beta, dtype=ds.float64, seed=4)
    assert x.shape.as_list() == [N, 2, 3] and x.dtype == ds.float64
    with ds.Session() as sess:
        drawn = sess.run(x)
    assert drawn.shape == (N, 2, 3) and np.all(drawn > 0)
    mean, var = alpha / beta, alpha / beta ** 2
    assert within(drawn.mean(0), mean, var), (drawn.mean(0), mean)
    # the variance's standard error: sqrt((m4 - var^2) / n), m4 = 3 var^2 (1 + 2 / alpha)
    m4 = 3.0 * var ** 2 * (1.0 + 2.0 / alpha)
    assert within(drawn.var(0), var, m4 - var ** 2), (drawn.var(0), var)


def test_gamma_names_shapes_and_dtypes(graph):
    alpha = ds.placeholder(ds.float32, (None, 2), name="alpha")
    n = ds.placeholder(ds.int32, (2,), name="n")
    a = ds.random.gamma([3], alpha)
    b = ds.random.gamma(n, [1.0, 2.0], name="g")
    c = ds.random.gamma([5], 2.0, dtype=ds.float16)
    assert (a.name, a.shape.as_list(), a.dtype) == ("random_gamma/Maximum:0", [3, None, 2],
                                                    ds.float32)
    draw = a.op.inputs[1]
    assert (draw.op.type, draw.op.name) == ("RandomGamma", "random_gamma/RandomGamma")
    assert b.shape.as_list() == [None, None, 2] and c.dtype == ds.float16
    with ds.Session() as sess:
        got_a, got_b = sess.run([a, b], {alpha: np.ones((4, 2)), n: [2, 3]})
    assert got_a.shape == (3, 4, 2) and got_b.shape == (2, 3, 2)
    with pytest.raises(TypeError):
        ds.random.gamma([2], [1, 2], dtype=ds.int32)
    with pytest.raises(ValueError):
        ds.random.gamma([[2]], 1.0)                    # a shape must be a vector


def test_gamma_degenerate_alphas_as_tf(graph):
    # TF 2.21: alpha 0 draws 0 (raised to the smallest normal float), alpha < 0 or NaN
    # draws NaN, and a rate of 0 gives inf
    x = ds.random.gamma([3], [0.0, -1.0, np.nan, 2.0], beta=[1.0, 1.0, 1.0, 0.0], seed=1)
    with ds.Session() as sess:
        drawn = sess.run(x)
    tiny = np.finfo(np.float32).tiny
    np.testing.assert_array_equal(drawn[:, 0], [tiny] * 3)
    assert np.isnan(drawn[:, 1:3]).all() and np.isposinf(drawn[:, 3]).all()


def test_poisson_moments_shape_and_dtypes(graph):
    lam = np.array([0.2, 3.0, 40.0])
    x = ds.random.poisson([N, 2], lam, seed=2)
    y = ds.random.poisson([N], lam, dtype=ds.int64, seed=3)      
    assert (x.op.type, x.name, x.shape.as_list(), x.dtype) == (
        "RandomPoissonV2", "random_poisson/RandomPoissonV2:0", [N, 2, 3], ds.float32)
    assert y.dtype == ds.int64 and y.shape.as_list() == [N, 3]
    with ds.Session() as sess:
        xs, ys = sess.run([x, y])
    assert xs.dtype == np.float32 and ys.dtype == np.int64
    np.testing.assert_array_equal(xs, np.round(xs))
    for drawn in (xs.reshape(-1, 3), ys):
        n = drawn.shape[0]
        assert within(drawn.mean(0), lam, lam, n), drawn.mean(0)
        assert within(drawn.var(0), lam, lam + 2 * lam ** 2, n), drawn.var(0)


def test_poisson_rates_of_zero_or_below_draw_zero(graph):
    x = ds.random.poisson([4], [0.0, -2.0, 1e6], dtype=ds.int32, seed=1)
    with ds.Session() as sess:
        drawn = sess.run(x)
    np.testing.assert_array_equal(drawn[:, :2], 0)
    assert np.all(np.abs(drawn[:, 2] - 1e6) < 6 * 1e3)


def test_seeds_repeat_per_session_and_draw_anew_each_run(graph):
    ds.set_random_seed(7)
    g = ds.random.gamma([4], [1.0, 2.0])
    p = ds.random.poisson([4], [1.0, 2.0])
    with ds.Session() as sess:
        first, second = sess.run([g, p]), sess.run([g, p])
    with ds.Session() as sess:
        again = sess.run([g, p])
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], second[0])


def test_gamma_gradient_is_the_implicit_reparameterisation(graph):
    # E[x] = alpha / beta and E[x^2] = alpha (alpha + 1) / beta^2: the mean over many
    # draws of the sample's gradient is the gradient of these moments
    alpha = ds.constant([0.6, 2.0, 7.0], ds.float64)
    beta = ds.constant([1.0, 0.5, 3.0], ds.float64)
    x = ds.random.gamma([N], alpha, beta=beta, dtype=ds.float64, seed=5)
    first = ds.gradients(ds.reduce_mean(x, 0), [alpha, beta])
    second = ds.gradients(ds.reduce_mean(ds.square(x), 0), [alpha])
    with ds.Session() as sess:
        (d_alpha, d_beta), (d2_alpha,) = sess.run([first, second])
    a, b = np.array([0.6, 2.0, 7.0]), np.array([1.0, 0.5, 3.0])
    np.testing.assert_allclose(d_alpha, 1.0 / b, rtol=0.03)
    np.testing.assert_allclose(d_beta, -a / b ** 2, rtol=0.03)
    np.testing.assert_allclose(d2_alpha, (2.0 * a + 1.0) / b ** 2, rtol=0.05)


def test_poisson_is_not_differentiable(graph):
    lam = ds.constant([1.0, 2.0])
    assert ds.gradients(ds.random.poisson([3], lam), [lam]) == [None]


def test_run_time_errors_name_the_node(graph):
    n = ds.placeholder(ds.int32, (None,))
    draws = [ds.random.gamma(n, [1.0], name="g").op.inputs[1],
             ds.random.poisson(n, [1.0], name="p")]
    with ds.Session() as sess:
        for draw in draws:
            with pytest.raises(InvalidArgumentError, match="Dimension 1 must be >= 0") as info:
                sess.run(draw, {n: [2, -1]})
            assert info.value.node_name == draw.op.name


def test_on_the_standin_gpu_as_on_the_cpu(standin):
    def draws(device):
        with ds.Graph().as_default() as g, ds.device(device):
            ds.set_random_seed(3)
            outs = [ds.random.gamma([5], [0.5, 3.0]), ds.random.poisson([5], [0.5, 3.0])]
        with ds.Session(graph=g, options=ds.SessionOptions(device=device)) as sess:
            return sess.run(outs)
    for cpu, gpu in zip(draws("cpu:0"), draws("gpu:0")):
        np.testing.assert_array_equal(cpu, gpu)
