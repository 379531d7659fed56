"""The optimizers' fused updates on the GPU: one ``cupy.ElementwiseKernel`` launch per
update, writing the variable and its slots in place.

The frame (locks, copy-on-write, shape checks) is ``reference/training.py``'s, with
each variable first moved to the node's GPU (``state._on_this_device``: once, the
first time).  The hyper-parameters stay 0-d device arrays broadcast into the kernel,
so an update never waits for the GPU to hand a scalar to the host; Adam's
``alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`` is recomputed per element
in the variable's type, which costs nothing next to the memory traffic.  float16
variables take the reference formulas over cupy, and so do the ``SparseApply<X>`` ops
(``reference/sparse_training.py``: rows gathered and written back by fancy indexing).

The operations are the CUDA C cupy compiles; CI's stand-in for cupy compiles the same
text with the host's C++ compiler (``tests/cuda_host.py``) and runs it.
"""

from __future__ import annotations

import cupy
import numpy as np

from ...ops.sparse_training import SPARSE_TRAINING_OPS
from ...ops.training import TRAINING_OPS
from ..reference.sparse_training import sparse_apply_kernel
from ..reference.training import apply_kernel, flag_of, make_updates, with_flag
from ..registry import register_kernel
from .device import on_device
from .state import _on_this_device

__all__ = ["OPERATIONS", "build_apply", "build_sparse_apply"]

_F16 = np.dtype(np.float16)

# FTRL-proximal, given the gradient linear takes (ApplyFtrlV2's adds its shrinkage)
_FTRL = ("T new_accum = accum + grad * grad;\n"
         "T new_power = lr_power == (T)(-0.5) ? sqrt(new_accum) : pow(new_accum, -lr_power);\n"
         "T old_power = lr_power == (T)(-0.5) ? sqrt(accum) : pow(accum, -lr_power);\n"
         "linear += %s - (new_power - old_power) / lr * var;\n"
         "var = fabs(linear) > l1 ? ((linear > 0 ? l1 : -l1) - linear) / "
         "(new_power / lr + (T)2 * l2) : (T)0;\n"
         "accum = new_accum;")

# FOBOS: var from prox = var - grad * rate, shrunk by L1 and L2
_PROXIMAL = ("var = l1 > (T)0 ? ((prox > 0) - (prox < 0)) * "
             "fmax(fabs(prox) - rate * l1, (T)0) / ((T)1 + l2 * rate) "
             ": prox / ((T)1 + l2 * rate);")

# (op type, its flag: use_nesterov, update_slots or None) -> (in_params, out_params,
# operation); inputs in the op's order
OPERATIONS = {
    ("ApplyGradientDescent", None): (
        "T alpha, T delta", "T var",
        "var -= delta * alpha;"),
    ("ApplyMomentum", False): (
        "T lr, T grad, T momentum", "T var, T accum",
        "accum = accum * momentum + grad;\n"
        "var -= accum * lr;"),
    ("ApplyMomentum", True): (
        "T lr, T grad, T momentum", "T var, T accum",
        "accum = accum * momentum + grad;\n"
        "var -= grad * lr + accum * momentum * lr;"),
    ("ApplyAdam", False): (
        "T beta1_power, T beta2_power, T lr, T beta1, T beta2, T epsilon, T grad",
        "T var, T m, T v",
        "m += (grad - m) * (1 - beta1);\n"
        "v += (grad * grad - v) * (1 - beta2);\n"
        "var -= m * (lr * sqrt(1 - beta2_power) / (1 - beta1_power)) / (sqrt(v) + epsilon);"),
    ("ApplyAdam", True): (
        "T beta1_power, T beta2_power, T lr, T beta1, T beta2, T epsilon, T grad",
        "T var, T m, T v",
        "m += (grad - m) * (1 - beta1);\n"
        "v += (grad * grad - v) * (1 - beta2);\n"
        "var -= (grad * (1 - beta1) + beta1 * m) * (lr * sqrt(1 - beta2_power) / "
        "(1 - beta1_power)) / (sqrt(v) + epsilon);"),
    ("ApplyAdagrad", True): (
        "T lr, T grad", "T var, T accum",
        "accum += grad * grad;\n"
        "var -= grad * lr / sqrt(accum);"),
    ("ApplyAdagrad", False): (
        "T lr, T grad", "T var, T accum",
        "var -= grad * lr / sqrt(accum);"),
    ("ApplyAdagradV2", True): (
        "T lr, T epsilon, T grad", "T var, T accum",
        "accum += grad * grad;\n"
        "var -= grad * lr / (sqrt(accum) + epsilon);"),
    ("ApplyAdagradV2", False): (
        "T lr, T epsilon, T grad", "T var, T accum",
        "var -= grad * lr / (sqrt(accum) + epsilon);"),
    ("ApplyRMSProp", None): (
        "T lr, T rho, T momentum, T epsilon, T grad", "T var, T ms, T mom",
        "ms += (grad * grad - ms) * (1 - rho);\n"
        "mom = mom * momentum + grad * lr / sqrt(ms + epsilon);\n"
        "var -= mom;"),
    ("ApplyCenteredRMSProp", None): (
        "T lr, T rho, T momentum, T epsilon, T grad", "T var, T mg, T ms, T mom",
        "ms += (grad * grad - ms) * (1 - rho);\n"
        "mg += (grad - mg) * (1 - rho);\n"
        "mom = mom * momentum + grad * lr / sqrt(ms - mg * mg + epsilon);\n"
        "var -= mom;"),
    ("ApplyAdadelta", None): (
        "T lr, T rho, T epsilon, T grad", "T var, T accum, T accum_update",
        "accum = accum * rho + grad * grad * (1 - rho);\n"
        "T step = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad;\n"
        "var -= step * lr;\n"
        "accum_update = accum_update * rho + step * step * (1 - rho);"),
    ("ApplyFtrl", None): (
        "T grad, T lr, T l1, T l2, T lr_power", "T var, T accum, T linear",
        _FTRL % "grad"),
    ("ApplyFtrlV2", None): (
        "T grad, T lr, T l1, T l2, T l2_shrinkage, T lr_power", "T var, T accum, T linear",
        _FTRL % "(grad + (T)2 * l2_shrinkage * var)"),
    ("ApplyProximalGradientDescent", None): (
        "T alpha, T l1, T l2, T delta", "T var",
        "T rate = alpha;\nT prox = var - delta * rate;\n" + _PROXIMAL),
    ("ApplyProximalAdagrad", None): (
        "T lr, T l1, T l2, T grad", "T var, T accum",
        "accum += grad * grad;\nT rate = lr / sqrt(accum);\nT prox = var - grad * rate;\n"
        + _PROXIMAL),
    ("ApplyAdagradDA", None): (
        "T grad, T lr, T l1, T l2, int64 global_step",
        "T var, T gradient_accumulator, T gradient_squared_accumulator",
        "gradient_accumulator += grad;\n"
        "gradient_squared_accumulator += grad * grad;\n"
        "T steps = (T)(float)global_step;\n"
        "T shrunk = l1 > (T)0 ? ((gradient_accumulator > 0) - (gradient_accumulator < 0)) * "
        "fmax(fabs(gradient_accumulator) - steps * l1, (T)0) : gradient_accumulator;\n"
        "var = lr * -shrunk / (l2 * (steps * lr) + sqrt(gradient_squared_accumulator));"),
}

_kernels: dict = {}


def _update(key):
    """``update(var, *slots, *values)`` launching the kernel of ``key`` (built once)."""
    in_params, out_params, operation = OPERATIONS[key]
    kernel = _kernels.get(key)
    if kernel is None:
        name = f"devsession_{key[0].lower()}{'' if key[1] is None else f'_{int(key[1])}'}"
        kernel = _kernels[key] = cupy.ElementwiseKernel(in_params, out_params, operation,
                                                        name=name)
    outs = len(out_params.split(","))

    def update(*arrays_and_values):    # cupy takes the inputs first, then the outputs
        kernel(*arrays_and_values[outs:], *arrays_and_values[:outs])
    return update


_CUPY = make_updates(cupy)


@register_kernel(tuple(TRAINING_OPS), "GPU")
def build_apply(node):
    name, index = node.name, node.device.index
    if np.dtype(node.input_dtypes[0]) == _F16:
        update = with_flag(node, _CUPY[node.op])
    else:
        update = _update((node.op, flag_of(node)))
    return on_device(node, apply_kernel(
        node, update, to_device=lambda resource: _on_this_device(resource, name, index)))


@register_kernel(tuple(SPARSE_TRAINING_OPS), "GPU")
def build_sparse_apply(node):
    """SparseApply<X>: the reference's kernel over cupy (fancy indexing), not hot."""
    name, index = node.name, node.device.index
    return on_device(node, sparse_apply_kernel(
        node, _CUPY, cupy, to_device=lambda resource: _on_this_device(resource, name, index)))
