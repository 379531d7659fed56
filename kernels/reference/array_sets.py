"""Kernels of UniqueWithCounts, ListDiff, InvertPermutation and UnravelIndex
(``devsession/ops/array_sets.py``): numpy on the host (HOST; the GPU runs them through
the host), with TF's run-time checks and messages.

* UniqueWithCounts keeps the order of first appearance, as ``reference/sequence.py``'s
  Unique (``np.unique`` sorts; the order is restored).
* ListDiff keeps the elements of ``x`` absent from ``y``, in ``x``'s order.
* InvertPermutation reports the first element, in order, that is out of range or
  repeated, as TF's loop does.
* UnravelIndex checks the dims in order (zero, then negative), then the indices.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["HOST_BUILDERS"]


def _first_appearance(x):
    """``(values, inverse, counts)`` of 1-D ``x`` with the values in the order they
    first appear."""
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return x[first[order]], rank[inverse.reshape(-1)], counts[order]


def _unique_with_counts(node):
    idx_dtype = node.output_dtypes[1] if node.output_dtypes else np.dtype(np.int32)

    def unique_with_counts(x):
        if x.ndim != 1:
            raise invalid_argument(node.name, node.op, f"unique expects a 1D vector, got "
                                   f"shape {fmt_shape(x.shape)}")
        values, inverse, counts = _first_appearance(x)
        return values, inverse.astype(idx_dtype), counts.astype(idx_dtype)
    return unique_with_counts


def _list_diff(node):
    idx_dtype = node.output_dtypes[1] if node.output_dtypes else np.dtype(np.int32)

    def list_diff(x, y):
        for v, what in ((x, "x"), (y, "y")):
            if v.ndim != 1:
                raise invalid_argument(node.name, node.op, f"{what} should be a 1D vector, "
                                       f"got shape {fmt_shape(v.shape)}")
        removed = set(y.tolist())
        keep = np.array([v not in removed for v in x.tolist()], bool).reshape(-1)
        return x[keep].copy(), np.flatnonzero(keep).astype(idx_dtype)
    return list_diff


def _invert_permutation(node):
    def invert_permutation(x):
        if x.ndim != 1:
            raise invalid_argument(node.name, node.op, f"invert_permutation expects a 1D "
                                   f"vector, got shape {fmt_shape(x.shape)}")
        n = x.size
        outside = np.flatnonzero((x < 0) | (x >= n))
        seen = np.zeros(n, bool)
        _, first = np.unique(np.clip(x, 0, max(n - 1, 0)), return_index=True)
        seen[first] = True
        repeated = np.flatnonzero(~seen & (x >= 0) & (x < n))
        at = min([int(i[0]) for i in (outside, repeated) if i.size], default=None)
        if at is not None:
            d = int(x[at])
            message = (f"{d} is not between 0 and {n}" if outside.size and outside[0] == at
                       else f"{d} is duplicated in the input.")
            raise invalid_argument(node.name, node.op, message)
        out = np.empty_like(x)
        out[x] = np.arange(n, dtype=x.dtype)
        return out
    return invert_permutation


def _unravel_index(node):
    def unravel_index(indices, dims):
        if dims.ndim != 1:
            raise invalid_argument(node.name, node.op, f"The indices can only be 1-D, got "
                                   f"\"{fmt_shape(dims.shape)}\"")
        for i, d in enumerate(dims.tolist()):
            if d == 0:
                raise invalid_argument(node.name, node.op, f"Input dims cannot contain a dim "
                                       f"of zero, but dims contains zero at index {i}")
            if d < 0:
                raise invalid_argument(node.name, node.op, f"Input dims cannot be negative. "
                                       f"Got dim = {d} at index {i}")
        total = int(np.prod(dims.astype(np.int64)))
        if np.any((indices < 0) | (indices >= total)):
            raise invalid_argument(node.name, node.op, "index is out of bound as with dims")
        coords = np.unravel_index(indices.astype(np.int64), tuple(int(d) for d in dims))
        return np.array(coords, indices.dtype).reshape((dims.size,) + indices.shape)
    return unravel_index


HOST_BUILDERS = {"UniqueWithCounts": _unique_with_counts, "ListDiff": _list_diff,
                 "InvertPermutation": _invert_permutation, "UnravelIndex": _unravel_index}
for _op, _builder in HOST_BUILDERS.items():
    register_kernel(_op, HOST)(_builder)
