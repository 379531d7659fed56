"""Reference kernels of the reductions: Sum, Mean, Max, Min, Prod, EuclideanNorm, All,
Any, ArgMax and ArgMin; and of the scans Cumsum, Cumprod and CumulativeLogsumexp.

* ``Mean`` of integers truncates toward zero like TF (``-7 / 2 == -3``) and is taken
  of the wrapped integer sum.  Over zero elements, as TF 2.21's: a Mean is NaN of floats
  and 0 of integers and complex values, a Sum 0, a Prod 1, an All True, an Any False, a
  Max or Min its identity; an ArgMax or ArgMin raises ``InvalidArgumentError``.
* Integer Sum and Prod wrap around in the input dtype, as TF's.  EuclideanNorm is
  ``sqrt(sum(x * x))``; of integers, truncated back to the integer dtype (TF's).
* Max/Min propagate NaN like numpy.  ArgMax/ArgMin are TF's kernel (Eigen's tuple
  reducer): from index 0 at the dtype's lowest (highest) value, an element wins only
  when strictly greater (less), so ties go to the first, a NaN never wins and a row of
  NaN and -inf (inf) is 0 (``extreme_index``).
* Axes are settled per input (``checks.resolve_axes``): a graph that did not know its
  input's rank reduces every axis, or counts negative axes from the end, at run time.
"""

from __future__ import annotations

import numpy as np

from ..checks import (ReductionParams, check_argmax, empty_extremum, get_attr,
                      invalid_argument)
from ..registry import register_kernel
from .elementwise import compute_dtype

__all__ = ["scan_axis", "scan_along", "extreme_index"]

DEVICE = "REF"
_NUMPY = {"max": np.max, "min": np.min, "prod": np.prod, "all": np.all, "any": np.any}


@register_kernel(("Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "EuclideanNorm"), DEVICE)
def build_reduction(node):
    params, out_dtype = ReductionParams(node), node.output_dtype
    kind, keepdims = params.kind, params.keepdims

    def reduce(x):
        axes, count = params.settle(x)
        xc = compute_dtype(x)
        with np.errstate(all="ignore"):
            if kind in ("max", "min") and count == 0:
                r = _NUMPY[kind](xc, axis=axes, keepdims=keepdims,
                                 initial=empty_extremum(kind, xc.dtype))
            elif kind in ("max", "min", "all", "any"):
                r = _NUMPY[kind](xc, axis=axes, keepdims=keepdims)
            elif kind == "prod":
                r = np.prod(xc, axis=axes, keepdims=keepdims, dtype=xc.dtype)
            elif kind == "euclideannorm":
                square = xc * np.conj(xc) if xc.dtype.kind == "c" else xc * xc
                r = np.sqrt(np.sum(square, axis=axes, keepdims=keepdims, dtype=xc.dtype))
            else:
                r = np.sum(xc, axis=axes, keepdims=keepdims, dtype=xc.dtype)
                if kind == "mean" and axes and count == 0 and xc.dtype.kind != "f":
                    r = np.zeros_like(r)        # TF's integer and complex Mean of nothing
                elif kind == "mean" and axes:
                    r = r / count if xc.dtype.kind in "fc" else _trunc_div(r, count)
            return np.asarray(r).astype(out_dtype, copy=False)
    return reduce


def _trunc_div(s, n):
    q = s // n
    return q + ((q < 0) & (q * n != s)).astype(q.dtype)   # floor -> toward zero


@register_kernel(("ArgMax", "ArgMin"), DEVICE)
def build_argmax(node):
    spec = int(get_attr(node, "axis"))
    is_max = node.op == "ArgMax"

    def argmax(x):
        axis = check_argmax(node, x.shape, spec)
        return np.asarray(extreme_index(np, x, axis, is_max)).astype(node.output_dtype)
    return argmax


def extreme_index(xp, x, axis: int, is_max: bool):
    """TF's ArgMax (ArgMin) of ``x`` along ``axis`` with the array module ``xp`` (see the
    module docstring): a float's NaN and values past its lowest (highest) finite value
    count as that value, then the first extreme wins."""
    if x.dtype.kind == "f":
        bound = np.finfo(x.dtype).min if is_max else np.finfo(x.dtype).max
        beyond = (x < bound) if is_max else (x > bound)
        x = xp.where(xp.isnan(x) | beyond, x.dtype.type(bound), x)
    return (xp.argmax if is_max else xp.argmin)(x, axis=axis)


def scan_axis(node, rank: int, axis) -> int:
    """The scan axis of a Cumsum/Cumprod node, checked against the input's ``rank``."""
    axis = np.asarray(axis)
    if axis.ndim != 0:
        raise invalid_argument(node.name, node.op, f"axis must be a scalar, got shape "
                               f"{list(axis.shape)}")
    if not -rank <= int(axis) < rank:
        raise invalid_argument(node.name, node.op, f"Expected scan axis in the range "
                               f"[{-rank}, {rank}), but got {int(axis)}")
    return int(axis) % rank


def scan_along(xp, node, x, axis: int):
    """Cumsum or Cumprod (``node.op``) of ``x`` along ``axis`` with the node's
    ``exclusive`` and ``reverse`` attrs, computed by the array module ``xp`` (numpy or
    cupy): float16 in float32, integers wrapping in their own dtype."""
    exclusive, reverse = bool(get_attr(node, "exclusive")), bool(get_attr(node, "reverse"))
    total = node.op == "Cumsum"
    if node.op == "CumulativeLogsumexp":
        return _logsumexp_along(xp, x, axis, exclusive, reverse)
    acc = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    if reverse:
        x = xp.flip(x, axis)
    out = (xp.cumsum if total else xp.cumprod)(x, axis=axis, dtype=acc)
    if exclusive and x.shape[axis]:
        identity = xp.full_like(out[_first(x.ndim, axis)], 0 if total else 1)
        out = xp.concatenate([identity, out[_all_but_last(x.ndim, axis)]], axis=axis)
    if reverse:
        out = xp.flip(out, axis)
    return xp.ascontiguousarray(out.astype(x.dtype, copy=False))


def _logsumexp_along(xp, x, axis: int, exclusive: bool, reverse: bool):
    """CumulativeLogsumexp: ``logaddexp`` accumulated along ``axis`` (each step exact, no
    overflow or underflow of the running total), float16 in float32; ``exclusive`` runs
    start from -inf.  numpy only (the GPU kernel runs it on the host)."""
    xc = x.astype(np.float32) if x.dtype == np.float16 else x
    if reverse:
        xc = np.flip(xc, axis)
    with np.errstate(all="ignore"):
        out = np.logaddexp.accumulate(xc, axis=axis) if xc.size else xc.copy()
    if exclusive and x.shape[axis]:
        start = np.full_like(out[_first(x.ndim, axis)], -np.inf)
        out = np.concatenate([start, out[_all_but_last(x.ndim, axis)]], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out.astype(x.dtype, copy=False))


def _first(rank: int, axis: int) -> tuple:
    return tuple(slice(0, 1) if a == axis else slice(None) for a in range(rank))


def _all_but_last(rank: int, axis: int) -> tuple:
    return tuple(slice(0, -1) if a == axis else slice(None) for a in range(rank))


@register_kernel(("Cumsum", "Cumprod", "CumulativeLogsumexp"), DEVICE)
def build_scan(node):
    def scan(x, axis):
        return scan_along(np, node, x, scan_axis(node, x.ndim, axis))
    return scan
