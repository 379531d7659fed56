"""tf.math.special's functions on the host (``devsession/ops/math_special.py``): the
Bessel functions J0, J1, Y0, Y1, K0, K1 (and K's exponentially scaled forms), Dawson's
integral, the exponential integral Ei, the Fresnel integrals and Spence's function.

Each is computed over a whole float64 array at once and rounded to the input's dtype.
The methods are classic ones that keep full float64 precision without tables of
coefficients (about 1e-15, absolute where the function crosses zero):

* J_n (|x| <= 25): the trapezoidal rule on Bessel's integral ``J_n(x) = 1/(2 pi) int
  cos(n t - x sin t) dt`` over a period, which for a periodic integrand is exact up to
  J_(N-n)(x) -- negligible with N = 128 points.  One FFT of ``exp(-i x sin t)`` gives
  every J_k at once, and Y0, Y1 come from them by Neumann's series
  ``Y0 = 2/pi (log(x/2) + gamma) J0 - 4/pi sum (-1)^k J_2k / k`` and its derivative.
* J, Y (|x| > 25): Hankel's asymptotic expansions, summed while their terms shrink.
* K0, K1: their power series for x <= 2; above, ``exp(x) K_n(x) = int_0^inf exp(-x
  (cosh t - 1)) cosh(n t) dt`` by the trapezoidal rule over the range where the
  integrand exceeds 1e-320 (a doubly exponential decay: 128 points give every digit).
* Dawson's F(x): its Taylor series below 0.2, Rybicki's exponentially convergent sum
  up to 10, the asymptotic series above.
* Ei(x): the power series up to 40, the asymptotic series above (NaN below 0, as
  TF's).
* Fresnel C and S (argument pi/2 t^2): the power series below 1.5, above it the
  continued fraction of erfc at ``sqrt(pi)/2 (1 - i) x``; 1/2 beyond 36974, as TF's.
* Spence's function ``spence(x) = Li2(1 - x)``: Li2's Bernoulli series in ``-log(1 -
  z)`` for z in [-1, 1/2], and the reflection or inversion formulas elsewhere.

Edges are TF's (its float64 kernels'): J is NaN at +-inf; Y is -inf at and below 0
and NaN at inf; K is inf at and below 0; Ei is -inf at 0 and NaN below 0 and at inf;
spence is NaN below 0 and at inf; NaN stays NaN.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import HOST, register_kernel
from ..special_math import bernoulli_numbers

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e",
           "bessel_k1", "bessel_k1e", "dawsn", "expint", "fresnel_cos", "fresnel_sin",
           "spence", "FUNCTIONS"]

_GAMMA = 0.5772156649015329            # Euler's constant
_POINTS = 128                          # trapezoid points (Bessel's integral, K's)
_SMALL_BESSEL = 25.0                   # the integral below, Hankel's expansion above
_UNDERFLOW_LOG = 740.0                 # exp(-740) is below the smallest double
_CHUNK = 8192                          # elements at a time: 16 MB of complex samples


def _elementwise(fn):
    """``fn`` over a float64 copy of ``x``, NaN kept, rounded to ``x``'s dtype; in
    chunks of ``_CHUNK`` elements, as the methods hold ``_POINTS`` values per element."""
    def kernel(x):
        x = np.asarray(x)
        values = x.astype(np.float64).ravel()
        out = np.full(values.shape, np.nan)
        with np.errstate(all="ignore"):
            for start in range(0, values.size, _CHUNK):
                chunk = values[start:start + _CHUNK]
                known = ~np.isnan(chunk)
                out[start:start + _CHUNK][known] = fn(chunk[known])
        return out.reshape(x.shape).astype(x.dtype if x.dtype.kind == "f" else np.float64)
    kernel.__doc__ = fn.__doc__
    return kernel


# --- J and Y ----------------------------------------------------------------------------

def _bessel_j_all(x):
    """J_k(x) for k = 0 .. _POINTS // 2 (rows) at each |x| <= 25 (columns)."""
    t = 2.0 * np.pi * np.arange(_POINTS) / _POINTS
    samples = np.exp(-1j * np.outer(np.sin(t), x))          # (points, len(x))
    return np.fft.ifft(samples, axis=0).real[: _POINTS // 2 + 1]


def _hankel(order: int, x):
    """(J_order, Y_order) at x > 25 from Hankel's expansions P and Q."""
    mu = 4.0 * order * order
    p, q = np.ones_like(x), np.zeros_like(x)
    term = np.ones_like(x)
    done = np.zeros(x.shape, bool)
    for k in range(1, 120):
        odd = 2.0 * k - 1.0
        term = term * (mu - odd * odd) / (k * 8.0 * x)
        target = q if k % 2 else p
        sign = 1.0 if k % 4 in (0, 1) else -1.0
        target += np.where(done, 0.0, sign * term)
        done |= np.abs(term) < 1e-17
        if done.all():
            break
    phase = x - (0.5 * order + 0.25) * np.pi
    scale = np.sqrt(2.0 / (np.pi * x))
    cos, sin = np.cos(phase), np.sin(phase)
    return scale * (p * cos - q * sin), scale * (p * sin + q * cos)


def _bessel_j(order: int, x):
    ax = np.abs(x)
    out = np.empty_like(ax)
    small = ax <= _SMALL_BESSEL
    out[small] = _bessel_j_all(ax[small])[order]
    out[~small] = _hankel(order, ax[~small])[0]
    return np.where(np.signbit(x), -out, out) if order == 1 else out


def _bessel_y(order: int, x):
    out = np.full(x.shape, np.nan)
    out[x <= 0] = -np.inf
    small, large = (x > 0) & (x <= _SMALL_BESSEL), (x > _SMALL_BESSEL) & (x < np.inf)
    xs = x[small]
    j = _bessel_j_all(xs)
    log_term = np.log(0.5 * xs) + _GAMMA
    k = np.arange(1, _POINTS // 4)[:, None]
    signs = np.where(k % 2 == 0, 1.0, -1.0)
    if order == 0:
        series = (signs * j[2 * k[:, 0]] / k).sum(axis=0)
        out[small] = 2.0 / np.pi * (log_term * j[0] - 2.0 * series)
    else:   # Y1 = -Y0', with J0' = -J1 and J_2k' = (J_2k-1 - J_2k+1) / 2
        series = (signs * (j[2 * k[:, 0] - 1] - j[2 * k[:, 0] + 1]) / k).sum(axis=0)
        out[small] = 2.0 / np.pi * (log_term * j[1] - j[0] / xs + series)
    out[large] = _hankel(order, x[large])[1]
    return out


def bessel_j0(x):
    """J0, the Bessel function of the first kind of order 0."""
    return _bessel_j(0, x)


def bessel_j1(x):
    """J1, the Bessel function of the first kind of order 1."""
    return _bessel_j(1, x)


def bessel_y0(x):
    """Y0, the Bessel function of the second kind of order 0."""
    return _bessel_y(0, x)


def bessel_y1(x):
    """Y1, the Bessel function of the second kind of order 1."""
    return _bessel_y(1, x)


# --- K ------------------------------------------------------------------------------------

def _bessel_k_series(order: int, x):
    """K_order(x) for 0 < x <= 2 (A&S 9.6.13, 9.6.11): sums of positive terms beside
    log(x/2) I_order(x)."""
    quarter = 0.25 * x * x
    log_half = np.log(0.5 * x)
    term = np.ones_like(x) if order == 0 else 0.5 * x      # (x/2)^n (x^2/4)^k / (k! (n+k)!)
    psi_k, psi_nk = -_GAMMA, -_GAMMA + (1.0 if order == 1 else 0.0)
    bessel_i, rest = term.copy(), (psi_k + psi_nk) * term
    for k in range(1, 40):
        term = term * quarter / (k * (k + order))
        psi_k += 1.0 / k
        psi_nk += 1.0 / (k + order)
        bessel_i += term
        rest += (psi_k + psi_nk) * term
    if order == 0:
        return -log_half * bessel_i + 0.5 * rest
    return 1.0 / x + log_half * bessel_i - 0.5 * rest


def _bessel_k_scaled_integral(order: int, x):
    """exp(x) K_order(x) for x > 2 (see the module docstring)."""
    reach = np.arccosh(1.0 + _UNDERFLOW_LOG / x)             # where the integrand dies
    steps = reach / (_POINTS - 1)
    t = np.arange(_POINTS)[:, None] * steps
    integrand = np.exp(-2.0 * x * np.sinh(0.5 * t) ** 2) * np.cosh(order * t)  # cosh - 1
    integrand[0] *= 0.5
    return steps * integrand.sum(axis=0)


def _bessel_k(order: int, x, scaled: bool):
    out = np.full(x.shape, np.inf)                  # at and below 0
    out[x == np.inf] = 0.0
    small, large = (x > 0) & (x <= 2.0), (x > 2.0) & (x < np.inf)
    xs = x[small]
    value = _bessel_k_series(order, xs)
    out[small] = value * np.exp(xs) if scaled else value
    xl = x[large]
    value = _bessel_k_scaled_integral(order, xl)
    out[large] = value if scaled else value * np.exp(-xl)
    return out


def bessel_k0(x):
    """K0, the modified Bessel function of the second kind of order 0."""
    return _bessel_k(0, x, scaled=False)


def bessel_k0e(x):
    """exp(x) K0(x)."""
    return _bessel_k(0, x, scaled=True)


def bessel_k1(x):
    """K1, the modified Bessel function of the second kind of order 1."""
    return _bessel_k(1, x, scaled=False)


def bessel_k1e(x):
    """exp(x) K1(x)."""
    return _bessel_k(1, x, scaled=True)


# --- Dawson, Ei ---------------------------------------------------------------------------

_RYBICKI_STEP = 0.2                    # error ~ exp(-(pi / (2 h))^2): 1e-27
_RYBICKI_TERMS = 48                    # odd n on each side of x / h: exp(-(48 h)^2)


def dawsn(x):
    """Dawson's integral exp(-x^2) int_0^x exp(t^2) dt."""
    ax = np.abs(x)
    out = np.empty_like(ax)
    small, large = ax < 0.2, ax > 10.0
    middle = ~(small | large)
    xs = ax[small]                     # x sum (-2 x^2)^k / (2k+1)!!
    term, total = xs.copy(), xs.copy()
    for k in range(1, 12):
        term = term * (-2.0 * xs * xs) / (2 * k + 1)
        total += term
    out[small] = total
    xm = ax[middle]                    # Rybicki: 1/sqrt(pi) sum_(n odd) exp(-(x - nh)^2) / n
    centre = 2 * np.round(xm / (2 * _RYBICKI_STEP))
    n = centre[None, :] + np.arange(-2 * _RYBICKI_TERMS + 1, 2 * _RYBICKI_TERMS, 2)[:, None]
    out[middle] = (np.exp(-(xm - n * _RYBICKI_STEP) ** 2) / n).sum(axis=0) / math.sqrt(math.pi)
    xl = ax[large]                     # 1/(2x) sum (2k-1)!! / (2x^2)^k
    term, total = np.ones_like(xl), np.ones_like(xl)
    for k in range(1, 40):
        term = term * (2 * k - 1) / (2.0 * xl * xl)
        total += term
    out[large] = np.where(np.isinf(xl), 0.0, total / (2.0 * xl))
    return np.where(x < 0, -out, out)


def expint(x):
    """The exponential integral Ei(x) = -PV int_-x^inf exp(-t)/t dt (x >= 0)."""
    out = np.full(x.shape, np.nan)
    out[x == 0] = -np.inf
    small = (x > 0) & (x <= 40.0)
    xs = x[small]
    term, total = np.ones_like(xs), np.zeros_like(xs)
    for k in range(1, 200):
        term = term * xs / k
        total += term / k
        if np.all(term < 1e-17 * total):
            break
    out[small] = _GAMMA + np.log(xs) + total
    large = (x > 40.0) & (x < np.inf)
    xl = x[large]
    term, total = np.ones_like(xl), np.ones_like(xl)
    for k in range(1, 60):
        term = term * k / xl
        total += term
    out[large] = np.exp(xl) / xl * total
    return out


# --- Fresnel --------------------------------------------------------------------------------

_FRESNEL_HALF = 36974.0                # beyond it C and S are 1/2 (TF's, from Cephes)


def _fresnel(x):
    """(C(x), S(x)) for x >= 0."""
    c, s = np.empty_like(x), np.empty_like(x)
    small = x < 1.5
    xs = x[small]
    t = 0.5 * np.pi * xs * xs                # sum over k of (-1)^k t^(2k) / (2k)! ...
    term = xs.copy()                         # x t^m / m!, m = 0, 1, 2, ...
    c_total, s_total = xs.copy(), np.zeros_like(xs)
    for m in range(1, 40):
        term = term * t / m
        piece = term / (2 * m + 1)
        sign = 1.0 if m % 4 in (0, 1) else -1.0
        if m % 2:
            s_total += sign * piece
        else:
            c_total += sign * piece
    c[small], s[small] = c_total, s_total
    large = ~small
    xl = x[large]
    z = 0.5 * math.sqrt(math.pi) * (1.0 - 1.0j) * xl
    # erfc(z) = exp(-z^2) / sqrt(pi) / (z + 1/2 / (z + 1 / (z + 3/2 / (z + ...)))),
    # as 2 z / (2 z^2 + 1 - 1 * 2 / (2 z^2 + 5 - 3 * 4 / (2 z^2 + 9 - ...))) (Lentz)
    b = 2.0 * z * z + 1.0
    cl = np.full(z.shape, 1e300 + 0j)
    d = 1.0 / b
    h = d.copy()
    for n in range(1, 400):
        a = -float((2 * n - 1) * 2 * n)
        b = b + 4.0
        d = 1.0 / (a * d + b)
        cl = b + a / cl
        delta = cl * d
        h *= delta
        if np.all(np.abs(delta - 1.0) < 1e-16):
            break
    erfc = 2.0 * z * h * np.exp(-z * z) / math.sqrt(math.pi)
    value = (0.5 + 0.5j) * (1.0 - erfc)                  # (1 + i)/2 erf(z)
    c[large], s[large] = value.real, value.imag
    beyond = x > _FRESNEL_HALF
    c[beyond], s[beyond] = 0.5, 0.5
    return c, s


def fresnel_cos(x):
    """The Fresnel integral C(x) = int_0^x cos(pi/2 t^2) dt."""
    c = _fresnel(np.abs(x))[0]
    return np.where(x < 0, -c, c)


def fresnel_sin(x):
    """The Fresnel integral S(x) = int_0^x sin(pi/2 t^2) dt."""
    s = _fresnel(np.abs(x))[1]
    return np.where(x < 0, -s, s)


# --- Spence -----------------------------------------------------------------------------

_PI2_6 = math.pi ** 2 / 6.0
# B_n / (n + 1)!, n = 0, 1, 2, 4, ...: Li2(z) = sum B_n u^(n+1) / (n+1)!, u = -log(1 - z)
_LI2_ODD = tuple(float(b / math.factorial(2 * k + 1))
                 for k, b in enumerate(bernoulli_numbers(16), start=1))


def _li2(z):
    """The dilogarithm for -1 <= z <= 1/2 (|u| <= log 2: the series converges fast)."""
    u = -np.log1p(-z)
    u2 = u * u
    total = np.zeros_like(u)
    for coefficient in reversed(_LI2_ODD):       # B_2k u^(2k+1) / (2k+1)!, k >= 1
        total = total * u2 + coefficient
    return u - 0.25 * u2 + u * u2 * total


def spence(x):
    """Spence's function int_1^x log(t) / (1 - t) dt = Li2(1 - x), for x >= 0."""
    out = np.full(x.shape, np.nan)
    out[x == 0] = _PI2_6
    direct = (x >= 0.5) & (x <= 2.0)
    out[direct] = _li2(1.0 - x[direct])
    near_zero = (x > 0) & (x < 0.5)          # Li2(z) = pi^2/6 - log z log(1-z) - Li2(1-z)
    xz = x[near_zero]
    out[near_zero] = _PI2_6 - np.log(xz) * np.log1p(-xz) - _li2(xz)
    beyond = (x > 2.0) & (x < np.inf)        # Li2(z) = -pi^2/6 - log^2(-z)/2 - Li2(1/z)
    z = 1.0 - x[beyond]
    out[beyond] = -_PI2_6 - 0.5 * np.log(-z) ** 2 - _li2(1.0 / z)
    return out


FUNCTIONS = {"BesselJ0": bessel_j0, "BesselJ1": bessel_j1, "BesselY0": bessel_y0,
             "BesselY1": bessel_y1, "BesselK0": bessel_k0, "BesselK0e": bessel_k0e,
             "BesselK1": bessel_k1, "BesselK1e": bessel_k1e, "Dawsn": dawsn,
             "Expint": expint, "FresnelCos": fresnel_cos, "FresnelSin": fresnel_sin,
             "Spence": spence}


def _build(node):
    return _elementwise(FUNCTIONS[node.op])


register_kernel(tuple(FUNCTIONS), HOST)(_build)
