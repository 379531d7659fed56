"""MatMul's shape rules, shared by the REF, CPU and GPU kernels.

``transpose_a``/``transpose_b`` swap the last two axes of an operand; both operands
need rank >= 2; the inner dimensions must agree; batch dimensions broadcast like
``np.matmul``.  Every failure is an ``InvalidArgumentError`` naming the node, with the
same message on every device.  ``matmul_planner(node)`` remembers the result per pair
of input shapes, so a kernel called again with the same shapes checks nothing.
"""

from __future__ import annotations

from typing import Callable

from ._checks import broadcast_shape, fmt_shape, invalid_argument

__all__ = ["transposes", "matmul_shape", "matmul_planner"]


def transposes(node) -> tuple[bool, bool]:
    """``(transpose_a, transpose_b)`` of a MatMul node (absent attrs are False)."""
    return bool(node.attrs.get("transpose_a")), bool(node.attrs.get("transpose_b"))


def matmul_shape(node, a_shape: tuple, b_shape: tuple) -> tuple[tuple, int]:
    """``(output shape, inner dimension)``; raises ``InvalidArgumentError``."""
    ta, tb = transposes(node)
    if len(a_shape) < 2 or len(b_shape) < 2:
        raise invalid_argument(node.name, node.op, f"inputs must have rank >= 2, got "
                               f"shapes {fmt_shape(a_shape)} and {fmt_shape(b_shape)}")
    m, k = (a_shape[-1], a_shape[-2]) if ta else (a_shape[-2], a_shape[-1])
    k2, n = (b_shape[-1], b_shape[-2]) if tb else (b_shape[-2], b_shape[-1])
    if k != k2:
        raise invalid_argument(
            node.name, node.op, f"matrix size-incompatible: In[0]: {fmt_shape(a_shape)}, "
            f"In[1]: {fmt_shape(b_shape)} (transpose_a={ta}, transpose_b={tb})")
    batch = tuple(broadcast_shape(node.name, node.op, [a_shape[:-2], b_shape[:-2]]))
    return batch + (m, n), k


def matmul_planner(node) -> Callable[[tuple, tuple], tuple[tuple, int]]:
    """``plan(a_shape, b_shape)``: ``matmul_shape`` remembered per pair of shapes."""
    plans: dict[tuple, tuple] = {}

    def plan(a_shape, b_shape):
        key = (a_shape, b_shape)
        planned = plans.get(key)
        if planned is None:
            planned = plans[key] = matmul_shape(node, a_shape, b_shape)
        return planned
    return plan
