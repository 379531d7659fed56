"""The special functions (ops/special.py): Lgamma, Digamma, Polygamma, Zeta, Igamma,
Igammac, IgammaGradA, BesselI0e/I1e/I0/I1, Erfinv, Ndtri and the lbeta composite.

* Values: a GraphDef TensorFlow wrote (tests/data/make_tf_special_functions.py: grids
  with the poles, edges, infinities and NaN, float64 and float32) runs with TF's values;
  and, independently of TF, closed forms and identities computed here with ``math``
  (lgamma against math.lgamma, digamma's recurrence, erf(erfinv(x)) = x, igamma(1, x)
  = 1 - exp(-x), zeta(2, 1) = pi^2/6, ...).
* Sizes 0 and 1, broadcasting, TF's dtype errors and node names.
* Gradients against finite differences (float64).
* Kernels: the CPU's and the CUDA kernels (on the stand-in, or a GPU) against the
  reference on every float dtype; the programs the GPU compiles against the reference.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import devsession as ds
from devsession.kernels.codegen import cuda as cuda_codegen
from devsession.kernels.codegen.expressions import ELEMENTWISE_OPS
from devsession.kernels.special_math import bernoulli_numbers
from gradient_check import check_op_gradient
from kernel_cases import (BIG, BROADCASTS, DEVICES, F16, F32, F64, assert_same,
                          check_against_ref, make_node, rng_for, run_on)

UNARY = ["Lgamma", "Digamma", "BesselI0e", "BesselI1e", "BesselI0", "BesselI1", "Erfinv",
         "Ndtri"]
BINARY = ["Polygamma", "Zeta", "Igamma", "Igammac", "IgammaGradA"]
COVERED = set(UNARY) | set(BINARY)
EULER = 0.5772156649015329
nan, inf = np.nan, np.inf


def run(fetches, feed=None):
    with ds.Session() as sess:
        return sess.run(fetches, feed)


# --- TF's values -------------------------------------------------------------------------------

def _tf_accurate(op: str, data, name: str) -> np.ndarray:
    """Where TF's float64 value has its digits (a mask): TF's erfinv is
    ndtri((x + 1) / 2) / sqrt(2), which loses them near 0 and +-1; its igammac of a
    tiny a is 1 - P, which cancels (devsession's has the same cancellation, rounded
    differently)."""
    keep = np.ones(data[f"fetch:{name}"].shape, bool)
    if op == "Erfinv":
        u = np.abs(data["feed:u"])
        keep = (u >= 1e-3) & (u <= 0.999) | ~np.isfinite(u) | (u >= 1)
    if op == "Igammac":
        keep = data["feed:a"] > 0.01
    return keep


def test_a_graph_def_written_by_tensorflow_runs_with_tfs_values():
    from tf_recorded import run_recorded, tf_static_shape

    graph, names, values, data = run_recorded("tf_special_functions")
    assert len(names) == 26
    assert {graph.get_tensor_by_name(n).op.type for n in names} == COVERED | {"Sub"}  # lbeta
    for name, value in zip(names, values):
        want = data[f"fetch:{name}"]
        op = graph.get_tensor_by_name(name).op.type
        assert value.dtype == want.dtype and value.shape == want.shape, name
        assert graph.get_tensor_by_name(name).shape == tf_static_shape(data, name), name
        if want.dtype == F64:
            keep = _tf_accurate(op, data, name)
            np.testing.assert_allclose(value[keep], want[keep], rtol=1e-12, atol=1e-300,
                                       err_msg=name)
            if op == "Igammac":
                np.testing.assert_allclose(value, want, rtol=5e-12, err_msg=name)
        else:
            # TF's float32 kernels compute in float32 and flush subnormal results to
            # zero; devsession's compute in float64 and round once.
            close = np.isclose(value, want, rtol=5e-4, atol=1e-36, equal_nan=True)
            assert np.array_equal(np.isnan(value), np.isnan(want)), name
            assert close.mean() > 0.95, name


def test_where_tf_loses_digits_the_values_invert():
    """erfinv where TF's float64 loses digits, and TF's float32 polygamma(10, -1.5),
    whose float32 series cancels (-469.8 for -156.2296): checked by what they invert."""
    x = ds.placeholder(ds.float64, (None,))
    small = [1e-10, -1e-300, 1e-3]
    near_one = [1 - 2.0 ** -53, -(1 - 1e-12), 0.9999999]
    got = run(ds.math.erfinv(x), {x: small + near_one})
    for value, y in zip(small, got[:3]):
        assert math.erf(y) == pytest.approx(value, rel=1e-15)
    for value, y in zip(near_one, got[3:]):
        assert math.erfc(abs(y)) == pytest.approx(1 - abs(value), rel=1e-14)
    assert got[0] == pytest.approx(math.sqrt(math.pi) / 2 * 1e-10, rel=1e-15)
    n = ds.constant([10.0], ds.float32)
    assert run(ds.polygamma(n, [-1.5]))[0] == pytest.approx(-156.2295957864392, rel=1e-6)


# --- values against math, closed forms and identities ------------------------------------------

def test_lgamma_against_math_and_at_its_poles():
    x = ds.placeholder(ds.float64, (None,))
    points = np.concatenate([np.linspace(-30.25, 40.5, 285), [1e-300, 1e-8, 1e5, 171.9]])
    got = run(ds.lgamma(x), {x: points})
    want = [math.lgamma(v) for v in points]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    poles = run(ds.lgamma(x), {x: [0.0, -0.0, -1.0, -7.0, -1e300, inf, -inf]})
    np.testing.assert_array_equal(poles, [inf] * 7)
    assert np.isnan(run(ds.lgamma(x), {x: [nan]})[0])


def test_digamma_values_identities_and_poles():
    x = ds.placeholder(ds.float64, (None,))
    harmonic = np.cumsum(1.0 / np.arange(1, 40))
    got = run(ds.digamma(x), {x: np.arange(1.0, 41.0)})
    np.testing.assert_allclose(got, np.concatenate([[-EULER], harmonic - EULER]), rtol=1e-14)
    assert run(ds.digamma(x), {x: [0.5]})[0] == pytest.approx(-EULER - 2 * math.log(2),
                                                              rel=1e-15)
    points = np.concatenate([np.linspace(-20.3, 20.1, 203), [1e-6, 1e6]])
    psi, psi_next = run([ds.digamma(x), ds.digamma(x + 1.0)], {x: points})
    np.testing.assert_allclose(psi_next - psi, 1 / points, rtol=1e-10, atol=1e-12)
    # reflection: psi(1 - x) - psi(x) = pi cot(pi x)
    frac = np.linspace(0.05, 0.95, 19) - 3.0
    left, right = run([ds.digamma(1.0 - x), ds.digamma(x)], {x: frac})
    np.testing.assert_allclose(left - right, np.pi / np.tan(np.pi * frac), rtol=1e-11,
                               atol=1e-12)
    edges = run(ds.digamma(x), {x: [0.0, -1.0, -4.0, -inf, nan, inf]})
    assert np.isnan(edges[:5]).all() and edges[5] == inf


def test_polygamma_and_zeta_closed_forms():
    zeta3 = 1.2020569031595942
    n = ds.constant([1.0, 1.0, 2.0, 3.0, 0.0, 1.5, -1.0], ds.float64)
    x = ds.constant([1.0, 0.5, 1.0, 1.0, 3.0, 1.0, 1.0], ds.float64)
    got = run(ds.polygamma(n, x))
    want = [np.pi ** 2 / 6, np.pi ** 2 / 2, -2 * zeta3, np.pi ** 4 / 15, 1.5 - EULER,
            nan, nan]
    np.testing.assert_allclose(got, want, rtol=1e-14)
    s = ds.constant([2.0, 4.0, 3.0, 2.0, 2.0, 1.0, 0.5, 2.0, 3.0], ds.float64)
    q = ds.constant([1.0, 1.0, 1.0, 0.5, 1e6, 1.0, 1.0, 0.0, 0.0], ds.float64)
    got = run(ds.zeta(s, q))
    want = [np.pi ** 2 / 6, np.pi ** 4 / 90, zeta3, np.pi ** 2 / 2, 1.0000005000001667e-06,
            inf, nan, inf, nan]
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_the_euler_maclaurin_coefficients_are_the_bernoulli_numbers():
    from fractions import Fraction as F

    assert bernoulli_numbers(6) == [F(1, 6), F(-1, 30), F(1, 42), F(-1, 30), F(5, 66),
                                    F(-691, 2730)]


def test_incomplete_gamma_closed_forms_and_edges():
    x = np.array([1e-3, 0.2, 1.0, 2.5, 7.0, 30.0, 200.0])
    xt = ds.constant(x, ds.float64)
    p1, q1, p2, qh = run([ds.igamma(1.0, xt), ds.igammac(1.0, xt), ds.igamma(2.0, xt),
                          ds.igammac(0.5, xt)])
    np.testing.assert_allclose(p1, -np.expm1(-x), rtol=1e-14)
    np.testing.assert_allclose(q1, np.exp(-x), rtol=1e-13)
    np.testing.assert_allclose(p2[1:], 1 - (1 + x[1:]) * np.exp(-x[1:]), rtol=1e-13)
    assert p2[0] == pytest.approx(1e-6 / 2 - 1e-9 / 3 + 1e-12 / 8, rel=1e-12)
    np.testing.assert_allclose(qh, [math.erfc(math.sqrt(v)) for v in x], rtol=1e-13)
    a = ds.constant([0.0, -1.0, 1.0, 1.0, 2.0, nan, inf], ds.float64)
    z = ds.constant([0.0, 0.0, -1.0, inf, 0.0, 1.0, 1.0], ds.float64)
    p, q, g = run([ds.igamma(a, z), ds.igammac(a, z),
                   ds.ops.special.igamma_grad_a(a, z)])
    np.testing.assert_array_equal(p, [0, 0, nan, 1, 0, nan, 0])        # TF's
    np.testing.assert_array_equal(q, [nan, nan, nan, 0, 1, nan, 1])
    np.testing.assert_array_equal(g, [0, 0, nan, 0, 0, nan, 0])


@pytest.mark.parametrize("device", DEVICES)
def test_igammac_from_max_a_1_on_is_the_fraction_as_tf(device):
    """TF's igammac takes the continued fraction from x = max(a, 1) on: at x = 1 a tiny
    a gives Q ~ a E1(1), where 1 - P cancels to 0 or below (TF 2.21's values)."""
    a = np.array([1e-300, 1e-10, 2.5, 100.0])
    x = np.array([1.0, 1.0, 2.5, 100.0])
    got = run_on(device, make_node("Igammac", [F64, F64], F64), a, x)
    np.testing.assert_allclose(got, [2.1938393439552394e-301, 2.1938393441796723e-11,
                                     0.41588018699550794, 0.4867012017208352], rtol=1e-12)


def test_igamma_grad_a_is_the_derivative_of_igamma_in_a():
    a = np.array([0.3, 1.0, 2.5, 7.0, 20.0, 3.0])
    x = np.array([0.5, 2.0, 1.0, 9.0, 18.0, 40.0])
    at, xt = ds.constant(a), ds.constant(x)
    h = 1e-6
    g, plus, minus = run([ds.ops.special.igamma_grad_a(at, xt),
                          ds.igamma(at + h, xt), ds.igamma(at - h, xt)])
    np.testing.assert_allclose(g, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-12)


def test_bessel_functions_against_known_values_and_symmetry():
    x = ds.constant([0.0, 1.0, 10.0, -1.0, 50.0, 1e-8], ds.float64)
    i0, i1, i0e, i1e = run([ds.math.bessel_i0(x), ds.math.bessel_i1(x),
                            ds.math.bessel_i0e(x), ds.math.bessel_i1e(x)])
    np.testing.assert_allclose(i0[:4], [1.0, 1.2660658777520082, 2815.716628466254,
                                        1.2660658777520082], rtol=1e-14)
    np.testing.assert_allclose(i1[:4], [0.0, 0.5651591039924851, 2670.988303701255,
                                        -0.5651591039924851], rtol=1e-14)
    scale = np.exp(-np.abs([0.0, 1.0, 10.0, -1.0]))
    np.testing.assert_allclose(i0e[:4], i0[:4] * scale, rtol=1e-14)
    np.testing.assert_allclose(i1e[:4], i1[:4] * scale, rtol=1e-14)
    # large x: I0e ~ (2 pi x)^-1/2 (1 + 1/(8x) + 9/(128 x^2) + ...), next term 2e-8
    assert i0e[4] == pytest.approx((1 + 1 / 400 + 9 / 320000 + 225 / 3072 / 125000)
                                   / math.sqrt(100 * math.pi), rel=3e-8)
    assert i1e[5] == pytest.approx(5e-9 * (1 - 1e-8), rel=1e-15)


def test_ndtri_inverts_the_normal_cdf_in_both_tails():
    p = np.array([1e-300, 1e-20, 0.01, 0.2499, 0.3, 0.5, 0.7501, 0.975, 1 - 1e-12])
    y = run(ds.math.ndtri(ds.constant(p)))
    cdf = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in y])
    np.testing.assert_allclose(cdf, p, rtol=1e-12)
    assert y[7] == pytest.approx(1.959963984540054, rel=1e-15)
    edges = run(ds.math.ndtri(ds.constant([0.0, 1.0, -0.1, 1.1, nan])))
    np.testing.assert_array_equal(edges, [-inf, inf, nan, nan, nan])


def test_erfinv_edges():
    got = run(ds.math.erfinv(ds.constant([1.0, -1.0, 0.0, 1.5, -2.0, nan])))
    np.testing.assert_array_equal(got, [inf, -inf, 0.0, nan, nan, nan])


def test_lbeta_as_tf_builds_it():
    x = ds.constant([[1.0, 2.0], [0.5, 0.5], [3.0, 4.0]], ds.float64)
    y = ds.lbeta(x)
    assert y.name == "lbeta/sub:0" and y.shape == (3,)
    np.testing.assert_allclose(run(y), [math.log(0.5), math.log(math.pi),
                                        math.log(1 / 60)], rtol=1e-14)
    assert run(ds.lbeta(ds.zeros((2, 0), ds.float64))).tolist() == [-inf, -inf]
    assert run(ds.math.lbeta(ds.zeros((0, 2)))).shape == (0,)


# --- sizes, broadcasting, dtypes, names ---------------------------------------------------------

@pytest.mark.parametrize("shape", [(0,), (1,), (2, 0, 3), ()], ids=str)
def test_sizes_zero_and_one(shape):
    x = ds.placeholder(ds.float32, shape)
    value = np.full(shape, 0.25, np.float32)
    ys = [ds.lgamma(x), ds.digamma(x), ds.math.erfinv(x), ds.math.bessel_i1e(x),
          ds.igamma(x, x), ds.zeta(x + 1.5, x)]
    for y, got in zip(ys, run(ys, {x: value})):
        assert got.shape == shape and got.dtype == np.float32 and y.shape == shape


def test_binary_ops_broadcast():
    a = ds.constant([[0.5], [1.0], [3.0]], ds.float64)
    x = ds.constant([0.1, 1.0, 4.0, 9.0], ds.float64)
    for build in (ds.igamma, ds.igammac, ds.polygamma, ds.zeta):
        y = build(a + 1.0, x)
        assert y.shape == (3, 4)
    got = run(ds.igamma(a, x))
    want = np.array([[math.erf(math.sqrt(v)) for v in (0.1, 1.0, 4.0, 9.0)],
                     [-math.expm1(-v) for v in (0.1, 1.0, 4.0, 9.0)]])
    np.testing.assert_allclose(got[:2], want, rtol=1e-13)
    with pytest.raises(ValueError, match="incompatible shapes"):
        ds.igamma(ds.zeros((3,)), ds.zeros((4,)))


def test_dtypes_as_tf():
    with pytest.raises(TypeError, match="floating-point"):
        ds.lgamma(ds.constant([1, 2]))
    with pytest.raises(TypeError, match="float32 or float64"):
        ds.igamma(ds.zeros((2,), ds.float16), ds.zeros((2,), ds.float16))
    with pytest.raises(TypeError, match="does not match"):
        ds.zeta(ds.zeros((2,), ds.float32), ds.zeros((2,), ds.float64))
    half = run(ds.lgamma(ds.constant([0.5, 3.0], ds.float16)))
    assert half.dtype == np.float16
    np.testing.assert_allclose(half, [0.5724, 0.6931], rtol=1e-3)
    assert ds.polygamma(2.0, ds.constant([1.0], ds.float64)).dtype == ds.float64


def test_node_names_as_tf1():
    x = ds.placeholder(ds.float32, (2,), name="x")
    assert [t.name for t in (ds.lgamma(x), ds.digamma(x), ds.igamma(x, x), ds.zeta(x, x),
                             ds.polygamma(x, x), ds.math.bessel_i0e(x),
                             ds.math.erfinv(x), ds.math.ndtri(x, name="q"))] == [
        "Lgamma:0", "Digamma:0", "Igamma:0", "Zeta:0", "Polygamma:0",
        "bessel_i0e/BesselI0e:0", "erfinv/Erfinv:0", "q/Ndtri:0"]
    assert [n.name for n in ds.igamma(0.5, x).op.inputs] == ["Igamma_1/a:0", "x:0"]
    for name in ("lgamma", "digamma", "igamma", "igammac", "lbeta", "polygamma", "zeta"):
        assert getattr(ds, name) is getattr(ds.math, name)
    for name in ("erfinv", "ndtri", "bessel_i0e", "bessel_i1e", "bessel_i0", "bessel_i1"):
        assert callable(getattr(ds.math, name))


# --- gradients against finite differences -------------------------------------------------------

def _grid(low, high, shape=(3, 4), seed=0):
    return np.random.default_rng(seed).uniform(low, high, shape)


@pytest.mark.parametrize("build,low,high", [
    (ds.lgamma, 0.2, 6.0), (ds.lgamma, -2.9, -2.1), (ds.digamma, 0.3, 6.0),
    (ds.digamma, -0.9, -0.1), (ds.math.bessel_i0e, -4.0, 4.0),
    (ds.math.bessel_i1e, -4.0, 4.0), (ds.math.bessel_i0, -4.0, 4.0),
    (ds.math.bessel_i1, -4.0, 4.0), (ds.math.erfinv, -0.95, 0.95),
    (ds.math.ndtri, 0.02, 0.98)], ids=lambda v: getattr(v, "__name__", str(v)))
def test_unary_gradients(build, low, high):
    check_op_gradient(build, [_grid(low, high)], rtol=1e-5, atol=1e-7)


def test_bessel_i1_gradients_at_zero_are_one_half():
    x = ds.constant([0.0, 0.0], ds.float64)
    grads = run(ds.gradients([ds.math.bessel_i1e(x[0]), ds.math.bessel_i1(x[1])], x))
    np.testing.assert_array_equal(grads[0], [0.5, 0.5])


@pytest.mark.parametrize("build", [ds.math.bessel_i1e, ds.math.bessel_i1])
def test_bessel_i1_gradients_near_zero_are_one_half(build):
    """Below the dtype's epsilon the derivative is its limit 1/2, as TF's BesselI1e
    gradient: the formula's 1/x overflows at a float32 subnormal (TF 2.21: 0.5)."""
    x = ds.constant([1e-40, 1e-45, -1e-39, 1e-30, 1e-3], ds.float32)
    (grad,) = run(ds.gradients(ds.reduce_sum(build(x)), x))
    np.testing.assert_allclose(grad[:4], 0.5, rtol=1e-6)
    want = 0.5 + 3e-6 / 16 - (1e-3 if build is ds.math.bessel_i1e else 0.0)
    assert grad[4] == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((), (5,)),
                                    ((4,), ())], ids=str)
def test_igamma_and_igammac_gradients_with_broadcasting(shapes):
    a, x = _grid(0.5, 4.0, shapes[0], seed=1), _grid(0.3, 5.0, shapes[1], seed=2)
    check_op_gradient(ds.igamma, [a, x], rtol=1e-5)
    check_op_gradient(ds.igammac, [a, x], rtol=1e-5)


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((), (5,))], ids=str)
def test_polygamma_and_zeta_gradients_in_their_second_input(shapes):
    n = np.floor(_grid(0.0, 3.0, shapes[0], seed=3))
    x = _grid(0.5, 4.0, shapes[1], seed=4)
    check_op_gradient(ds.polygamma, [n, x], no_gradient=(0,), rtol=1e-5)
    check_op_gradient(ds.zeta, [n + 2.0, x], no_gradient=(0,), rtol=1e-5)


def test_second_derivatives_chain_polygamma():
    x = ds.constant([0.7, 2.0, 5.5], ds.float64)
    (d1,) = ds.gradients(ds.lgamma(x), x)
    (d2,) = ds.gradients(d1, x)
    (d3,) = ds.gradients(d2, x)
    got = run([d1, d2, d3])
    np.testing.assert_allclose(got[0], run(ds.digamma(x)), rtol=1e-14)
    np.testing.assert_allclose(got[1], run(ds.polygamma(ds.ones_like(x), x)), rtol=1e-14)
    np.testing.assert_allclose(got[2], run(ds.polygamma(2.0 * ds.ones_like(x), x)),
                               rtol=1e-14)
    assert {op.type for op in x.graph.get_operations()} >= {"Digamma", "Polygamma"}


# --- kernels on every device against the reference ---------------------------------------------

def unary_input(op, dtype, shape, seed=0):
    """Values around each function's domain, with NaN and +-inf among them."""
    rng = rng_for(op, dtype, shape, seed)
    x = rng.standard_normal(shape) * 4
    if op == "Erfinv":
        x = rng.uniform(-1.1, 1.1, shape)
    if op == "Ndtri":
        x = rng.uniform(-0.05, 1.05, shape)
    if x.size >= 7:
        x.reshape(-1)[[1, 3, 5]] = [nan, inf, -inf]
    if x.size >= 9:
        x.reshape(-1)[[6, 8]] = [0.0, -2.0]            # a pole
    return x.astype(dtype)


def binary_input(op, dtype, shapes, seed=0):
    rng = rng_for(op, dtype, shapes, seed)
    first, second = (rng.uniform(0.0, 6.0, s) for s in shapes)
    if op == "Polygamma":
        first = np.floor(first)
        second = second - 2.0
    if op == "Zeta":
        first = first + 0.5
        second = second - 1.0
    if op.startswith("Igamma"):
        second = second * 2 - 1.0
    for a in (first, second):
        if a.size >= 7:
            a.reshape(-1)[[1, 3]] = [nan, inf]
    return first.astype(dtype), second.astype(dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (3, 5)], ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in UNARY for d in (F16, F32, F64)])
def test_unary_kernels(device, op, dtype, shape):
    check_against_ref(device, make_node(op, [dtype], dtype), unary_input(op, dtype, shape))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shapes", [((0,), (0,)), ((1,), (1,)), ((7,), (7,))] + BROADCASTS,
                         ids=str)
@pytest.mark.parametrize("op,dtype", [(op, d) for op in BINARY for d in (F32, F64)])
def test_binary_kernels(device, op, dtype, shapes):
    got = check_against_ref(device, make_node(op, [dtype, dtype], dtype),
                            *binary_input(op, dtype, shapes))
    assert got.shape == np.broadcast_shapes(*shapes)


@pytest.mark.parametrize("device", DEVICES)
def test_a_big_input(device):
    x = unary_input("Digamma", F32, (BIG,))
    check_against_ref(device, make_node("Digamma", [F32], F32), x)


def _data_path():
    import os

    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                        "tf_special_functions.npz")


@pytest.mark.parametrize("device", DEVICES)
def test_kernels_match_tfs_float64_values(device):
    """Each device against TF's recorded float64 values (not only against REF)."""
    data = np.load(_data_path())
    x, a, ax = data["feed:x"], data["feed:a"], data["feed:ax"]
    for op, inputs, fetch in [("Lgamma", [x], "Lgamma:0"), ("Digamma", [x], "Digamma:0"),
                              ("BesselI1e", [x], "bessel_i1e/BesselI1e:0"),
                              ("IgammaGradA", [a, ax], "IgammaGradA:0")]:
        got = run_on(device, make_node(op, [F64] * len(inputs), F64), *inputs)
        assert_same(got, data[f"fetch:{fetch}"], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("op", sorted(COVERED))
def test_gpu_programs_match_the_reference(op):
    """What the GPU compiles (the CUDA front end, evaluated with numpy) against REF, and
    every instruction has a CUDA rendering."""
    names, expr = ELEMENTWISE_OPS[op]
    for dtype in (F32, F64) if op in BINARY else (F16, F32, F64):
        if len(names) == 1:
            inputs = [unary_input(op, dtype, (4, 7))]
        else:
            inputs = list(binary_input(op, dtype, ((4, 7), (4, 7))))
        program = cuda_codegen.compile_expression(expr, [(n, dtype) for n in names], dtype)
        _, _, operation, preamble = cuda_codegen.render_cuda(program)
        assert "ds_" in operation and "__device__ double ds_" in preamble
        ref = run_on("REF", make_node(op, [dtype] * len(names), dtype), *inputs)
        assert_same(cuda_codegen.evaluate(program, *inputs), ref)
