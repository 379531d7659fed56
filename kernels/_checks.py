"""Runtime shape checks shared by every device's kernels.

Static shapes may be unknown when a plan is built, so kernels check the shapes they
actually get.  Every failure is an ``InvalidArgumentError`` whose message names the
node (and op) and shows the offending shapes TF-style (``[3,4]``), with
``node_name`` set, so that a session can point at the node at fault.  Kept free of
numba and of any device module: both the numpy reference kernels and the CPU kernels
use it (as they use ``to_float16``, the one rounding step of float16 results).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from devsession.errors import InvalidArgumentError

__all__ = ["to_float16", "invalid_argument", "fmt_shape", "broadcast_shape", "get_attr",
           "check_axes", "reduced_shape"]


def invalid_argument(node_name: str, op: str, message: str) -> InvalidArgumentError:
    """An ``InvalidArgumentError`` for node ``node_name`` (to be raised by the caller)."""
    return InvalidArgumentError(f"{op} node '{node_name}': {message}", node_name=node_name)


def fmt_shape(shape: Sequence[int]) -> str:
    """``(3, 4)`` -> ``[3,4]``, the way TF prints shapes in error messages."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def broadcast_shape(node_name: str, op: str, shapes: Sequence[tuple]) -> tuple:
    """The numpy broadcast of ``shapes``; ``InvalidArgumentError`` if they don't broadcast."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise invalid_argument(
            node_name, op, "incompatible shapes for broadcasting: "
            + " vs. ".join(fmt_shape(s) for s in shapes)) from None


def get_attr(node: Any, key: str) -> Any:
    """``node.attrs[key]``, or ``InvalidArgumentError`` naming the node if it is missing."""
    try:
        return node.attrs[key]
    except KeyError:
        raise invalid_argument(node.name, node.op, f"missing attr '{key}'") from None


def check_axes(node_name: str, op: str, shape: tuple, axes: Sequence[int]) -> None:
    """Raise ``InvalidArgumentError`` unless every axis is a valid index into ``shape``."""
    for axis in axes:
        if not 0 <= axis < len(shape):
            raise invalid_argument(
                node_name, op, f"axis {axis} is out of range for an input of shape "
                f"{fmt_shape(shape)} (rank {len(shape)})")


def reduced_shape(shape: tuple, axes: Sequence[int], keepdims: bool) -> tuple:
    """The shape of ``shape`` reduced over ``axes`` (kept as 1s when ``keepdims``)."""
    axes = set(axes)
    if keepdims:
        return tuple(1 if d in axes else s for d, s in enumerate(shape))
    return tuple(s for d, s in enumerate(shape) if d not in axes)


def to_float16(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to float16; values beyond float16's range become inf silently (a
    kernel must not warn: the caller decides what an inf means)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(np.float16)
