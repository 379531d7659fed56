"""Shape-of ops: ops that take a shape from another tensor at run time, for gradients.

A gradient function often needs "the shape of x": the gradient of a broadcasting
``x + y`` is the output gradient summed down to ``x``'s shape, the gradient of a
reduction is the output gradient broadcast back up to the input's shape.  TF builds
these from ``Shape``, ``BroadcastGradientArgs``, ``Tile`` and ``Reshape`` with shape
tensors; devsession's ``Sum`` and ``Reshape`` take static attrs instead.  So the
builders here use plain ``Sum``/``Reshape`` nodes whenever the static shapes decide
the answer (the common case: weights and biases have known shapes), and otherwise one
of four internal ops that read the runtime shape of their ``like`` input, never its
values (so a GPU node copies nothing to the host):

======================================  ================================================
``_BroadcastToShapeOf(value, like)``    ``value`` broadcast to
                                        ``broadcast(value.shape, like.shape)``; an
                                        elementwise op (``x`` in the expression table),
                                        so it fuses with its neighbours into one loop
``_ReduceToShapeOf(grad, like)``        ``grad`` summed down to ``like``'s shape: over
                                        its leading axes and the axes where ``like``
                                        has 1 (the adjoint of broadcasting)
``_ReshapeToShapeOf(value, like)``      ``value`` reshaped to ``like``'s shape, with the
                                        axes in attr ``reduced_axes`` set to 1 (the
                                        shape of a ``keepdims`` reduction of ``like``)
``_ReducedSize(like)``                  how many elements of ``like`` each output of a
                                        reduction over attr ``axis`` gathers, as a
                                        scalar of attr ``dtype``
(both: where ``like``'s rank is unknown, axes may count from the end, and attr
``all_axes`` means every axis, as the reductions' own attrs)
``_SplitToShapesOf(value, *likes)``     ``value`` cut along attr ``axis`` into one piece
                                        per ``like``, each as long as its ``like`` there
                                        (the gradient of a concat)
======================================  ================================================

Kernels: ``kernels/reference/shape_of.py`` (numpy, REF and CPU; the CPU's
``_BroadcastToShapeOf`` is the generated elementwise loop) and
``kernels/cuda/shape_of.py``.  Their gradients: ``shape_of_grad.py``.

    g = reduce_to_shape_of(dy, b, peers=[a])   # d(a + b)/db, whatever is known statically
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_from_array
from ..tensor_shape import TensorShape
from .common import broadcast, make_op
from .registry import InferError, OpDef, register_op

__all__ = ["broadcast_to_shape_of", "reduce_to_shape_of", "reshape_to_shape_of",
           "reduced_size", "split_to_shapes_of", "ones_like_of", "zeros_like_of",
           "kept_shape"]


def kept_shape(shape: TensorShape, axes) -> TensorShape:
    """``shape`` with ``axes`` set to 1 (what a keepdims reduction gives)."""
    if shape.ndims is None:
        return TensorShape(None)
    return TensorShape(1 if i in axes else d for i, d in enumerate(shape.dims))


# --- inference -------------------------------------------------------------------------

def _broadcast_to_shape_of(inputs, attrs, node):
    return inputs[0].dtype, broadcast(inputs, node)


def _reduce_to_shape_of(inputs, attrs, node):
    grad, like = inputs
    if grad.shape.ndims is not None and like.shape.ndims is not None \
            and grad.shape.ndims < like.shape.ndims:
        raise InferError(f"Op '{node}': cannot sum '{grad.name}' with shape {grad.shape} "
                         f"down to the larger rank of '{like.name}' ({like.shape}).")
    return grad.dtype, like.shape


def _reshape_to_shape_of(inputs, attrs, node):
    value, like = inputs
    return value.dtype, kept_shape(like.shape, tuple(attrs["reduced_axes"]))


def _reduced_size(inputs, attrs, node):
    return dtypes.as_dtype(attrs["dtype"]), TensorShape(())


def _split_to_shapes_of(inputs, attrs, node):
    value, likes = inputs[0], inputs[1:]
    if not likes:
        raise InferError(f"Op '{node}': nothing to split '{value.name}' into.")
    return [(value.dtype, like.shape) for like in likes]


register_op(OpDef("_BroadcastToShapeOf", _broadcast_to_shape_of, 2, elementwise=True))
register_op(OpDef("_ReduceToShapeOf", _reduce_to_shape_of, 2))
register_op(OpDef("_ReshapeToShapeOf", _reshape_to_shape_of, 2,
                  attr_defaults={"reduced_axes": (), "all_axes": False}))
register_op(OpDef("_ReducedSize", _reduced_size, 1, attr_defaults={"all_axes": False}))
register_op(OpDef("_SplitToShapesOf", _split_to_shapes_of, None))


# --- builders: static Sum/Reshape when the shapes decide, else the ops above -------------

def broadcast_to_shape_of(value: Tensor, like: Tensor, name=None) -> Tensor:
    """``value`` broadcast to the shape of ``like`` (``value`` must broadcast to it)."""
    if value.shape.is_fully_defined() and value.shape == like.shape:
        return value
    return make_op("_BroadcastToShapeOf", [value, like], name=name or "BroadcastTo")


def ones_like_of(x: Tensor, dtype=None, name=None) -> Tensor:
    """Ones of ``x``'s shape: one scalar constant broadcast (and fused) at run time."""
    return _filled_like(x, 1, dtype, name or "ones_like")


def zeros_like_of(x: Tensor, dtype=None, name=None) -> Tensor:
    return _filled_like(x, 0, dtype, name or "zeros_like")


def _filled_like(x: Tensor, fill, dtype, name) -> Tensor:
    dtype = dtypes.as_dtype(dtype or x.dtype)
    scalar = constant_from_array(dtypes.filled_scalar(fill, dtype), name=name if x.shape == () else
                                 "Const", graph=x.graph)
    if x.shape == ():
        return scalar
    return make_op("_BroadcastToShapeOf", [scalar, x], name=name)


def reduce_to_shape_of(grad: Tensor, like: Tensor, peers=(), core_dims: int = 0,
                       name=None) -> Tensor:
    """``grad`` (the gradient of an op's broadcast output) summed down to ``like``'s
    shape (the op's input).

    ``peers`` are the op's other broadcast inputs (all of them: the static decision
    relies on it): where ``like`` has an unknown dimension that every peer lacks or has
    as 1, ``like`` cannot have been broadcast there.  The last ``core_dims`` axes of
    every operand are not broadcast (MatMul's matrix axes).  When the static shapes
    cannot decide: ``_ReduceToShapeOf``.
    """
    axes = _static_broadcast_axes(grad.shape, like.shape, [p.shape for p in peers],
                                  core_dims)
    if axes is None:
        return make_op("_ReduceToShapeOf", [grad, like], name=name or "ReduceTo")
    leading, kept = axes
    if not leading and not kept:
        return grad
    if not kept:
        return make_op("Sum", [grad], {"axis": leading, "keepdims": False}, name=name)
    summed = make_op("Sum", [grad], {"axis": leading + kept, "keepdims": True}, name=name)
    if not leading:
        return summed
    return reshape_to_shape_of(summed, like)


def _static_broadcast_axes(out: TensorShape, x: TensorShape, peers, core_dims: int):
    """(leading axes, aligned broadcast axes) of ``out`` to sum for ``x``, or None when
    the static shapes cannot tell.  Only the batch part (all but the last ``core_dims``
    axes) of each shape broadcasts."""
    if out.ndims is None or x.ndims is None or any(p.ndims is None for p in peers):
        return None
    out_b = out.dims[:out.ndims - core_dims]
    x_b = x.dims[:max(x.ndims - core_dims, 0)]
    peers_b = [p.dims[:max(p.ndims - core_dims, 0)] for p in peers]
    lead = len(out_b) - len(x_b)
    if lead < 0:
        return None
    kept = []
    for i, d in enumerate(x_b):
        axis = lead + i
        if d == 1:
            if out_b[axis] != 1:
                kept.append(axis)
        elif d is None and not all(_absent_or_one(p, len(out_b), axis) for p in peers_b):
            return None
    return tuple(range(lead)), tuple(kept)


def _absent_or_one(peer: tuple, out_rank: int, axis: int) -> bool:
    """Whether a peer, aligned right with the output, has no axis ``axis`` or has it
    as 1 (so it did not widen that axis)."""
    k = axis - (out_rank - len(peer))
    return k < 0 or peer[k] == 1


def _axis_attrs(like: Tensor, axes, name: str) -> dict:
    """Attrs naming ``axes`` of ``like`` (None: every axis; negative: from the end)
    for a kernel that settles them per input when ``like``'s rank is unknown."""
    rank = like.shape.ndims
    if axes is None:
        return {name: tuple(range(rank))} if rank is not None else {name: (), "all_axes": True}
    axes = tuple(int(a) for a in axes)
    if rank is not None:
        axes = tuple(sorted({a % rank for a in axes}))
    return {name: axes}


def reshape_to_shape_of(value: Tensor, like: Tensor, reduced_axes=(), name=None) -> Tensor:
    """``value`` reshaped to ``like``'s shape with ``reduced_axes`` as 1 (None: every
    axis, as a reduction over all of an input of unknown rank): a static ``Reshape``
    when at most one of those dimensions is unknown."""
    attrs = _axis_attrs(like, reduced_axes, "reduced_axes")
    target = kept_shape(like.shape, attrs["reduced_axes"])
    if target.ndims is not None and sum(d is None for d in target.dims) <= 1:
        if value.shape == target:
            return value
        dims = tuple(-1 if d is None else d for d in target.dims)
        return make_op("Reshape", [value], {"shape": dims}, name=name)
    return make_op("_ReshapeToShapeOf", [value, like], attrs, name=name or "ReshapeTo")


def reduced_size(like: Tensor, axes, dtype, name=None) -> Tensor:
    """The number of elements of ``like`` along ``axes`` (None: every axis), as a
    scalar of ``dtype``."""
    dtype = dtypes.as_dtype(dtype)
    attrs = _axis_attrs(like, axes, "axis")
    dims = like.shape.dims
    if dims is not None and all(dims[a] is not None for a in attrs["axis"]):
        count = math.prod(dims[a] for a in attrs["axis"])
        return constant_from_array(np.array(count, dtype.np), name=name or "Size",
                                   graph=like.graph)
    return make_op("_ReducedSize", [like], {**attrs, "dtype": dtype}, name=name or "Size")


def split_to_shapes_of(value: Tensor, likes, axis: int, name=None) -> list:
    """``value`` cut along ``axis`` into pieces as long there as each of ``likes``."""
    op = value.graph.create_op("_SplitToShapesOf", [value, *likes], {"axis": int(axis)},
                               name=name or "Split")
    return list(op.outputs)
