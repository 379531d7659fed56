"""The optimizers' fused updates on the CPU: numba loops over the arrays, in place.

Each update reads the gradient and writes the variable (and its slots) block by block,
so a training step makes no full-size temporaries, where numpy would make several per
formula.  The frame (locks, copy-on-write, shape checks) is
``reference/training.py``'s; the hyper-parameters arrive as 0-d arrays and are
converted to scalars of the variable's dtype, so float32 variables update in float32
arithmetic as TF's kernels do (Adam's ``alpha`` too).  Arrays of at least
``PARALLEL_MIN_SIZE`` elements are split into chunks updated in parallel (``prange``).
float16 variables (which numba cannot load) take the reference formulas.
"""

from __future__ import annotations

import numpy as np

from ...ops.training import MATMUL_GRADIENT_DESCENT
from ..checks import fmt_shape, invalid_argument
from ..reference.training import apply_kernel, make_updates, with_nesterov
from ..registry import register_kernel
from .sgemm import sgemm_update
from .elementwise import PARALLEL_MIN_SIZE
from .numba_setup import num_threads
from .reduce import JIT, PAR

from numba import njit, prange  # noqa: E402  (after numba_setup)

__all__ = ["build_apply"]

_CHUNK = 1 << 14
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


# --- one range of elements per update ------------------------------------------------------
#
# Each loop runs over views from 0 and stores to one array: a loop indexing from ``lo``
# keeps numba's negative-index wraparound, and one storing to several arrays needs
# alias checks, and LLVM vectorises neither (Adam ran scalar sqrt and division, 4x
# slower).  Updates with slots go block by block, so the passes of one block share the
# cache.

_BLOCK = 2048


@njit(**JIT)
def _gradient_descent(var, delta, alpha, lo, hi):
    w, d = var[lo:hi], delta[lo:hi]
    for i in range(hi - lo):
        w[i] -= d[i] * alpha


@njit(**JIT)
def _momentum(var, accum, grad, lr, momentum, nesterov, lo, hi):
    for start in range(lo, hi, _BLOCK):
        stop = min(hi, start + _BLOCK)
        w, a, g = var[start:stop], accum[start:stop], grad[start:stop]
        for i in range(stop - start):
            a[i] = a[i] * momentum + g[i]
        if nesterov:
            for i in range(stop - start):
                w[i] -= g[i] * lr + a[i] * momentum * lr
        else:
            for i in range(stop - start):
                w[i] -= a[i] * lr


@njit(**JIT)
def _adam(var, m, v, grad, alpha, beta1, one_minus_beta1, one_minus_beta2, epsilon,
          nesterov, lo, hi):
    for start in range(lo, hi, _BLOCK):
        stop = min(hi, start + _BLOCK)
        w, mb, vb, g = var[start:stop], m[start:stop], v[start:stop], grad[start:stop]
        for i in range(stop - start):
            mb[i] += (g[i] - mb[i]) * one_minus_beta1
        for i in range(stop - start):
            vb[i] += (g[i] * g[i] - vb[i]) * one_minus_beta2
        if nesterov:
            for i in range(stop - start):
                w[i] -= ((g[i] * one_minus_beta1 + beta1 * mb[i]) * alpha
                         / (np.sqrt(vb[i]) + epsilon))
        else:
            for i in range(stop - start):
                w[i] -= mb[i] * alpha / (np.sqrt(vb[i]) + epsilon)


# --- drivers: the whole array at once, or chunks in parallel --------------------------------

@njit(**PAR)
def _gradient_descent_parallel(var, delta, alpha, chunk):
    n = var.size
    for c in prange((n + chunk - 1) // chunk):
        _gradient_descent(var, delta, alpha, c * chunk, min(n, c * chunk + chunk))


@njit(**PAR)
def _momentum_parallel(var, accum, grad, lr, momentum, nesterov, chunk):
    n = var.size
    for c in prange((n + chunk - 1) // chunk):
        _momentum(var, accum, grad, lr, momentum, nesterov, c * chunk,
                  min(n, c * chunk + chunk))


@njit(**PAR)
def _adam_parallel(var, m, v, grad, alpha, beta1, one_minus_beta1, one_minus_beta2, epsilon,
                   nesterov, chunk):
    n = var.size
    for c in prange((n + chunk - 1) // chunk):
        _adam(var, m, v, grad, alpha, beta1, one_minus_beta1, one_minus_beta2, epsilon,
              nesterov, c * chunk, min(n, c * chunk + chunk))


def _flat(x):
    return np.ascontiguousarray(x).reshape(-1)


def _parallel(size: int) -> bool:
    return size >= PARALLEL_MIN_SIZE and num_threads() > 1


def _gd_update(var, alpha, delta):
    flat, delta, alpha = var.reshape(-1), _flat(delta), alpha[()]
    if _parallel(flat.size):
        _gradient_descent_parallel(flat, delta, alpha, _CHUNK)
    else:
        _gradient_descent(flat, delta, alpha, 0, flat.size)


def _momentum_update(var, accum, lr, grad, momentum, nesterov=False):
    args = (var.reshape(-1), accum.reshape(-1), _flat(grad), lr[()], momentum[()], nesterov)
    if _parallel(var.size):
        _momentum_parallel(*args, _CHUNK)
    else:
        _momentum(*args, 0, var.size)


def _adam_update(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                 nesterov=False):
    one = var.dtype.type(1)
    alpha = lr[()] * np.sqrt(one - beta2_power[()]) / (one - beta1_power[()])
    args = (var.reshape(-1), m.reshape(-1), v.reshape(-1), _flat(grad), var.dtype.type(alpha),
            beta1[()], one - beta1[()], one - beta2[()], epsilon[()], nesterov)
    if _parallel(var.size):
        _adam_parallel(*args, _CHUNK)
    else:
        _adam(*args, 0, var.size)


_FUSED = {"ApplyGradientDescent": _gd_update, "ApplyMomentum": _momentum_update,
          "ApplyAdam": _adam_update}
_NUMPY = make_updates(np)


@register_kernel(tuple(_FUSED), "CPU")
def build_apply(node):
    dtype = np.dtype(node.input_dtypes[0])
    update = _NUMPY[node.op] if dtype == _F16 else _FUSED[node.op]
    return apply_kernel(node, with_nesterov(node, update))


@register_kernel(MATMUL_GRADIENT_DESCENT, "CPU")
def build_matmul_gradient_descent(node):
    """``var -= alpha * op(a) @ op(b)``: the product and update the optimizer folded
    (``optimizer/gemm_updates.py``), one sgemm into the variable."""
    transpose_a, transpose_b = node.attrs["transpose_a"], node.attrs["transpose_b"]
    ctx, name = node.context, node.name

    def kernel(alpha, a, b):
        (resource,) = ctx.ref_resources()
        with resource.lock:
            var = resource.updatable(name)
            rows = a.shape[1] if transpose_a else a.shape[0]
            inner = (a.shape[0] if transpose_a else a.shape[1],
                     b.shape[1] if transpose_b else b.shape[0])
            cols = b.shape[0] if transpose_b else b.shape[1]
            if np.ndim(alpha) != 0:
                raise invalid_argument(name, node.op, f"alpha must be a scalar, got shape "
                                       f"{fmt_shape(np.shape(alpha))}")
            if inner[0] != inner[1] or var.shape != (rows, cols):
                raise invalid_argument(name, node.op, f"var {fmt_shape(var.shape)} and the "
                                       f"product of {fmt_shape(a.shape)} and "
                                       f"{fmt_shape(b.shape)} do not match")
            if var.dtype == _F32 and var.flags.c_contiguous:
                sgemm_update(var, alpha[()], a, transpose_a, b, transpose_b)
            else:
                var -= alpha[()] * np.matmul(a.T if transpose_a else a,
                                             b.T if transpose_b else b)
            return var
    return kernel

