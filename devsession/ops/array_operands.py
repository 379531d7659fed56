"""Shape, axis and index operands of the array ops: converting what a user passes
(Python ints and lists, tensors, lists mixing both) into int tensors, and reading what
the graph knows of their values at build time.

``int_values(spec, ...)`` reads an ``InputSpec``'s static value (the graph fills it in
for constants and for ops with a ``static_value`` hook); ``partial_shape_value(tensor)``
knows more, per element, for shape vectors built from ``Shape`` and ``Pack`` (TF's
shape inference does the same): ``[tf.shape(x)[0], -1]`` of an ``x`` of shape
``(None, 4)`` is ``[None, -1]``, of one of shape ``(3, 4)`` is ``[3, -1]``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor
from ..tensor_shape import TensorShape, fully_defined_dims
from .common import make_op
from .registry import InferError
from .shape_arithmetic import STATIC_VALUE_LIMIT, small

__all__ = ["STATIC_VALUE_LIMIT", "INDEX_DTYPES", "check_int", "int_values", "vector_length",
           "holds_tensor",
           "small", "int_operand", "partial_shape_value", "shape_operand"]

INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def check_int(spec, node: str, what: str) -> None:
    """TypeError unless input ``spec`` is int32 or int64."""
    if spec.dtype not in INDEX_DTYPES:
        raise TypeError(f"Op '{node}': {what} '{spec.name}' must be int32 or int64, not "
                        f"{spec.dtype.name}.")


def int_values(spec, node: str, what: str, rank: int | None = 1):
    """The static value of int input ``spec`` as a list (a scalar for ``rank`` 0), or
    None when unknown; InferError when its static rank is not ``rank``."""
    check_int(spec, node, what)
    if rank is not None and spec.shape.ndims is not None and spec.shape.ndims != rank:
        raise InferError(f"Op '{node}': {what} '{spec.name}' must have rank {rank}, but has "
                         f"shape {spec.shape}.")
    if spec.value is None:
        return None
    value = np.asarray(spec.value)
    return int(value.reshape(())) if rank == 0 else [int(v) for v in value.reshape(-1)]


def vector_length(spec) -> int | None:
    """The static length of a 1-D input (None if unknown)."""
    return spec.shape.dims[0] if spec.shape.ndims == 1 else None


def holds_tensor(value) -> bool:
    """Whether ``value`` is a tensor or a (nested) list holding one."""
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        return True
    return isinstance(value, (list, tuple)) and any(holds_tensor(v) for v in value)


def int_operand(value, graph=None, name: str | None = None) -> Tensor:
    """A shape, axis or index operand as an int tensor: Tensors pass through (int32 or
    int64, else TypeError), a list holding tensors (nested too: ``pad``'s ``[[0, 0], [0,
    n]]``) is stacked (TF's auto-packing of ``[tf.shape(x)[0], -1]``), Python values
    become an int32 Const (int64 if needed)."""
    if isinstance(value, TensorShape):
        value = fully_defined_dims(value)
    if hasattr(value, "_as_tensor"):
        value = value._as_tensor()
    if isinstance(value, Tensor):
        if value.dtype not in INDEX_DTYPES:
            raise TypeError(f"'{value.name}' must be an int32 or int64 tensor, not "
                            f"{value.dtype.name}.")
        return value
    if isinstance(value, (list, tuple)) and holds_tensor(value):
        parts = [int_operand(v, graph) for v in value]
        if any(p.dtype == dtypes.int64 for p in parts):
            parts = [p if p.dtype == dtypes.int64 else
                     make_op("Cast", [p], {"DstT": dtypes.int64}) for p in parts]
        return make_op("Pack", parts, {"N": len(parts), "axis": 0}, name or "stack")
    array = np.asarray(value)
    if array.size == 0:
        value = np.zeros(array.shape, np.int32)
    elif array.dtype.kind not in "iu":
        raise TypeError(f"Expected an integer shape, axis or index, got {value!r}.")
    return convert_to_tensor(value, graph=graph, name=name or "Const")


def partial_shape_value(tensor: Tensor) -> list | None:
    """What the graph knows of int vector ``tensor`` used as a shape: a list with an int
    where an element is known and None where not, or None when even its length is
    unknown.  Sees through Shape (the input's static dims), a strided slice of one
    (``shape(x)[1:]``), Pack of scalars (each one's static value, or a dimension of a
    Shape picked by ``shape(x)[i]``), ConcatV2 of such vectors and a Cast of one to int32
    or int64 (``tf.cast(tf.shape(x), tf.int64)`` as a SparseTensor's dense_shape), as
    TF's shape inference does."""
    value = constant_value(tensor)
    if value is not None:
        return [int(v) for v in np.asarray(value).reshape(-1)]
    op = tensor.op
    if op.type == "Shape" and op.inputs[0].shape.ndims is not None:
        return list(op.inputs[0].shape.dims)
    if op.type == "Pack" and op.attrs.get("axis", 0) == 0 and \
            all(t.shape.ndims == 0 for t in op.inputs):
        return [_scalar_value(t) for t in op.inputs]
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape":
        dims = _sliced_dims(op)
        if dims is not None:
            return dims
    if op.type == "Cast" and op.attrs.get("DstT") in (dtypes.int32, dtypes.int64):
        return partial_shape_value(op.inputs[0])
    if op.type == "ConcatV2" and len(op.inputs) and op.attrs.get("axis") == 0:
        parts = [partial_shape_value(t) for t in op.inputs]
        if all(p is not None for p in parts):
            return [d for p in parts for d in p]
    if tensor.shape.ndims == 1 and tensor.shape.dims[0] is not None:
        return [None] * tensor.shape.dims[0]
    return None


def _sliced_dims(op) -> list | None:
    """``tf.shape(x)[1:3]``: the static dims of ``x`` that a 1-D strided slice (constant
    begin, end and stride; no special masks) of its Shape picks."""
    if any(op.attrs.get(m) for m in ("ellipsis_mask", "new_axis_mask", "shrink_axis_mask")):
        return None
    dims = op.inputs[0].op.inputs[0].shape.dims
    spec = [constant_value(t) for t in op.inputs[1:]]
    if dims is None or any(v is None or np.size(v) != 1 for v in spec):
        return None
    begin, end, stride = (int(np.asarray(v).reshape(())) for v in spec)
    begin = None if op.attrs.get("begin_mask", 0) & 1 else begin
    end = None if op.attrs.get("end_mask", 0) & 1 else end
    return list(dims)[begin:end:stride] if stride else None


def _scalar_value(t: Tensor) -> int | None:
    value = constant_value(t)
    if value is not None:
        return int(np.asarray(value).reshape(()))
    op = t.op
    if op.type == "StridedSlice" and op.attrs.get("shrink_axis_mask") == 1 and \
            op.inputs[0].op.type == "Shape":
        begin = constant_value(op.inputs[1])
        dims = op.inputs[0].op.inputs[0].shape.dims
        if begin is not None and dims is not None and np.size(begin) == 1:
            at = int(np.asarray(begin).reshape(()))
            if -len(dims) <= at < len(dims):
                return dims[at]
    return None


def shape_operand(spec) -> TensorShape:
    """The static shape an int vector input describes, as far as the graph knows it
    (its value, else ``partial_shape_value`` of its tensor): inferred when the node is
    built, so a GraphDef imported later gets the same shapes."""
    if spec.value is not None:
        return TensorShape([int(d) for d in np.asarray(spec.value).reshape(-1)])
    dims = partial_shape_value(spec.tensor) if spec.tensor is not None else None
    if dims is None and spec.shape.ndims == 1:
        dims = [None] * spec.shape.dims[0] if spec.shape.dims[0] is not None else None
    return TensorShape(None if dims is None else [d if d is None or d >= 0 else None
                                                  for d in dims])

