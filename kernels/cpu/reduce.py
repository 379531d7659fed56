"""Reduction CPU kernels: Sum, Mean, Max, Min, ArgMax and ArgMin (and the row machinery
``nn.py``'s Softmax shares); Prod, All and Any, and the scans Cumsum and Cumprod, are
numpy's (the reference kernels).

Layout: the kernel callable moves the reduced axes last (``np.ascontiguousarray`` of
a transpose; no copy when they are trailing already and the input is contiguous) and
flattens, so every numba loop sees one C-contiguous 1-D array of ``rows`` rows of
``n`` elements.  The transpose plan is computed once per input shape, and so are the
axes when the graph did not know the input's rank (every axis, or negative axes).  A
float Sum or Mean over the *leading* axes (a bias gradient summing a batch away) skips
the transpose: ``sum_columns`` adds the rows into float64 totals (with the columns
shared among the threads when there are enough: a 256 x 1024 bias gradient's loop 35 ->
23 us).

Numerics:

* Row sums (``sum_slice``) accumulate floats in float64 and ints in int64, vectorized
  over blocks of 128 (numpy's pairwise leaf size), block sums combined with Neumaier
  compensation: at least as accurate as numpy's pairwise summation, float32 far more
  so.  An inf/nan total skips the compensation (which would turn inf into nan).
* Column sums (``sum_columns``: Sum/Mean over the leading axes, and ``nn.py``'s
  BiasAddGrad) are *not* compensated: each column is a plain running float64 total,
  one add per row, so the error bound is a naive sum's: about rows * 1.1e-16 of the
  column's sum of |x|.  For float32 and float16 inputs that stays below float32's
  rounding of the same sum of |x| up to ~10^8 rows; a float64 input gets it as numpy's
  own sum over the leading axis of a C-contiguous array does.
* Integer sums wrap to the output dtype before Mean divides them (TF semantics);
  integer Mean truncates toward zero.  float16 is widened to float32 on load.
* Max/Min/ArgMax propagate NaN like numpy (ArgMax: the first NaN; ties: the first).
  Max/Min take eight independent accumulators (``unrolled_extreme``, which LLVM
  vectorises) plus a probe that is NaN when the slice holds a NaN or an inf; only then
  does a second pass look for the NaN.

Parallelism: below ``PARALLEL_MIN_SIZE`` elements (or with one numba thread) a serial
loop runs.  Above it, with at least 4 rows per thread, ``prange`` runs over rows;
with fewer (e.g. one huge row) Sum/Mean/Max/Min/ArgMax split each row into chunks,
reduce the chunks in parallel and combine the partial results serially.

Empty reductions (as the reference's): Sum gives 0, Mean NaN of floats and 0 of
integers, Max and Min their identity; ArgMax over zero elements raises
``InvalidArgumentError``.
"""

from __future__ import annotations

import math

import numpy as np

from ..checks import (check_axes, empty_extremum, fmt_shape, get_attr, invalid_argument,
                      reduced_shape, reduction_attrs, resolve_axes, to_float16)
from ..plan_cache import remember
from ..registry import register_kernel
from .elementwise import PARALLEL_MIN_SIZE
from .numba_setup import num_threads

from numba import njit, prange, types  # noqa: E402  (after numba_setup)
from numba.extending import intrinsic, overload  # noqa: E402

__all__ = ["build_reduction", "build_argmax", "Layout", "strategy", "sum_slice",
           "sum_columns", "column_total", "unrolled_extreme", "JIT", "PAR", "INNER"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
_MIN_COLUMNS = 16          # below, a row of totals is too short to vectorise: transpose
# nogil: many Python threads run sessions at once (the kernels touch no Python objects).
# no_cfunc_wrapper: nothing calls these through a C function pointer, and each wrapper is
# one more module for LLVM to build on a cold start.  INNER functions are called only from
# other numba functions, so they need no CPython wrapper either.
JIT = dict(cache=True, nogil=True, error_model="numpy", no_cfunc_wrapper=True)
PAR = dict(JIT, parallel=True)
INNER = dict(JIT, no_cpython_wrapper=True)


# ------------------------------------------------------------- per-slice kernels

@njit(fastmath={"reassoc"}, **INNER)
def _block_sum(xs, zero):
    """Sum of a short slice.  Allowing reassociation (only) lets LLVM vectorize this
    with 16 accumulators; NaN and inf still propagate."""
    acc = zero
    for i in range(xs.size):
        acc += xs[i]
    return acc


@njit(**INNER)
def sum_slice(x, lo, hi, zero):
    """Sum of x[lo:hi] in the type of ``zero`` (float64 or int64)."""
    total = zero
    comp = zero
    xs = x[lo:hi]
    for start in range(0, xs.size, 128):
        block = _block_sum(xs[start:start + 128], zero)   # the slice stops at the end
        t = total + block
        if abs(total) >= abs(block):
            comp += (total - t) + block
        else:
            comp += (block - t) + total
        total = t
    if total - total != 0:     # inf or nan
        return total
    return total + comp


# The loops below index slices (from 0) rather than x[lo + k]: numba cannot prove
# lo + k >= 0, and its negative-index wraparound check stops LLVM vectorizing.

@njit(**INNER)
def _extreme_slice(x, lo, hi, is_max):
    """max (or min) of x[lo:hi], NaN if it holds one (numpy's propagation)."""
    xs = x[lo:hi]
    m, probe = unrolled_extreme(xs, is_max)
    if probe != probe:          # a NaN or an inf: the result is NaN only for a NaN
        for k in range(xs.size):
            if xs[k] != xs[k]:
                return xs[k]
    return m


@njit(**INNER)
def _argmax_slice(x, lo, hi, is_max, bound):
    """Index in x[lo:hi] of its first max (min when not ``is_max``), TF's way: from 0 at
    ``bound`` (the dtype's lowest, or highest, value) an element wins only when strictly
    greater (less), so a NaN never does (the reference's ``extreme_index``)."""
    xs = x[lo:hi]
    best = bound
    at = 0
    for k in range(xs.size):
        v = xs[k]
        if (v > best) if is_max else (v < best):
            best = v
            at = k
    return at


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc"})
def _special_probe(xs):
    """sum(xs - xs): NaN exactly when xs holds a NaN or an inf, else 0.  Reassociation
    (only) lets LLVM vectorise the sum; it cannot fold ``v - v`` to 0 without nnan."""
    acc = xs[0] - xs[0]
    for k in range(xs.size):
        acc += xs[k] - xs[k]
    return acc


@intrinsic
def _keep_extreme(typingctx, is_max, m, v):
    """``v`` if it beats ``m`` (greater when ``is_max``, else less), else ``m``: one
    compare and a select, which LLVM turns into vmaxps/vpmaxsd.  A NaN ``v`` never
    beats (ordered compare).  An intrinsic rather than ``v if v > m else m`` so the
    unrolled loop below is one basic block for numba's front end to build and type."""
    if m != v:
        return None

    def codegen(context, builder, signature, args):
        is_max, m, v = args
        kind = signature.args[1]
        if isinstance(kind, types.Float):
            compare = builder.fcmp_ordered
        elif getattr(kind, "signed", False):
            compare = builder.icmp_signed
        else:                                   # unsigned integers and booleans
            compare = builder.icmp_unsigned
        # A branch on is_max, not a select: LLVM unswitches the loop on it, and each
        # copy then vectorises its one compare.
        with builder.if_else(is_max) as (then, otherwise):
            with then:
                for_max = builder.select(compare(">", v, m), v, m)
                from_max = builder.block
            with otherwise:
                for_min = builder.select(compare("<", v, m), v, m)
                from_min = builder.block
        result = builder.phi(m.type)
        result.add_incoming(for_max, from_max)
        result.add_incoming(for_min, from_min)
        return result
    return m(types.boolean, m, m), codegen


@njit(**JIT)
def unrolled_extreme(xs, is_max):
    """``(extreme, probe)`` of a non-empty slice: its max (or min) ignoring NaNs, and a
    probe that is NaN exactly when the slice holds a NaN or an inf (0 for integers), so
    a caller handles those apart, in a second pass, only when they occur.

    Eight independent accumulators keep eight comparisons in flight (a single running
    max is a serial dependency chain: 6x slower, and LLVM will not vectorise a max
    reduction that must respect NaN); the probe is a vectorised sum over each block of
    2048 values just read, while it is in L1."""
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = xs[0]
    probe = xs[0] - xs[0]
    for start in range(0, xs.size, 2048):
        block = xs[start:start + 2048]          # a slice stops at the end
        n = block.size // 8 * 8
        for k in range(0, n, 8):
            m0 = _keep_extreme(is_max, m0, block[k])
            m1 = _keep_extreme(is_max, m1, block[k + 1])
            m2 = _keep_extreme(is_max, m2, block[k + 2])
            m3 = _keep_extreme(is_max, m3, block[k + 3])
            m4 = _keep_extreme(is_max, m4, block[k + 4])
            m5 = _keep_extreme(is_max, m5, block[k + 5])
            m6 = _keep_extreme(is_max, m6, block[k + 6])
            m7 = _keep_extreme(is_max, m7, block[k + 7])
        for k in range(n, block.size):
            m0 = _keep_extreme(is_max, m0, block[k])
        probe += _special_probe(block)
    m0 = _keep_extreme(is_max, m0, m1)
    m2 = _keep_extreme(is_max, m2, m3)
    m4 = _keep_extreme(is_max, m4, m5)
    m6 = _keep_extreme(is_max, m6, m7)
    return _keep_extreme(is_max, _keep_extreme(is_max, m0, m2),
                         _keep_extreme(is_max, m4, m6)), probe


def _store_total(out, r, total, divisor):
    """out[r] = total / divisor, for float totals; integer totals wrap to out's dtype
    first and then divide truncating toward zero.  numba-only (see the overload)."""
    raise NotImplementedError


@overload(_store_total)
def _store_total_overload(out, r, total, divisor):
    if isinstance(total, types.Integer):
        def store_int(out, r, total, divisor):
            out[r] = total
            if divisor != 1:
                v = out[r]
                q = v // divisor
                if q < 0 and q * divisor != v:
                    q += 1
                out[r] = q
        return store_int

    def store_float(out, r, total, divisor):
        out[r] = total / divisor
    return store_float


# ------------------------------------------------------------ row/chunk drivers

@njit(**INNER)
def _chunk_bounds(t, n, nchunks):
    """Bounds of chunk t when each row of n elements is cut into nchunks chunks."""
    r = t // nchunks
    c = t - r * nchunks
    return r * n + (c * n) // nchunks, r * n + ((c + 1) * n) // nchunks


@njit(**JIT)
def sum_rows(x, n, out, zero, divisor):
    for r in range(out.size):
        _store_total(out, r, sum_slice(x, r * n, r * n + n, zero), divisor)


@njit(**PAR)
def sum_rows_parallel(x, n, out, zero, divisor):
    for r in prange(out.size):
        _store_total(out, r, sum_slice(x, r * n, r * n + n, zero), divisor)


@njit(**PAR)
def sum_chunks_parallel(x, n, nchunks, partial, zero):
    for t in prange(partial.size):
        lo, hi = _chunk_bounds(t, n, nchunks)
        partial[t] = sum_slice(x, lo, hi, zero)


COLUMN_BLOCK = 256      # columns a thread totals at a time (2 KB of float64 totals)


@njit(**JIT)
def sum_columns(x, n, acc):
    """acc[c] += x[r, c] over the n rows of x (n x acc.size, C-contiguous), in acc's type:
    each row is read once, contiguously, and added to a row of totals that stays in L1
    (the columns are independent, so the add vectorises as it is)."""
    cols = acc.size
    for r in range(n):
        row = x[r * cols:(r + 1) * cols]
        for c in range(cols):
            acc[c] += row[c]


@njit(**PAR)
def sum_columns_parallel(x, n, acc, block):
    """``sum_columns`` with the columns shared among the threads, ``block`` at a time
    (each column's total adds its rows in the same order, so the same bits)."""
    cols = acc.size
    for b in prange((cols + block - 1) // block):
        lo, hi = b * block, min(cols, (b + 1) * block)
        totals = acc[lo:hi]
        for r in range(n):
            row = x[r * cols + lo:r * cols + hi]
            for c in range(hi - lo):
                totals[c] += row[c]


@njit(**PAR)
def sum_slabs_parallel(x, mid, acc):
    """acc[o, c] += x[o, m, c] over m for every o (x C-contiguous, outer x mid x cols
    flattened; acc outer x cols): ``sum_columns`` on each slab, the slabs shared among
    the threads (a global average pool over H and W keeps the batch and the channels)."""
    outer, cols = acc.shape
    for o in prange(outer):
        base = o * mid * cols
        totals = acc[o]
        for r in range(mid):
            row = x[base + r * cols:base + (r + 1) * cols]
            for c in range(cols):
                totals[c] += row[c]


@njit(**JIT)
def extreme_rows(x, n, out, is_max):
    for r in range(out.size):
        out[r] = _extreme_slice(x, r * n, r * n + n, is_max)


@njit(**PAR)
def extreme_rows_parallel(x, n, out, is_max):
    for r in prange(out.size):
        out[r] = _extreme_slice(x, r * n, r * n + n, is_max)


@njit(**PAR)
def extreme_chunks_parallel(x, n, nchunks, partial, is_max):
    for t in prange(partial.size):
        lo, hi = _chunk_bounds(t, n, nchunks)
        partial[t] = _extreme_slice(x, lo, hi, is_max)


@njit(**JIT)
def argmax_rows(x, n, out, is_max, bound):
    for r in range(out.size):
        out[r] = _argmax_slice(x, r * n, r * n + n, is_max, bound)


@njit(**PAR)
def argmax_rows_parallel(x, n, out, is_max, bound):
    for r in prange(out.size):
        out[r] = _argmax_slice(x, r * n, r * n + n, is_max, bound)


@njit(**PAR)
def argmax_chunks_parallel(x, n, nchunks, partial, is_max, bound):
    for t in prange(partial.size):
        lo, hi = _chunk_bounds(t, n, nchunks)
        partial[t] = lo + _argmax_slice(x, lo, hi, is_max, bound)


@njit(**JIT)
def argmax_combine(x, n, nchunks, partial, out, is_max, bound):
    """Per row, the first chunk winner strictly better than the earlier ones (a chunk
    with nothing past ``bound`` names its first element, which counts as ``bound``)."""
    for r in range(out.size):
        best = partial[r * nchunks]
        value = x[best]
        if not ((value >= bound) if is_max else (value <= bound)):
            value = bound
        for c in range(1, nchunks):
            at = partial[r * nchunks + c]
            if (x[at] > value) if is_max else (x[at] < value):
                best = at
                value = x[at]
        out[r] = best - r * n


# --------------------------------------------------------------- python drivers

def strategy(rows: int, n: int) -> tuple[str, int]:
    """("serial" | "rows" | "chunks", chunks per row) for a rows x n reduction."""
    threads = num_threads()
    if rows * n < PARALLEL_MIN_SIZE or threads == 1:
        return "serial", 1
    if rows >= 4 * threads:
        return "rows", 1
    nchunks = min(max(n // 4096, 1), -(-4 * threads // rows))
    return ("chunks", nchunks) if nchunks > 1 else ("rows", 1)


class Layout:
    """Per input shape: how to view the input as rows x n (reduced axes last).  ``axes``
    as ``checks.reduction_attrs`` gives them (None: every axis), settled per shape."""

    def __init__(self, node, axes: tuple | None, keepdims: bool, widen: bool):
        self.node, self.axes, self.keepdims, self.widen = node, axes, keepdims, widen
        self._plans: dict[tuple, tuple] = {}

    def __call__(self, x):
        plan = self._plans.get(x.shape)
        if plan is None:
            plan = remember(self._plans, x.shape, self._plan(x.shape))
        perm, rows, n, out_shape, moved_shape = plan
        moved = x if perm is None else x.transpose(perm)
        flat = np.ascontiguousarray(moved, dtype=_F32 if self.widen else None).ravel()
        return flat, rows, n, out_shape, moved_shape

    def leading(self, x) -> tuple | None:
        """``(columns, output shape)`` when ``x`` (C-contiguous) reduces over its leading
        axes only, as a bias gradient sums a batch away: rows x columns then needs no
        transpose (``sum_columns``).  None otherwise, or for fewer columns than a vector."""
        plan = self._plans.get(("leading", x.shape))
        if plan is None:
            axes = resolve_axes(self.node, self.axes, x.shape)
            lead = bool(axes) and axes == tuple(range(len(axes))) and len(axes) < x.ndim
            cols = math.prod(x.shape[len(axes):]) if lead else 0
            plan = remember(self._plans, ("leading", x.shape),
                            (cols, reduced_shape(x.shape, axes, self.keepdims)))
        return plan if plan[0] >= _MIN_COLUMNS and x.flags.c_contiguous else None

    def slabs(self, x) -> tuple | None:
        """``(outer, mid, cols, output shape)`` when ``x`` (C-contiguous) reduces over a
        block of middle axes, with axes kept before it (``outer`` > 1, at least as many
        as there are threads) and after it (``cols``, a vector's worth): each slab then
        sums its rows like ``sum_columns``, no transpose.  None otherwise."""
        plan = self._plans.get(("slabs", x.shape))
        if plan is None:
            axes = resolve_axes(self.node, self.axes, x.shape)
            block = bool(axes) and axes == tuple(range(axes[0], axes[-1] + 1)) and \
                0 < axes[0] and axes[-1] < x.ndim - 1
            plan = (math.prod(x.shape[:axes[0]]), math.prod(x.shape[a] for a in axes),
                    math.prod(x.shape[axes[-1] + 1:]),
                    reduced_shape(x.shape, axes, self.keepdims)) if block else None
            remember(self._plans, ("slabs", x.shape), plan)
        if plan is None or not x.flags.c_contiguous or plan[2] < _MIN_COLUMNS or \
                plan[0] < num_threads() or x.size < PARALLEL_MIN_SIZE:
            return None
        return plan

    def _plan(self, shape):
        axes = resolve_axes(self.node, self.axes, shape)
        kept = [d for d in range(len(shape)) if d not in axes]
        perm = tuple(kept) + axes
        n = math.prod(shape[a] for a in axes)
        rows = math.prod(shape[d] for d in kept)
        return (None if perm == tuple(range(len(shape))) else perm, rows, n,
                reduced_shape(shape, axes, self.keepdims),
                tuple(shape[p] for p in perm))


def _empty_error(node, shape, what):
    return invalid_argument(node.name, node.op, f"cannot take the {what} of zero elements "
                            f"(input shape {fmt_shape(shape)})")


def _check_numeric(node):
    if node.input_dtypes[0].kind not in "iuf":
        raise invalid_argument(node.name, node.op,
                               f"no CPU kernel for {node.op} on {node.input_dtypes[0]}")


def column_total(x, cols, out_shape, kind, out_dtype):
    """Sum or Mean over the leading axes of a C-contiguous array of ``cols`` (> 0)
    trailing elements, from float64 column totals (``sum_columns``): the transpose-free
    path of this module's Sum/Mean, which ``nn.py``'s BiasAddGrad shares."""
    n = x.size // cols
    acc = np.zeros(cols, np.float64)
    if x.size >= PARALLEL_MIN_SIZE and cols >= 2 * COLUMN_BLOCK and num_threads() > 1:
        sum_columns_parallel(x.reshape(-1), n, acc, COLUMN_BLOCK)
    else:
        sum_columns(x.reshape(-1), n, acc)
    if kind == "mean":
        acc /= n
    return acc.astype(out_dtype).reshape(out_shape)


def slab_total(x, outer, mid, cols, out_shape, kind, out_dtype):
    """Sum or Mean over a block of middle axes (``Layout.slabs``), from float64 totals
    as ``column_total``'s (the same numerics)."""
    acc = np.zeros((outer, cols), np.float64)
    sum_slabs_parallel(x.reshape(-1), mid, acc)
    if kind == "mean":
        acc /= mid
    return acc.astype(out_dtype).reshape(out_shape)


@register_kernel(("Sum", "Mean", "Max", "Min"), "CPU")
def build_reduction(node):
    if node.input_dtypes[0].kind == "c":       # complex Sum and Mean: numpy's, on the host
        return _numpy_reduction(node)
    kind = node.op.lower()
    _check_numeric(node)
    axes, keepdims = reduction_attrs(node)
    in_dtype, out_dtype = node.input_dtypes[0], node.output_dtype
    widen = in_dtype == _F16
    store = _F32 if widen else out_dtype
    layout = Layout(node, axes, keepdims, widen)
    is_float = in_dtype.kind == "f"
    zero = np.float64(0) if is_float else np.int64(0)
    is_max = kind == "max"

    def reduce(x):
        if axes == ():             # reduce nothing: a copy
            check_axes(node.name, node.op, x.shape, axes)
            return np.array(x, dtype=out_dtype)
        if kind in ("sum", "mean") and is_float and not widen and x.size:
            columns = layout.leading(x)
            if columns is not None:
                return column_total(x, *columns, kind, out_dtype)
            slabs = layout.slabs(x)
            if slabs is not None:
                return slab_total(x, *slabs, kind, out_dtype)
        flat, rows, n, out_shape, _ = layout(x)
        out = np.empty(out_shape, store)
        flat_out = out.ravel()
        if n == 0:
            if kind in ("sum", "mean"):        # an integer Mean of nothing is 0, as TF's
                flat_out[:] = np.nan if kind == "mean" and is_float else 0
            else:
                flat_out[:] = empty_extremum(kind, store)
        elif rows:
            how, nchunks = strategy(rows, n)
            if kind in ("sum", "mean"):
                divisor = n if kind == "mean" else 1
                if how == "chunks":
                    partial = np.empty(rows * nchunks, zero.dtype)
                    sum_chunks_parallel(flat, n, nchunks, partial, zero)
                    sum_rows(partial, nchunks, flat_out, zero, divisor)
                else:
                    (sum_rows_parallel if how == "rows" else sum_rows)(
                        flat, n, flat_out, zero, divisor)
            elif how == "chunks":
                partial = np.empty(rows * nchunks, flat.dtype)
                extreme_chunks_parallel(flat, n, nchunks, partial, is_max)
                extreme_rows(partial, nchunks, flat_out, is_max)
            else:
                (extreme_rows_parallel if how == "rows" else extreme_rows)(
                    flat, n, flat_out, is_max)
        return to_float16(out) if widen else out
    return reduce


@register_kernel(("ArgMax", "ArgMin"), "CPU")
def build_argmax(node):
    _check_numeric(node)
    axis = int(get_attr(node, "axis"))
    layout = Layout(node, (axis,), False, node.input_dtypes[0] == _F16)
    out_dtype = node.output_dtype
    is_max = node.op == "ArgMax"

    def argmax(x):
        flat, rows, n, out_shape, _ = layout(x)
        out = np.empty(out_shape, np.int64)
        if n == 0:
            raise _empty_error(node, x.shape, node.op.lower())
        if rows:
            bound = _argmax_bound(x.dtype, flat.dtype, is_max)
            how, nchunks = strategy(rows, n)
            if how == "chunks":
                partial = np.empty(rows * nchunks, np.int64)
                argmax_chunks_parallel(flat, n, nchunks, partial, is_max, bound)
                argmax_combine(flat, n, nchunks, partial, out.ravel(), is_max, bound)
            else:
                (argmax_rows_parallel if how == "rows" else argmax_rows)(
                    flat, n, out.ravel(), is_max, bound)
        return out.astype(out_dtype, copy=False)    # int64 unless TF's output_type says int32
    return argmax


def _argmax_bound(dtype, computed, is_max: bool):
    """Where TF's ArgMax (ArgMin) starts: ``dtype``'s lowest (highest) value, in the
    ``computed`` dtype (float32 for float16)."""
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return computed.type(info.min if is_max else info.max)


# --- TF1 surface (branch tf1): Prod, All, Any, Cumsum, Cumprod ---------------------------
# numpy's reductions and scans (the reference kernels) serve the CPU: they are
# vectorised (a scan is one memory-bound pass), and these ops are rare in hot loops.

from ..reference.reduce import build_reduction as _numpy_reduction  # noqa: E402
from ..reference.reduce import build_scan as _numpy_scan  # noqa: E402

register_kernel(("Prod", "All", "Any", "EuclideanNorm"), "CPU")(_numpy_reduction)
register_kernel(("Cumsum", "Cumprod", "CumulativeLogsumexp"), "CPU")(_numpy_scan)
