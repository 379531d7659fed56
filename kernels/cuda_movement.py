"""Data-movement GPU kernels: Identity, Reshape, Transpose, ConcatV2.

The GPU twins of ``movement.py``, with its view rules: Identity and Reshape return a
view of their input when they can (kernels never mutate inputs), Transpose and
ConcatV2 return a new C-contiguous array.  The checks and messages are movement.py's,
so a bad shape reads the same on every device.
"""

from __future__ import annotations

from typing import Callable

import cupy

from ._checks import fmt_shape, get_attr, invalid_argument
from .cuda_device import on_device
from .registry import register_kernel

__all__ = ["BUILDERS", "register"]


def build_identity(node):
    def identity(x):
        return x.view()
    return identity


def build_reshape(node):
    shape = tuple(int(d) for d in get_attr(node, "shape"))
    if sum(1 for d in shape if d == -1) > 1 or any(d < -1 for d in shape):
        raise invalid_argument(node.name, node.op, f"invalid target shape {fmt_shape(shape)}")

    def reshape(x):
        try:
            return x.reshape(shape)
        except ValueError:
            raise invalid_argument(
                node.name, node.op, f"cannot reshape a tensor of shape {fmt_shape(x.shape)} "
                f"({x.size} elements) into shape {fmt_shape(shape)}") from None
    return on_device(node, reshape)     # a non-contiguous input is copied: on its GPU


def build_transpose(node):
    perm = tuple(int(p) for p in get_attr(node, "perm"))
    if sorted(perm) != list(range(len(perm))):
        raise invalid_argument(node.name, node.op, f"perm {perm} is not a permutation")

    def transpose(x):
        if x.ndim != len(perm):
            raise invalid_argument(
                node.name, node.op, f"perm {perm} does not match an input of shape "
                f"{fmt_shape(x.shape)}")
        return cupy.ascontiguousarray(x.transpose(perm))
    return on_device(node, transpose)


def build_concat(node):
    axis = int(get_attr(node, "axis"))

    def concat(*xs):
        first = xs[0].shape
        ok = len(first) > axis and all(
            x.ndim == len(first)
            and all(a == b for d, (a, b) in enumerate(zip(x.shape, first)) if d != axis)
            for x in xs)
        if not ok:
            raise invalid_argument(
                node.name, node.op, f"cannot concatenate along axis {axis} inputs of "
                f"shapes {', '.join(fmt_shape(x.shape) for x in xs)}")
        return cupy.concatenate(xs, axis=axis)
    return on_device(node, concat)


BUILDERS: dict[str, Callable] = {
    "Identity": build_identity,
    "Reshape": build_reshape,
    "Transpose": build_transpose,
    "ConcatV2": build_concat,
}


def register(device_type: str = "GPU") -> None:
    for op, builder in BUILDERS.items():
        register_kernel(op, device_type)(builder)
