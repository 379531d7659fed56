"""Neural-network GPU kernels.

* Softmax subtracts the max along the axis, then one fused kernel computes
  ``exp(x - max)`` and one divides by the sum: no inf/nan for huge finite inputs.
"""

from __future__ import annotations

import cupy

from ..checks import check_axes, get_attr
from ..registry import register_kernel
from .device import on_device
from .elementwise import ElementwiseKernel
from .reduce import compute_dtype

__all__ = ["build_softmax"]


@register_kernel("Softmax", "GPU")
def build_softmax(node):
    axis = int(get_attr(node, "axis"))
    out_dtype = node.output_dtype
    acc = compute_dtype(out_dtype)
    shifted_exp = ElementwiseKernel("exp(x - m)", [("x", node.input_dtypes[0]), ("m", acc)],
                                    acc, name=node.name, op=node.op)
    normalise = ElementwiseKernel("e / s", [("e", acc), ("s", acc)], out_dtype,
                                  name=node.name, op=node.op)

    def softmax(x):
        check_axes(node.name, node.op, x.shape, (axis,))
        if x.size == 0:
            return cupy.empty(x.shape, out_dtype)
        m = cupy.max(x, axis=axis, keepdims=True).astype(acc, copy=False)
        e = shifted_exp(x, m)
        return normalise(e, cupy.sum(e, axis=axis, keepdims=True, dtype=acc))
    return on_device(node, softmax)
