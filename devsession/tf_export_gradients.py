"""A training graph's gradient nodes in TensorFlow's form, for ``tf_export.py``.

``ds.gradients`` writes two kinds of node TensorFlow cannot run: devsession's private
shape ops (``ops/shape_of.py``: they read the runtime shape of a ``like`` input, where
TF's gradient functions build that shape from ``Shape`` ops), and ``Conv2DBackprop*V2``
(TF has the ops but no CPU kernels for them).  Each is written here as TF's own
gradient functions write the same computation, its helper nodes named
``<node>/...`` and the result under the node's name, so its consumers stay wired:

===============================================  ===========================================
``_BroadcastToShapeOf(x, like)``                 ``BroadcastTo(x, Shape(like))`` (TF's
                                                 ``_SumGrad``); ``BroadcastArgs(Shape(x),
                                                 Shape(like))`` where ``x`` may be wider
``_ReduceToShapeOf(g, like)``                    ``Reshape(Sum(g, BroadcastGradientArgs(
                                                 Shape(g), Shape(like))[1]), Shape(like))``
                                                 (``_AddGrad``, ``_MulGrad``)
``_ReshapeToShapeOf(x, like)``                   ``Reshape(x, Shape(like))``, the reduced
                                                 axes 1 by ``DynamicStitch`` (TF's
                                                 ``reduced_shape``)
``_ReducedSize(like)``                           ``Cast(Prod(Gather(Shape(like), axes)))``,
                                                 every axis ``Cast(Size(like))``
                                                 (``_MeanGrad``)
``_SplitToShapesOf(x, *likes)``                  ``Slice``s at ``ConcatOffset(axis,
                                                 ShapeN(likes))``, gathered by an
                                                 ``IdentityN`` (``_ConcatGradHelper``)
``Conv2DBackpropInputV2(x, f, dy)``              ``Conv2DBackpropInput(Shape(x), f, dy)``
``Conv2DBackpropFilterV2(x, f, dy)``             ``Conv2DBackpropFilter(x, Shape(f), dy)``
===============================================  ===========================================

Axes that count from the end of an input of unknown rank are taken ``FloorMod`` its
``Rank``, as TF's ``reduced_shape`` does; shapes are int32, as TF writes them.  Each
rewrite takes a ``tf_export._Node`` and its ``_Exporter`` and returns the node to emit.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import dtypes
from .tensor_shape import TensorShape

__all__ = ["GRADIENT_FORMS"]

_INT32 = dtypes.int32
_SCALAR = TensorShape([])


def _shape(ex, node, x: tuple, suffix: str = "Shape") -> tuple:
    """``Shape(x)`` as an input: (name, int32, its shape)."""
    name = ex.helper(node, suffix, "Shape", [x], outputs=[_INT32])
    return name, _INT32, TensorShape([x[2].ndims])


def _result(node, op: str, inputs: list, attrs=None):
    """``node`` as TF's ``op`` over ``inputs``: its name, device and control inputs kept."""
    return dataclasses.replace(node, op=op, inputs=[n for n, _, _ in inputs],
                               dtypes=[d for _, d, _ in inputs],
                               shapes=[s for _, _, s in inputs], attrs=dict(attrs or {}))


def _inputs(node) -> list:
    return list(zip(node.inputs, node.dtypes, node.shapes))


def _broadcasts_into(x: TensorShape, like: TensorShape) -> bool:
    """Whether broadcasting ``x`` with ``like`` surely gives ``like``'s shape."""
    if x.ndims == 0:
        return True
    if x.ndims is None or like.ndims is None or x.ndims > like.ndims:
        return False
    tail = like.dims[like.ndims - x.ndims:]
    return all(d == 1 or (d is not None and d == t) for d, t in zip(x.dims, tail))


def _broadcast_to_shape_of(node, ex):
    x, like = _inputs(node)
    shape = _shape(ex, node, like)
    if not _broadcasts_into(x[2], like[2]):
        args = [_shape(ex, node, x, "Shape_x"), shape]
        shape = (ex.helper(node, "BroadcastArgs", "BroadcastArgs", args, outputs=[_INT32]),
                 _INT32, TensorShape([None]))
    return _result(node, "BroadcastTo", [x, shape])


def _reduce_to_shape_of(node, ex):
    grad, like = _inputs(node)
    shape = _shape(ex, node, like)
    args = ex.helper(node, "BroadcastGradientArgs", "BroadcastGradientArgs",
                     [_shape(ex, node, grad, "Shape_grad"), shape],
                     outputs=[_INT32, _INT32])
    axes = (f"{args}:1", _INT32, TensorShape([None]))
    summed = ex.helper(node, "Sum", "Sum", [grad, axes], attrs={"keep_dims": False},
                       outputs=[grad[1]])
    return _result(node, "Reshape", [(summed, grad[1], TensorShape(None)), shape])


def _axes(ex, node, like: tuple, axes, every: bool) -> tuple:
    """The int32 axes ``axes`` of ``like`` as an input: every axis a ``Range`` to its
    ``Rank``; axes counting from the end of an input of unknown rank ``FloorMod`` it."""
    if every or (any(a < 0 for a in axes) and like[2].ndims is None):
        rank = (ex.helper(node, "Rank", "Rank", [like], outputs=[_INT32]), _INT32, _SCALAR)
    if every:
        bounds = [ex.const(node, "range/start", np.int32(0)), rank,
                  ex.const(node, "range/delta", np.int32(1))]
        return (ex.helper(node, "range", "Range", bounds, outputs=[_INT32]), _INT32,
                TensorShape([None]))
    const = ex.const(node, "axes", np.asarray(axes, np.int32).reshape(-1))
    if not any(a < 0 for a in axes) or like[2].ndims is not None:
        return const
    return (ex.helper(node, "FloorMod", "FloorMod", [const, rank], outputs=[_INT32]),
            _INT32, const[2])


def _reshape_to_shape_of(node, ex):
    value, like = _inputs(node)
    reduced = tuple(node.attrs.get("reduced_axes", ()))
    every = bool(node.attrs.get("all_axes", False))
    shape = _shape(ex, node, like)
    if reduced or every:
        # TF's reduced_shape: the shape, with 1 stitched in at the reduced axes
        axes = _axes(ex, node, like, reduced, every)
        rank = like[2].ndims
        if every:
            every_axis = axes
        elif rank is not None:
            every_axis = ex.const(node, "range", np.arange(rank, dtype=np.int32))
        else:
            every_axis = _axes(ex, node, like, (), True)
        ones = ex.helper(node, "ones", "OnesLike", [axes], outputs=[_INT32])
        stitch = [every_axis, axes, shape, (ones, _INT32, axes[2])]
        shape = (ex.helper(node, "DynamicStitch", "DynamicStitch", stitch, outputs=[_INT32]),
                 _INT32, TensorShape([rank]))
    return _result(node, "Reshape", [value, shape])


def _reduced_size(node, ex):
    (like,) = _inputs(node)
    dtype = dtypes.as_dtype(node.attrs["dtype"])
    if node.attrs.get("all_axes", False):
        count = ex.helper(node, "Size", "Size", [like], outputs=[_INT32])
    else:
        axes = _axes(ex, node, like, tuple(node.attrs["axis"]), False)
        zero = ex.const(node, "GatherV2/axis", np.int32(0))
        sizes = ex.helper(node, "GatherV2", "GatherV2", [_shape(ex, node, like), axes, zero],
                          outputs=[_INT32])
        count = ex.helper(node, "Prod", "Prod", [(sizes, _INT32, TensorShape([None])),
                                                  ex.const(node, "Const", np.int32(0))],
                          attrs={"keep_dims": False}, outputs=[_INT32])
    count = (count, _INT32, _SCALAR)
    if dtype == _INT32:
        return _result(node, "Identity", [count])
    return _result(node, "Cast", [count])


def _split_to_shapes_of(node, ex):
    value, *likes = _inputs(node)
    if len(likes) == 1:
        return _result(node, "Identity", [value])
    axis = int(node.attrs["axis"])
    if axis < 0 and value[2].ndims is not None:
        axis %= value[2].ndims
    sizes = ex.helper(node, "ShapeN", "ShapeN", likes, outputs=[_INT32] * len(likes))
    sizes = [(f"{sizes}:{k}" if k else sizes, _INT32, TensorShape([like[2].ndims]))
             for k, like in enumerate(likes)]
    offsets = ex.helper(node, "ConcatOffset", "ConcatOffset",
                        [ex.const(node, "concat_dim", np.int32(axis)), *sizes],
                        outputs=[_INT32] * len(likes))
    pieces = []
    for k, (like, size) in enumerate(zip(likes, sizes)):
        offset = (f"{offsets}:{k}" if k else offsets, _INT32, size[2])
        pieces.append((ex.helper(node, "Slice", "Slice", [value, offset, size],
                                 outputs=[value[1]]), value[1], like[2]))
    return _result(node, "IdentityN", pieces)


def _conv_backprop(v1: str, sized: int):
    """``Conv2DBackprop*V2`` as TF's ``v1``, its input ``sized`` given as its Shape."""
    def rewrite(node, ex):
        inputs = _inputs(node)
        inputs[sized] = _shape(ex, node, inputs[sized])
        return _result(node, v1, inputs, node.attrs)
    return rewrite


GRADIENT_FORMS = {
    "_BroadcastToShapeOf": _broadcast_to_shape_of,
    "_ReduceToShapeOf": _reduce_to_shape_of,
    "_ReshapeToShapeOf": _reshape_to_shape_of,
    "_ReducedSize": _reduced_size,
    "_SplitToShapesOf": _split_to_shapes_of,
    "Conv2DBackpropInputV2": _conv_backprop("Conv2DBackpropInput", 0),
    "Conv2DBackpropFilterV2": _conv_backprop("Conv2DBackpropFilter", 1),
}
