"""The attrs and empty-input rules of the reductions, shared by the REF and GPU kernels.

An integer Mean, a Max, a Min or an ArgMax over zero elements has no value: it raises
``InvalidArgumentError`` naming the node (a float Mean over nothing is NaN, a Sum 0).
Axes out of range raise too (``check_axes``).
"""

from __future__ import annotations

import math

from ._checks import check_axes, fmt_shape, get_attr, invalid_argument

__all__ = ["reduction_attrs", "check_reduction", "check_argmax"]


def reduction_attrs(node) -> tuple[tuple, bool]:
    """``(sorted axes, keepdims)`` of a Sum/Mean/Max/Min node."""
    return tuple(sorted(get_attr(node, "axis"))), bool(get_attr(node, "keepdims"))


def check_reduction(node, kind: str, x, axes: tuple) -> int:
    """The number of elements each output reduces; raises ``InvalidArgumentError`` for
    a bad axis or an empty reduction of ``kind`` ("sum", "mean", "max", "min") with
    no value."""
    check_axes(node.name, node.op, x.shape, axes)
    count = math.prod(x.shape[a] for a in axes)
    if count == 0 and (kind in ("max", "min") or (kind == "mean" and x.dtype.kind != "f")):
        raise invalid_argument(node.name, node.op, f"cannot take the {kind} of zero "
                               f"elements (input shape {fmt_shape(x.shape)}, axis {axes})")
    return count


def check_argmax(node, shape: tuple, axis: int) -> None:
    """Raises ``InvalidArgumentError`` for a bad or empty ArgMax axis."""
    check_axes(node.name, node.op, shape, (axis,))
    if shape[axis] == 0:
        raise invalid_argument(node.name, node.op, f"ArgMax over an empty axis "
                               f"(input shape {fmt_shape(shape)}, axis {axis})")
