"""Reference kernels of the reductions: Sum, Mean, Max, Min, Prod, All, Any, ArgMax and
ArgMin.

* ``Mean`` of integers truncates toward zero like TF (``-7 / 2 == -3``) and is taken
  of the wrapped integer sum; an integer Mean, a Max, a Min, an ArgMax or an ArgMin over
  zero elements raises ``InvalidArgumentError`` (a float Mean over nothing is NaN, a Sum
  0, a Prod 1, an All True, an Any False).
* Integer Sum and Prod wrap around in the input dtype, as TF's.
* Max/Min/ArgMax/ArgMin propagate NaN like numpy (first NaN wins; ties: first
  occurrence).
* Axes are settled per input (``checks.resolve_axes``): a graph that did not know its
  input's rank reduces every axis, or counts negative axes from the end, at run time.
"""

from __future__ import annotations

import numpy as np

from ..checks import ReductionParams, check_argmax, get_attr
from ..registry import register_kernel
from .elementwise import compute_dtype

DEVICE = "REF"
_NUMPY = {"max": np.max, "min": np.min, "prod": np.prod, "all": np.all, "any": np.any}


@register_kernel(("Sum", "Mean", "Max", "Min", "Prod", "All", "Any"), DEVICE)
def build_reduction(node):
    params, out_dtype = ReductionParams(node), node.output_dtype
    kind, keepdims = params.kind, params.keepdims

    def reduce(x):
        axes, count = params.settle(x)
        xc = compute_dtype(x)
        with np.errstate(all="ignore"):
            if kind in ("max", "min", "all", "any"):
                r = _NUMPY[kind](xc, axis=axes, keepdims=keepdims)
            elif kind == "prod":
                r = np.prod(xc, axis=axes, keepdims=keepdims, dtype=xc.dtype)
            else:
                r = np.sum(xc, axis=axes, keepdims=keepdims, dtype=xc.dtype)
                if kind == "mean" and axes:
                    r = r / count if xc.dtype.kind == "f" else _trunc_div(r, count)
            return np.asarray(r).astype(out_dtype, copy=False)
    return reduce


def _trunc_div(s, n):
    q = s // n
    return q + ((q < 0) & (q * n != s)).astype(q.dtype)   # floor -> toward zero


@register_kernel(("ArgMax", "ArgMin"), DEVICE)
def build_argmax(node):
    spec = int(get_attr(node, "axis"))
    pick = np.argmax if node.op == "ArgMax" else np.argmin

    def argmax(x):
        axis = check_argmax(node, x.shape, spec)
        return np.asarray(pick(x, axis=axis)).astype(node.output_dtype)
    return argmax
