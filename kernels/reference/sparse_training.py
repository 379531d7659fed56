"""Kernels of TF's ``SparseApply<X>`` (``ops/sparse_training.py``): the dense ops'
formulas (``training.make_updates``) on the rows the indices name.

``sparse_apply_kernel(node, updates, xp, to_device)`` runs in the dense ops' frame
(``training.apply_kernel``: locks, copy-on-write, the variable's array returned), with
TF's checks (``InvalidArgumentError`` naming the node: the shapes, then every index in
``[0, rows)`` before any row changes).  Unique indices: the rows of the variable and of
each slot are gathered (copies), the formula updates the copies, and they are written
back.  Repeated indices: the formula runs on one row at a time, views, in the indices'
order, so a repeated row sees the update before it, as TF's kernels loop.  The indices
are a host input (``OpDef.host_inputs``): checked and tested for repeats where they
are, uploaded once by a GPU kernel (``xp`` cupy).  These are not hot (TF's optimizers
send each row once): the CPU runs the numpy kernel, the GPU the same over cupy.
"""

from __future__ import annotations

import numpy as np

from ...ops.sparse_training import SPARSE_TRAINING_OPS, sparse_inputs
from ...ops.training import FLAG_ATTRS
from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .training import apply_kernel, make_updates

__all__ = ["sparse_apply_kernel"]


def sparse_apply_kernel(node, updates: dict, xp=np, to_device=None):
    """The kernel of ``SparseApply<X>`` ``node``, with ``updates`` (``make_updates(xp)``)."""
    names, num_refs, grad_at = sparse_inputs(node.op)
    dense = SPARSE_TRAINING_OPS[node.op]
    formula = updates[dense]
    flag = ()
    if dense in FLAG_ATTRS:
        attr, default = FLAG_ATTRS[dense]
        flag = (bool(node.attrs.get(attr, default)),)
    at = grad_at - num_refs                 # the gradient's place among the values

    def apply(rows, values, grad_rows):
        formula(*rows, *values[:at], grad_rows, *values[at + 2:], *flag)

    def update(*arrays_and_values):
        arrays, values = arrays_and_values[:num_refs], arrays_and_values[num_refs:]
        grad, indices = values[at], np.asarray(values[at + 1])
        if len(np.unique(indices)) == len(indices):
            where = xp.asarray(indices)
            rows = [a[where] for a in arrays]
            apply(rows, values, grad)
            for a, r in zip(arrays, rows):
                a[where] = r
        else:
            for k, i in enumerate(indices.tolist()):
                apply([a[i:i + 1] for a in arrays], values, grad[k:k + 1])

    def check(node, arrays, values):
        _check(node, names, arrays, values)
    return apply_kernel(node, update, to_device, check)


def _check(node, names, arrays, values) -> None:
    """TF's checks of a SparseApply node's arrays (``training_ops.cc``)."""
    def fail(message):
        return invalid_argument(node.name, node.op, message)

    var = arrays[0]
    for slot, array in zip(names[1:], arrays[1:]):
        if array.shape != var.shape:
            raise fail(f"var and {slot} do not have the same shape: {fmt_shape(var.shape)} "
                       f"{fmt_shape(array.shape)}")
    named = dict(zip(names[len(arrays):], values))
    for name, value in named.items():
        if name not in ("grad", "indices") and value.ndim != 0:
            raise fail(f"{name} is not a scalar: {fmt_shape(value.shape)}")
    grad, indices = named["grad"], np.asarray(named["indices"])
    if var.ndim < 1:
        raise fail("var must be at least 1 dimensional")
    if indices.ndim != 1:
        raise fail(f"indices must be one-dimensional: {fmt_shape(indices.shape)}")
    if grad.ndim != var.ndim:
        raise fail(f"var and grad must have the same rank: {fmt_shape(var.shape)} "
                   f"{fmt_shape(grad.shape)}")
    for d in range(1, var.ndim):
        if grad.shape[d] != var.shape[d]:
            raise fail(f"var and grad must match in dimension {d}: {fmt_shape(var.shape)} "
                       f"{fmt_shape(grad.shape)}")
    if grad.shape[0] != indices.shape[0]:
        raise fail(f"grad must be the same size as indices in the first dimension: "
                   f"{fmt_shape(grad.shape)} {fmt_shape(indices.shape)}")
    bad = np.flatnonzero((indices < 0) | (indices >= var.shape[0]))
    if bad.size:
        k = int(bad[0])
        raise fail(f"Index {indices[k]} at offset {k} in indices is out of range")


_NUMPY_UPDATES = make_updates(np)


@register_kernel(tuple(SPARSE_TRAINING_OPS), HOST)
def build_sparse_apply(node):
    return sparse_apply_kernel(node, _NUMPY_UPDATES)
