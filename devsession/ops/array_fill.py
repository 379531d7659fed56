"""Shapes and filled tensors: Shape, Size, Rank, Fill (``zeros``, ``ones``, ``fill``),
ZerosLike, OnesLike, BroadcastTo (``broadcast_to``), AddN (``add_n``) and
``clip_by_value``.

``Shape``, ``Size`` and ``Rank`` know their value at build time when the input's static
shape does (``static_value``), so shape arithmetic on them (``ds.shape(x)[0]``, a
``ds.stack`` of it) still gives later ops static shapes.  ``zeros``/``ones`` of a small
static shape are a Const, as TF builds them (bigger ones a Fill, so a GraphDef does not
carry the data).  ``clip_by_value`` is Minimum then Maximum, as TF builds it, so the
optimizer fuses it with its neighbours.

Kernels: ``kernels/reference/array.py`` (numpy, the reference and the CPU's) and
``kernels/cuda/array.py``; AddN's CPU and GPU kernels are generated elementwise loops
(``kernels/cpu/array.py``, ``kernels/cuda/array.py``): one pass over every input.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape, fully_defined_dims
from .array import alike_inputs, identity
from .array_operands import (INDEX_DTYPES, STATIC_VALUE_LIMIT, int_operand, int_values,
                             shape_operand, small)
from .common import graph_of, make_op, operands
from .registry import InferError, OpDef, register_op

__all__ = ["shape", "size", "rank", "fill", "zeros", "ones", "zeros_like", "ones_like",
           "add_n", "broadcast_to"]


def _out_type(attrs, node):
    out = dtypes.as_dtype(attrs.get("out_type", dtypes.int32))
    if out not in INDEX_DTYPES:
        raise TypeError(f"Op '{node}': out_type must be int32 or int64, not {out.name}.")
    return out


def _shape(inputs, attrs, node):
    (x,) = inputs
    return _out_type(attrs, node), TensorShape([x.shape.ndims])


def _shape_value(op, value_of):
    shape = op.inputs[0].shape
    if not shape.is_fully_defined():
        return None
    return np.array(shape.dims, op.outputs[0].dtype.np)


def _size(inputs, attrs, node):
    return _out_type(attrs, node), TensorShape(())


def _size_value(op, value_of):
    n = op.inputs[0].shape.num_elements()
    return None if n is None else np.array(n, op.outputs[0].dtype.np)


def _rank(inputs, attrs, node):
    return dtypes.int32, TensorShape(())


def _rank_value(op, value_of):
    rank = op.inputs[0].shape.ndims
    return None if rank is None else np.array(rank, np.int32)


def _fill(inputs, attrs, node):
    dims, value = inputs
    shape = int_values(dims, node, "dims")
    if value.shape.ndims not in (None, 0):
        raise InferError(f"Op '{node}': value '{value.name}' must be a scalar, got shape "
                         f"{value.shape}.")
    if shape is None:
        return value.dtype, shape_operand(dims)
    if any(d < 0 for d in shape):
        raise InferError(f"Op '{node}': dims {shape} must be non-negative.")
    return value.dtype, TensorShape(shape)


def _fill_value(op, value_of):
    dims, value = (value_of(t) for t in op.inputs)
    if dims is None or value is None or np.prod(dims) > STATIC_VALUE_LIMIT:
        return None
    return np.full([int(d) for d in np.asarray(dims).reshape(-1)], value)


def _like(inputs, attrs, node):
    (x,) = inputs
    return x.dtype, x.shape


def _broadcast_to(inputs, attrs, node):
    x, shape = inputs
    int_values(shape, node, "shape")
    target = shape_operand(shape)
    if target.ndims is None or x.shape.ndims is None:
        return x.dtype, target
    if x.shape.ndims > target.ndims:
        raise InferError(f"Op '{node}': cannot broadcast '{x.name}' of shape {x.shape} to "
                         f"the lower rank shape {target}.")
    for have, want in zip(reversed(x.shape.dims), reversed(target.dims)):
        if None not in (have, want) and have not in (1, want):
            raise InferError(f"Op '{node}': cannot broadcast '{x.name}' of shape {x.shape} "
                             f"to shape {target}: dimensions {have} and {want} differ.")
    return x.dtype, target


def _add_n(inputs, attrs, node):
    dtype, shape = alike_inputs(inputs, attrs, node)
    if not (dtype.is_numeric or dtype.is_complex):
        raise TypeError(f"Op '{node}': AddN needs numeric inputs, not {dtype.name}.")
    return dtype, shape


def _add_n_value(op, value_of):
    values = [value_of(t) for t in op.inputs]
    if not all(small(v) for v in values):
        return None
    total = values[0]
    for v in values[1:]:
        total = total + v
    return np.asarray(total, op.outputs[0].dtype.np)


def _register() -> None:
    register_op(OpDef("Shape", _shape, 1, static_value=_shape_value))
    register_op(OpDef("Size", _size, 1, static_value=_size_value))
    register_op(OpDef("Rank", _rank, 1, static_value=_rank_value))
    register_op(OpDef("Fill", _fill, 2, host_inputs=(0,), static_value=_fill_value))
    register_op(OpDef("ZerosLike", _like, 1))
    register_op(OpDef("OnesLike", _like, 1))
    register_op(OpDef("AddN", _add_n, None, static_value=_add_n_value))
    register_op(OpDef("BroadcastTo", _broadcast_to, 2, host_inputs=(1,)))


_register()


# --- builders -------------------------------------------------------------------------------

def shape(input, name=None, out_type=dtypes.int32) -> Tensor:  # noqa: A002
    """The shape of ``input`` as a 1-D int tensor (known at build time when the static
    shape is fully defined)."""
    return make_op("Shape", [convert_to_tensor(input)],
                   {"out_type": dtypes.as_dtype(out_type)}, name)


def size(input, name=None, out_type=dtypes.int32) -> Tensor:  # noqa: A002
    """The number of elements of ``input``."""
    return make_op("Size", [convert_to_tensor(input)],
                   {"out_type": dtypes.as_dtype(out_type)}, name)


def rank(input, name=None) -> Tensor:  # noqa: A002
    """The rank of ``input``: a Const when the static rank is known (as TF), else Rank."""
    x = convert_to_tensor(input)
    if x.shape.ndims is not None:
        return convert_to_tensor(np.int32(x.shape.ndims), graph=x.graph,
                                 name=name or "Rank")
    return make_op("Rank", [x], name=name)


def fill(dims, value, name=None) -> Tensor:
    """A tensor of shape ``dims`` (ints or an int tensor) filled with scalar ``value``."""
    graph = graph_of(dims, value)
    shape_vector = int_operand(dims, graph)
    return make_op("Fill", [shape_vector, convert_to_tensor(value, graph=graph)], name=name)


def _filled(value: int, what: str):
    def build(shape, dtype=dtypes.float32, name=None) -> Tensor:
        dtype = dtypes.as_dtype(dtype)
        graph = graph_of(shape)
        if isinstance(shape, TensorShape):
            shape = fully_defined_dims(shape)
        static = _static_dims(shape)
        if static is not None and int(np.prod(static)) < 1000:
            array = np.broadcast_to(dtypes.filled_scalar(value, dtype), static)
            return convert_to_tensor(array, dtype=dtype, graph=graph, name=name or what)
        scalar = dtypes.filled_scalar(value, dtype)
        return fill(shape, convert_to_tensor(scalar, dtype=dtype, graph=graph), name=name or what)
    build.__name__ = what
    build.__doc__ = (f"A tensor of ``shape`` filled with {value}s (a Const when small, "
                     f"else a Fill).")
    return build


def _static_dims(shape):
    """The dims of a shape given as Python values; None for a tensor or a list holding
    one."""
    if hasattr(shape, "_as_tensor") or isinstance(shape, Tensor) or (
            isinstance(shape, (list, tuple)) and any(
                isinstance(d, Tensor) or hasattr(d, "_as_tensor") for d in shape)):
        return None
    return [int(d) for d in np.asarray(shape, dtype=np.int64).reshape(-1)]


zeros = _filled(0, "zeros")
ones = _filled(1, "ones")


def _like_builder(op_type: str, value: int, what: str):
    def build(tensor, dtype=None, name=None, optimize=True) -> Tensor:
        x = convert_to_tensor(tensor)
        dtype = x.dtype if dtype is None else dtypes.as_dtype(dtype)
        scalar = dtypes.filled_scalar(value, dtype)      # TypeError: a string's ones
        if dtype == x.dtype:
            return make_op(op_type, [x], name=name)
        return fill(shape(x), convert_to_tensor(scalar, dtype=dtype, graph=x.graph),
                    name=name or what)
    build.__name__ = what
    build.__doc__ = f"A tensor like ``tensor`` (its shape; ``dtype`` or its dtype) of {value}s."
    return build


zeros_like = _like_builder("ZerosLike", 0, "zeros_like")
ones_like = _like_builder("OnesLike", 1, "ones_like")


def add_n(inputs, name=None) -> Tensor:
    """The elementwise sum of ``inputs`` (same shape and dtype, no broadcasting), in one
    pass; one input is returned as it is (an Identity when ``name`` is given), as TF."""
    if isinstance(inputs, Tensor) or not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("add_n takes a non-empty list of tensors of the same shape and "
                         "dtype.")
    tensors = operands(*inputs)
    if len(tensors) == 1:
        return identity(tensors[0], name=name) if name else tensors[0]
    return make_op("AddN", tensors, {"N": len(tensors)}, name)


def broadcast_to(input, shape, name=None) -> Tensor:  # noqa: A002  (TF1's argument name)
    """``input`` broadcast to ``shape`` (ints or an int tensor) by numpy's rules, as TF's
    ``BroadcastTo``: ValueError when the static shapes cannot broadcast, else
    ``InvalidArgumentError`` at run time."""
    graph = graph_of(input, shape)
    return make_op("BroadcastTo", [convert_to_tensor(input, graph=graph),
                                   int_operand(shape, graph)], name=name or "BroadcastTo")
