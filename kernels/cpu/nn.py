"""Neural-network CPU kernels.

Softmax runs over rows laid out as the reductions lay them out (``reduce.Layout``:
the axis last, C-contiguous): per row it takes the max with eight independent
accumulators, writes ``exp(x - max)`` with the vectorisable float32 exp
(``fastmath.py``), sums the row with the reductions' compensated sum and scales.  Rows
run in parallel (``prange``) above ``PARALLEL_MIN_SIZE``; outputs come from a buffer
pool reused once free.  A NaN in a row is skipped by the max but still makes every
output of the row NaN (through the exp and the sum), as numpy's formula does.
"""

from __future__ import annotations

import numpy as np

from ..checks import get_attr, to_float16
from ..registry import register_kernel
from .buffer_pool import BufferPool
from .fastmath import fast_exp
from .reduce import INNER, JIT, PAR, Layout, strategy, sum_slice, unrolled_max

from numba import njit, prange  # noqa: E402  (after numba_setup, which reduce imports)

__all__ = ["build_softmax"]

_F16 = np.dtype(np.float16)


@njit(**INNER)        # called only from the row loops: no CPython wrapper to build
def _softmax_slice(x, out, lo, hi):
    xs = x[lo:hi]
    ys = out[lo:hi]
    # A NaN in the row is skipped by the max but still makes every output NaN, through
    # exp(NaN - m) and the row sum, as numpy's formula does.
    m = unrolled_max(xs)
    for k in range(xs.size):
        ys[k] = fast_exp(xs[k] - m)   # vectorisable for float32 (fastmath.py)
    scale = 1.0 / sum_slice(out, lo, hi, 0.0)
    for k in range(ys.size):
        ys[k] = ys[k] * scale


@njit(**JIT)
def softmax_rows(x, n, out):
    for r in range(x.size // n):
        _softmax_slice(x, out, r * n, r * n + n)


@njit(**PAR)
def softmax_rows_parallel(x, n, out):
    for r in prange(x.size // n):
        _softmax_slice(x, out, r * n, r * n + n)


@register_kernel("Softmax", "CPU")
def build_softmax(node):
    axis = int(get_attr(node, "axis"))
    out_dtype = node.output_dtype
    widen = out_dtype == _F16
    layout = Layout(node, (axis,), False, widen)
    pool = BufferPool()

    def softmax(x):
        flat, rows, n, _, moved_shape = layout(x)
        out = pool.take((flat.size,), flat.dtype)
        if out.size:
            how, _ = strategy(rows, n)
            (softmax_rows_parallel if how != "serial" else softmax_rows)(flat, n, out)
        pool.give(out)
        result = out.reshape(moved_shape)
        if axis != x.ndim - 1:      # move the axis back where it was
            result = np.ascontiguousarray(np.moveaxis(result, -1, axis))
        return to_float16(result) if widen else result
    return softmax
