"""TF's bitwise ops on integers: BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift
and RightShift (``tf.bitwise``).

They are elementwise ops with numpy broadcasting, fused like the rest (expressions:
``kernels/codegen/expressions.py``).  As TF's kernels: a shift count below 0 or at
least the dtype's width is clamped into [0, bits - 1]; a left shift drops the bits
shifted out (so it wraps); a right shift of a signed value copies the sign bit.  A bool
or float operand is a TypeError when the graph is built; none is differentiable.
"""

from __future__ import annotations

from .common import broadcast, same_dtype
from .elementwise import _binary, _unary
from .registry import OpDef, register_op

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

BINARY = ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift")


def _integer_dtype(inputs, node):
    dtype = same_dtype(inputs, node)
    if not dtype.is_integer:
        raise TypeError(f"Op '{node}' takes integer inputs, but '{inputs[0].name}' is "
                        f"{dtype.name}.")
    return dtype


def _bitwise_binary(inputs, attrs, node):
    return _integer_dtype(inputs, node), broadcast(inputs, node)


def _invert(inputs, attrs, node):
    return _integer_dtype(inputs, node), inputs[0].shape


for _name in BINARY:
    register_op(OpDef(_name, _bitwise_binary, 2, elementwise=True))
register_op(OpDef("Invert", _invert, 1, elementwise=True))

bitwise_and = _binary("BitwiseAnd", "bitwise_and")
bitwise_or = _binary("BitwiseOr", "bitwise_or")
bitwise_xor = _binary("BitwiseXor", "bitwise_xor")
left_shift = _binary("LeftShift", "left_shift")
right_shift = _binary("RightShift", "right_shift")
invert = _unary("Invert", "invert")
