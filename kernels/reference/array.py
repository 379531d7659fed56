"""Data-movement kernels (Identity, StopGradient, Reshape, Transpose, ConcatV2) for every
device.

These ops do no arithmetic, so the array library's own copy/view machinery is both the
reference and the fastest implementation: a numba loop would only re-implement memcpy.
This module registers the numpy builders for the reference device and the CPU
(``HOST``); ``cuda/array.py`` registers ``make_builders(cupy, on_device)``, so the
checks and messages are the same on every device.

Views: Identity and Reshape return a view of their input when they can (the kernel
contract allows it, since inputs are never mutated); Transpose and ConcatV2 return a
new C-contiguous array (except that an identity permutation of a contiguous input is
the input itself).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..checks import fmt_shape, get_attr, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["make_builders"]


def _as_is(node, fn):
    return fn


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The builders for array module ``xp`` (numpy or cupy); ``wrap(node, fn)`` wraps
    every kernel that allocates (the GPU's ``on_device``: device switch, OOM mapping)."""
    def build_reshape(node):
        return wrap(node, _reshape(node))

    def build_transpose(node):
        return wrap(node, _transpose(node, xp))

    def build_concat(node):
        return wrap(node, _concat(node, xp))

    return {"Identity": build_identity, "StopGradient": build_identity,
            "Reshape": build_reshape, "Transpose": build_transpose, "ConcatV2": build_concat}


def build_identity(node):
    def identity(x):
        return x.view()
    return identity


def _reshape(node):
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
    return reshape      # a non-contiguous input is copied (on its GPU, for cupy)


def _transpose(node, xp):
    perm = tuple(int(p) for p in get_attr(node, "perm"))
    if sorted(perm) != list(range(len(perm))):
        raise invalid_argument(node.name, node.op, f"perm {perm} is not a permutation")

    def transpose(x):
        if x.ndim != len(perm):
            raise invalid_argument(
                node.name, node.op, f"perm {perm} does not match an input of shape "
                f"{fmt_shape(x.shape)}")
        return xp.ascontiguousarray(x.transpose(perm))
    return transpose


def _concat(node, xp):
    axis = int(get_attr(node, "axis"))
    dtype = node.output_dtype

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
        return xp.concatenate(xs, axis=axis, dtype=dtype)
    return concat


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
