"""Neural-network ops: Softmax.

Kernels: ``kernels/{reference,cpu,cuda}/nn.py``.
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor
from .common import make_op, normalised_axis
from .elementwise import _unary_float
from .registry import OpDef, register_op

__all__ = ["softmax"]

register_op(OpDef("Softmax", _unary_float, 1))


def softmax(logits, axis=-1, name=None) -> Tensor:
    """Numerically stable softmax along ``axis`` (default: the last)."""
    x = convert_to_tensor(logits)
    axis = normalised_axis(axis, x.shape.ndims, name or "Softmax")
    return make_op("Softmax", [x], {"axis": axis}, name)
