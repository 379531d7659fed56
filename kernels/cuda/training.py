"""The optimizers' fused updates on the GPU: one ``cupy.ElementwiseKernel`` launch per
update, writing the variable and its slots in place.

The frame (locks, copy-on-write, shape checks) is ``reference/training.py``'s, with
each variable first moved to the node's GPU (``state._on_this_device``: once, the
first time).  The hyper-parameters stay 0-d device arrays broadcast into the kernel,
so an update never waits for the GPU to hand a scalar to the host; Adam's
``alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`` is recomputed per element
in the variable's type, which costs nothing next to the memory traffic.  float16
variables take the reference formulas over cupy.

The operations are written in the common subset of C and Python (statements of
``x -= expr;``, ``sqrt``), which lets CI's numpy stand-in for cupy run the very text.
"""

from __future__ import annotations

import cupy
import numpy as np

from ..reference.training import apply_kernel, make_updates, with_nesterov
from ..registry import register_kernel
from .device import on_device
from .state import _on_this_device

__all__ = ["OPERATIONS", "build_apply"]

_F16 = np.dtype(np.float16)

# (op type, use_nesterov) -> (in_params, out_params, operation); inputs in the op's order
OPERATIONS = {
    ("ApplyGradientDescent", False): (
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
}

_kernels: dict = {}


def _update(key):
    """``update(var, *slots, *values)`` launching the kernel of ``key`` (built once)."""
    in_params, out_params, operation = OPERATIONS[key]
    kernel = _kernels.get(key)
    if kernel is None:
        name = f"devsession_{key[0].lower()}{'_nesterov' if key[1] else ''}"
        kernel = _kernels[key] = cupy.ElementwiseKernel(in_params, out_params, operation,
                                                        name=name)
    outs = len(out_params.split(","))

    def update(*arrays_and_values):    # cupy takes the inputs first, then the outputs
        kernel(*arrays_and_values[outs:], *arrays_and_values[:outs])
    return update


_CUPY = make_updates(cupy)


@register_kernel(("ApplyGradientDescent", "ApplyMomentum", "ApplyAdam"), "GPU")
def build_apply(node):
    name, index = node.name, node.device.index
    if np.dtype(node.input_dtypes[0]) == _F16:
        update = with_nesterov(node, _CUPY[node.op])
    else:
        update = _update((node.op, bool(node.attrs.get("use_nesterov", False))))
    return on_device(node, apply_kernel(
        node, update, to_device=lambda resource: _on_this_device(resource, name, index)))
