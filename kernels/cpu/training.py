"""The optimizers' fused updates on the CPU: one numba pass over the arrays, in place.

Each update reads the gradient and writes the variable (and its slots) element by
element, so a training step makes no full-size temporaries, where numpy would make
several per formula.  The frame (locks, copy-on-write, shape checks) is
``reference/training.py``'s; the hyper-parameters arrive as 0-d arrays and are
converted to scalars of the variable's dtype, so float32 variables update in float32
arithmetic as TF's kernels do (Adam's ``alpha`` too).  Arrays of at least
``PARALLEL_MIN_SIZE`` elements are split into chunks updated in parallel (``prange``).
float16 variables (which numba cannot load) take the reference formulas.
"""

from __future__ import annotations

import numpy as np

from ..reference.training import apply_kernel, make_updates, with_nesterov
from ..registry import register_kernel
from .elementwise import PARALLEL_MIN_SIZE
from .numba_setup import num_threads
from .reduce import JIT, PAR

from numba import njit, prange  # noqa: E402  (after numba_setup)

__all__ = ["build_apply"]

_CHUNK = 1 << 14
_F16 = np.dtype(np.float16)


# --- one range of elements per update ------------------------------------------------------

@njit(**JIT)
def _gradient_descent(var, delta, alpha, lo, hi):
    for i in range(lo, hi):
        var[i] -= delta[i] * alpha


@njit(**JIT)
def _momentum(var, accum, grad, lr, momentum, nesterov, lo, hi):
    for i in range(lo, hi):
        a = accum[i] * momentum + grad[i]
        accum[i] = a
        if nesterov:
            var[i] -= grad[i] * lr + a * momentum * lr
        else:
            var[i] -= a * lr


@njit(**JIT)
def _adam(var, m, v, grad, alpha, beta1, one_minus_beta1, one_minus_beta2, epsilon,
          nesterov, lo, hi):
    for i in range(lo, hi):
        g = grad[i]
        mi = m[i] + (g - m[i]) * one_minus_beta1
        vi = v[i] + (g * g - v[i]) * one_minus_beta2
        m[i] = mi
        v[i] = vi
        if nesterov:
            var[i] -= (g * one_minus_beta1 + beta1 * mi) * alpha / (np.sqrt(vi) + epsilon)
        else:
            var[i] -= mi * alpha / (np.sqrt(vi) + epsilon)


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
