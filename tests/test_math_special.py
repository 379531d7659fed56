"""tf.math.special (ops/math_special.py) and tf.math.nextafter (ops/next_after.py).

TF 2.21's values, edges and gradients are checked in tf1_programs/p76_math_special.py;
here, independently of TF: identities between the functions (Wronskians, known values),
integrals summed here with Simpson's rule, gradients against finite differences,
shapes, dtypes and node names.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import devsession as ds
from gradient_check import check_op_gradient

special = ds.math.special
NEW = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e",
       "bessel_k1", "bessel_k1e", "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence"]


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


def simpson(f, upper, intervals=200000):
    """int_0^upper f(t) dt by Simpson's rule (error ~1e-16 for these smooth f)."""
    t = np.linspace(0.0, upper, intervals + 1)
    weights = np.ones_like(t)
    weights[1:-1:2], weights[2:-1:2] = 4.0, 2.0
    return upper / intervals / 3.0 * np.dot(weights, f(t))


# every method's range: the seams are at 0.2, 1.5, 2, 10, 25 and 40
POINTS = np.array([0.01, 0.3, 1.0, 1.7, 2.5, 6.0, 12.0, 24.0, 26.0, 45.0, 80.0])


def test_bessel_wronskians_hold_across_every_range():
    x = ds.constant(POINTS)
    j0, j1, y0, y1, k0, k1 = run([special.bessel_j0(x), special.bessel_j1(x),
                                  special.bessel_y0(x), special.bessel_y1(x),
                                  special.bessel_k0(x), special.bessel_k1(x)])
    i0, i1 = run([special.bessel_i0(x), special.bessel_i1(x)])
    np.testing.assert_allclose(j1 * y0 - j0 * y1, 2.0 / (np.pi * POINTS), rtol=1e-12)
    np.testing.assert_allclose(i0 * k1 + i1 * k0, 1.0 / POINTS, rtol=1e-12)


def test_bessel_values_at_known_points():
    """J0's first zero, and J's and Y's series near 0 (J0 = 1 - x^2/4, Y0 ~ 2/pi
    (log(x/2) + gamma) J0, K0 ~ -log(x/2) - gamma)."""
    zero = 2.404825557695773
    x = ds.constant([zero, 1e-4], ds.float64)
    j0, y0, k0, k1e = run([special.bessel_j0(x), special.bessel_y0(x), special.bessel_k0(x),
                           special.bessel_k1e(x)])
    assert abs(j0[0]) < 1e-15
    assert j0[1] == pytest.approx(1.0 - 0.25e-8, rel=1e-15)
    gamma = 0.5772156649015329
    assert y0[1] == pytest.approx(2.0 / np.pi * (math.log(5e-5) + gamma), rel=1e-7)
    assert k0[1] == pytest.approx(-math.log(5e-5) - gamma, rel=1e-7)
    assert k1e[1] == pytest.approx(1e4 + 1.0, rel=1e-7)      # exp(x) (1/x + O(x log x))


def test_scaled_k_is_k_times_exp():
    x = ds.constant(POINTS)
    k0, k0e, k1, k1e = run([special.bessel_k0(x), special.bessel_k0e(x),
                            special.bessel_k1(x), special.bessel_k1e(x)])
    np.testing.assert_allclose(k0e * np.exp(-POINTS), k0, rtol=1e-13)
    np.testing.assert_allclose(k1e * np.exp(-POINTS), k1, rtol=1e-13)


@pytest.mark.parametrize("x", [0.1, 0.9, 3.3, 9.5])
def test_dawsn_and_fresnel_are_their_integrals(x):
    xs = ds.constant([x, -x], ds.float64)
    dawsn, c, s = run([special.dawsn(xs), special.fresnel_cos(xs), special.fresnel_sin(xs)])
    want = math.exp(-x * x) * simpson(lambda t: np.exp(t * t), x)
    np.testing.assert_allclose(dawsn, [want, -want], rtol=1e-12)
    np.testing.assert_allclose(c[0], simpson(lambda t: np.cos(np.pi / 2 * t * t), x),
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(s[0], simpson(lambda t: np.sin(np.pi / 2 * t * t), x),
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal([c[1], s[1]], [-c[0], -s[0]])


def test_expint_and_spence_at_known_values():
    """Ei(1) and Ei(2); Ei(x) - log(x) - gamma = sum x^k / (k k!) at 50 (the
    asymptotic range); spence(x) = Li2(1 - x): pi^2/6, 0, Li2(1/2), Li2(-1), and
    spence(4) as its integral int_1^4 log(t) / (1 - t) dt."""
    ei = run(special.expint(ds.constant([1.0, 2.0, 50.0], ds.float64)))
    terms = np.cumprod(50.0 / np.arange(1, 400))                  # 50^k / k!
    series = np.sum(terms / np.arange(1, 400))
    np.testing.assert_allclose(ei, [1.8951178163559368, 4.954234356001890,
                                    0.5772156649015329 + math.log(50.0) + series], rtol=1e-14)
    li2_half = math.pi ** 2 / 12 - math.log(2) ** 2 / 2
    spence_4 = simpson(lambda u: -np.log1p(u) / np.where(u == 0, 1.0, u) - (u == 0), 3.0)
    got = run(special.spence(ds.constant([0.0, 1.0, 0.5, 2.0, 4.0], ds.float64)))
    np.testing.assert_allclose(got, [math.pi ** 2 / 6, 0.0, li2_half, -math.pi ** 2 / 12,
                                     spence_4], rtol=1e-13, atol=1e-16)


@pytest.mark.parametrize("name", NEW)
def test_gradient_against_finite_differences(name):
    low, high = (-6.0, 6.0) if name in ("bessel_j0", "bessel_j1", "dawsn", "fresnel_cos",
                                        "fresnel_sin") else (0.3, 6.0)
    x = np.random.default_rng(0).uniform(low, high, (3, 4))
    check_op_gradient(getattr(special, name), [x], rtol=1e-6, atol=1e-8)


def test_gradients_at_their_special_points():
    """J1' is 1/2 at 0 and spence' is -1 at 1 (TF's), not NaN."""
    x = ds.constant([0.0, 1.0])
    j1, spence = run([ds.gradients(special.bessel_j1(x), x)[0],
                      ds.gradients(special.spence(x), x)[0]])
    assert j1[0] == 0.5 and spence[1] == -1.0
    assert np.isfinite(j1).all() and spence[0] == -np.inf          # log(0), as TF's


@pytest.mark.parametrize("dtype", [ds.float16, ds.float32, ds.float64])
@pytest.mark.parametrize("shape", [(0,), (1,), (2, 3)], ids=str)
def test_shapes_and_dtypes(dtype, shape):
    x = np.linspace(0.5, 3.0, int(np.prod(shape))).reshape(shape).astype(dtype.np)
    for name in NEW:
        y = getattr(special, name)(ds.constant(x))
        assert (y.dtype, y.shape.as_list()) == (dtype, list(shape))
        got = run(y)
        want = run(getattr(special, name)(ds.constant(x.astype(np.float64))))
        assert got.dtype == dtype.np and got.shape == shape
        np.testing.assert_array_equal(got, want.astype(dtype.np))


def test_integers_are_a_type_error_naming_the_op():
    with pytest.raises(TypeError, match="'dawsn/Dawsn'.*floating-point"):
        special.dawsn(ds.constant([1, 2]))


def test_node_names_are_tf_s():
    x = ds.constant([1.0])
    assert special.bessel_k1e(x).name == "bessel_k1e/BesselK1e:0"
    assert special.fresnel_sin(x, name="s").name == "s/FresnelSin:0"
    assert special.bessel_i0 is ds.math.bessel_i0


# --- nextafter --------------------------------------------------------------------------------

def test_nextafter_is_numpy_s_with_broadcasting():
    x1 = np.array([[0.0], [1.0], [-2.0]], np.float32)
    x2 = np.array([1.0, -np.inf, 1.0], np.float32)
    got = run(ds.math.nextafter(x1, x2))
    np.testing.assert_array_equal(got, np.nextafter(x1, x2))
    assert got.dtype == np.float32 and got.shape == (3, 3)


def test_nextafter_gradients_are_tf_s():
    """dy to x1 (summed over its broadcast), zeros to x2: and finite differences agree,
    as nextafter moves x1 by an ulp."""
    check_op_gradient(ds.math.nextafter, [np.array([[0.5], [2.0]]), np.array([1.0, 3.0, -1.0])])


def test_nextafter_errors():
    with pytest.raises(TypeError, match="float32 or float64"):
        ds.math.nextafter(ds.constant([1.0], ds.float16), ds.constant([2.0], ds.float16))
    with pytest.raises(ValueError, match="NextAfter"):
        ds.math.nextafter(ds.constant([1.0, 2.0]), ds.constant([1.0, 2.0, 3.0]))


def test_a_large_array_is_computed_in_chunks_with_the_same_values():
    """The kernel holds 128 values per element, so it takes 8192 elements at a time."""
    x = np.linspace(0.1, 30.0, 20001)
    full, part = run([special.bessel_y0(ds.constant(x)), special.bessel_y0(ds.constant(x[-7:]))])
    np.testing.assert_array_equal(full[-7:], part)
    np.testing.assert_array_equal(full[8190:8194], run(special.bessel_y0(x[8190:8194])))
