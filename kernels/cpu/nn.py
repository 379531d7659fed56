"""Neural-network CPU kernels (convolution and pooling are in ``nn_conv.py``): Softmax,
LogSoftmax, the softmax cross entropies, L2Loss, BiasAdd and BiasAddGrad.

Softmax and its relatives run over rows laid out as the reductions lay them out
(``reduce.Layout``: the axis last, C-contiguous).  Per row, three passes over data that
stays in L1:

1. the max, with eight independent accumulators (``reduce.unrolled_extreme``: a single
   running max is a serial dependency chain), and a probe telling whether the row
   holds a NaN or an inf;
2. ``exp(x - max)`` written to the output, then its sum (vectorised sums of 1024
   values in the row's type, added in float64).  For a finite float32 row every
   ``x - max`` is <= 0, so the exp is a short vectorisable polynomial
   (``_exp_nonpositive32``, compiled with FMA contraction; results below 5e-38 flush
   to 0); a row with a NaN or an inf takes libm's exp (numpy's NaNs for them);
3. the scaling (Softmax), or ``x - max - log(sum)`` (LogSoftmax), or the loss and
   ``backprop = exp / sum - labels`` (the cross entropies).

Rows run in parallel (``prange``) above ``PARALLEL_MIN_SIZE`` elements; outputs come
from buffer pools reused once free.  A NaN in a row is skipped by the max but still
makes every output of the row NaN (through the exp and the sum), as numpy's formula
does.  float16 is computed in float32 and rounded once.

L2Loss sums squares in float64: serially below ``PARALLEL_MIN_SIZE`` elements (or with
one numba thread), in ``4 * threads`` parallel chunks above.  BiasAddGrad moves the
channel axis last and takes the reduce module's column sum (``reduce.column_total``),
so a bias gradient and a Sum over the batch axes share one loop.
"""

from __future__ import annotations

import numpy as np

from ..checks import to_float16
from ..nn_checks import (bias_axis, broadcastable_bias, label_error, last_axis,
                         softmax_axis, sparse_xent_shapes, xent_shape)
from ..plan_cache import remember
from ..registry import register_kernel
from ..buffer_pool import BufferPool
from .elementwise import PARALLEL_MIN_SIZE, ElementwiseKernel
from .fastmath import max32, exp_parts32, pow2_32
from .numba_setup import num_threads
from .reduce import (JIT, PAR, Layout, _block_sum, column_total, strategy,
                     unrolled_extreme)

from numba import njit, prange, types  # noqa: E402  (after numba_setup, which reduce imports)
from numba.extending import overload  # noqa: E402

__all__ = ["build_softmax", "build_log_softmax", "build_xent", "build_sparse_xent",
           "build_l2_loss", "build_bias_add", "build_bias_add_grad"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


# ------------------------------------------------------------------------- rows

@njit(inline="always", cache=True)
def _exp_nonpositive32(t):
    """exp(t) for a float32 ``t <= 0`` that is not NaN (0 below -86, where exp(t) is
    under 5e-38): ``fexp32`` without its clamp above, its NaN select and the two-step
    scaling that subnormal results need, so each element costs ~40% less."""
    n, y = exp_parts32(max32(t, np.float32(-86.0)))
    return np.float32(0.0) if t < np.float32(-86.0) else y * pow2_32(np.int32(n))


def exp_nonpositive(t):
    """exp of a shifted logit (``t <= 0``, no NaN): numba-only."""
    raise NotImplementedError("exp_nonpositive is only callable from numba-compiled code")


@overload(exp_nonpositive)
def _exp_nonpositive_overload(t):
    if t == types.float32:
        return lambda t: _exp_nonpositive32(t)
    return lambda t: np.exp(t)


# Contracting a * b + c into one FMA makes the inlined exp's polynomial both faster and
# more accurate; nothing else in these loops has a multiply-add to contract.
ROW = dict(JIT, fastmath={"contract"})


@njit(**ROW)
def _exp_sum(x, out, lo, hi):
    """``(max, sum)`` of the row x[lo:hi], writing out[lo:hi] = exp(x - max).  A row
    with a NaN or an inf takes libm's exp, which gives numpy's NaNs for them.

    The sum adds blocks of 1024 exps, each summed in the row's type (vectorised:
    reassociation is allowed within a block, which bounds a float32 block's error to
    ~64 ulp) and added up in float64; the exps are all >= 0, so nothing cancels.  All
    in one function: each numba function a row kernel calls is one more compile (and
    LLVM pass over everything below it) on a cold start."""
    xs = x[lo:hi]
    ys = out[lo:hi]
    m, probe = unrolled_extreme(xs, True)
    if probe == probe:                   # all finite: x - max is in [-huge, 0]
        for k in range(xs.size):
            ys[k] = exp_nonpositive(xs[k] - m)
    else:
        for k in range(xs.size):
            ys[k] = np.exp(xs[k] - m)
    zero = ys.dtype.type(0)
    total = 0.0
    for start in range(0, ys.size, 1024):
        total += _block_sum(ys[start:start + 1024], zero)
    return m, total


@njit(**JIT)
def _softmax_row(x, out, lo, hi):
    _, total = _exp_sum(x, out, lo, hi)
    ys = out[lo:hi]
    scale = ys.dtype.type(1.0 / total)
    for k in range(ys.size):
        ys[k] = ys[k] * scale


@njit(**JIT)
def _log_softmax_row(x, out, lo, hi):
    xs = x[lo:hi]
    m, total = _exp_sum(x, out, lo, hi)
    log_sum = xs.dtype.type(np.log(total))
    ys = out[lo:hi]
    for k in range(ys.size):
        ys[k] = (xs[k] - m) - log_sum


@njit(**JIT)
def _xent_row(x, labels, backprop, lo, hi):
    """The loss of one row; backprop[lo:hi] = softmax - labels."""
    xs = x[lo:hi]
    ys = labels[lo:hi]
    m, total = _exp_sum(x, backprop, lo, hi)
    log_sum = np.log(total)
    bs = backprop[lo:hi]
    inverse = bs.dtype.type(1.0 / total)
    loss = 0.0
    for k in range(xs.size):
        loss += ys[k] * (log_sum - (xs[k] - m))
        bs[k] = bs[k] * inverse - ys[k]
    return loss


@njit(**JIT)
def _sparse_xent_row(x, label, backprop, lo, hi):
    xs = x[lo:hi]
    m, total = _exp_sum(x, backprop, lo, hi)
    bs = backprop[lo:hi]
    inverse = bs.dtype.type(1.0 / total)
    for k in range(bs.size):
        bs[k] = bs[k] * inverse
    bs[label] -= 1
    return np.log(total) - (xs[label] - m)


# One serial and one parallel driver per row kernel: numba cannot take the row kernel
# as an argument to a prange loop without recompiling it per caller anyway.

@njit(**JIT)
def softmax_rows(x, n, out):
    for r in range(x.size // n):
        _softmax_row(x, out, r * n, r * n + n)


@njit(**PAR)
def softmax_rows_parallel(x, n, out):
    for r in prange(x.size // n):
        _softmax_row(x, out, r * n, r * n + n)


@njit(**JIT)
def log_softmax_rows(x, n, out):
    for r in range(x.size // n):
        _log_softmax_row(x, out, r * n, r * n + n)


@njit(**PAR)
def log_softmax_rows_parallel(x, n, out):
    for r in prange(x.size // n):
        _log_softmax_row(x, out, r * n, r * n + n)


@njit(**JIT)
def xent_rows(x, labels, n, loss, backprop):
    for r in range(loss.size):
        loss[r] = _xent_row(x, labels, backprop, r * n, r * n + n)


@njit(**PAR)
def xent_rows_parallel(x, labels, n, loss, backprop):
    for r in prange(loss.size):
        loss[r] = _xent_row(x, labels, backprop, r * n, r * n + n)


@njit(**JIT)
def first_bad_label(labels, n):
    """The row of the first label outside [0, n), or -1: checked here, compiled, since
    numpy's three passes and their temporaries cost ~50 us in a training step, where the
    caches hold the products' panels rather than the interpreter's objects."""
    for r in range(labels.size):
        if labels[r] < 0 or labels[r] >= n:
            return r
    return -1


@njit(**JIT)
def sparse_xent_rows(x, labels, n, loss, backprop):
    for r in range(loss.size):
        loss[r] = _sparse_xent_row(x, labels[r], backprop, r * n, r * n + n)


@njit(**PAR)
def sparse_xent_rows_parallel(x, labels, n, loss, backprop):
    for r in prange(loss.size):
        loss[r] = _sparse_xent_row(x, labels[r], backprop, r * n, r * n + n)


def _parallel(rows: int, n: int) -> bool:
    return strategy(rows, n)[0] != "serial"


def _narrowed(widen: bool, *arrays):
    out = tuple(to_float16(a) if widen else a for a in arrays)
    return out if len(out) > 1 else out[0]


# ------------------------------------------------------------------ softmax, log softmax

def _row_kernel(node, serial, parallel):
    """A Softmax/LogSoftmax kernel: rows along the node's axis, moved back after."""
    widen = node.output_dtype == _F16
    layouts: dict[int, tuple] = {}
    pool = BufferPool()

    def kernel(x):
        planned = layouts.get(x.ndim)
        if planned is None:
            axis = softmax_axis(node, x.shape) if node.op == "Softmax" else x.ndim - 1
            planned = layouts[x.ndim] = (axis, Layout(node, (axis,), False, widen))
        axis, layout = planned
        flat, rows, n, _, moved_shape = layout(x)
        out = pool.take((flat.size,), flat.dtype)
        if out.size:
            (parallel if _parallel(rows, n) else serial)(flat, n, out)
        pool.give(out)
        result = out.reshape(moved_shape)
        if axis != x.ndim - 1:      # move the axis back where it was
            result = np.ascontiguousarray(np.moveaxis(result, -1, axis))
        return _narrowed(widen, result)
    return kernel


@register_kernel("Softmax", "CPU")
def build_softmax(node):
    return _row_kernel(node, softmax_rows, softmax_rows_parallel)


@register_kernel("LogSoftmax", "CPU")
def build_log_softmax(node):
    kernel = _row_kernel(node, log_softmax_rows, log_softmax_rows_parallel)

    def log_softmax(x):
        last_axis(node, x.shape)
        return kernel(x)
    return log_softmax


# ------------------------------------------------------------------ cross entropies

def _compute(x, widen):
    return np.ascontiguousarray(x, dtype=_F32 if widen else None)


@register_kernel("SoftmaxCrossEntropyWithLogits", "CPU")
def build_xent(node):
    widen = node.output_dtype == _F16
    pool = BufferPool()

    def xent(logits, labels):
        shape = xent_shape(node, logits.shape, labels.shape)
        rows, n = shape
        x = _compute(np.broadcast_to(logits, shape), widen)
        y = _compute(np.broadcast_to(labels, shape), widen)
        loss = np.zeros(rows, x.dtype)
        backprop = pool.take(shape, x.dtype)
        if backprop.size:
            (xent_rows_parallel if _parallel(rows, n) else xent_rows)(
                x.ravel(), y.ravel(), n, loss, backprop.ravel())
        pool.give(backprop)
        return _narrowed(widen, loss, backprop)
    return xent


@register_kernel("SparseSoftmaxCrossEntropyWithLogits", "CPU")
def build_sparse_xent(node):
    widen = node.output_dtype == _F16
    pool = BufferPool()
    loops: dict[tuple, object] = {}       # per logits shape: the serial or parallel loop

    def sparse_xent(logits, labels):
        rows_loop = loops.get(logits.shape)
        if rows_loop is None:
            sparse_xent_shapes(node, logits.shape, labels.shape)
            rows, n = logits.shape
            rows_loop = remember(loops, logits.shape, sparse_xent_rows_parallel
                                 if _parallel(rows, n) else sparse_xent_rows)
        elif labels.shape != logits.shape[:1]:
            sparse_xent_shapes(node, logits.shape, labels.shape)
        rows, n = logits.shape
        labels = np.ascontiguousarray(labels)
        if labels.size and (n == 0 or first_bad_label(labels, n) >= 0):
            raise label_error(node, labels, n)
        x = _compute(logits, widen)
        loss = np.zeros(rows, x.dtype)
        backprop = pool.take(x.shape, x.dtype)
        if backprop.size:
            rows_loop(x.ravel(), labels, n, loss, backprop.ravel())
        pool.give(backprop)
        return _narrowed(widen, loss, backprop)
    return sparse_xent


# ------------------------------------------------------------------ L2Loss, BiasAdd

@njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc"})
def _block_sum_squares(xs):
    acc = 0.0
    for i in range(xs.size):
        v = np.float64(xs[i])
        acc += v * v
    return acc


@njit(**JIT)
def sum_squares(x):
    """sum(x**2) in float64, in blocks of 4096 (serial: an input below
    ``PARALLEL_MIN_SIZE`` is one chunk, and a prange over it only adds a thread launch)."""
    total = 0.0
    for start in range(0, x.size, 4096):
        total += _block_sum_squares(x[start:start + 4096])
    return total


@njit(**PAR)
def sum_squares_parallel(x, nchunks):
    """sum(x**2) in float64, over ``nchunks`` chunks in parallel."""
    partial = np.zeros(nchunks)
    for c in prange(nchunks):
        lo = (c * x.size) // nchunks
        hi = ((c + 1) * x.size) // nchunks
        for start in range(lo, hi, 4096):
            partial[c] += _block_sum_squares(x[start:min(start + 4096, hi)])
    return partial.sum()


@register_kernel("L2Loss", "CPU")
def build_l2_loss(node):
    out_dtype = node.output_dtype

    def l2_loss(t):
        flat = np.ascontiguousarray(t, dtype=_F32 if t.dtype == _F16 else None).ravel()
        threads = num_threads()
        if flat.size < PARALLEL_MIN_SIZE or threads == 1:
            total = sum_squares(flat)
        else:
            total = sum_squares_parallel(flat, 4 * threads)
        with np.errstate(over="ignore"):
            return np.asarray(total / 2).astype(out_dtype)
    return l2_loss


@register_kernel("BiasAdd", "CPU")
def build_bias_add(node):
    dtype = node.output_dtype
    add = ElementwiseKernel("x + b", [("x", node.input_dtypes[0]), ("b", node.input_dtypes[1])],
                            dtype, name=node.name, op=node.op, reuse_buffers=True)

    def bias_add(value, bias):
        return add(value, broadcastable_bias(node, value.shape, bias))
    return bias_add


@register_kernel("BiasAddGrad", "CPU")
def build_bias_add_grad(node):
    """dy summed over every axis but the channel one: the channel axis moved last, then
    the reduce module's column path (``reduce.column_total``: float64 totals of rows
    read contiguously), rounded once to the output dtype."""
    out_dtype = node.output_dtype
    widen = out_dtype == _F16

    def bias_add_grad(dy):
        axis = bias_axis(node, dy.ndim)
        if axis != dy.ndim - 1:
            dy = np.moveaxis(dy, axis, -1)
        cols = dy.shape[-1]
        if cols == 0:
            return np.zeros(0, out_dtype)
        matrix = _compute(dy, widen)
        totals = column_total(matrix, cols, (cols,), "sum", np.float64)
        return to_float16(totals) if widen else totals.astype(out_dtype, copy=False)
    return bias_add_grad


# --- LRN, LRNGrad: the reference's numpy formula (a cumulative sum over the channels and
# a few elementwise passes, at memory speed) ------------------------------------------------------

from ..reference.nn import make_lrn  # noqa: E402


@register_kernel(("LRN", "LRNGrad"), "CPU")
def build_lrn(node):
    return make_lrn(np, node)
