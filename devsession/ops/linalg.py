"""Linear algebra: MatMul (batch dimensions broadcast as ``np.matmul``).

Kernels: ``kernels/{reference,cpu,cuda}/linalg.py``.
"""

from __future__ import annotations

from ..graph import Tensor
from ..tensor_shape import TensorShape, broadcast_static
from .common import make_op, numeric, operands, same_dtype
from .registry import InferError, OpDef, register_op

__all__ = ["matmul"]


def _matmul(inputs, attrs, node):
    a, b = inputs
    dtype = same_dtype(inputs, node)
    numeric(a, node)
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


register_op(OpDef("MatMul", _matmul, 2,
                  attr_defaults={"transpose_a": False, "transpose_b": False}))


def matmul(a, b, transpose_a: bool = False, transpose_b: bool = False, name=None) -> Tensor:
    return make_op("MatMul", operands(a, b),
               {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}, name)
