"""Kernels of Roll and LowerBound/UpperBound (``devsession/ops/array_order.py``).

* Roll: ``xp.roll`` over numpy or cupy (``make_builders``; ``cuda/array_order.py``
  registers the cupy builders), shifts and axes read on the host; TF's checks and
  messages (an input of rank 0, shift and axis of different sizes, an axis out of range).
* LowerBound/UpperBound: ``np.searchsorted`` row by row (HOST; the GPU runs it through
  the host).  The rows' counts must agree: TF's 'Leading dim_size...' error.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from .array import on_host

__all__ = ["make_builders", "HOST_BUILDERS"]


def _as_is(node, fn):
    return fn


def _roll(node, xp):
    def roll(x, shift, axis):
        shifts, axes = on_host(shift), on_host(axis)
        if x.ndim == 0:
            raise invalid_argument(node.name, node.op, "input must be 1-D or higher")
        if shifts.ndim > 1 or axes.ndim > 1 or shifts.shape != axes.shape:
            raise invalid_argument(node.name, node.op, "shift and axis must have the same "
                                   "size")
        for a in axes.reshape(-1):
            if not -x.ndim <= int(a) < x.ndim:
                raise invalid_argument(node.name, node.op, f"axis {int(a)} is out of range")
        total = [0] * x.ndim                      # repeated axes add their shifts
        for s, a in zip(shifts.reshape(-1), axes.reshape(-1)):
            total[int(a) % x.ndim] += int(s)
        moved = [(a, s) for a, s in enumerate(total) if x.shape[a] and s % x.shape[a]]
        if not moved:
            return x.copy()
        return xp.roll(x, [s for _, s in moved], [a for a, _ in moved])
    return roll


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """Roll's builder over array module ``xp`` (numpy or cupy)."""
    return {"Roll": lambda node: wrap(node, _roll(node, xp))}


def _bound(node):
    side = "left" if node.op == "LowerBound" else "right"
    out_dtype = np.dtype(node.output_dtype)

    def bound(sorted_inputs, values):
        if sorted_inputs.ndim != 2 or values.ndim != 2:
            raise invalid_argument(node.name, node.op, "sorted_inputs and values must be "
                                   "2-D")
        if sorted_inputs.shape[0] != values.shape[0]:
            raise invalid_argument(node.name, node.op, "Leading dim_size of both tensors "
                                   "must match.")
        out = np.empty(values.shape, out_dtype)
        for row in range(values.shape[0]):
            out[row] = np.searchsorted(sorted_inputs[row], values[row], side=side)
        return out
    return bound


HOST_BUILDERS = {"LowerBound": _bound, "UpperBound": _bound}
for _op, _builder in {**make_builders(np), **HOST_BUILDERS}.items():
    register_kernel(_op, HOST)(_builder)
