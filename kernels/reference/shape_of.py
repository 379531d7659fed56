"""Kernels of the shape-of ops (``devsession/ops/shape_of.py``) for every device.

Each reads only the *shape* of its ``like`` input, so the same code serves numpy and
cupy: this module registers the numpy builders for the reference device and the CPU
(``HOST``), and ``cuda/shape_of.py`` registers ``make_builders(cupy, on_device)``.
The CPU's and GPU's ``_BroadcastToShapeOf`` is the generated elementwise loop (it is
in the expression table, so it fuses); the reference's is here.

Views: ``_ReshapeToShapeOf`` and ``_SplitToShapesOf`` return views of their input, and
``_ReduceToShapeOf`` its input itself when there is nothing to sum (the kernel contract
allows both: inputs are never mutated; the plan copies such fetched values).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..checks import fmt_shape, get_attr, invalid_argument, resolve_axes
from ..registry import HOST, register_kernel

__all__ = ["make_builders", "broadcast_axes"]


def _as_is(node, fn):
    return fn


def broadcast_axes(grad_shape: tuple, like_shape: tuple) -> tuple | None:
    """The axes of ``grad_shape`` to sum so that it becomes ``like_shape`` (leading
    axes, and axes where ``like`` has 1), or None if ``like`` does not broadcast to it."""
    lead = len(grad_shape) - len(like_shape)
    if lead < 0:
        return None
    axes = list(range(lead))
    for i, d in enumerate(like_shape):
        g = grad_shape[lead + i]
        if d == g:
            continue
        if d != 1:
            return None
        axes.append(lead + i)
    return tuple(axes)


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The builders for array module ``xp`` (numpy or cupy); ``wrap(node, fn)`` wraps
    every kernel that allocates (the GPU's ``on_device``)."""

    def build_reduce_to_shape_of(node):
        def reduce_to(grad, like):
            axes = broadcast_axes(grad.shape, like.shape)
            if axes is None:
                raise invalid_argument(node.name, node.op, f"a gradient of shape "
                                       f"{fmt_shape(grad.shape)} cannot be summed down to "
                                       f"shape {fmt_shape(like.shape)}")
            if not axes:
                return grad
            return xp.sum(grad, axis=axes, keepdims=True, dtype=grad.dtype).reshape(like.shape)
        return wrap(node, reduce_to)

    def build_reshape_to_shape_of(node):
        reduced = None if node.attrs.get("all_axes") else tuple(get_attr(node, "reduced_axes"))

        def reshape_to(value, like):
            axes = resolve_axes(node, reduced, like.shape)
            target = tuple(1 if i in axes else d for i, d in enumerate(like.shape))
            if math.prod(target) != value.size:
                raise invalid_argument(node.name, node.op, f"cannot reshape a tensor of "
                                       f"shape {fmt_shape(value.shape)} into shape "
                                       f"{fmt_shape(target)}")
            return value.reshape(target)
        return wrap(node, reshape_to)

    def build_reduced_size(node):
        axes = None if node.attrs.get("all_axes") else tuple(get_attr(node, "axis"))
        dtype = np.dtype(get_attr(node, "dtype"))
        made: dict = {}         # count -> array, so a GPU uploads each count once

        def reduced_size(like):
            count = math.prod(like.shape[a] for a in resolve_axes(node, axes, like.shape))
            value = made.get(count)
            if value is None:
                value = made[count] = xp.asarray(np.array(count, dtype))
            return value
        return wrap(node, reduced_size)

    def build_split_to_shapes_of(node):
        axis = int(get_attr(node, "axis"))

        def split_to(value, *likes):
            at = axis + value.ndim if axis < 0 else axis    # a concat of unknown rank's
            sizes = [like.shape[at] if like.ndim > at >= 0 else -1 for like in likes]
            if not 0 <= at < value.ndim or min(sizes) < 0 or sum(sizes) != value.shape[at]:
                raise invalid_argument(
                    node.name, node.op, f"cannot cut a tensor of shape "
                    f"{fmt_shape(value.shape)} along axis {axis} into pieces of shapes "
                    f"{', '.join(fmt_shape(like.shape) for like in likes)}")
            pieces, start = [], 0
            for size in sizes:
                index = (slice(None),) * at + (slice(start, start + size),)
                pieces.append(value[index])
                start += size
            return tuple(pieces)
        return wrap(node, split_to)

    return {"_ReduceToShapeOf": build_reduce_to_shape_of,
            "_ReshapeToShapeOf": build_reshape_to_shape_of,
            "_ReducedSize": build_reduced_size,
            "_SplitToShapesOf": build_split_to_shapes_of}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)


@register_kernel("_BroadcastToShapeOf", "REF")
def build_broadcast_to_shape_of(node):
    def broadcast_to(value, like):
        try:
            shape = np.broadcast_shapes(value.shape, like.shape)
        except ValueError:
            raise invalid_argument(node.name, node.op, f"cannot broadcast shape "
                                   f"{fmt_shape(value.shape)} to {fmt_shape(like.shape)}"
                                   ) from None
        return np.array(np.broadcast_to(value, shape))
    return broadcast_to
