"""The kernel of ``Bucketize`` (``devsession/ops/bucketize.py``) over numpy or cupy
(``make_builders(xp)``): ``searchsorted(boundaries, x, side="right")`` is TF's
``std::upper_bound``, with the boundaries float32 as TF's attr holds them and each value
compared as C++ compares it with a float (an integer converted to float32, a double
compared in double)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["make_builders"]


def _as_is(node, fn):
    return fn


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    def bucketize_builder(node):
        edges = np.asarray(node.attrs.get("boundaries", []), np.float32)

        def bucketize(x):
            if np.any(edges[1:] < edges[:-1]):
                raise invalid_argument(node.name, node.op, "Expected sorted boundaries")
            values = x if x.dtype == np.float64 else x.astype(np.float32, copy=False)
            bounds = xp.asarray(edges.astype(values.dtype))
            return xp.searchsorted(bounds, values, side="right").astype(np.int32)
        return wrap(node, bucketize)
    return {"Bucketize": bucketize_builder}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
