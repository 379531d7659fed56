"""The ``CheckNumerics`` kernel, over any array module (numpy on the host; the CUDA
module registers it over cupy): the input itself, or ``InvalidArgumentError`` with TF's
"<message> : Tensor had NaN values" ("Inf values", "Inf and NaN values").  The check
is two reductions read back to the host."""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["make_check_numerics_builder"]


def make_check_numerics_builder(xp):
    def build_check_numerics(node):
        message = node.attrs.get("message", "")

        def kernel(x):
            nan, inf = bool(xp.isnan(x).any()), bool(xp.isinf(x).any())
            if nan or inf:
                what = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
                raise invalid_argument(node.name, node.op,
                                       f"{message} : Tensor had {what} values")
            return x
        return kernel
    return build_check_numerics


register_kernel("CheckNumerics", HOST)(make_check_numerics_builder(np))
