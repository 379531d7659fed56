"""Vector products and scalings: Cross (``tf.cross``, ``tf.linalg.cross``: the cross
product of 3-vectors in the last axis) and TF's composites ``tf.linalg.matvec`` (a
MatMul against the vector as a column) and ``tf.linalg.normalize`` (the tensor divided
by its norm, and the norm).

Cross's operands have one shape whose last dimension is 3 (a ValueError when built
where known; TF's run-time error otherwise).  Its gradient is TF's: ``cross(b, grad)``
for ``a`` and ``cross(grad, a)`` for ``b``.  Kernels: ``kernels/reference/vectors.py``
(numpy or cupy).
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, name_scope
from .array import expand_dims, squeeze
from .common import make_op, operands
from .elementwise import cast, divide
from .linalg import matmul
from .norms import norm
from .registry import InferError, OpDef, register_gradient, register_op

__all__ = ["cross", "matvec", "normalize"]


def _cross(inputs, attrs, node):
    a, b = inputs
    if a.dtype != b.dtype:
        raise TypeError(f"Op '{node}': a and b must have one dtype, got {a.dtype.name} and "
                        f"{b.dtype.name}.")
    if not a.dtype.is_numeric:
        raise TypeError(f"Op '{node}' needs numeric inputs, not {a.dtype.name}.")
    try:
        shape = a.shape.merge_with(b.shape)
    except ValueError:
        raise InferError(f"Op '{node}': a and b must have one shape, but '{a.name}' has "
                         f"{a.shape} and '{b.name}' {b.shape}.") from None
    if shape.ndims == 0:
        raise InferError(f"Op '{node}': Shape must be at least rank 1 but is rank 0.")
    if shape.ndims is not None and shape.dims[-1] not in (None, 3):
        raise InferError(f"Op '{node}': Dimension must be 3 but is {shape.dims[-1]} for "
                         f"input shapes {a.shape}, {b.shape}.")
    return a.dtype, shape


register_op(OpDef("Cross", _cross, 2))


@register_gradient("Cross")
def _cross_grad(op, grad):
    a, b = op.inputs
    return [cross(b, grad), cross(grad, a)]


def cross(a, b, name=None) -> Tensor:
    """The cross product of the 3-vectors in the last axis of ``a`` and ``b`` (TF's
    ``tf.cross``, ``tf.linalg.cross``)."""
    return make_op("Cross", operands(a, b), name=name or "Cross")


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False,
           b_is_sparse=False, name=None) -> Tensor:
    """``a @ b`` for matrices ``a`` [..., m, n] and vectors ``b`` [..., n] (TF's
    ``tf.linalg.matvec``; ``adjoint_a`` is the conjugate transpose, and the sparsity
    hints change nothing)."""
    del a_is_sparse, b_is_sparse
    with name_scope(name or "MatVec"):
        a, b = operands(a, b)
        column = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
        return squeeze(column, axis=[-1])


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002  (TF's names)
    """``(tensor / norm, norm)``, the norm as ``tf.norm(tensor, ord, axis,
    keepdims=True)`` (TF's ``tf.linalg.normalize``)."""
    with name_scope(name or "normalize"):
        x = convert_to_tensor(tensor)
        size = norm(x, ord=ord, axis=axis, keepdims=True)
        size = cast(size, x.dtype)
        return divide(x, size), size
