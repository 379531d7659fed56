"""Reference kernels of the reductions: Sum, Mean, Max, Min and ArgMax.

* ``Mean`` of integers truncates toward zero like TF (``-7 / 2 == -3``) and is taken
  of the wrapped integer sum; an integer Mean, a Max, a Min or an ArgMax over zero
  elements raises ``InvalidArgumentError`` (a float Mean over nothing is NaN, a Sum 0).
* Max/Min/ArgMax propagate NaN like numpy (ArgMax: first NaN wins; ties: first
  occurrence).
"""

from __future__ import annotations

import numpy as np

from ..checks import check_argmax, check_reduction, get_attr, reduction_attrs
from ..registry import register_kernel
from .elementwise import compute_dtype

DEVICE = "REF"


@register_kernel(("Sum", "Mean", "Max", "Min"), DEVICE)
def build_reduction(node):
    kind = node.op.lower()
    axes, keepdims = reduction_attrs(node)
    out_dtype = node.output_dtype

    def reduce(x):
        count = check_reduction(node, kind, x, axes)
        xc = compute_dtype(x)
        with np.errstate(all="ignore"):
            if kind == "max":
                r = np.max(xc, axis=axes, keepdims=keepdims)
            elif kind == "min":
                r = np.min(xc, axis=axes, keepdims=keepdims)
            else:
                r = np.sum(xc, axis=axes, keepdims=keepdims, dtype=xc.dtype)
                if kind == "mean" and axes:
                    r = r / count if xc.dtype.kind == "f" else _trunc_div(r, count)
            return np.asarray(r).astype(out_dtype, copy=False)
    return reduce


def _trunc_div(s, n):
    q = s // n
    return q + ((q < 0) & (q * n != s)).astype(q.dtype)   # floor -> toward zero


@register_kernel("ArgMax", DEVICE)
def build_argmax(node):
    axis = int(get_attr(node, "axis"))

    def argmax(x):
        check_argmax(node, x.shape, axis)
        return np.asarray(np.argmax(x, axis=axis)).astype(node.output_dtype)
    return argmax
