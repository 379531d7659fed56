"""Every op type devsession knows, each described once (see ``registry.py``).

Infer functions raise ``InferError`` (a ValueError) for shape problems and TypeError for
dtype problems; both name the node and the operands, so the user sees which line of
graph-building code is wrong.  Attributes arrive normalised by the builder functions in
``api.py`` where that needs the input's rank (axes are made non-negative here).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tensor_shape import TensorShape, broadcast_static
from .registry import InferError, OpDef, register_op

UNARY_NUMERIC = ("Neg", "Abs", "Square", "Relu")
UNARY_FLOAT = ("Exp", "Log", "Sqrt", "Tanh", "Sigmoid")
BINARY_SAME = ("Add", "Sub", "Mul", "Pow", "Maximum", "Minimum", "RealDiv")
COMPARISONS = ("Equal", "Less", "LessEqual", "Greater", "GreaterEqual")
REDUCTIONS = ("Sum", "Mean", "Max", "Min")
RANDOM = ("RandomUniform", "RandomStandardNormal")


# --- helpers ----------------------------------------------------------------------

def _numeric(x, node: str) -> None:
    if not x.dtype.is_numeric:
        raise TypeError(f"Op '{node}' needs a numeric input, but '{x.name}' is {x.dtype.name}.")


def _same_dtype(inputs, node: str) -> dtypes.DType:
    first = inputs[0]
    for other in inputs[1:]:
        if other.dtype != first.dtype:
            raise TypeError(
                f"Op '{node}': input '{other.name}' has dtype {other.dtype.name}, which does not "
                f"match dtype {first.dtype.name} of input '{first.name}'. Cast one of them first "
                f"(ds.cast).")
    return first.dtype


def _broadcast(inputs, node: str) -> TensorShape:
    shape = inputs[0].shape
    for other in inputs[1:]:
        try:
            shape = broadcast_static(shape, other.shape)
        except ValueError:
            names = " and ".join(f"'{x.name}' with shape {x.shape}" for x in inputs)
            raise InferError(f"Op '{node}': incompatible shapes for broadcasting: {names}.") from None
    return shape


def normalise_axis(axis: int, rank: int | None, node: str) -> int:
    if rank is None:
        if axis < 0:
            raise InferError(f"Op '{node}': a negative axis needs an input of known rank.")
        return axis
    if not -rank <= axis < max(rank, 1):
        raise InferError(f"Op '{node}': axis {axis} is out of range for rank {rank}.")
    return axis % max(rank, 1)


# --- elementwise --------------------------------------------------------------------

def _unary_any(inputs, attrs, node):
    (x,) = inputs
    return x.dtype, x.shape


def _unary_numeric(inputs, attrs, node):
    _numeric(inputs[0], node)
    return _unary_any(inputs, attrs, node)


def _unary_float(inputs, attrs, node):
    (x,) = inputs
    if not x.dtype.is_floating:
        raise TypeError(
            f"Op '{node}' needs a floating-point input, but '{x.name}' is {x.dtype.name}; "
            f"use ds.cast(x, ds.float32) first.")
    return x.dtype, x.shape


def _binary_same(inputs, attrs, node):
    dtype = _same_dtype(inputs, node)
    if dtype.is_bool:
        raise TypeError(f"Op '{node}' does not take bool inputs ('{inputs[0].name}').")
    return dtype, _broadcast(inputs, node)


def _real_div(inputs, attrs, node):
    dtype, shape = _binary_same(inputs, attrs, node)
    return (dtype if dtype.is_floating else dtypes.float64), shape


def _equal(inputs, attrs, node):
    _same_dtype(inputs, node)
    return dtypes.bool_, _broadcast(inputs, node)


def _order(inputs, attrs, node):
    if _same_dtype(inputs, node).is_bool:
        raise TypeError(f"Op '{node}' cannot order bool inputs ('{inputs[0].name}').")
    return dtypes.bool_, _broadcast(inputs, node)


def _select(inputs, attrs, node):
    cond, x, y = inputs
    if not cond.dtype.is_bool:
        raise TypeError(f"Op '{node}': condition '{cond.name}' must be bool, not {cond.dtype.name}.")
    return _same_dtype([x, y], node), _broadcast(inputs, node)


def _cast(inputs, attrs, node):
    return dtypes.as_dtype(attrs["DstT"]), inputs[0].shape


# --- linear algebra -----------------------------------------------------------------

def _matmul(inputs, attrs, node):
    a, b = inputs
    dtype = _same_dtype(inputs, node)
    _numeric(a, node)
    ra, rb = a.shape.ndims, b.shape.ndims
    if ra is None or rb is None:
        return dtype, TensorShape(None)
    if ra < 2 or rb < 2:
        raise InferError(
            f"Op '{node}': matmul needs inputs of rank >= 2, got '{a.name}' with shape {a.shape} "
            f"and '{b.name}' with shape {b.shape}.")
    m, ka = (a.shape[-1], a.shape[-2]) if attrs["transpose_a"] else (a.shape[-2], a.shape[-1])
    kb, n = (b.shape[-1], b.shape[-2]) if attrs["transpose_b"] else (b.shape[-2], b.shape[-1])
    if ka is not None and kb is not None and ka != kb:
        raise InferError(
            f"Op '{node}': matmul inner dimensions differ: '{a.name}' has shape {a.shape}"
            f"{' (transposed)' if attrs['transpose_a'] else ''} and '{b.name}' has shape "
            f"{b.shape}{' (transposed)' if attrs['transpose_b'] else ''} ({ka} != {kb}).")
    try:
        batch = broadcast_static(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise InferError(f"Op '{node}': batch dimensions of '{a.name}' {a.shape} and "
                         f"'{b.name}' {b.shape} do not broadcast.") from None
    return dtype, TensorShape(batch.dims + (m, n))


# --- reductions and shape ops ---------------------------------------------------------

def _reduce(inputs, attrs, node):
    (x,) = inputs
    _numeric(x, node)
    axis, keep = attrs["axis"], attrs["keepdims"]
    dtype = x.dtype
    if x.shape.ndims is None:
        return dtype, TensorShape(None)
    if keep:
        dims = [1 if i in axis else d for i, d in enumerate(x.shape.dims)]
    else:
        dims = [d for i, d in enumerate(x.shape.dims) if i not in axis]
    return dtype, TensorShape(dims)


def _argmax(inputs, attrs, node):
    (x,) = inputs
    _numeric(x, node)
    if x.shape.ndims is None:
        return dtypes.int64, TensorShape(None)
    return dtypes.int64, TensorShape(d for i, d in enumerate(x.shape.dims) if i != attrs["axis"])


def _reshape(inputs, attrs, node):
    (x,) = inputs
    target = tuple(attrs["shape"])
    if sum(1 for d in target if d == -1) > 1:
        raise InferError(f"Op '{node}': reshape target {list(target)} has more than one -1.")
    if any(d < -1 for d in target):
        raise InferError(f"Op '{node}': reshape target {list(target)} has a negative dimension.")
    known = 1
    for d in target:
        if d != -1:
            known *= d
    size = x.shape.num_elements()
    if -1 in target:
        if size is None:
            return x.dtype, TensorShape(None if d == -1 else d for d in target)
        if known == 0 or size % known:
            raise InferError(f"Op '{node}': cannot reshape '{x.name}' with shape {x.shape} "
                             f"({size} elements) into {list(target)}.")
        return x.dtype, TensorShape(size // known if d == -1 else d for d in target)
    if size is not None and size != known:
        raise InferError(f"Op '{node}': cannot reshape '{x.name}' with shape {x.shape} "
                         f"({size} elements) into {list(target)} ({known} elements).")
    return x.dtype, TensorShape(target)


def _transpose(inputs, attrs, node):
    (x,) = inputs
    perm = tuple(attrs["perm"])
    if x.shape.ndims is not None:
        if sorted(perm) != list(range(x.shape.ndims)):
            raise InferError(f"Op '{node}': perm {list(perm)} is not a permutation of the "
                             f"{x.shape.ndims} axes of '{x.name}' with shape {x.shape}.")
        return x.dtype, TensorShape(x.shape.dims[p] for p in perm)
    return x.dtype, TensorShape([None] * len(perm))


def _concat(inputs, attrs, node):
    if not inputs:
        raise InferError(f"Op '{node}': concat needs at least one input.")
    dtype = _same_dtype(inputs, node)
    axis = attrs["axis"]
    known = [x for x in inputs if x.shape.ndims is not None]
    if not known:
        return dtype, TensorShape(None)
    rank = known[0].shape.ndims
    out = list(known[0].shape.dims)
    out[axis] = 0
    for x in known:
        if x.shape.ndims != rank:
            raise InferError(f"Op '{node}': concat inputs differ in rank: '{known[0].name}' "
                             f"{known[0].shape} vs '{x.name}' {x.shape}.")
        for i, d in enumerate(x.shape.dims):
            if i == axis:
                out[i] = None if out[i] is None or d is None else out[i] + d
            elif out[i] is None:
                out[i] = d
            elif d is not None and d != out[i]:
                raise InferError(f"Op '{node}': concat inputs differ in dimension {i} "
                                 f"(other than axis {axis}): '{known[0].name}' "
                                 f"{known[0].shape} vs '{x.name}' {x.shape}.")
    if len(known) < len(inputs):
        out[axis] = None
    return dtype, TensorShape(out)


def _softmax(inputs, attrs, node):
    return _unary_float(inputs, attrs, node)


# --- sources and state ----------------------------------------------------------------

def _const(inputs, attrs, node):
    value = attrs["value"]
    if not isinstance(value, np.ndarray):
        raise TypeError(f"Op '{node}': a Const's value must be a tensor, not "
                        f"{type(value).__name__}.")
    return dtypes.as_dtype(value.dtype), TensorShape(value.shape)


def _placeholder(inputs, attrs, node):
    return dtypes.as_dtype(attrs["dtype"]), attrs["shape"]


def _variable(inputs, attrs, node):
    return dtypes.as_dtype(attrs["dtype"]), attrs["shape"]


def _assign(inputs, attrs, node):
    ref, value = inputs
    if ref.dtype != value.dtype:
        raise TypeError(f"Op '{node}': cannot assign {value.dtype.name} value '{value.name}' to "
                        f"{ref.dtype.name} variable '{ref.name}'.")
    if attrs.get("validate_shape", True) and not ref.shape.is_compatible_with(value.shape):
        raise InferError(f"Op '{node}': cannot assign value '{value.name}' with shape "
                         f"{value.shape} to variable '{ref.name}' with shape {ref.shape}.")
    return ref.dtype, ref.shape.merge_with(value.shape) if ref.shape.is_compatible_with(
        value.shape) else value.shape


def _random(inputs, attrs, node):
    dtype = dtypes.as_dtype(attrs["dtype"])
    if not dtype.is_floating:
        raise TypeError(f"Op '{node}': random values must be floating point, not {dtype.name}.")
    return dtype, TensorShape(attrs["shape"])


def _no_output(inputs, attrs, node):
    return None


def _internal(inputs, attrs, node):
    raise TypeError(f"Op '{node}': _FusedElementwise is made by the optimizer, not by graphs.")


def _register_all() -> None:
    register_op(OpDef("Identity", _unary_any, 1))
    for name in UNARY_NUMERIC:
        register_op(OpDef(name, _unary_numeric, 1, elementwise=True))
    for name in UNARY_FLOAT:
        register_op(OpDef(name, _unary_float, 1, elementwise=True))
    for name in BINARY_SAME:
        infer = _real_div if name == "RealDiv" else _binary_same
        register_op(OpDef(name, infer, 2, elementwise=True))
    for name in COMPARISONS:
        register_op(OpDef(name, _equal if name == "Equal" else _order, 2, elementwise=True))
    register_op(OpDef("SelectV2", _select, 3, elementwise=True))
    register_op(OpDef("Cast", _cast, 1, elementwise=True))
    register_op(OpDef("MatMul", _matmul, 2,
                      attr_defaults={"transpose_a": False, "transpose_b": False}))
    for name in REDUCTIONS:
        register_op(OpDef(name, _reduce, 1, attr_defaults={"keepdims": False}))
    register_op(OpDef("ArgMax", _argmax, 1))
    register_op(OpDef("Reshape", _reshape, 1))
    register_op(OpDef("Transpose", _transpose, 1))
    register_op(OpDef("ConcatV2", _concat, None))
    register_op(OpDef("Softmax", _softmax, 1))
    register_op(OpDef("Const", _const, 0))
    register_op(OpDef("Placeholder", _placeholder, 0))
    register_op(OpDef("NoOp", _no_output, 0, has_output=False))
    register_op(OpDef("_FusedElementwise", _internal, None))  # optimizer/fusion.py
    register_op(OpDef("VariableV2", _variable, 0, stateful=True,
                      attr_defaults={"container": "", "shared_name": ""}))
    register_op(OpDef("Assign", _assign, 2, ref_inputs=(0,), stateful=True,
                      attr_defaults={"validate_shape": True}))
    register_op(OpDef("AssignAdd", _assign, 2, ref_inputs=(0,), stateful=True))
    for name in RANDOM:
        register_op(OpDef(name, _random, 0, stateful=True))


_register_all()
