"""Ops about shapes rather than values: EnsureShape (``tf.ensure_shape``), ShapeN
(``tf.shape_n``), BroadcastArgs (``tf.broadcast_dynamic_shape``), and ``tf.broadcast_static_shape`` (no op: the static
shapes' broadcast, a ValueError when they do not).

* EnsureShape's static shape is its input's merged with the ``shape`` attr (a
  ValueError when they conflict); at run time a value of an incompatible shape is TF's
  InvalidArgumentError naming the node.  Its gradient passes the gradient through.
* ShapeN and BroadcastArgs are int ops on the host (as TF keeps them: HostMemory), known
  when built where the shapes are (BroadcastArgs' static value).

Kernels: ``kernels/reference/array_shapes.py`` (EnsureShape over numpy or cupy;
ShapeN and BroadcastArgs on the host).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape, as_shape, bracketed, broadcast_static, merge_conflict
from .common import graph_of, make_op
from .registry import InferError, OpDef, not_differentiable, register_gradient, register_op

__all__ = ["ensure_shape", "shape_n", "broadcast_dynamic_shape",
           "broadcast_static_shape"]

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _ensure_shape(inputs, attrs, node):
    (x,) = inputs
    expected = as_shape(attrs["shape"])
    conflict = merge_conflict(expected, x.shape)                 # TF's words, then ours
    if conflict:
        raise InferError(f"{conflict} for '{node}' with input shapes: {bracketed(x.shape)}. "
                         f"Op '{node}': the shape {x.shape} of '{x.name}' is not compatible "
                         f"with the expected shape {expected}.")
    return x.dtype, x.shape.merge_with(expected)


def _shape_n(inputs, attrs, node):
    out_type = dtypes.as_dtype(attrs["out_type"])
    if out_type not in _INDEX_DTYPES:
        raise TypeError(f"Op '{node}': out_type must be int32 or int64, not {out_type.name}.")
    return [(out_type, TensorShape([x.shape.ndims])) for x in inputs]


def _broadcast_args(inputs, attrs, node):
    for spec in inputs:
        if spec.shape.ndims not in (None, 1):
            raise InferError(f"Op '{node}': Shape must be rank 1 but is rank "
                             f"{spec.shape.ndims} for '{spec.name}'.")
        if spec.dtype not in _INDEX_DTYPES:
            raise TypeError(f"Op '{node}': shapes must be int32 or int64, not "
                            f"{spec.dtype.name}.")
    s0, s1 = inputs
    if s0.dtype != s1.dtype:
        raise TypeError(f"Op '{node}': s0 and s1 must have one dtype, got {s0.dtype.name} "
                        f"and {s1.dtype.name}.")
    if s0.value is not None and s1.value is not None:
        try:
            np.broadcast_shapes(tuple(s0.value), tuple(s1.value))
        except ValueError:
            raise InferError(f"Op '{node}': Incompatible shapes: {np.asarray(s0.value).tolist()}"
                             f" vs. {np.asarray(s1.value).tolist()}") from None
    lengths = [s.shape.dims[0] if s.shape.ndims == 1 else None for s in inputs]
    return s0.dtype, TensorShape([None if None in lengths else max(lengths)])


def _broadcast_args_value(op, value_of):
    values = [value_of(t) for t in op.inputs]
    if any(v is None for v in values):
        return None
    return np.array(np.broadcast_shapes(*(tuple(int(d) for d in v) for v in values)),
                    op.outputs[0].dtype.np)


register_op(OpDef("EnsureShape", _ensure_shape, 1))
register_op(OpDef("ShapeN", _shape_n, None, attr_defaults={"out_type": dtypes.int32}))
register_op(OpDef("BroadcastArgs", _broadcast_args, 2, static_value=_broadcast_args_value))
not_differentiable("ShapeN", "BroadcastArgs")


@register_gradient("EnsureShape")
def _ensure_shape_grad(op, grad):
    return [grad]


def ensure_shape(x, shape, name=None) -> Tensor:
    """``x``, checked when run to have a shape compatible with ``shape`` (None for an
    unknown dimension or rank), which its static shape then has (TF's
    ``tf.ensure_shape``)."""
    x = convert_to_tensor(x)
    shape = as_shape(shape)
    return make_op("EnsureShape", [x], {"shape": shape}, name=name or "EnsureShape")


def shape_n(input, out_type=dtypes.int32, name=None) -> list:  # noqa: A002
    """The shape of each tensor of ``input``, as one node (TF's ``tf.shape_n``)."""
    graph = graph_of(*input)
    tensors = [convert_to_tensor(x, graph=graph) for x in input]
    op = graph.create_op("ShapeN", tensors, {"out_type": dtypes.as_dtype(out_type)},
                         name=name or "ShapeN")
    return list(op.outputs)


def broadcast_dynamic_shape(shape_x, shape_y, name=None) -> Tensor:
    """The broadcast of two shape vectors, computed when run (TF's
    ``tf.broadcast_dynamic_shape``: BroadcastArgs)."""
    graph = graph_of(shape_x, shape_y)
    sx = convert_to_tensor(shape_x, dtype_hint=dtypes.int32, graph=graph)
    sy = convert_to_tensor(shape_y, dtype_hint=sx.dtype, graph=graph)
    return make_op("BroadcastArgs", [sx, sy], name=name or "BroadcastArgs")


def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The broadcast of two static shapes (TF's ``tf.broadcast_static_shape``);
    ValueError where they cannot broadcast."""
    x, y = as_shape(shape_x), as_shape(shape_y)
    try:
        return broadcast_static(x, y)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible "
                         f"if for each dimension pair they are either equal or one of them "
                         f"is 1. Received: {x} and {y}.") from None
