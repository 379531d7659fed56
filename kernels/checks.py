"""Runtime shape checks shared by every device's kernels: broadcasting, axes,
reductions and MatMul.

Static shapes may be unknown when a plan is built, so kernels check the shapes they
actually get.  Every failure is an ``InvalidArgumentError`` whose message names the
node (and op) and shows the offending shapes TF-style (``[3,4]``), with
``node_name`` set, so that a session can point at the node at fault.  Kept free of
numba and of any device module: both the numpy reference kernels and the CPU kernels
use it (as they use ``to_float16``, the one rounding step of float16 results).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from devsession.errors import InvalidArgumentError

from .plan_cache import remember

__all__ = ["to_float16", "invalid_argument", "empty_extremum", "fmt_shape", "broadcast_shape",
           "call_shape", "get_attr", "check_axes", "reduced_shape", "reduction_attrs", "resolve_axes",
           "check_reduction", "ReductionParams", "check_argmax", "transposes", "matmul_shape",
           "matmul_planner", "check_square_matrices"]


def invalid_argument(node_name: str, op: str, message: str) -> InvalidArgumentError:
    """An ``InvalidArgumentError`` for node ``node_name`` (to be raised by the caller)."""
    return InvalidArgumentError(f"{op} node '{node_name}': {message}", node_name=node_name)


def fmt_shape(shape: Sequence[int]) -> str:
    """``(3, 4)`` -> ``[3,4]``, the way TF prints shapes in error messages."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def broadcast_shape(node_name: str, op: str, shapes: Sequence[tuple]) -> tuple:
    """The numpy broadcast of ``shapes``; ``InvalidArgumentError`` if they don't broadcast,
    with TF's sentence (``Incompatible shapes: [3,4] vs. [2,1]``, what TF1 code and its
    tests match) after the node's name."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise invalid_argument(
            node_name, op, "Incompatible shapes: "
            + " vs. ".join(fmt_shape(s) for s in shapes)) from None


def call_shape(name: str, op: str, arity: int, shapes: Sequence[tuple]) -> tuple:
    """The output shape of an elementwise kernel called with inputs of ``shapes`` (their
    broadcast); ``TypeError`` for a call with other than ``arity`` inputs (a caller's
    bug, not the graph's)."""
    if len(shapes) != arity:
        raise TypeError(f"{op} kernel '{name}' takes {arity} inputs, got {len(shapes)}")
    return broadcast_shape(name, op, shapes)


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

# --- reductions -------------------------------------------------------------------------
# An ArgMax or ArgMin over zero elements has no value: it raises InvalidArgumentError
# naming the node.  Over nothing, as TF 2.21's: a Sum is 0, a Max or Min its identity
# (``empty_extremum``), a Mean NaN of floats and 0 of integers and complex values.

def reduction_attrs(node) -> tuple[tuple | None, bool]:
    """``(axes, keepdims)`` of a Sum/Mean/Max/Min/Prod/All/Any node, as the graph gave
    them: sorted non-negative axes when it knew the input's rank; otherwise ``axes`` may
    hold negative axes (counted from the end), or be None for "every axis" (the
    ``all_axes`` attr).  ``resolve_axes`` settles them for each input."""
    if node.attrs.get("all_axes"):
        return None, bool(get_attr(node, "keepdims"))
    return tuple(sorted(int(a) for a in get_attr(node, "axis"))), \
        bool(get_attr(node, "keepdims"))


def resolve_axes(node, axes: tuple | None, shape: tuple) -> tuple:
    """The sorted, distinct, non-negative axes ``axes`` (see ``reduction_attrs``) name
    for an input of ``shape``; ``InvalidArgumentError`` for an axis out of range.

    An axis named twice (``(0, 0)``, or ``(1, -1)`` on rank 2) is reduced once: TF1
    reduces over the set of the axes, and numpy rejects repeats (``np.sum``'s and
    ``transpose``'s "duplicate value in 'axis'", "axes don't match array")."""
    rank = len(shape)
    if axes is None:
        return tuple(range(rank))
    if all(0 <= a < rank for a in axes) and all(a < b for a, b in zip(axes, axes[1:])):
        return axes                 # already sorted and distinct: the graph builders' form
    for axis in axes:
        if not -rank <= axis < rank:
            raise invalid_argument(
                node.name, node.op, f"axis {axis} is out of range for an input of shape "
                f"{fmt_shape(shape)} (rank {rank})")
    return tuple(sorted({a % rank for a in axes}))


def empty_extremum(kind: str, dtype):
    """What TF's Max ("max") or Min ("min") of zero elements is: its reduction's identity,
    -inf or +inf for floats, the lowest or highest value for integers."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return -np.inf if kind == "max" else np.inf
    info = np.iinfo(dtype)
    return info.min if kind == "max" else info.max


def check_reduction(node, kind: str, x, axes: tuple) -> int:
    """The number of elements each output reduces (0 for an empty one: see above);
    raises ``InvalidArgumentError`` for a bad axis."""
    check_axes(node.name, node.op, x.shape, axes)
    return math.prod(x.shape[a] for a in axes)


class ReductionParams:
    """A Sum/Mean/Max/Min/Prod/All/Any node's attrs, read once (``reduction_attrs``);
    ``settle(x)`` checks one call's input and gives ``(axes, count)``: its sorted
    non-negative axes and the elements each output reduces (``check_reduction``)."""

    def __init__(self, node):
        self.node, self.kind = node, node.op.lower()
        self.spec, self.keepdims = reduction_attrs(node)

    def settle(self, x) -> tuple[tuple, int]:
        axes = resolve_axes(self.node, self.spec, x.shape)
        return axes, check_reduction(self.node, self.kind, x, axes)


def check_argmax(node, shape: tuple, axis: int) -> int:
    """The non-negative axis of an ArgMax/ArgMin (whose ``axis`` attr may count from the
    end when the graph did not know the rank); ``InvalidArgumentError`` for a bad or
    empty axis."""
    (axis,) = resolve_axes(node, (axis,), shape)
    if shape[axis] == 0:
        raise invalid_argument(node.name, node.op, f"{node.op} over an empty axis "
                               f"(input shape {fmt_shape(shape)}, axis {axis})")
    return axis


def check_square_matrices(node, shape: tuple) -> None:
    """Raises ``InvalidArgumentError`` unless ``shape`` is a (batch of) square matrices."""
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise invalid_argument(node.name, node.op, f"input of shape {fmt_shape(shape)} is not "
                               f"a (batch of) square matrices")


# --- MatMul -------------------------------------------------------------------------------
# transpose_a/transpose_b swap the last two axes of an operand; both operands need rank
# >= 2; the inner dimensions must agree; batch dimensions broadcast like np.matmul.

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


def matmul_planner(node, xp) -> Callable:
    """``plan(a, b) -> (out_shape, k, a, b)``: ``matmul_shape`` remembered per pair of
    shapes, and the operands as the product takes them: transposed (transpose_a/b) as
    views of array module ``xp``, which BLAS and cuBLAS read without a copy, and
    float16 widened to float32 (computed in float32, rounded once, on every device)."""
    ta, tb = transposes(node)
    widen = node.output_dtype == np.float16
    plans: dict[tuple, tuple] = {}

    def plan(a, b):
        key = (a.shape, b.shape)
        planned = plans.get(key)
        if planned is None:
            planned = remember(plans, key, matmul_shape(node, *key))
        out_shape, k = planned
        if ta:
            a = xp.swapaxes(a, -1, -2)
        if tb:
            b = xp.swapaxes(b, -1, -2)
        if widen:
            a, b = a.astype(np.float32), b.astype(np.float32)
        return out_shape, k, a, b
    return plan
