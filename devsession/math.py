"""TF1's ``tf.math`` spellings of the math ops."""

from .ops import (abs, add, argmax, divide, equal, exp, greater, greater_equal, less,
                      less_equal, log, maximum, minimum, multiply, negative, pow,
                      reduce_max, reduce_mean, reduce_min, reduce_sum, sigmoid, softmax, sqrt,
                      square, subtract, tanh, truediv)

__all__ = ["abs", "add", "argmax", "divide", "equal", "exp", "greater", "greater_equal",
           "less", "less_equal", "log", "maximum", "minimum", "multiply", "negative", "pow",
           "reduce_max", "reduce_mean", "reduce_min", "reduce_sum", "sigmoid", "softmax",
           "sqrt", "square", "subtract", "tanh", "truediv"]

# --- TF1 surface (branch tf1) ----------------------------------------------------------
from .ops import (add_n, argmin, ceil, floor, floordiv, floormod, logical_and,  # noqa: E402
                  logical_not, logical_or, logical_xor, not_equal, reciprocal, reduce_all,
                  reduce_any, reduce_prod, round, rsqrt, sign, truncatediv, truncatemod,
                  unsorted_segment_sum)
from .ops.linalg import tensordot  # noqa: E402
from .ops import cos, reduce_logsumexp, sin  # noqa: E402
from .ops.top_k import approx_max_k, approx_min_k, in_top_k, top_k  # noqa: E402
from .ops.betainc import betainc  # noqa: E402
from .ops.elementwise import squared_difference  # noqa: E402
from .ops.reduce import cumprod, cumsum  # noqa: E402

__all__ += ["add_n", "argmin", "ceil", "floor", "floordiv", "floormod", "logical_and",
            "logical_not", "logical_or", "logical_xor", "not_equal", "reciprocal",
            "reduce_all", "reduce_any", "reduce_prod", "round", "rsqrt", "sign",
            "truncatediv", "truncatemod", "tensordot", "unsorted_segment_sum",
            "reduce_logsumexp", "sin", "cos", "in_top_k", "top_k", "squared_difference", "cumsum", "cumprod",
            "approx_max_k", "approx_min_k", "betainc"]

# --- TF1 math (branch tf1-math) ------------------------------------------------------------
from .ops import (acos, asin, atan, atan2, cosh, divide_no_nan, erf, erfc, expm1,  # noqa: E402
                  is_finite, is_inf, is_nan, log1p, sinh, tan, xlogy)

__all__ += ["acos", "asin", "atan", "atan2", "cosh", "divide_no_nan", "erf", "erfc", "expm1",
            "is_finite", "is_inf", "is_nan", "log1p", "sinh", "tan", "xlogy"]

from .ops import count_nonzero, reduce_std, reduce_variance  # noqa: E402
from .ops.nn import l2_normalize, softplus, softsign  # noqa: E402

__all__ += ["count_nonzero", "reduce_std", "reduce_variance", "l2_normalize", "softplus",
            "softsign"]

# --- special functions ---------------------------------------------------------------------
from .ops import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, digamma,  # noqa: E402
                  erfinv, igamma, igammac, lbeta, lgamma, ndtri, polygamma, zeta)

__all__ += ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "digamma", "erfinv",
            "igamma", "igammac", "lbeta", "lgamma", "ndtri", "polygamma", "zeta"]

# --- segment reductions and counts ------------------------------------------------------------
from .ops import (bincount, segment_max, segment_mean, segment_min,  # noqa: E402
                  segment_prod, segment_sum, unsorted_segment_max, unsorted_segment_mean,
                  unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sqrt_n)

__all__ += ["bincount", "segment_max", "segment_mean", "segment_min", "segment_prod",
            "segment_sum", "unsorted_segment_max", "unsorted_segment_mean",
            "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sqrt_n"]

from .ops.array_sets import invert_permutation  # noqa: E402  (tf.math.invert_permutation)

__all__ += ["invert_permutation"]

from .confusion_matrix import confusion_matrix  # noqa: E402  (tf.math.confusion_matrix)

__all__ += ["confusion_matrix"]

from . import math_special as special  # noqa: E402  (tf.math.special)
from .ops.next_after import nextafter  # noqa: E402

__all__ += ["special", "nextafter"]

# --- TF1 math names (branch tf1-math-names) --------------------------------------------------
from .ops import (accumulate_n, acosh, asinh, atanh, cumulative_logsumexp,  # noqa: E402
                  log_sigmoid, multiply_no_nan, polyval, reciprocal_no_nan,
                  reduce_euclidean_norm, rint, scalar_mul, xdivy, xlog1py)
from .ops.elementwise import mod  # noqa: E402  (floormod, as TF's tf.math.mod)
from .ops.nn import log_softmax  # noqa: E402

__all__ += ["accumulate_n", "acosh", "asinh", "atanh", "cumulative_logsumexp", "log_sigmoid",
            "multiply_no_nan", "polyval", "reciprocal_no_nan", "reduce_euclidean_norm", "rint",
            "scalar_mul", "xdivy", "xlog1py", "mod", "log_softmax"]

from .ops.complex_math import angle, conj, imag, real  # noqa: E402  (TF's complex parts)

__all__ += ["angle", "conj", "imag", "real"]

# TF1's tf.math.is_non_decreasing, is_strictly_increasing, zero_fraction, erfcinv
from .nn import zero_fraction  # noqa: E402
from .ops.check_helpers import is_non_decreasing, is_strictly_increasing  # noqa: E402
from .ops.special import erfcinv  # noqa: E402

__all__ += ["zero_fraction", "is_non_decreasing", "is_strictly_increasing", "erfcinv"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("math", name)
