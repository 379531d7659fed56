"""Kernels of Roll and LowerBound/UpperBound (``devsession/ops/array_order.py``).

* Roll: ``xp.roll`` over numpy or cupy (``make_builders``; ``cuda/array_order.py``
  registers the cupy builders), shifts and axes read on the host; TF's checks and
  messages (an input of rank 0, shift and axis of different sizes, an axis out of range).
* LowerBound/UpperBound: TF's binary search (``std::lower_bound``/``std::upper_bound``, the
  same steps as its GPU kernel's), all values at once (HOST; the GPU runs it through the
  host): on a row that is not sorted it returns TF's index, where ``np.searchsorted``'s
  search returns another.  The rows' counts must agree: TF's 'Leading dim_size...' error.
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


def _binary_search(rows, values, upper: bool) -> np.ndarray:
    """Per row, ``std::upper_bound`` (``upper``) or ``std::lower_bound`` of each value, step
    by step: from ``first`` over ``count`` elements, look at ``first + count // 2`` and go
    right past it when it is <= the value (< for the lower bound), else keep its left."""
    first = np.zeros(values.shape, np.int64)
    count = np.full(values.shape, rows.shape[1], np.int64)
    while True:
        searching = count > 0
        if not searching.any():
            return first
        step = count // 2
        middle = first + step
        element = np.take_along_axis(rows, np.minimum(middle, rows.shape[1] - 1), axis=1)
        right = searching & (~(values < element) if upper else element < values)
        first = np.where(right, middle + 1, first)
        count = np.where(right, count - step - 1, step)


def _bound(node):
    upper = node.op == "UpperBound"
    out_dtype = np.dtype(node.output_dtype)

    def bound(sorted_inputs, values):
        if sorted_inputs.ndim != 2 or values.ndim != 2:
            raise invalid_argument(node.name, node.op, "sorted_inputs and values must be "
                                   "2-D")
        if sorted_inputs.shape[0] != values.shape[0]:
            raise invalid_argument(node.name, node.op, "Leading dim_size of both tensors "
                                   "must match.")
        return _binary_search(sorted_inputs, values, upper).astype(out_dtype)
    return bound


HOST_BUILDERS = {"LowerBound": _bound, "UpperBound": _bound}
for _op, _builder in {**make_builders(np), **HOST_BUILDERS}.items():
    register_kernel(_op, HOST)(_builder)
