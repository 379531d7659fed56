"""Reduction GPU kernels: Sum, Mean, Max, Min, Prod, EuclideanNorm, All, Any, ArgMax, ArgMin.

cupy's reductions do the work (CUB device reductions where cupy chooses them), with the
reference kernels' semantics pinned down around them:

* Sum accumulates in the input dtype, float16 in float32 (numpy and the REF kernels do
  the same); integer sums wrap, and Mean of integers divides the wrapped sum,
  truncating toward zero (C integer division does exactly that).
* Max/Min propagate NaN like numpy (cupy's reductions follow numpy).  ArgMax/ArgMin are
  TF's (the reference's ``extreme_index``: ties to the first index, a NaN never wins).
  Max/Min of float16 need no widening: they are exact.
* Empty reductions (as the reference's): Sum gives 0, Mean NaN of floats and 0 of
  integers and complex values, Max and Min their identity; ArgMax over zero elements
  raises ``InvalidArgumentError`` naming the node.
  Inputs with no elements at all never reach cupy (whose reductions refuse some of
  them); the result is built directly.
* Cumsum/Cumprod: cupy's scans through the reference's ``scan_along`` (flip for
  ``reverse``, an identity shift for ``exclusive``), the axis checked on the host.
"""

from __future__ import annotations

import cupy
import numpy as np

from ..checks import ReductionParams, check_argmax, empty_extremum, get_attr, reduced_shape
from ..reference.reduce import extreme_index, scan_along, scan_axis
from ..registry import register_kernel
from .device import on_device

__all__ = ["build_reduction", "build_argmax", "compute_dtype"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)

# Integer Mean: C's integer division truncates toward zero, as TF's Mean does.
_trunc_div = cupy.ElementwiseKernel("T s, int64 n", "T q", "q = (T)(s / n)",
                                    name="devsession_trunc_div")


def compute_dtype(dtype: np.dtype) -> np.dtype:
    return _F32 if dtype == _F16 else dtype


@register_kernel(("Sum", "Mean", "Max", "Min"), "GPU")
def build_reduction(node):
    params, out_dtype = ReductionParams(node), node.output_dtype
    kind, keepdims = params.kind, params.keepdims

    def reduce(x):
        axes, count = params.settle(x)
        acc = compute_dtype(x.dtype)
        if not axes:                  # reducing over nothing is a copy
            return x.astype(out_dtype, copy=True)
        if x.size == 0:
            fill = np.nan if (kind == "mean" and count == 0 and out_dtype.kind == "f") else \
                empty_extremum(kind, out_dtype) if kind in ("max", "min") and count == 0 else 0
            return cupy.full(reduced_shape(x.shape, axes, keepdims), fill, out_dtype)
        if kind == "max":
            r = cupy.max(x, axis=axes, keepdims=keepdims)
        elif kind == "min":
            r = cupy.min(x, axis=axes, keepdims=keepdims)
        else:
            r = cupy.sum(x, axis=axes, keepdims=keepdims, dtype=acc)
            if kind == "mean":
                r = r / acc.type(count) if acc.kind in "fc" else _trunc_div(r, count)
        return r.astype(out_dtype, copy=False)
    return on_device(node, reduce)


@register_kernel(("ArgMax", "ArgMin"), "GPU")
def build_argmax(node):
    spec = int(get_attr(node, "axis"))
    out_dtype = node.output_dtype
    is_max = node.op == "ArgMax"

    def argmax(x):
        axis = check_argmax(node, x.shape, spec)
        if x.size == 0:
            return cupy.empty(reduced_shape(x.shape, (axis,), False), out_dtype)
        return extreme_index(cupy, x, axis, is_max).astype(out_dtype, copy=False)
    return on_device(node, argmax)


# --- TF1 surface (branch tf1): Prod, All, Any (and EuclideanNorm, branch tf1-math-names) -
# cupy's reductions with the reference's semantics: Prod multiplies in the input dtype
# (float16 in float32) and wraps for integers; over zero elements Prod is 1, All True
# and Any False (what cupy returns, and the reference).

@register_kernel(("Prod", "All", "Any", "EuclideanNorm"), "GPU")
def build_logical_or_product(node):
    params, out_dtype = ReductionParams(node), node.output_dtype
    keepdims = params.keepdims
    reduce_fn = {"Prod": cupy.prod, "All": cupy.all, "Any": cupy.any,
                 "EuclideanNorm": None}[node.op]

    def reduce(x):
        axes, _ = params.settle(x)
        if node.op == "EuclideanNorm":     # sqrt(sum(x * x)): |x| over no axes, as TF's
            xc = x.astype(compute_dtype(x.dtype), copy=False)
            square = xc * cupy.conj(xc) if xc.dtype.kind == "c" else xc * xc
            total = cupy.sum(square, axis=axes, keepdims=keepdims, dtype=xc.dtype)
            return cupy.sqrt(total).astype(out_dtype, copy=False)
        if not axes:
            return x.astype(out_dtype, copy=True)
        if node.op == "Prod":
            return cupy.prod(x, axis=axes, keepdims=keepdims,
                             dtype=compute_dtype(x.dtype)).astype(out_dtype, copy=False)
        return reduce_fn(x, axis=axes, keepdims=keepdims)
    return on_device(node, reduce)


@register_kernel(("Cumsum", "Cumprod"), "GPU")
def build_scan(node):
    def scan(x, axis):
        return scan_along(cupy, node, x, scan_axis(node, x.ndim, axis))
    return on_device(node, scan)


# --- TF1 math names (branch tf1-math-names): CumulativeLogsumexp runs the reference's
# exact logaddexp scan on the host (cupy's ufuncs have no ``accumulate``).

@register_kernel("CumulativeLogsumexp", "GPU")
def build_logsumexp_scan(node):
    from ..reference.reduce import build_scan as host_scan
    from .host_ops import through_host

    return through_host(node, host_scan(node))
