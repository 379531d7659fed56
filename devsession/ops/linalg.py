"""Linear algebra: MatMul (batch dimensions broadcast as ``np.matmul``; real, integer and
complex), Diag, MatrixDeterminant, and ``tensordot`` (built from transposes, reshapes and
a MatMul).
Inverses and solves are in ``linalg_solve.py``, decompositions in ``linalg_factor.py``.

Kernels: ``kernels/{reference,cpu,cuda}/linalg.py``.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import as_dtype
from ..graph import Tensor
from ..tensor_shape import TensorShape, bracketed, broadcast_static
from .common import make_op, numeric, operands, same_dtype
from .complex_math import conj
from .linalg_shapes import batch_of, float_matrices, square_matrices
from .registry import InferError, OpDef, register_op

__all__ = ["matmul"]


def _matmul(inputs, attrs, node):
    a, b = inputs
    dtype = same_dtype(inputs, node)
    if not a.dtype.is_complex:
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
    if ka.value is not None and kb.value is not None and ka != kb:
        raise InferError(                   # TF's sentence first, then which tensors
            f"Dimensions must be equal, but are {ka} and {kb} for '{node}' with input "
            f"shapes: {bracketed(a.shape)}, {bracketed(b.shape)}. "
            f"Op '{node}': matmul inner dimensions differ: '{a.name}' has shape {a.shape}"
            f"{' (transposed)' if attrs['transpose_a'] else ''} and '{b.name}' has shape "
            f"{b.shape}{' (transposed)' if attrs['transpose_b'] else ''} ({ka} != {kb}).")
    try:
        batch = broadcast_static(a.shape[:-2], b.shape[:-2])
    except ValueError as conflict:
        raise InferError(f"{conflict} for '{node}' with input shapes: {bracketed(a.shape)}, "
                         f"{bracketed(b.shape)}. Op '{node}': batch dimensions of "
                         f"'{a.name}' {a.shape} and "
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


def matmul(a, b, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False,
           output_type=None, grad_a: bool = False, grad_b: bool = False, name=None) -> Tensor:
    """``a @ b`` (TF1's ``tf.matmul``): ``adjoint_*`` is the conjugate transpose (the
    transpose for real dtypes); the sparsity and gradient hints change nothing, and
    ``output_type`` may only be the inputs' type (TF's int8 products are not here)."""
    del a_is_sparse, b_is_sparse, grad_a, grad_b
    for transpose, adjoint, side in ((transpose_a, adjoint_a, "a"),
                                     (transpose_b, adjoint_b, "b")):
        if transpose and adjoint:
            raise ValueError(f"Only one of transpose_{side} and adjoint_{side} can be True.")
    a, b = operands(a, b)
    if output_type is not None and as_dtype(output_type) != a.dtype:
        raise ValueError(f"output_type {as_dtype(output_type).name} of a {a.dtype.name} "
                         f"product: devsession's products keep their inputs' type.")
    if adjoint_a and a.dtype.is_complex:
        a = conj(a)
    if adjoint_b and b.dtype.is_complex:
        b = conj(b)
    return make_op("MatMul", [a, b], {"transpose_a": bool(transpose_a or adjoint_a),
                                      "transpose_b": bool(transpose_b or adjoint_b)}, name)


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
    of axis lists.  Built as TF builds it (transpose, reshape, matmul, reshape); a
    dimension unknown at build time (a ``None`` batch) is read from ``tf.shape`` at run
    time.  An operand of unknown rank is TF's run-time form too: its axes, free axes and
    perm computed from ``tf.rank`` (``_run_time_matrix``), the result of unknown rank."""
    from ..graph import name_scope

    a, b = operands(a, b)
    if a.shape.ndims is None or b.shape.ndims is None:
        with name_scope(name or "Tensordot"):
            return _tensordot_at_run_time(a, b, axes)
    a_axes, b_axes = _tensordot_axes(axes, a.shape.ndims, b.shape.ndims)
    a_dims, b_dims = a.shape.as_list(), b.shape.as_list()
    for i, j in zip(a_axes, b_axes):
        if None not in (a_dims[i], b_dims[j]) and a_dims[i] != b_dims[j]:
            raise ValueError(f"tensordot: the contracted dimensions of '{a.name}' {a.shape} "
                             f"(axes {a_axes}) and '{b.name}' {b.shape} (axes {b_axes}) "
                             f"differ.")
    a_free = [i for i in range(len(a_dims)) if i not in a_axes]
    b_free = [i for i in range(len(b_dims)) if i not in b_axes]
    with name_scope(name or "Tensordot"):
        a2 = _as_matrix(a, a_free, a_axes)
        b2 = _as_matrix(b, b_axes, b_free)
        free_dims = [a_dims[i] for i in a_free] + [b_dims[i] for i in b_free]
        if None not in free_dims:
            return _reshape(matmul(a2, b2), free_dims)
        product = _reshape(matmul(a2, b2), _concat_dims(
            [_dims_of(a, a_free), _dims_of(b, b_free)]))
        product.set_shape(free_dims)
        return product


def _tensordot_at_run_time(a: Tensor, b: Tensor, axes) -> Tensor:
    """tensordot where an operand's rank is unknown: each side's axes as TF's
    ``_tensordot_axes`` gives them (an int N: ``range(rank - N, rank)`` of ``a``), each
    operand a matrix by ``_run_time_matrix``, the product reshaped to both free sizes."""
    from .sequence import range as range_

    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"'axes' must be at least 0, got {axes}.")
        if a.shape.ndims is not None:
            if axes > a.shape.ndims:
                raise ValueError(f"'axes' must not be larger than the number of dimensions "
                                 f"of tensor {a}.")
            a_axes = list(range(a.shape.ndims - axes, a.shape.ndims))
        else:
            rank = _rank(a)
            a_axes = range_(rank - axes, rank)
        b_axes = list(range(axes))
    else:
        a_axes, b_axes = _axis_lists(axes)
    a2, a_free = _run_time_matrix(a, a_axes, flipped=False)
    b2, b_free = _run_time_matrix(b, b_axes, flipped=True)
    return _reshape(matmul(a2, b2), _concat_dims([a_free, b_free]))


def _run_time_matrix(t: Tensor, axes, flipped: bool) -> tuple[Tensor, Tensor]:
    """TF's ``_tensordot_reshape`` at run time: ``t`` transposed to its free axes then
    ``axes`` (``axes`` first when ``flipped``) and reshaped to a matrix, and the sizes of
    its free axes (an int32 vector)."""
    from ..graph import convert_to_tensor
    from .array import stack, transpose
    from .array_fill import shape
    from .array_index import gather
    from .array_sets import setdiff1d
    from .elementwise import add, greater_equal, where
    from .reduce import reduce_prod
    from .sequence import range as range_

    rank = _rank(t)
    axes = convert_to_tensor(axes, dtype_hint=as_dtype("int32"), name="axes")
    axes = where(greater_equal(axes, 0), axes, add(axes, rank))
    free = setdiff1d(range_(rank), axes).out
    sizes = shape(t)
    free_dims, axes_dims = gather(sizes, free), gather(sizes, axes)
    free_size, axes_size = reduce_prod(free_dims), reduce_prod(axes_dims)
    perm = _concat_dims([axes, free] if flipped else [free, axes])
    rows_cols = [axes_size, free_size] if flipped else [free_size, axes_size]
    return _reshape(transpose(t, perm), stack(rows_cols)), free_dims


def _rank(t: Tensor) -> Tensor:
    from .array_fill import rank

    return rank(t)


def _as_matrix(t: Tensor, rows: list, cols: list) -> Tensor:
    """``t`` transposed to ``rows + cols`` and reshaped to [prod(rows), prod(cols)]: static
    sizes where known, one -1 where one side is unknown (and the other not empty),
    run-time products otherwise."""
    from .array import stack, transpose
    from .reduce import reduce_prod

    dims = t.shape.as_list()
    row_dims, col_dims = [dims[i] for i in rows], [dims[i] for i in cols]
    t = transpose(t, rows + cols)
    known_rows = int(np.prod(row_dims)) if None not in row_dims else None
    known_cols = int(np.prod(col_dims)) if None not in col_dims else None
    if known_rows is not None and (known_cols is not None or known_rows > 0):
        return _reshape(t, [known_rows, -1 if known_cols is None else known_cols])
    if known_cols is not None and known_cols > 0:
        return _reshape(t, [-1, known_cols])
    sizes = [reduce_prod(_dims_of(t, range(len(rows)))),
             reduce_prod(_dims_of(t, range(len(rows), len(dims))))]
    return _reshape(t, stack(sizes))


def _dims_of(t: Tensor, axes) -> Tensor:
    """The run-time sizes of ``t``'s ``axes`` (an int32 vector)."""
    from .array_fill import shape
    from .array_index import gather

    return gather(shape(t), list(axes))


def _concat_dims(parts: list) -> Tensor:
    from .array import concat

    return concat(parts, 0)


def _reshape(t: Tensor, dims) -> Tensor:
    from .array import reshape

    return reshape(t, dims)


def _tensordot_axes(axes, rank_a: int, rank_b: int) -> tuple[list, list]:
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= min(rank_a, rank_b):
            raise ValueError(f"tensordot: axes={axes} must be in [0, {min(rank_a, rank_b)}].")
        return list(range(rank_a - axes, rank_a)), list(range(axes))
    a_axes, b_axes = _axis_lists(axes)
    return [int(i) % rank_a for i in a_axes], [int(i) % rank_b for i in b_axes]


def _axis_lists(axes) -> tuple[list, list]:
    """tensordot's ``axes`` given as a pair (each an int or a list) as two lists of
    equal length, else ValueError."""
    try:
        a_axes, b_axes = axes
    except (TypeError, ValueError):
        raise ValueError(f"tensordot: axes must be an int or a pair of axis lists, got "
                         f"{axes!r}.") from None
    a_axes = [a_axes] if isinstance(a_axes, (int, np.integer)) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, (int, np.integer)) else list(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: {len(a_axes)} axes of a against {len(b_axes)} of b.")
    return a_axes, b_axes
