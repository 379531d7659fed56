"""Linear algebra: MatMul (batch dimensions broadcast as ``np.matmul``), Diag,
MatrixDeterminant, and ``tensordot`` (built from transposes, reshapes and a MatMul).
Inverses and solves are in ``linalg_solve.py``, decompositions in ``linalg_factor.py``.

Kernels: ``kernels/{reference,cpu,cuda}/linalg.py``.
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor
from ..tensor_shape import TensorShape, broadcast_static
from .common import make_op, numeric, operands, same_dtype
from .linalg_shapes import batch_of, float_matrices, square_matrices
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

# MatMul(a, b) + bias (n,), then a ReLU when ``relu``: made only by
# optimizer/bias_folds.py, for the CPU; inputs (a, b, bias), MatMul's attrs.
MATMUL_BIAS = "_MatMulBias"
# MatMul(a, b) * Cast(Greater(y, 0)), a ReLU's gradient of a product: made only by
# optimizer/relu_gate_folds.py, for the CPU; inputs (a, b, y), MatMul's attrs.
MATMUL_RELU_GRAD = "_MatMulReluGrad"
CONSTANT_B = "_constant_b"     # attr the optimizer sets: B is a graph constant


def _made_by_the_optimizer(inputs, attrs, node):
    raise TypeError(f"Op '{node}': {MATMUL_BIAS} and {MATMUL_RELU_GRAD} are made by the "
                    f"optimizer, not by graphs.")


register_op(OpDef(MATMUL_BIAS, _made_by_the_optimizer, 3,
                  attr_defaults={"transpose_a": False, "transpose_b": False, "relu": False}))
register_op(OpDef(MATMUL_RELU_GRAD, _made_by_the_optimizer, 3,
                  attr_defaults={"transpose_a": False, "transpose_b": False}))


def matmul(a, b, transpose_a: bool = False, transpose_b: bool = False, name=None) -> Tensor:
    return make_op("MatMul", operands(a, b),
               {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}, name)


# --- TF1 surface (branch tf1): Diag, MatrixDeterminant, tensordot ---------------------

def _diag(inputs, attrs, node):
    (x,) = inputs
    if x.dtype.is_bool or x.dtype.is_string:
        raise TypeError(f"Op '{node}' needs a numeric input, but '{x.name}' is {x.dtype.name}.")
    if x.shape.ndims is None:
        return x.dtype, TensorShape(None)
    if x.shape.ndims == 0:
        raise InferError(f"Op '{node}': diag needs an input of rank >= 1, got '{x.name}' "
                         f"with shape {x.shape}.")
    return x.dtype, TensorShape(x.shape.dims + x.shape.dims)


def _determinant(inputs, attrs, node):
    (x,) = inputs
    float_matrices(x, node)
    parts = square_matrices(x, node)
    return x.dtype, TensorShape(None) if parts is None else batch_of(parts[0])


register_op(OpDef("Diag", _diag, 1))
register_op(OpDef("MatrixDeterminant", _determinant, 1))
__all__ += ["diag", "matrix_determinant", "tensordot"]


def diag(diagonal, name=None) -> Tensor:
    """A tensor with ``diagonal`` on its diagonal, zeros elsewhere: rank k in, rank 2k
    out (TF1's ``tf.diag``)."""
    return make_op("Diag", operands(diagonal), name=name)


def matrix_determinant(input, name=None) -> Tensor:  # noqa: A002  (TF1's argument name)
    """The determinant of each square matrix in the last two axes of ``input``."""
    return make_op("MatrixDeterminant", operands(input), name=name)


def tensordot(a, b, axes, name=None) -> Tensor:
    """Sum of products over ``axes`` of ``a`` and ``b``, as TF1's ``tf.tensordot``:
    ``axes`` is an int N (the last N axes of ``a`` with the first N of ``b``) or a pair
    of axis lists.  Built as TF builds it (transpose, reshape, matmul, reshape), so it
    needs the static shapes of both operands; ValueError otherwise."""
    from ..graph import name_scope
    from .array import reshape, transpose

    a, b = operands(a, b)
    for t in (a, b):
        if not t.shape.is_fully_defined():
            raise ValueError(f"tensordot needs operands of known shape; '{t.name}' has shape "
                             f"{t.shape}.")
    a_axes, b_axes = _tensordot_axes(axes, a.shape.ndims, b.shape.ndims)
    a_dims, b_dims = a.shape.as_list(), b.shape.as_list()
    if [a_dims[i] for i in a_axes] != [b_dims[i] for i in b_axes]:
        raise ValueError(f"tensordot: the contracted dimensions of '{a.name}' {a.shape} "
                         f"(axes {a_axes}) and '{b.name}' {b.shape} (axes {b_axes}) differ.")
    a_free = [i for i in range(len(a_dims)) if i not in a_axes]
    b_free = [i for i in range(len(b_dims)) if i not in b_axes]
    inner = int(np.prod([a_dims[i] for i in a_axes]))
    with name_scope(name or "Tensordot"):
        a2 = reshape(transpose(a, a_free + a_axes),
                     [int(np.prod([a_dims[i] for i in a_free])), inner])
        b2 = reshape(transpose(b, b_axes + b_free),
                     [inner, int(np.prod([b_dims[i] for i in b_free]))])
        return reshape(matmul(a2, b2), [a_dims[i] for i in a_free] + [b_dims[i] for i in b_free])


def _tensordot_axes(axes, rank_a: int, rank_b: int) -> tuple[list, list]:
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= min(rank_a, rank_b):
            raise ValueError(f"tensordot: axes={axes} must be in [0, {min(rank_a, rank_b)}].")
        return list(range(rank_a - axes, rank_a)), list(range(axes))
    try:
        a_axes, b_axes = axes
    except (TypeError, ValueError):
        raise ValueError(f"tensordot: axes must be an int or a pair of axis lists, got "
                         f"{axes!r}.") from None
    a_axes = [a_axes] if isinstance(a_axes, (int, np.integer)) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, (int, np.integer)) else list(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: {len(a_axes)} axes of a against {len(b_axes)} of b.")
    return [int(i) % rank_a for i in a_axes], [int(i) % rank_b for i in b_axes]
