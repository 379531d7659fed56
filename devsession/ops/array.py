"""Data movement: Identity, Reshape, Transpose, ConcatV2 (and StopGradient, an identity
that gradients do not cross).

Kernels: ``kernels/reference/array.py`` (numpy: the reference and the CPU's) and
``kernels/cuda/array.py``.
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import make_op, normalised_axis, operands, same_dtype, unary_any
from .registry import InferError, OpDef, register_op

__all__ = ["identity", "reshape", "transpose", "concat", "stop_gradient"]


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
    dtype = same_dtype(inputs, node)
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


register_op(OpDef("Identity", unary_any, 1,
                  static_value=lambda op, value_of: value_of(op.inputs[0])))
register_op(OpDef("Reshape", _reshape, 1))
register_op(OpDef("Transpose", _transpose, 1))
register_op(OpDef("ConcatV2", _concat, None))


def identity(x, name=None) -> Tensor:
    return make_op("Identity", operands(x), name=name)


def reshape(tensor, shape, name=None) -> Tensor:
    """``tensor`` with a new shape (a list of ints, one of which may be -1)."""
    if isinstance(shape, Tensor) or hasattr(shape, "_as_tensor"):
        raise TypeError("reshape takes the new shape as a list of ints (one may be -1); a "
                        "shape computed in the graph is not supported.")
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    elif not isinstance(shape, (list, tuple)):
        shape = np.atleast_1d(np.asarray(shape)).tolist()
    return make_op("Reshape", [convert_to_tensor(tensor)], {"shape": tuple(int(d) for d in shape)},
               name)


def transpose(a, perm=None, name=None) -> Tensor:
    x = convert_to_tensor(a)
    if perm is None:
        if x.shape.ndims is None:
            raise ValueError(f"transpose of '{x.name}' without perm needs a known rank.")
        perm = tuple(reversed(range(x.shape.ndims)))
    return make_op("Transpose", [x], {"perm": tuple(int(p) for p in perm)}, name)


def concat(values, axis, name=None) -> Tensor:
    tensors = operands(*values)
    rank = next((t.shape.ndims for t in tensors if t.shape.ndims is not None), None)
    axis = normalised_axis(axis, rank, name or "concat")
    return make_op("ConcatV2", tensors, {"axis": axis}, name)


register_op(OpDef("StopGradient", unary_any, 1))


def stop_gradient(input, name=None) -> Tensor:  # noqa: A002  (TF1's argument name)
    """``input`` unchanged, but ``ds.gradients`` sends no gradient through it."""
    return make_op("StopGradient", operands(input), name=name)
