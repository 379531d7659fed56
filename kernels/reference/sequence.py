"""Kernels of the ops whose output size depends on their input values: Range, Unique and
Where (indices), for the reference device and the CPU (``HOST``: numpy is both the
clearest and a fast formulation; ``cuda/host_ops.py`` runs them for the GPU).

* Range counts its elements as TF does (``ceil(|limit - start| / |delta|)``, exactly for
  integers) and raises ``InvalidArgumentError`` for a zero delta or unreachable limit.
* Unique keeps the order of first appearance (``np.unique`` sorts; the order is restored).
* Where lists coordinates in row-major order, as int64.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel


def _range_values(node, start, limit, delta):
    start, limit, delta = (np.asarray(v).reshape(()) for v in (start, limit, delta))
    dtype = node.output_dtype
    s, lim, d = start.item(), limit.item(), delta.item()
    if d == 0 or (d > 0 and s > lim) or (d < 0 and s < lim):
        raise invalid_argument(node.name, node.op, f"cannot count from {s} to {lim} in steps "
                               f"of {d}: delta must be non-zero and point from start to limit")
    if dtype.kind in "iu":
        n = (abs(int(lim) - int(s)) + abs(int(d)) - 1) // abs(int(d))
    else:
        n = int(np.ceil(abs((lim - s) / d)))
    return (start + np.arange(n, dtype=dtype) * delta).astype(dtype)


@register_kernel("Range", HOST)
def build_range(node):
    return lambda start, limit, delta: _range_values(node, start, limit, delta)


@register_kernel("Unique", HOST)
def build_unique(node):
    idx_dtype = node.output_dtypes[1] if node.output_dtypes else np.dtype(np.int32)

    def unique(x):
        if x.ndim != 1:
            raise invalid_argument(node.name, node.op, f"unique needs a 1-D input, got shape "
                                   f"{fmt_shape(x.shape)}")
        _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")          # by first appearance
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return x[first[order]], rank[inverse.reshape(-1)].astype(idx_dtype)
    return unique


@register_kernel("Where", HOST)
def build_where(node):
    return lambda x: np.argwhere(x).astype(np.int64)
