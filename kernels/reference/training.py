"""Kernels of the optimizers' fused updates (``devsession/ops/training.py``): the frame
every device runs them in, and the reference formulas.

``apply_kernel(node, update, to_device=None)`` is the frame.  A kernel gets the op's
value inputs (hyper-parameters as 0-d arrays, and the gradient); the variables its ref
inputs name come from the session's resources (``KernelNode.context.ref_resources()``).
It locks them in input order (the variable first, so two optimizers of one variable
cannot deadlock), asks each for an array it may update in place (copy-on-write when a
reader still holds the current one: ``VariableResource.updatable``), checks shapes
like TF (``InvalidArgumentError`` naming the node), runs
``update(var, *slots, *values)`` and returns the variable's array (the plan copies
it if fetched).  An uninitialized variable or slot is ``FailedPreconditionError``.
``to_device(resource)`` first moves a value to the kernel's device (the GPU's).

The formulas are TF's kernels' (``training_ops.cc``), written over an array module
``xp`` so numpy runs them here (the "REF" oracle, and the CPU's float16 path) and cupy
runs them for float16 on the GPU; the CPU and GPU run float32/float64 in one pass
(``cpu/training.py``, ``cuda/training.py``).
"""

from __future__ import annotations

import numpy as np

from ...ops.training import FLAG_ATTRS
from ..checks import fmt_shape, invalid_argument
from ..registry import register_kernel

__all__ = ["apply_kernel", "make_updates", "flag_of", "with_flag", "SHAPED_INPUTS", "SLOT_NAMES"]

DEVICE = "REF"

# op type -> positions, among the op's value inputs, of those shaped like the variable
SHAPED_INPUTS = {"ApplyGradientDescent": (1,), "ApplyMomentum": (1,), "ApplyAdam": (6,),
                 "ApplyAdagrad": (1,), "ApplyAdagradV2": (2,), "ApplyRMSProp": (4,), "ApplyCenteredRMSProp": (4,),
                 "ApplyAdadelta": (3,), "ApplyFtrl": (0,), "ApplyFtrlV2": (0,),
                 "ApplyProximalGradientDescent": (3,), "ApplyProximalAdagrad": (3,),
                 "ApplyAdagradDA": (0,)}
SLOT_NAMES = {"ApplyMomentum": ("accum",), "ApplyAdam": ("m", "v"), "ApplyAdagrad": ("accum",),
              "ApplyAdagradV2": ("accum",),
               "ApplyRMSProp": ("ms", "mom"), "ApplyCenteredRMSProp": ("mg", "ms", "mom"),
               "ApplyAdadelta": ("accum", "accum_update"), "ApplyFtrl": ("accum", "linear"),
               "ApplyFtrlV2": ("accum", "linear"), "ApplyProximalAdagrad": ("accum",),
               "ApplyAdagradDA": ("gradient_accumulator", "gradient_squared_accumulator")}


def apply_kernel(node, update, to_device=None, check=None):
    """The kernel of ``node`` running ``update`` (see the module docstring);
    ``check(node, arrays, values)`` replaces the dense ops' shape checks."""
    ctx, name, op = node.context, node.name, node.op
    if check is None:
        shaped = SHAPED_INPUTS[op]
        slot_names = SLOT_NAMES.get(op, ())

        def check(node, arrays, values):
            _check_shapes(node, arrays, values, shaped, slot_names)

    def kernel(*values):
        resources = ctx.ref_resources()
        if to_device is not None:
            for resource in resources:
                to_device(resource)
        for resource in resources:
            resource.lock.acquire()
        try:
            arrays = [resource.updatable(name) for resource in resources]
            check(node, arrays, values)
            update(*arrays, *values)
            return arrays[0]
        finally:
            for resource in reversed(resources):
                resource.lock.release()
    return kernel


def _check_shapes(node, arrays, values, shaped, slot_names) -> None:
    shape = arrays[0].shape
    for slot, array in zip(slot_names, arrays[1:]):
        if array.shape != shape:
            raise invalid_argument(node.name, node.op, f"var and {slot} do not have the "
                                   f"same shape: {fmt_shape(shape)} {fmt_shape(array.shape)}")
    for k, value in enumerate(values):
        if k in shaped:
            if value.shape != shape:
                raise invalid_argument(node.name, node.op, f"var and grad do not have the "
                                       f"same shape: {fmt_shape(shape)} "
                                       f"{fmt_shape(value.shape)}")
        elif value.ndim != 0:
            raise invalid_argument(node.name, node.op, f"input {k + len(arrays)} is not a "
                                   f"scalar: {fmt_shape(value.shape)}")


def make_updates(xp) -> dict:
    """op type -> ``update(var, *slots, *values)``, in place, with array module ``xp``."""

    def gradient_descent(var, alpha, delta):
        var -= delta * alpha

    def momentum(var, accum, lr, grad, momentum, nesterov=False):
        accum *= momentum
        accum += grad
        if nesterov:
            var -= grad * lr + accum * momentum * lr
        else:
            var -= accum * lr

    def adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
             nesterov=False):
        one = var.dtype.type(1)
        alpha = lr * xp.sqrt(one - beta2_power) / (one - beta1_power)
        m += (grad - m) * (one - beta1)
        v += (grad * grad - v) * (one - beta2)
        if nesterov:
            var -= (grad * (one - beta1) + beta1 * m) * alpha / (xp.sqrt(v) + epsilon)
        else:
            var -= m * alpha / (xp.sqrt(v) + epsilon)

    def adagrad_v2(var, accum, lr, epsilon, grad, update_slots=True):
        if update_slots:
            accum += grad * grad
        var -= grad * lr / (xp.sqrt(accum) + epsilon)

    def adagrad(var, accum, lr, grad, update_slots=True):
        adagrad_v2(var, accum, lr, var.dtype.type(0), grad, update_slots)

    def rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad):
        one = var.dtype.type(1)
        ms += (grad * grad - ms) * (one - rho)
        mom *= momentum
        mom += grad * lr / xp.sqrt(ms + epsilon)
        var -= mom

    def centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
        one = var.dtype.type(1)
        ms += (grad * grad - ms) * (one - rho)
        mg += (grad - mg) * (one - rho)
        mom *= momentum
        mom += grad * lr / xp.sqrt(ms - mg * mg + epsilon)
        var -= mom

    def adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
        one = var.dtype.type(1)
        accum *= rho
        accum += grad * grad * (one - rho)
        update = xp.sqrt(accum_update + epsilon) / xp.sqrt(accum + epsilon) * grad
        var -= update * lr
        accum_update *= rho
        accum_update += update * update * (one - rho)

    def ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power):
        two = var.dtype.type(2)
        new_accum = accum + grad * grad
        if lr_power == -0.5:            # TF's special case: square roots, not powers
            old_power, new_power = xp.sqrt(accum), xp.sqrt(new_accum)
        else:
            old_power, new_power = accum ** -lr_power, new_accum ** -lr_power
        linear += grad + two * l2_shrinkage * var - (new_power - old_power) / lr * var
        quadratic = new_power / lr + two * l2
        var[...] = xp.where(xp.abs(linear) > l1, (xp.sign(linear) * l1 - linear) / quadratic,
                            var.dtype.type(0))
        accum[...] = new_accum

    def ftrl(var, accum, linear, grad, lr, l1, l2, lr_power):
        ftrl_v2(var, accum, linear, grad, lr, l1, l2, var.dtype.type(0), lr_power)

    def proximal_step(var, prox, rate, l1, l2):
        """FOBOS: ``var`` from ``prox = var - grad * rate``, shrunk by L1 and L2."""
        one = var.dtype.type(1)
        if l1 > 0:
            var[...] = xp.sign(prox) * xp.maximum(xp.abs(prox) - rate * l1,
                                                  var.dtype.type(0)) / (one + l2 * rate)
        else:
            var[...] = prox / (one + l2 * rate)

    def proximal_gradient_descent(var, alpha, l1, l2, delta):
        proximal_step(var, var - delta * alpha, alpha, l1, l2)

    def proximal_adagrad(var, accum, lr, l1, l2, grad):
        accum += grad * grad
        rate = lr / xp.sqrt(accum)
        proximal_step(var, var - grad * rate, rate, l1, l2)

    def adagrad_da(var, accum, squared, grad, lr, l1, l2, global_step):
        """Dual averaging: the slots sum the gradients and their squares, the variable
        is their closed form at step ``global_step`` (TF takes it through float32)."""
        accum += grad
        squared += grad * grad
        steps = global_step.astype(np.float32).astype(var.dtype)
        shrunk = accum
        if l1 > 0:
            shrunk = xp.sign(accum) * xp.maximum(xp.abs(accum) - steps * l1, var.dtype.type(0))
        var[...] = lr * -shrunk / (l2 * (steps * lr) + xp.sqrt(squared))

    return {"ApplyGradientDescent": gradient_descent, "ApplyMomentum": momentum,
            "ApplyAdam": adam, "ApplyAdagrad": adagrad, "ApplyAdagradV2": adagrad_v2,
            "ApplyRMSProp": rms_prop,
            "ApplyCenteredRMSProp": centered_rms_prop, "ApplyAdadelta": adadelta,
            "ApplyFtrl": ftrl, "ApplyFtrlV2": ftrl_v2,
            "ApplyProximalGradientDescent": proximal_gradient_descent,
            "ApplyProximalAdagrad": proximal_adagrad, "ApplyAdagradDA": adagrad_da}


def flag_of(node):
    """The node's value of the boolean attr its formula depends on (``use_nesterov``,
    ``update_slots``), None for an op without one (``FLAG_ATTRS``)."""
    if node.op not in FLAG_ATTRS:
        return None
    attr, default = FLAG_ATTRS[node.op]
    return bool(node.attrs.get(attr, default))


def with_flag(node, update):
    """``update`` with the node's flag (``flag_of``) bound as its last argument."""
    flag = flag_of(node)
    return update if flag is None else (lambda *args: update(*args, flag))


_NUMPY_UPDATES = make_updates(np)


@register_kernel(tuple(_NUMPY_UPDATES), DEVICE)
def build_apply(node):
    return apply_kernel(node, with_flag(node, _NUMPY_UPDATES[node.op]))
