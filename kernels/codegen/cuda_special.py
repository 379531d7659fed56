"""CUDA C of the special functions, for the preamble of the elementwise kernels that
call them (``codegen/cuda.py`` renders ``lgamma(x)`` as ``ds_lgamma(x)``, in double).

A line-by-line translation of ``kernels/special_math.py`` (its docstring has the
algorithms), which is the reference these are tested against: on the cupy stand-in in
CI (this very text compiled by g++, ``tests/cuda_host.py``) and on a GPU where there is
one.  The Euler-Maclaurin coefficients are special_math's, printed here.
"""

from __future__ import annotations

from ..special_math import BERNOULLI_OVER_FACTORIAL, SCALAR_FUNCTIONS

__all__ = ["SPECIAL_C", "C_NAMES"]

# frontend instruction op -> the C function computing it
C_NAMES = {name: f"ds_{name}" for name in SCALAR_FUNCTIONS}

_BERNOULLI = ", ".join(repr(c) for c in BERNOULLI_OVER_FACTORIAL)

SPECIAL_C = r"""
#define DS_EPS 2.220446049250313e-16
#define DS_MAXLOG 709.782712893384
#define DS_PI 3.141592653589793
__device__ static const double ds_bernoulli_over_factorial[12] = {%(bernoulli)s};

__device__ double ds_lgamma(double x) {
  if (x <= 0.0 && floor(x) == x) return CUDART_INF;
  if (fabs(x) > 2.5e305) return CUDART_INF;
  return lgamma(x);
}

__device__ double ds_digamma(double x) {
  if (isnan(x) || x == CUDART_INF) return x;
  double reflection = 0.0;
  if (x <= 0.0) {
    if (floor(x) == x) return CUDART_NAN;
    double offset = x - floor(x + 0.5);
    if (offset != 0.5 && offset != -0.5) reflection = DS_PI / tan(DS_PI * offset);
    x = 1.0 - x;
  }
  double total = 0.0;
  while (x < 10.0) { total -= 1.0 / x; x += 1.0; }
  double z = 1.0 / (x * x);
  double series = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (
      1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return total + log(x) - 0.5 / x - series - reflection;
}

__device__ double ds_zeta(double x, double q) {
  if (isnan(x) || isnan(q)) return CUDART_NAN;
  if (x == 1.0) return CUDART_INF;
  if (x < 1.0) return CUDART_NAN;
  if (q <= 0.0) {
    if (floor(q) == q)
      return (floor(x) == x && floor(x * 0.5) * 2.0 == x) ? CUDART_INF : CUDART_NAN;
    if (floor(x) != x) return CUDART_NAN;
  }
  if (q == CUDART_INF) return 0.0;
  double total = 0.0, a = q;
  int n = 0;
  while (n < 10 || a < 10.0) {
    double term = pow(a, -x);
    total += term;
    if (fabs(term) < DS_EPS * fabs(total)) return total;
    a += 1.0;
    n += 1;
  }
  double first = pow(a, -x);
  total += a * first / (x - 1.0) + 0.5 * first;
  double rising = x, power = first / a;
  for (int k = 0; k < 12; ++k) {
    double term = ds_bernoulli_over_factorial[k] * rising * power;
    total += term;
    if (fabs(term) < DS_EPS * fabs(total)) break;
    rising *= (x + 2 * k + 1) * (x + 2 * k + 2);
    power /= a * a;
  }
  return total;
}

/* mode 0: P(a, x); 1: Q(a, x); 2: dP/da */
__device__ double ds_incomplete_gamma(double a, double x, int mode) {
  if (x == 0.0 && mode != 1) return 0.0;
  if (isnan(a) || isnan(x) || x < 0.0 || a <= 0.0) return CUDART_NAN;
  if (a == CUDART_INF) return (mode == 1 && x != CUDART_INF) ? 1.0 : 0.0;
  if (x == CUDART_INF) return mode == 1 ? 0.0 : (mode == 0 ? 1.0 : -0.0);
  double log_x = log(x);
  if ((x > 1.0 && x > a) || (mode == 1 && x >= 1.0 && x >= a)) {
    double y = 1.0 - a, z = x + y + 1.0, c = 0.0;
    double p_prev = 1.0, q_prev = x, p_cur = x + 1.0, q_cur = z * x;
    double dp_prev = 0.0, dq_prev = 0.0, dp_cur = 0.0, dq_cur = -x;
    double fraction = p_cur / q_cur;
    double d_fraction = (dp_cur - fraction * dq_cur) / q_cur;
    for (int i = 0; i < 2000; ++i) {
      c += 1.0;
      y += 1.0;
      z += 2.0;
      double yc = y * c;
      double p_next = p_cur * z - p_prev * yc;
      double q_next = q_cur * z - q_prev * yc;
      double dp_next = dp_cur * z - p_cur - dp_prev * yc + p_prev * c;
      double dq_next = dq_cur * z - q_cur - dq_prev * yc + q_prev * c;
      p_prev = p_cur; q_prev = q_cur; p_cur = p_next; q_cur = q_next;
      dp_prev = dp_cur; dq_prev = dq_cur; dp_cur = dp_next; dq_cur = dq_next;
      if (q_cur != 0.0) {
        double value = p_cur / q_cur;
        double derivative = (dp_cur - value * dq_cur) / q_cur;
        bool converged = fabs(value - fraction) <= DS_EPS * fabs(value);
        if (mode == 2)
          converged = converged && fabs(derivative - d_fraction) <= DS_EPS * fabs(derivative);
        fraction = value;
        d_fraction = derivative;
        if (converged) break;
      }
      if (fabs(p_cur) > 4503599627370496.0) {
        const double scale = 2.220446049250313e-16;
        p_prev *= scale; q_prev *= scale; p_cur *= scale; q_cur *= scale;
        dp_prev *= scale; dq_prev *= scale; dp_cur *= scale; dq_cur *= scale;
      }
    }
    double log_prefix = a * log_x - x - ds_lgamma(a);
    if (log_prefix < -DS_MAXLOG) return mode == 0 ? 1.0 : (mode == 1 ? 0.0 : -0.0);
    double prefix = exp(log_prefix);
    double q_value = fraction * prefix;
    if (mode == 1) return q_value;
    if (mode == 0) return 1.0 - q_value;
    return -(d_fraction * prefix + q_value * (log_x - ds_digamma(a)));
  }
  double r = a, term = 1.0, total = 1.0, d_term = 0.0, d_total = 0.0;
  for (int i = 0; i < 2000; ++i) {
    r += 1.0;
    double ratio = x / r;
    d_term = d_term * ratio - term * x / (r * r);
    term *= ratio;
    total += term;
    d_total += d_term;
    if (mode == 2) {
      if (fabs(d_term) <= DS_EPS * fabs(d_total)) break;
    } else if (term <= DS_EPS * total) {
      break;
    }
  }
  double log_prefix = a * log_x - x - ds_lgamma(a + 1.0);
  if (log_prefix < -DS_MAXLOG) return mode == 1 ? 1.0 : 0.0;
  double prefix = exp(log_prefix);
  if (mode == 0) return total * prefix;
  if (mode == 1) return 1.0 - total * prefix;
  return d_total * prefix + total * prefix * (log_x - ds_digamma(a + 1.0));
}

__device__ double ds_igamma(double a, double x) { return ds_incomplete_gamma(a, x, 0); }
__device__ double ds_igammac(double a, double x) { return ds_incomplete_gamma(a, x, 1); }
__device__ double ds_igamma_grad_a(double a, double x) { return ds_incomplete_gamma(a, x, 2); }

__device__ double ds_bessel_ie(int order, double x) {
  double ax = fabs(x);
  if (isnan(x)) return x;
  if (ax <= 25.0) {
    double quarter = 0.25 * x * x, term = 1.0, total = 1.0;
    int k = 0;
    while (term > DS_EPS * total) {
      k += 1;
      term *= quarter / (k * (k + order));
      total += term;
    }
    double value = total * exp(-ax);
    return order == 1 ? value * 0.5 * x : value;
  }
  double four_nu2 = 4.0 * order * order, term = 1.0, total = 1.0;
  for (int k = 1; k < 60; ++k) {
    double odd = 2.0 * k - 1.0;
    term *= (odd * odd - four_nu2) / (8.0 * k * ax);
    total += term;
    if (fabs(term) <= DS_EPS * fabs(total)) break;
  }
  double value = total / sqrt(2.0 * DS_PI * ax);
  return (order == 1 && x < 0.0) ? -value : value;
}

__device__ double ds_bessel_i0e(double x) { return ds_bessel_ie(0, x); }
__device__ double ds_bessel_i1e(double x) { return ds_bessel_ie(1, x); }

__device__ double ds_inverse_erf(double target, bool complement) {
  double y;
  if (complement) {
    y = sqrt(-log(target));
    y = sqrt(fmax(-log(target * y * 1.7724538509055159), 0.0625));
  } else {
    y = target * (0.886226925452758 + 0.2320136665346544 * target * target);
  }
  for (int i = 0; i < 50; ++i) {
    double slope = 1.1283791670955126 * exp(-y * y);
    double newton = complement ? (target - erfc(y)) / slope : (erf(y) - target) / slope;
    double step = newton / (1.0 + y * newton);
    y -= step;
    if (fabs(step) <= 4.0 * DS_EPS * fabs(y)) break;
  }
  return y;
}

__device__ double ds_erfinv(double x) {
  if (!(-1.0 <= x && x <= 1.0)) return CUDART_NAN;
  if (x == 1.0 || x == -1.0) return x * CUDART_INF;
  double ax = fabs(x);
  double y = ax > 0.5 ? ds_inverse_erf(1.0 - ax, true) : ds_inverse_erf(ax, false);
  return x < 0.0 ? -y : y;
}

__device__ double ds_ndtri(double p) {
  const double sqrt2 = 1.4142135623730951;
  if (!(0.0 <= p && p <= 1.0)) return CUDART_NAN;
  if (p == 0.0) return -CUDART_INF;
  if (p == 1.0) return CUDART_INF;
  if (p < 0.25) return -sqrt2 * ds_inverse_erf(2.0 * p, true);
  if (p > 0.75) return sqrt2 * ds_inverse_erf(2.0 * (1.0 - p), true);
  double half = 2.0 * p - 1.0;
  double y = sqrt2 * ds_inverse_erf(fabs(half), false);
  return half < 0.0 ? -y : y;
}
""" % {"bernoulli": _BERNOULLI}
