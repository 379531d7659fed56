"""Kernels of EnsureShape, ShapeN and BroadcastArgs (``devsession/ops/array_shapes.py``).

* EnsureShape hands back a copy of its input, on numpy or cupy alike (a view would
  need it among ``runtime/plan.py``'s ALIASING_OPS), after it checks the value's shape against its ``shape`` attr (TF's message; the expected
  shape's unknown dimensions print as ``?``).
* ShapeN and BroadcastArgs compute shapes on the host (HOST; the GPU runs them through
  the host, as TF keeps them in host memory).
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["PASS_THROUGH", "HOST_BUILDERS"]


def _compatible(shape: tuple, expected) -> bool:
    if expected is None:
        return True
    return len(shape) == len(expected) and all(
        e is None or e < 0 or int(e) == d for d, e in zip(shape, expected))


def build_ensure_shape(node):
    expected = node.attrs.get("shape")
    shown = None if expected is None else "[" + ",".join(
        "?" if e is None or e < 0 else str(e) for e in expected) + "]"

    def ensure_shape(x):
        if not _compatible(x.shape, expected):
            raise invalid_argument(node.name, node.op, f"Shape of tensor "
                                   f"{fmt_shape(x.shape)} is not compatible with expected "
                                   f"shape {shown}.")
        return x.copy()
    return ensure_shape


def _shape_n(node):
    dtypes = node.output_dtypes or (np.dtype(node.output_dtype),)

    def shape_n(*xs):
        return tuple(np.array(x.shape, dtypes[min(k, len(dtypes) - 1)])
                     for k, x in enumerate(xs))
    return shape_n


def _broadcast_args(node):
    def broadcast_args(s0, s1):
        a, b = (tuple(int(d) for d in np.asarray(s).reshape(-1)) for s in (s0, s1))
        try:
            out = np.broadcast_shapes(a, b)
        except ValueError:
            raise invalid_argument(node.name, node.op, f"Incompatible shapes: "
                                   f"{fmt_shape(a)} vs. {fmt_shape(b)}") from None
        return np.array(out, np.dtype(node.output_dtype))
    return broadcast_args


# Copies on any array module: the GPU registers this builder as it is.
PASS_THROUGH = {"EnsureShape": build_ensure_shape}
HOST_BUILDERS = {"ShapeN": _shape_n, "BroadcastArgs": _broadcast_args}
for _op, _builder in {**PASS_THROUGH, **HOST_BUILDERS}.items():
    register_kernel(_op, HOST)(_builder)
