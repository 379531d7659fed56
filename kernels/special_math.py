"""Scalar special functions: lgamma, digamma, the Hurwitz zeta, the regularized
incomplete gamma functions (and the derivative of the lower one in ``a``), the
exponentially scaled Bessel functions I0e/I1e, erfinv and ndtri.

One float64 in, one float64 out, TF's values at the edges (poles, NaN, infinities,
arguments outside the domain).  The same Python source is the reference kernels' oracle
(``reference/special.py`` maps it over arrays with ``np.vectorize``) and, compiled by
numba, the CPU's (``cpu/special.py``); ``codegen/cuda_special.py`` is its C translation
for the GPU, function by function.  So each function is self-contained: it calls only
``math``/numpy scalar functions (numba compiles one function at a time and cannot call
a plain Python one), and it uses numpy's scalar functions where ``math`` raises
(``math.log(0)``) so that edges give IEEE results.  Callers pass ``np.float64`` (under
``np.errstate(all="ignore")``) so that arithmetic overflows to inf instead of raising.

Algorithms (classic ones; about 1e-14 relative in float64, except where TF's lose
digits too: P and Q for large a close to x, 1e-11 at a = x = 1e4, and Q = 1 - P of a
tiny a below x = 1, which cancels):

* lgamma: libm's (``math.lgamma``), +inf at the poles (0, negative integers) and -inf.
* digamma: reflection ``psi(x) = psi(1 - x) - pi / tan(pi x)`` for x <= 0 (NaN at the
  poles), the recurrence ``psi(x) = psi(x + 1) - 1/x`` up to x >= 10, then the
  asymptotic series ``log x - 1/(2x) - sum B_2k / (2k x^2k)``.
* zeta(x, q): Euler-Maclaurin: the first terms summed (until q + n >= 10), the integral
  of the rest, half the first omitted term, and 12 Bernoulli corrections.  As TF's: inf
  at x == 1, NaN for x < 1; q a non-positive integer gives inf for even integer x, NaN
  otherwise; other negative q need an integer x.
* igamma(a, x) = P(a, x): the power series for x <= max(a, 1), ``1 - Q`` above;
  igammac = Q(a, x): Legendre's continued fraction for x >= max(a, 1), ``1 - P`` below
  (TF's split of the two).
  ``igamma_grad_a`` differentiates the same series or fraction in ``a`` alongside it
  (forward mode).  NaN for a <= 0 or x < 0 (but P(a, 0) = 0), as TF's.
* bessel_i0e/i1e: ``exp(-|x|) I_nu(x)`` from the power series for |x| <= 25 and the
  Hankel asymptotic expansion above.
* erfinv, ndtri: Halley's method on ``erf`` (small arguments) or ``erfc`` (near the
  ends, where 1 - |x| is exact), from an asymptotic first guess;
  ``ndtri(p) = sqrt(2) erfinv(2p - 1)``, through erfc's inverse below 0.25 and above
  0.75 so that tiny tails keep their digits.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

# The functions the elementwise kernels call, and the helpers they call.
SCALAR_FUNCTIONS = ("lgamma", "digamma", "zeta", "igamma", "igammac", "igamma_grad_a",
                    "bessel_i0e", "bessel_i1e", "erfinv", "ndtri")
HELPERS = ("_incomplete_gamma", "_bessel_ie", "_inverse_erf")
__all__ = [*SCALAR_FUNCTIONS, "SCALAR_FUNCTIONS", "HELPERS", "BERNOULLI_OVER_FACTORIAL",
           "bernoulli_numbers"]

_EPS = 2.220446049250313e-16
_MAXLOG = 709.782712893384             # log(DBL_MAX): exp of more overflows
_LGAMMA_OVERFLOW = 2.5e305             # lgamma(x) overflows a double above about this
_TWO_OVER_ROOT_PI = 1.1283791670955126
_SQRT2 = 1.4142135623730951
_ROOT_PI = 1.7724538509055159
_INCOMPLETE_GAMMA_STEPS = 2000         # terms of the series or fraction at most


def bernoulli_numbers(count: int) -> list:
    """B_2, B_4, ..., B_2count as exact fractions (the Akiyama-Tanigawa recurrence)."""
    size = 2 * count + 1
    row, numbers = [], []
    for m in range(size):
        row.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        numbers.append(row[0])          # B_m (with B_1 = +1/2)
    return numbers[2::2]


# B_2k / (2k)!, k = 1..12: the Euler-Maclaurin corrections of ``zeta``.
BERNOULLI_OVER_FACTORIAL = tuple(float(b / math.factorial(2 * k))
                                 for k, b in enumerate(bernoulli_numbers(12), start=1))


def lgamma(x):
    """log|Gamma(x)|; +inf at the poles and at +-inf (math.lgamma raises at poles)."""
    if x <= 0.0 and np.floor(x) == x:
        return np.inf
    if np.abs(x) > _LGAMMA_OVERFLOW:
        return np.inf
    return math.lgamma(x)


def digamma(x):
    """d/dx log Gamma(x); NaN at 0, the negative integers and -inf, as TF's."""
    if np.isnan(x):
        return x
    if x == np.inf:
        return x
    reflection = 0.0
    if x <= 0.0:
        if np.floor(x) == x:
            return np.nan
        # psi(x) = psi(1 - x) - pi cot(pi x); cot has period 1, so take the nearest
        # integer off first: tan of a small argument keeps its digits.
        offset = x - np.floor(x + 0.5)
        if offset != 0.5 and offset != -0.5:
            reflection = np.pi / np.tan(np.pi * offset)
        x = 1.0 - x
    total = 0.0
    while x < 10.0:
        total -= 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    series = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (
        1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))))
    return total + np.log(x) - 0.5 / x - series - reflection


def zeta(x, q):
    """The Hurwitz zeta function sum_k (q + k)^-x, as TF's ``zeta(x, q)``."""
    if np.isnan(x) or np.isnan(q):
        return np.nan
    if x == 1.0:
        return np.inf
    if x < 1.0:
        return np.nan
    if q <= 0.0:
        if np.floor(q) == q:
            return np.inf if np.floor(x) == x and np.floor(x * 0.5) * 2.0 == x else np.nan
        if np.floor(x) != x:
            return np.nan            # a negative base to a fractional power
    if q == np.inf:
        return 0.0
    total = 0.0
    a = q
    n = 0
    while n < 10 or a < 10.0:
        term = a ** -x
        total += term
        if np.abs(term) < _EPS * np.abs(total):
            return total
        a += 1.0
        n += 1
    # Euler-Maclaurin for the rest, sum_{k >= 0} f(a + k) with f(t) = t^-x
    first = a ** -x
    total += a * first / (x - 1.0) + 0.5 * first
    rising = x                       # x (x + 1) ... (x + 2k - 2)
    power = first / a                # a^(-x - 2k + 1)
    for k in range(len(BERNOULLI_OVER_FACTORIAL)):
        term = BERNOULLI_OVER_FACTORIAL[k] * rising * power
        total += term
        if np.abs(term) < _EPS * np.abs(total):
            break
        rising *= (x + 2 * k + 1) * (x + 2 * k + 2)
        power /= a * a
    return total


def _incomplete_gamma(a, x, mode):
    """mode 0: P(a, x); 1: Q(a, x); 2: dP/da.  See the module docstring."""
    if x == 0.0 and mode != 1:       # TF's order of the edge cases
        return 0.0
    if np.isnan(a) or np.isnan(x) or x < 0.0 or a <= 0.0:
        return np.nan
    if a == np.inf:                  # P = 0 for every x, as TF's (Q too at x = inf)
        return 1.0 if mode == 1 and x != np.inf else 0.0
    if x == np.inf:
        return 0.0 if mode == 1 else (1.0 if mode == 0 else -0.0)
    log_x = np.log(x)
    # TF's split (Eigen's): the fraction above max(a, 1), for Q from max(a, 1) itself,
    # where 1 - P would cancel (a tiny a at x = 1 made Q negative)
    if (x > 1.0 and x > a) or (mode == 1 and x >= 1.0 and x >= a):
        # Legendre's continued fraction for Q, (p_k / q_k) -> Q * Gamma(a) e^x x^-a, with
        # its derivative in a carried along.
        y = 1.0 - a
        z = x + y + 1.0
        c = 0.0
        p_prev, q_prev, p_cur, q_cur = 1.0, x, x + 1.0, z * x
        dp_prev, dq_prev, dp_cur, dq_cur = 0.0, 0.0, 0.0, -x
        fraction = p_cur / q_cur
        d_fraction = (dp_cur - fraction * dq_cur) / q_cur
        for _ in range(_INCOMPLETE_GAMMA_STEPS):
            c += 1.0
            y += 1.0
            z += 2.0
            yc = y * c
            p_next = p_cur * z - p_prev * yc
            q_next = q_cur * z - q_prev * yc
            dp_next = dp_cur * z - p_cur - dp_prev * yc + p_prev * c
            dq_next = dq_cur * z - q_cur - dq_prev * yc + q_prev * c
            p_prev, q_prev, p_cur, q_cur = p_cur, q_cur, p_next, q_next
            dp_prev, dq_prev, dp_cur, dq_cur = dp_cur, dq_cur, dp_next, dq_next
            if q_cur != 0.0:
                value = p_cur / q_cur
                derivative = (dp_cur - value * dq_cur) / q_cur
                converged = np.abs(value - fraction) <= _EPS * np.abs(value)
                if mode == 2:
                    converged = converged and np.abs(derivative - d_fraction) <= \
                        _EPS * np.abs(derivative)
                fraction, d_fraction = value, derivative
                if converged:
                    break
            if np.abs(p_cur) > 4503599627370496.0:       # rescale by 2^-52
                scale = 2.220446049250313e-16
                p_prev *= scale
                q_prev *= scale
                p_cur *= scale
                q_cur *= scale
                dp_prev *= scale
                dq_prev *= scale
                dp_cur *= scale
                dq_cur *= scale
        # Q = fraction * x^a e^-x / Gamma(a)
        log_prefix = a * log_x - x - lgamma(a)
        if log_prefix < -_MAXLOG:        # Q underflows
            return 1.0 if mode == 0 else (0.0 if mode == 1 else -0.0)
        prefix = np.exp(log_prefix)
        q_value = fraction * prefix
        if mode == 1:
            return q_value
        if mode == 0:
            return 1.0 - q_value
        return -(d_fraction * prefix + q_value * (log_x - digamma(a)))
    # The series P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)),
    # with its derivative in a carried along.
    r = a
    term = 1.0
    total = 1.0
    d_term = 0.0
    d_total = 0.0
    for _ in range(_INCOMPLETE_GAMMA_STEPS):
        r += 1.0
        ratio = x / r
        d_term = d_term * ratio - term * x / (r * r)
        term *= ratio
        total += term
        d_total += d_term
        if mode == 2:
            if np.abs(d_term) <= _EPS * np.abs(d_total):
                break
        elif term <= _EPS * total:
            break
    log_prefix = a * log_x - x - lgamma(a + 1.0)
    if log_prefix < -_MAXLOG:
        return 1.0 if mode == 1 else 0.0
    prefix = np.exp(log_prefix)
    if mode == 0:
        return total * prefix
    if mode == 1:
        return 1.0 - total * prefix
    return d_total * prefix + total * prefix * (log_x - digamma(a + 1.0))


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _incomplete_gamma(a, x, 0)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _incomplete_gamma(a, x, 1)


def igamma_grad_a(a, x):
    """dP(a, x)/da (TF's IgammaGradA)."""
    return _incomplete_gamma(a, x, 2)


def _bessel_ie(order, x):
    """exp(-|x|) I_order(x) for order 0 or 1 (see the module docstring)."""
    ax = np.abs(x)
    if np.isnan(x):
        return x
    if ax <= 25.0:
        # sum_k (x^2/4)^k / (k! (k + order)!), times (x/2)^order
        quarter = 0.25 * x * x
        term = 1.0
        total = 1.0
        k = 0
        while term > _EPS * total:
            k += 1
            term *= quarter / (k * (k + order))
            total += term
        value = total * np.exp(-ax)
        return value * 0.5 * x if order == 1 else value
    # Hankel: (2 pi |x|)^-1/2 sum_k t_k, t_k = t_{k-1} ((2k-1)^2 - 4 order^2) / (8k|x|)
    four_nu2 = 4.0 * order * order
    term = 1.0
    total = 1.0
    for k in range(1, 60):
        odd = 2.0 * k - 1.0
        term *= (odd * odd - four_nu2) / (8.0 * k * ax)
        total += term
        if np.abs(term) <= _EPS * np.abs(total):
            break
    value = total / np.sqrt(2.0 * np.pi * ax)
    return -value if order == 1 and x < 0.0 else value


def bessel_i0e(x):
    """exp(-|x|) I0(x)."""
    return _bessel_ie(0, x)


def bessel_i1e(x):
    """exp(-|x|) I1(x)."""
    return _bessel_ie(1, x)


def _inverse_erf(target, complement):
    """y >= 0 with erf(y) = target (``complement`` false, target in [0, 1)) or
    erfc(y) = target (true, target in (0, 1]): Halley's method, whose step
    t / (1 + y t) (t the Newton step; erf'' = -2y erf') stays below 1/y however far
    the guess is, from an asymptotic guess."""
    if complement:
        # erfc(y) ~ exp(-y^2) / (y sqrt(pi)): two rounds of y^2 = -log(target y sqrt(pi))
        y = np.sqrt(-np.log(target))
        y = np.sqrt(np.maximum(-np.log(target * y * _ROOT_PI), 0.0625))
    else:
        y = target * (0.886226925452758 + 0.2320136665346544 * target * target)
    for _ in range(50):
        slope = _TWO_OVER_ROOT_PI * np.exp(-y * y)
        if complement:
            newton = (target - math.erfc(y)) / slope
        else:
            newton = (math.erf(y) - target) / slope
        step = newton / (1.0 + y * newton)
        y -= step
        if np.abs(step) <= 4.0 * _EPS * np.abs(y):
            break
    return y


def erfinv(x):
    """The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside)."""
    if not -1.0 <= x <= 1.0:
        return np.nan
    if x == 1.0 or x == -1.0:
        return x * np.inf
    ax = np.abs(x)
    y = _inverse_erf(1.0 - ax, True) if ax > 0.5 else _inverse_erf(ax, False)
    return -y if x < 0.0 else y


def ndtri(p):
    """The inverse of the standard normal CDF on [0, 1] (-inf at 0, inf at 1, NaN
    outside)."""
    if not 0.0 <= p <= 1.0:
        return np.nan
    if p == 0.0:
        return -np.inf
    if p == 1.0:
        return np.inf
    if p < 0.25:
        return -_SQRT2 * _inverse_erf(2.0 * p, True)
    if p > 0.75:
        return _SQRT2 * _inverse_erf(2.0 * (1.0 - p), True)
    half = 2.0 * p - 1.0                     # exact on [0.25, 0.75]
    y = _SQRT2 * _inverse_erf(np.abs(half), False)
    return -y if half < 0.0 else y
