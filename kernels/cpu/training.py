"""The optimizers' fused updates on the CPU: numba loops over the arrays, in place.

Each update reads the gradient and writes the variable (and its slots) block by block,
so a training step makes no full-size temporaries, where numpy would make several per
formula.  The frame (locks, copy-on-write, shape checks) is
``reference/training.py``'s; the hyper-parameters arrive as 0-d arrays and are
converted to scalars of the variable's dtype, so float32 variables update in float32
arithmetic as TF's kernels do (Adam's ``alpha`` too).  Arrays of at least
``PARALLEL_MIN_SIZE`` elements are split into chunks updated in parallel (``prange``).
float16 variables (which numba cannot load) take the reference formulas.  The updates the
optimizer folded a product into (``optimizer/gemm_updates.py``) are here too: SGD's as
one product accumulating into the variable, Adam's with the gradient made a block of
rows at a time in cache (``adam_product_update``).
"""

from __future__ import annotations

import numpy as np

from ...ops.training import MATMUL_ADAM, MATMUL_GRADIENT_DESCENT, TRAINING_OPS
from ..checks import fmt_shape, invalid_argument
from ..reference.training import apply_kernel, make_updates, with_flag
from ..registry import register_kernel
from . import register_gemm
from .sgemm import sgemm_update
from .elementwise import PARALLEL_MIN_SIZE
from .numba_setup import num_threads
from .reduce import JIT, PAR

from numba import njit, prange  # noqa: E402  (after numba_setup)

__all__ = ["build_apply", "adam_product_update"]

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


@njit(**JIT)
def _adagrad(var, accum, grad, lr, update_slots, lo, hi):
    for start in range(lo, hi, _BLOCK):
        stop = min(hi, start + _BLOCK)
        w, a, g = var[start:stop], accum[start:stop], grad[start:stop]
        if update_slots:
            for i in range(stop - start):
                a[i] += g[i] * g[i]
        for i in range(stop - start):
            w[i] -= g[i] * lr / np.sqrt(a[i])


@njit(**JIT)
def _rms_prop(var, mg, ms, mom, grad, lr, one_minus_rho, momentum, epsilon, centered, lo,
              hi):
    """ApplyRMSProp, or with ``centered`` ApplyCenteredRMSProp (``mg`` unused without)."""
    for start in range(lo, hi, _BLOCK):
        stop = min(hi, start + _BLOCK)
        w, s, m, g = var[start:stop], ms[start:stop], mom[start:stop], grad[start:stop]
        for i in range(stop - start):
            s[i] += (g[i] * g[i] - s[i]) * one_minus_rho
        if centered:
            c = mg[start:stop]
            for i in range(stop - start):
                c[i] += (g[i] - c[i]) * one_minus_rho
            for i in range(stop - start):
                m[i] = m[i] * momentum + g[i] * lr / np.sqrt(s[i] - c[i] * c[i] + epsilon)
        else:
            for i in range(stop - start):
                m[i] = m[i] * momentum + g[i] * lr / np.sqrt(s[i] + epsilon)
        for i in range(stop - start):
            w[i] -= m[i]


@njit(**JIT)
def _adadelta(var, accum, accum_update, grad, lr, rho, one_minus_rho, epsilon, lo, hi):
    step = np.empty(min(_BLOCK, max(hi - lo, 0)), var.dtype)
    for start in range(lo, hi, _BLOCK):
        stop = min(hi, start + _BLOCK)
        w, a, u, g = (var[start:stop], accum[start:stop], accum_update[start:stop],
                      grad[start:stop])
        t = step[:stop - start]
        for i in range(stop - start):
            a[i] = a[i] * rho + g[i] * g[i] * one_minus_rho
        for i in range(stop - start):
            t[i] = np.sqrt(u[i] + epsilon) / np.sqrt(a[i] + epsilon) * g[i]
        for i in range(stop - start):
            w[i] -= t[i] * lr
        for i in range(stop - start):
            u[i] = u[i] * rho + t[i] * t[i] * one_minus_rho


@njit(**JIT)
def _ftrl(var, accum, linear, grad, lr, l1, l2_twice, shrinkage_twice, lr_power, lo, hi):
    """ApplyFtrlV2 (ApplyFtrl: ``shrinkage_twice`` 0) in TF's float operations; a block's
    new accumulators' powers kept for the variable's pass."""
    roots = lr_power == -0.5            # TF's special case: square roots, not powers
    power = np.empty(min(_BLOCK, max(hi - lo, 0)), var.dtype)
    for start in range(lo, hi, _BLOCK):
        stop = min(hi, start + _BLOCK)
        w, a, z, g = var[start:stop], accum[start:stop], linear[start:stop], grad[start:stop]
        p = power[:stop - start]
        if roots:
            for i in range(stop - start):
                p[i] = np.sqrt(a[i] + g[i] * g[i])
            for i in range(stop - start):
                z[i] += g[i] + shrinkage_twice * w[i] - (p[i] - np.sqrt(a[i])) / lr * w[i]
        else:
            for i in range(stop - start):
                p[i] = (a[i] + g[i] * g[i]) ** -lr_power
            for i in range(stop - start):
                z[i] += g[i] + shrinkage_twice * w[i] - (p[i] - a[i] ** -lr_power) / lr * w[i]
        for i in range(stop - start):
            if abs(z[i]) > l1:
                w[i] = (np.sign(z[i]) * l1 - z[i]) / (p[i] / lr + l2_twice)
            else:
                w[i] = 0
        for i in range(stop - start):
            a[i] += g[i] * g[i]


@njit(**JIT)
def _proximal(var, accum, grad, lr, l1, l2, one, adagrad, lo, hi):
    """ApplyProximalAdagrad (``adagrad``: the rate ``lr / sqrt(accum)``) or
    ApplyProximalGradientDescent (the rate ``lr``; ``accum`` unused), TF's float
    operations; a block's rates kept for the variable's pass."""
    rates = np.empty(min(_BLOCK, max(hi - lo, 0)), var.dtype)
    for start in range(lo, hi, _BLOCK):
        stop = min(hi, start + _BLOCK)
        w, g, r = var[start:stop], grad[start:stop], rates[:stop - start]
        if adagrad:
            a = accum[start:stop]
            for i in range(stop - start):
                a[i] += g[i] * g[i]
            for i in range(stop - start):
                r[i] = lr / np.sqrt(a[i])
        else:
            for i in range(stop - start):
                r[i] = lr
        for i in range(stop - start):
            prox = w[i] - g[i] * r[i]
            if l1 > 0:
                w[i] = np.sign(prox) * max(abs(prox) - r[i] * l1, one - one) / (one + l2 * r[i])
            else:
                w[i] = prox / (one + l2 * r[i])


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


@njit(**PAR)
def _adagrad_parallel(var, accum, grad, lr, update_slots, chunk):
    n = var.size
    for c in prange((n + chunk - 1) // chunk):
        _adagrad(var, accum, grad, lr, update_slots, c * chunk, min(n, c * chunk + chunk))


@njit(**PAR)
def _rms_prop_parallel(var, mg, ms, mom, grad, lr, one_minus_rho, momentum, epsilon, centered,
                       chunk):
    n = var.size
    for c in prange((n + chunk - 1) // chunk):
        _rms_prop(var, mg, ms, mom, grad, lr, one_minus_rho, momentum, epsilon, centered,
                  c * chunk, min(n, c * chunk + chunk))


@njit(**PAR)
def _adadelta_parallel(var, accum, accum_update, grad, lr, rho, one_minus_rho, epsilon, chunk):
    n = var.size
    for c in prange((n + chunk - 1) // chunk):
        _adadelta(var, accum, accum_update, grad, lr, rho, one_minus_rho, epsilon, c * chunk,
                  min(n, c * chunk + chunk))


@njit(**PAR)
def _ftrl_parallel(var, accum, linear, grad, lr, l1, l2_twice, shrinkage_twice, lr_power,
                   chunk):
    n = var.size
    for c in prange((n + chunk - 1) // chunk):
        _ftrl(var, accum, linear, grad, lr, l1, l2_twice, shrinkage_twice, lr_power,
              c * chunk, min(n, c * chunk + chunk))


@njit(**PAR)
def _proximal_parallel(var, accum, grad, lr, l1, l2, one, adagrad, chunk):
    n = var.size
    for c in prange((n + chunk - 1) // chunk):
        _proximal(var, accum, grad, lr, l1, l2, one, adagrad, c * chunk,
                  min(n, c * chunk + chunk))


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


def _run(serial, parallel, size, *args):
    """``serial(*args, 0, size)``, or ``parallel(*args, chunk)`` over a large array."""
    if _parallel(size):
        parallel(*args, _CHUNK)
    else:
        serial(*args, 0, size)


def _adagrad_update(var, accum, lr, grad, update_slots=True):
    _run(_adagrad, _adagrad_parallel, var.size, var.reshape(-1), accum.reshape(-1),
         _flat(grad), lr[()], update_slots)


def _rms_prop_update(var, ms, mom, lr, rho, momentum, epsilon, grad):
    _centered_rms_prop_update(var, None, ms, mom, lr, rho, momentum, epsilon, grad)


def _centered_rms_prop_update(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    one = var.dtype.type(1)
    flat = var.reshape(-1)
    _run(_rms_prop, _rms_prop_parallel, var.size, flat,
         flat[:0] if mg is None else mg.reshape(-1), ms.reshape(-1), mom.reshape(-1),
         _flat(grad), lr[()], one - rho[()], momentum[()], epsilon[()], mg is not None)


def _adadelta_update(var, accum, accum_update, lr, rho, epsilon, grad):
    one = var.dtype.type(1)
    _run(_adadelta, _adadelta_parallel, var.size, var.reshape(-1), accum.reshape(-1),
         accum_update.reshape(-1), _flat(grad), lr[()], rho[()], one - rho[()], epsilon[()])


def _ftrl_v2_update(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power):
    two = var.dtype.type(2)
    _run(_ftrl, _ftrl_parallel, var.size, var.reshape(-1), accum.reshape(-1),
         linear.reshape(-1), _flat(grad), lr[()], l1[()], two * l2[()], two * l2_shrinkage[()],
         lr_power[()])


def _ftrl_update(var, accum, linear, grad, lr, l1, l2, lr_power):
    _ftrl_v2_update(var, accum, linear, grad, lr, l1, l2, np.zeros((), var.dtype), lr_power)


def _proximal_gd_update(var, alpha, l1, l2, delta):
    flat = var.reshape(-1)
    _run(_proximal, _proximal_parallel, var.size, flat, flat[:0], _flat(delta), alpha[()],
         l1[()], l2[()], var.dtype.type(1), False)


def _proximal_adagrad_update(var, accum, lr, l1, l2, grad):
    _run(_proximal, _proximal_parallel, var.size, var.reshape(-1), accum.reshape(-1),
         _flat(grad), lr[()], l1[()], l2[()], var.dtype.type(1), True)


_FUSED = {"ApplyGradientDescent": _gd_update, "ApplyMomentum": _momentum_update,
          "ApplyAdam": _adam_update, "ApplyAdagrad": _adagrad_update,
          "ApplyRMSProp": _rms_prop_update, "ApplyCenteredRMSProp": _centered_rms_prop_update,
          "ApplyAdadelta": _adadelta_update, "ApplyFtrl": _ftrl_update,
          "ApplyFtrlV2": _ftrl_v2_update, "ApplyProximalGradientDescent": _proximal_gd_update,
          "ApplyProximalAdagrad": _proximal_adagrad_update}
_NUMPY = make_updates(np)


# (ApplyAdagradV2, not hot: TF2's Keras Adagrad, imported, and ApplyAdagradDA, TF's a
# CPU-only op, take the reference formula)
@register_kernel(tuple(TRAINING_OPS), "CPU")
def build_apply(node):
    dtype = np.dtype(node.input_dtypes[0])
    update = _NUMPY[node.op] if dtype == _F16 else _FUSED.get(node.op, _NUMPY[node.op])
    return apply_kernel(node, with_flag(node, update))


def _check_folded(node, var, slots, scalars, a, b) -> None:
    """InvalidArgumentError, as the update and the product apart would raise, for
    operands of a folded update that do not fit (a and b already transposed)."""
    for slot in slots:
        if slot.shape != var.shape:
            raise invalid_argument(node.name, node.op, f"var and its slots do not have the "
                                   f"same shape: {fmt_shape(var.shape)} "
                                   f"{fmt_shape(slot.shape)}")
    for value in scalars:
        if np.ndim(value) != 0:
            raise invalid_argument(node.name, node.op, f"the update's hyper-parameters must "
                                   f"be scalars, got shape {fmt_shape(np.shape(value))}")
    if a.shape[1] != b.shape[0] or var.shape != (a.shape[0], b.shape[1]):
        raise invalid_argument(node.name, node.op, f"var {fmt_shape(var.shape)} and the "
                               f"product of {fmt_shape(a.shape)} and {fmt_shape(b.shape)} "
                               f"do not match")


def _folded_kernel(node, update):
    """The kernel of an update the optimizer folded a product into
    (``optimizer/gemm_updates.py``): ``update(var, *slots, *scalars, a, b)`` under the
    variables' locks (in input order, as ``apply_kernel``), the product's
    ``transpose_a``/``transpose_b`` being the update's to apply."""
    transpose_a, transpose_b = node.attrs["transpose_a"], node.attrs["transpose_b"]
    ctx, name = node.context, node.name

    def kernel(*values):
        *scalars, a, b = values
        resources = ctx.ref_resources()
        for resource in resources:
            resource.lock.acquire()
        try:
            var, *slots = [resource.updatable(name) for resource in resources]
            _check_folded(node, var, slots, scalars, a.T if transpose_a else a,
                          b.T if transpose_b else b)
            update(var, *slots, *scalars, a, b)
            return var
        finally:
            for resource in reversed(resources):
                resource.lock.release()
    return kernel


@register_kernel(MATMUL_GRADIENT_DESCENT, "CPU")
def build_matmul_gradient_descent(node):
    """``var -= alpha * op(a) @ op(b)``: one sgemm into the variable."""
    transpose_a, transpose_b = node.attrs["transpose_a"], node.attrs["transpose_b"]

    def update(var, alpha, a, b):
        if var.dtype == _F32 and var.flags.c_contiguous:
            sgemm_update(var, alpha[()], a, transpose_a, b, transpose_b)
        else:
            var -= alpha[()] * np.matmul(a.T if transpose_a else a, b.T if transpose_b else b)
    return _folded_kernel(node, update)


@register_kernel(MATMUL_ADAM, "CPU")
def build_matmul_adam(node):
    """Adam's update whose gradient is ``op(a) @ op(b)`` (``adam_product_update``)."""
    nesterov = bool(node.attrs.get("use_nesterov", False))
    transpose_a, transpose_b = node.attrs["transpose_a"], node.attrs["transpose_b"]

    def update(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, a, b):
        adam_product_update(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                            a.T if transpose_a else a, b.T if transpose_b else b, nesterov)
    kernel = _folded_kernel(node, update)
    kernel.warm = _warm_adam_product
    return kernel


# --- Adam with its gradient's product folded in --------------------------------------------

_BLOCK_FLOATS = 1 << 15       # a block of the gradient, 128 KiB: made and used in L2


def adam_product_update(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, a, b,
                        nesterov=False):
    """Adam's update of var (m, v) with the gradient ``a @ b``, made a block of rows at
    a time into a buffer that stays in cache, each block of var, m and v updated right
    after: the gradient never goes out to memory and back (Deep MNIST's dense layer,
    3136 x 1024: 3.9 -> 3.3 ms).  The block's product is ``register_gemm``'s, the same
    sums in the same order as the product apart, and the update ``_adam``: the results
    are the same to the bit.  float32 on a CPU ``register_gemm`` runs on; anything else
    takes the product and the update apart."""
    if not (var.dtype == a.dtype == b.dtype == _F32 and register_gemm.usable() and
            all(x.flags.c_contiguous for x in (var, m, v)) and
            all(s >= 0 and s % 4 == 0 for s in a.strides)):
        _adam_update(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                     np.matmul(a, b), nesterov)
        return
    if b.strides[1] != 4 or b.strides[0] % 4 or b.strides[0] < 0:
        b = np.ascontiguousarray(b)                # tiles read B's rows in place
    one = var.dtype.type(1)
    alpha = var.dtype.type(lr[()] * np.sqrt(one - beta2_power[()]) / (one - beta1_power[()]))
    rows, n = var.shape
    block = max(register_gemm.MR, _BLOCK_FLOATS // max(n, 1) // register_gemm.MR *
                register_gemm.MR)
    tasks = num_threads() if _parallel(var.size) else 1
    (_adam_product_parallel if tasks > 1 else _adam_product_serial)(
        register_gemm.tile_address(), a.ctypes.data, a.strides[0] // 4, a.strides[1] // 4,
        b.ctypes.data, b.strides[0] // 4 if b.shape[0] > 1 else n, a.shape[1], var, m, v,
        alpha, beta1[()], one - beta1[()], one - beta2[()], epsilon[()], nesterov, block,
        tasks)


def _adam_product(tile, a, rsa, csa, b, ldb, k, var, m, v, alpha, beta1, one_minus_beta1,
                  one_minus_beta2, epsilon, nesterov, block, tasks):
    """Each task: its share of var's rows, ``block`` rows at a time, the gradient's
    rows made into the task's buffer and used there (addresses and strides in floats,
    as ``register_gemm.multiply``'s)."""
    rows, n = var.shape
    for task in prange(tasks):
        gradient = np.empty((block, n), np.float32)
        first, last = task * rows // tasks, (task + 1) * rows // tasks
        for r0 in range(first, last, block):
            r1 = min(last, r0 + block)
            register_gemm.multiply(tile, a + 4 * r0 * rsa, rsa, csa, b, ldb,
                                   gradient.ctypes.data, n, r1 - r0, n, k, np.float32(1.0), 0)
            size = (r1 - r0) * n
            _adam(var[r0:r1].reshape(-1), m[r0:r1].reshape(-1), v[r0:r1].reshape(-1),
                  gradient.reshape(-1)[:size], alpha, beta1, one_minus_beta1, one_minus_beta2,
                  epsilon, nesterov, 0, size)


def _adam_product_here(tile, a, rsa, csa, b, ldb, k, var, m, v, alpha, beta1, one_minus_beta1,
                       one_minus_beta2, epsilon, nesterov, block, tasks):
    """``_adam_product`` on the calling thread (a function of its own: numba's disk
    cache keys compiled code by function, and would hand the parallel body to both)."""
    _adam_product_inline(tile, a, rsa, csa, b, ldb, k, var, m, v, alpha, beta1,
                         one_minus_beta1, one_minus_beta2, epsilon, nesterov, block, tasks)


_adam_product_parallel = njit(**PAR)(_adam_product)
_adam_product_inline = njit(**JIT, inline="always")(_adam_product)
_adam_product_serial = njit(**JIT)(_adam_product_here)


def _warm_adam_product() -> None:
    """Compile both drivers on small arrays of their own (a plan's warming calls this
    instead of the kernel, which would update the real variables)."""
    if not register_gemm.usable():
        return
    f32 = np.float32
    for driver, tasks in ((_adam_product_serial, 1), (_adam_product_parallel, 2)):
        var, m, v = (np.zeros((12, 16), f32) for _ in range(3))
        a, b = np.ones((12, 3), f32), np.ones((3, 16), f32)
        driver(register_gemm.tile_address(), a.ctypes.data, 3, 1, b.ctypes.data, 16, 3,
               var, m, v, f32(1e-3), f32(0.9), f32(0.1), f32(1e-3), f32(1e-8), False, 6, tasks)
