"""Diagonals as TF's ops (rather than ``matrix.py``'s composites, so that GraphDefs with
them import): DiagPart (``tf.diag_part``, ``tf.linalg.tensor_diag_part``: the inverse of
``tf.diag``, rank 2k in, rank k out) and MatrixSetDiag / MatrixSetDiagV3
(``tf.matrix_set_diag``, ``tf.linalg.set_diag``: each innermost matrix with its main
diagonal replaced).

``matrix_set_diag`` builds MatrixSetDiagV3, as TF 2's ``tf.compat.v1.matrix_set_diag``
does; only its main diagonal (``k = 0``) is supported: another constant ``k`` is a
ValueError when built, a fed one an UnimplementedError when run (TF's bands of
diagonals are not implemented).  Static shapes: DiagPart's dimension pairs must agree,
the diagonal must be ``input.shape[:-2] + [min(rows, columns)]`` (ValueError when they
are known to differ; TF's InvalidArgumentError when run).

Gradients: DiagPart's is ``diag(grad)``; MatrixSetDiag's gives the input the gradient
with zeros on the diagonal and the diagonal the gradient's diagonal.  Kernels:
``kernels/reference/diagonals.py`` (numpy or cupy).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor
from ..tensor_shape import TensorShape
from .array import concat, reshape
from .array_fill import shape, zeros, zeros_like
from .array_index import slice as slice_
from .common import make_op
from .elementwise import minimum, subtract
from .reduce import reduce_sum
from .registry import InferError, OpDef, register_gradient, register_op

__all__ = ["diag_part", "matrix_set_diag"]


def _diag_part(inputs, attrs, node):
    (x,) = inputs
    if x.shape.ndims is None:
        return x.dtype, TensorShape(None)
    rank = x.shape.ndims
    if rank == 0 or rank % 2:
        raise InferError(f"Op '{node}': Input must have even and non-zero rank, but "
                         f"'{x.name}' has shape {x.shape}.")
    half = rank // 2
    out = []
    for a, b in zip(x.shape.dims[:half], x.shape.dims[half:]):
        if a is not None and b is not None and a != b:
            raise InferError(f"Op '{node}': Dimensions must be equal, but are {a} and {b} "
                             f"for '{x.name}' with shape {x.shape}.")
        out.append(a if a is not None else b)
    return x.dtype, TensorShape(out)


def _diagonal_shape(shape: TensorShape) -> TensorShape:
    """``shape[:-2] + [min(rows, columns)]`` (unknown where either is)."""
    rows, columns = shape.dims[-2:]
    size = None if rows is None or columns is None else min(rows, columns)
    return TensorShape(shape.dims[:-2] + (size,))


def _set_diag(inputs, attrs, node):
    x, diagonal = inputs[:2]
    if x.dtype != diagonal.dtype:
        raise TypeError(f"Op '{node}': input and diagonal must have one dtype, got "
                        f"{x.dtype.name} and {diagonal.dtype.name}.")
    if x.shape.ndims is not None and x.shape.ndims < 2:
        raise InferError(f"Op '{node}': Shape must be at least rank 2 but is rank "
                         f"{x.shape.ndims} for '{x.name}'.")
    if diagonal.shape.ndims is not None and diagonal.shape.ndims < 1:
        raise InferError(f"Op '{node}': Shape must be at least rank 1 but is rank 0 for "
                         f"'{diagonal.name}'.")
    if len(inputs) == 3:
        k = inputs[2]
        if k.dtype != dtypes.int32 or k.shape.ndims not in (None, 0, 1):
            raise InferError(f"Op '{node}': k must be an int32 scalar or vector.")
        if k.value is not None and np.any(np.asarray(k.value) != 0):
            raise InferError(f"Op '{node}': only the main diagonal (k = 0) is supported by "
                             f"devsession, got k = {np.asarray(k.value).tolist()}.")
    if x.shape.ndims is not None:
        expected = _diagonal_shape(x.shape)
        if not diagonal.shape.is_compatible_with(expected):
            raise InferError(f"Op '{node}': the diagonal '{diagonal.name}' has shape "
                             f"{diagonal.shape}, but input '{x.name}' of shape {x.shape} "
                             f"needs {expected}.")
    return x.dtype, x.shape


register_op(OpDef("DiagPart", _diag_part, 1))
register_op(OpDef("MatrixSetDiag", _set_diag, 2))
register_op(OpDef("MatrixSetDiagV3", _set_diag, 3, host_inputs=(2,),
                  attr_defaults={"align": "RIGHT_LEFT"}))


def diag_part(input, name=None) -> Tensor:  # noqa: A002  (TF's argument name)
    """``x[i, ..., j, i, ..., j]`` of a rank-2k ``input``: the inverse of ``tf.diag``
    (TF's ``tf.diag_part``, ``tf.linalg.tensor_diag_part``)."""
    return make_op("DiagPart", [convert_to_tensor(input)], name=name or "DiagPart")


def matrix_set_diag(input, diagonal, name="set_diag", k=0,  # noqa: A002
                    align="RIGHT_LEFT") -> Tensor:
    """Each innermost matrix of ``input`` with its main diagonal set to ``diagonal``
    (TF's ``tf.matrix_set_diag``, ``tf.linalg.set_diag``; ``k`` must be 0)."""
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, dtype_hint=x.dtype, graph=x.graph)
    kt = convert_to_tensor(k, dtype=dtypes.int32, graph=x.graph)
    value = constant_value(kt)
    if value is not None and np.any(np.asarray(value) != 0):
        raise ValueError(f"matrix_set_diag: only the main diagonal (k=0) is supported by "
                         f"devsession, got k={np.asarray(value).tolist()}.")
    return make_op("MatrixSetDiagV3", [x, d, kt], {"align": str(align)}, name=name)


def _diagonal_shape_of(m: Tensor) -> Tensor:
    """``shape(m)[:-2] + [min(rows, columns)]``, computed when run."""
    rank = m.shape.ndims
    if rank is None:
        raise ValueError("matrix_set_diag's gradient needs an input of known rank.")
    dims = shape(m)
    return concat([dims[:rank - 2], reshape(minimum(dims[-2], dims[-1]), [1])], 0)


def _matrix_diagonal(m: Tensor) -> Tensor:
    """The main diagonals of ``m`` [..., rows, columns]: ``[..., min(rows, columns)]``;
    the rows' sums of ``m`` with only its diagonal kept, cut to that length."""
    off_diagonal = make_op("MatrixSetDiag", [m, zeros(_diagonal_shape_of(m), m.dtype)])
    rows_sum = reduce_sum(subtract(m, off_diagonal), -1)
    return slice_(rows_sum, zeros_like(shape(rows_sum)), _diagonal_shape_of(m))


@register_gradient("DiagPart")
def _diag_part_grad(op, grad):
    return [make_op("Diag", [grad])]


@register_gradient("MatrixSetDiag")
def _set_diag_grad(op, grad):
    return [make_op("MatrixSetDiag", [grad, zeros(_diagonal_shape_of(grad),
                                                          grad.dtype)]), _matrix_diagonal(grad)]


@register_gradient("MatrixSetDiagV3")
def _set_diag_v3_grad(op, grad):
    return _set_diag_grad(op, grad) + [None]
