"""Cross's kernel (``devsession/ops/vectors.py``): the cross product of the 3-vectors in
the last axis, over numpy or cupy (``make_builders``; ``cuda/vectors.py`` registers
the cupy one), with TF's checks: one shape, a last dimension of 3."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["make_builders"]


def _as_is(node, fn):
    return fn


def _cross(node, xp):
    def cross(a, b):
        if a.shape != b.shape:
            raise invalid_argument(node.name, node.op, f"Both inputs must be of same shape: "
                                   f"{fmt_shape(a.shape)} vs. {fmt_shape(b.shape)}")
        if a.ndim == 0 or a.shape[-1] != 3:
            raise invalid_argument(node.name, node.op, "Cross-products are only defined for "
                                   "3-element vectors.")
        a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
        b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
        return xp.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return cross


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """Cross's builder over array module ``xp`` (numpy or cupy)."""
    return {"Cross": lambda node: wrap(node, _cross(node, xp))}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
