"""Reference kernels of the neural-network ops.

* ``Softmax`` subtracts the max first, so huge finite inputs give no inf/nan.
"""

from __future__ import annotations

import numpy as np

from ..checks import check_axes, get_attr
from ..registry import register_kernel
from .elementwise import compute_dtype

DEVICE = "REF"


@register_kernel("Softmax", DEVICE)
def build_softmax(node):
    axis = int(get_attr(node, "axis"))
    out_dtype = node.output_dtype

    def softmax(x):
        check_axes(node.name, node.op, x.shape, (axis,))
        if x.size == 0:
            return np.empty(x.shape, out_dtype)
        xc = compute_dtype(x)
        with np.errstate(all="ignore"):
            e = np.exp(xc - np.max(xc, axis=axis, keepdims=True))
            return (e / np.sum(e, axis=axis, keepdims=True)).astype(out_dtype, copy=False)
    return softmax
