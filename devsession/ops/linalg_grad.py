"""Gradients of MatMul (TF's ``_MatMulGrad`` and ``_BatchMatMulV2Grad``), Diag and
MatrixDeterminant; those of the inverses and solves are in ``linalg_solve_grad.py``,
those of the decompositions in ``linalg_factor_grad.py``.

Each operand's gradient is another MatMul of the output gradient with the other
operand (conjugated, for complex ones, as TF's), transposes chosen so no Transpose node
is needed; batch dimensions that
broadcast are summed back to each operand's own (``shape_of.reduce_to_shape_of`` over
all but the two matrix axes).
"""

from __future__ import annotations

from ..errors import UnimplementedError
from .complex_math import conj
from .elementwise import multiply
from .linalg import diag, matmul
from .reduce import reduce_sum
from .registry import register_gradient
from .shape_of import ones_like_of, reduce_to_shape_of


@register_gradient("MatMul")
def _matmul_grad(op, dy):
    a, b = (conj(x) for x in op.inputs)          # TF's: the identity for real operands
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    if not ta and not tb:
        da, db = matmul(dy, b, transpose_b=True), matmul(a, dy, transpose_a=True)
    elif not ta and tb:
        da, db = matmul(dy, b), matmul(dy, a, transpose_a=True)
    elif ta and not tb:
        da, db = matmul(b, dy, transpose_b=True), matmul(a, dy)
    else:
        da = matmul(b, dy, transpose_a=True, transpose_b=True)
        db = matmul(dy, a, transpose_a=True, transpose_b=True)
    return [reduce_to_shape_of(da, op.inputs[0], peers=(op.inputs[1],), core_dims=2),
            reduce_to_shape_of(db, op.inputs[1], peers=(op.inputs[0],), core_dims=2)]


@register_gradient("Diag")
def _diag_grad(op, dy):
    # The diagonal part of dy: mask it with diag(ones) and sum the last k of its 2k axes.
    (x,) = op.inputs
    rank = x.shape.ndims
    if rank is None:
        raise UnimplementedError(f"The gradient of Diag '{op.name}' needs the input's rank "
                                 f"known when the graph is built.", op.name)
    mask = diag(ones_like_of(x))
    return [reduce_sum(multiply(dy, mask), axis=list(range(rank, 2 * rank)))]


@register_gradient("MatrixDeterminant")
def _matrix_determinant_grad(op, dy):
    # TF's: d det(A) = det(A) · A⁻ᵀ, scaled by each matrix's output gradient
    from .linalg_parts import scaled_by_batch
    from .linalg_solve import matrix_inverse

    return [scaled_by_batch(multiply(dy, op.outputs[0]),
                            matrix_inverse(op.inputs[0], adjoint=True))]
