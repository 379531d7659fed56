"""Gradient of MatMul (TF's ``_MatMulGrad`` and ``_BatchMatMulV2Grad``).

Each operand's gradient is another MatMul of the output gradient with the other
operand, transposes chosen so no Transpose node is needed; batch dimensions that
broadcast are summed back to each operand's own (``shape_of.reduce_to_shape_of`` over
all but the two matrix axes).
"""

from __future__ import annotations

from .linalg import matmul
from .registry import register_gradient
from .shape_of import reduce_to_shape_of


@register_gradient("MatMul")
def _matmul_grad(op, dy):
    a, b = op.inputs
    ta, tb = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not ta and not tb:
        da, db = matmul(dy, b, transpose_b=True), matmul(a, dy, transpose_a=True)
    elif not ta and tb:
        da, db = matmul(dy, b), matmul(dy, a, transpose_a=True)
    elif ta and not tb:
        da, db = matmul(b, dy, transpose_b=True), matmul(a, dy)
    else:
        da = matmul(b, dy, transpose_a=True, transpose_b=True)
        db = matmul(dy, a, transpose_a=True, transpose_b=True)
    return [reduce_to_shape_of(da, a, peers=(b,), core_dims=2),
            reduce_to_shape_of(db, b, peers=(a,), core_dims=2)]
