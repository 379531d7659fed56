"""The gradient of MatrixSquareRoot (``linalg_sqrtm.py``), TF's formula
(``python/ops/linalg_grad.py``): ``A = R R`` gives ``dA = R dR + dR R``, a Sylvester
equation solved for ``dR`` as one linear system ``(I ⊗ Rᵀ + R ⊗ I) vec(dRᵀ) =
vec(gradᵀ)`` of ``M² x M²`` Kronecker products per matrix, built from the same ops as
TF's.  MatrixLogarithm has no gradient in TF, so none is registered for it.

Checked against finite differences in tests/test_linalg_more.py.
"""

from __future__ import annotations

from .array import concat, reshape, tile
from .array_fill import shape as shape_of
from .linalg_solve import matrix_solve
from .matrix import eye, matrix_transpose
from .reduce import reduce_prod
from .registry import register_gradient

__all__: list = []


def _kronecker(b1, b2):
    """The Kronecker products of two batches of square matrices of one batch shape."""
    b1_shape, b2_shape = shape_of(b1), shape_of(b2)
    b1_order, b2_order = b1_shape[-1], b2_shape[-1]
    batch = b1_shape[:-2]
    b1 = reshape(b1, concat([batch, [b1_order], [1], [b1_order], [1]], 0))
    b2 = reshape(b2, concat([batch, [1], [b2_order], [1], [b2_order]], 0))
    order = b1_order * b2_order
    return reshape(b1 * b2, concat([batch, [order], [order]], 0))


@register_gradient("MatrixSquareRoot")
def _matrix_square_root_grad(op, grad):
    sqrtm = op.outputs[0]
    shape = shape_of(sqrtm)
    order = shape[-1]
    count = reduce_prod(shape[:-2])
    identity = reshape(tile(reshape(eye(order, dtype=sqrtm.dtype), [-1]),
                            reshape(count, [1])), shape)
    ksum = _kronecker(identity, matrix_transpose(sqrtm)) + _kronecker(sqrtm, identity)
    vec_da = reshape(matrix_transpose(grad), concat([shape[:-2], [order * order], [1]], 0))
    vec_dsqrtm = matrix_solve(ksum, vec_da)
    return [matrix_transpose(reshape(vec_dsqrtm, shape))]
