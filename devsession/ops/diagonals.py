"""Diagonals as TF's ops (rather than ``matrix.py``'s composites, so that GraphDefs with
them import): DiagPart (``tf.diag_part``, ``tf.linalg.tensor_diag_part``: the inverse of
``tf.diag``, rank 2k in, rank k out), and the batched-matrix ones over the last two axes
with TF 2's bands of diagonals ``k`` (a scalar, or ``[lo, hi]``):

* MatrixDiag / MatrixDiagV2 / MatrixDiagV3 (``tf.linalg.diag``, ``tf.matrix_diag``):
  matrices of ``padding_value`` with the given diagonals, ``num_rows`` x ``num_cols``
  (-1: the smallest that holds them, square when both are -1);
* MatrixDiagPart / V2 / V3 (``tf.linalg.diag_part``, ``tf.matrix_diag_part``): the band's
  diagonals, ``[..., num_diags (when lo < hi), max_diag_len]``, shorter ones padded;
* MatrixSetDiag / V2 / V3 (``tf.linalg.set_diag``, ``tf.matrix_set_diag``): the input with
  its band replaced.

The V3 ops' ``align`` attr (RIGHT_LEFT by default: superdiagonals packed to the right,
subdiagonals to the left; LEFT_RIGHT, LEFT_LEFT, RIGHT_RIGHT) says where a diagonal
shorter than the longest sits in its packed row; V1 and V2 pack LEFT_LEFT, as TF's
kernels do.  The Python builders make the V3 ops, as TF 2's (and tf.compat.v1's) do.

Static shapes follow TF's shape functions (ValueError when built: a band with
``lo > hi`` or out of a known matrix, too few rows or columns, the wrong number of
diagonals), with unknown dimensions where TF would guess.  Gradients as TF's
``array_grad.py``: MatrixDiag's is MatrixDiagPart of the same band and alignment and
the other way round, MatrixSetDiag's the gradient with its band zeroed and the band's
diagonals.  TF's MatrixDiagV2 and MatrixDiagPartV2 gradients unpack with RIGHT_LEFT
though V2 packs LEFT_LEFT (wrong for bands with diagonals of different lengths);
devsession's use LEFT_LEFT.  Kernels: ``kernels/reference/diagonals.py`` (numpy or cupy).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .array_fill import zeros_like
from .common import make_op
from .registry import InferError, OpDef, register_gradient, register_op

__all__ = ["diag_part", "matrix_diag", "matrix_diag_part", "matrix_set_diag"]

ALIGNMENTS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


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


# --- static shapes of the band ops ---------------------------------------------------------------

def _rank_at_least(spec, rank: int, node: str) -> None:
    if spec.shape.ndims is not None and spec.shape.ndims < rank:
        raise InferError(f"Op '{node}': Shape must be at least rank {rank} but is rank "
                         f"{spec.shape.ndims} for '{spec.name}'.")


def _rank_at_most(spec, rank: int, node: str) -> None:
    if spec.shape.ndims is not None and spec.shape.ndims > rank:
        raise InferError(f"Op '{node}': Shape must be at most rank {rank} but is rank "
                         f"{spec.shape.ndims} for '{spec.name}'.")


def _scalar(spec, dtype, node: str, what: str) -> None:
    if spec.dtype != dtype:
        raise TypeError(f"Op '{node}': {what} must be {dtype.name}, got {spec.dtype.name}.")
    if spec.shape.ndims not in (None, 0):
        raise InferError(f"Op '{node}': Shape must be rank 0 but is rank {spec.shape.ndims} "
                         f"for '{spec.name}' ({what}).")


def _check_align(attrs, node: str, op: str) -> None:
    align = attrs.get("align", "LEFT_LEFT")
    if align not in ALIGNMENTS:
        raise InferError(f"Attr 'align' of '{op}' Op passed string '{align}' not in: "
                         + ", ".join(f'"{a}"' for a in ALIGNMENTS) + ".")


def _band(spec, node: str):
    """``(lo, hi)`` from the static ``k``, or None when the graph does not know it."""
    if spec.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': k must be int32, got {spec.dtype.name}.")
    _rank_at_most(spec, 1, node)
    if spec.value is None:
        return None
    k = np.asarray(spec.value).reshape(-1)
    if k.size not in (1, 2):
        raise InferError(f"Op '{node}': diag_index must be a vector with one or two "
                         f"elements. It has {k.size} elements.")
    lo, hi = int(k[0]), int(k[-1])
    if lo > hi:
        raise InferError(f"Op '{node}': lower_diag_index is greater than upper_diag_index")
    return lo, hi


def _check_bounds(lo: int, hi: int, matrix: TensorShape, node: str) -> int | None:
    """TF's bounds of a band of a matrix of static ``matrix`` shape; its longest
    diagonal's length (None when a dimension is unknown)."""
    rows, cols = matrix.dims[-2:]
    if rows is None or cols is None:
        return None
    for which, index in (("lower", lo), ("upper", hi)):
        if index != 0 and not -rows < index < cols:
            raise InferError(f"Op '{node}': {which}_diag_index is out of bound.")
    return min(rows + min(hi, 0), cols - max(lo, 0))


def _value(spec):
    return None if spec.value is None else int(np.asarray(spec.value).reshape(-1)[0])


def _matrix_diag(inputs, attrs, node):
    d = inputs[0]
    _rank_at_least(d, 1, node)
    if len(inputs) == 1:
        if d.shape.ndims is None:
            return d.dtype, TensorShape(None)
        return d.dtype, TensorShape(d.shape.dims + d.shape.dims[-1:])
    _check_align(attrs, node, "MatrixDiagV3")
    band = _band(inputs[1], node)
    _scalar(inputs[2], dtypes.int32, node, "num_rows")
    _scalar(inputs[3], dtypes.int32, node, "num_cols")
    _scalar(inputs[4], d.dtype, node, "padding_value")
    if d.shape.ndims is None or band is None:
        return d.dtype, TensorShape(None)
    lo, hi = band
    dims = d.shape.dims
    if lo < hi:
        _rank_at_least(d, 2, node)
        if dims[-2] is not None and dims[-2] != hi - lo + 1:
            raise InferError(f"Op '{node}': The number of rows of `diagonal` doesn't match "
                             f"the number of diagonals implied from `d_lower` and "
                             f"`d_upper`.\nnum_diags = {dims[-2]}, d_lower = {lo}, "
                             f"d_upper = {hi}")
    rows, cols = _value(inputs[2]), _value(inputs[3])
    max_len = dims[-1]
    if max_len is None or rows is None or cols is None:
        rows = rows if rows is not None and rows >= 0 else None
        cols = cols if cols is not None and cols >= 0 else None
    else:
        min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
        if rows == -1 and cols == -1:
            rows = cols = max(min_rows, min_cols)
        if rows == -1:
            rows = min_rows
        elif rows < min_rows:
            raise InferError(f"Op '{node}': num_rows is too small")
        if cols == -1:
            cols = min_cols
        elif cols < min_cols:
            raise InferError(f"Op '{node}': num_cols is too small.")
        if rows != min_rows and cols != min_cols:
            raise InferError(f"Op '{node}': num_rows and num_cols are not consistent with "
                             f"lower_diag_index, upper_diag_index, and the length of the "
                             f"given diagonals.\nnum_rows = {rows} != min_num_rows = "
                             f"{min_rows}, num_cols = {cols} != min_num_cols = {min_cols}")
    batch = dims[:-1] if lo == hi else dims[:-2]
    return d.dtype, TensorShape(batch + (rows, cols))


def _matrix_diag_part(inputs, attrs, node):
    x = inputs[0]
    _rank_at_least(x, 2, node)
    if len(inputs) == 1:
        if x.shape.ndims is None:
            return x.dtype, TensorShape(None)
        rows, cols = x.shape.dims[-2:]
        size = None if rows is None or cols is None else min(rows, cols)
        return x.dtype, TensorShape(x.shape.dims[:-2] + (size,))
    _check_align(attrs, node, "MatrixDiagPartV3")
    band = _band(inputs[1], node)
    _scalar(inputs[2], x.dtype, node, "padding_value")
    if x.shape.ndims is None or band is None:
        return x.dtype, TensorShape(None)
    lo, hi = band
    max_len = _check_bounds(lo, hi, x.shape, node)
    diags = (hi - lo + 1,) if lo < hi else ()
    return x.dtype, TensorShape(x.shape.dims[:-2] + diags + (max_len,))


def _set_diag(inputs, attrs, node):
    x, diagonal = inputs[:2]
    if x.dtype != diagonal.dtype:
        raise TypeError(f"Op '{node}': input and diagonal must have one dtype, got "
                        f"{x.dtype.name} and {diagonal.dtype.name}.")
    _rank_at_least(x, 2, node)
    _rank_at_least(diagonal, 1, node)
    band = (0, 0)
    if len(inputs) == 3:
        _check_align(attrs, node, "MatrixSetDiagV3")
        band = _band(inputs[2], node)
    if x.shape.ndims is None:        # TF's shape function: the batch from the diagonal
        if diagonal.shape.ndims is None:
            return x.dtype, x.shape
        drop = 2 if band is not None and band[0] != band[1] else 1
        batch = diagonal.shape.dims[:max(diagonal.shape.ndims - drop, 0)]
        return x.dtype, TensorShape(tuple(batch) + (None, None))
    rank = x.shape.ndims
    if band is None:
        _rank_at_least(diagonal, rank - 1, node)
        _rank_at_most(diagonal, rank, node)
        return x.dtype, x.shape
    lo, hi = band
    want = rank - 1 if lo == hi else rank
    if diagonal.shape.ndims is not None and diagonal.shape.ndims != want:
        raise InferError(f"Op '{node}': Shape must be rank {want} but is rank "
                         f"{diagonal.shape.ndims} for '{diagonal.name}'.")
    max_len = _check_bounds(lo, hi, x.shape, node)
    diags = (hi - lo + 1,) if lo < hi else ()
    expected = TensorShape(x.shape.dims[:-2] + diags + (max_len,))
    if not diagonal.shape.is_compatible_with(expected):
        raise InferError(f"Op '{node}': the diagonal '{diagonal.name}' has shape "
                         f"{diagonal.shape}, but input '{x.name}' of shape {x.shape} "
                         f"needs {expected}.")
    if diagonal.shape.ndims is None:
        return x.dtype, x.shape
    batch = diagonal.shape.dims[:len(diagonal.shape.dims) - len(diags) - 1]
    return x.dtype, x.shape.merge_with(TensorShape(batch + (None, None)))


register_op(OpDef("DiagPart", _diag_part, 1))
register_op(OpDef("MatrixDiag", _matrix_diag, 1))
register_op(OpDef("MatrixDiagV2", _matrix_diag, 5, host_inputs=(1, 2, 3, 4)))
register_op(OpDef("MatrixDiagV3", _matrix_diag, 5, host_inputs=(1, 2, 3, 4),
                  attr_defaults={"align": "RIGHT_LEFT"}))
register_op(OpDef("MatrixDiagPart", _matrix_diag_part, 1))
register_op(OpDef("MatrixDiagPartV2", _matrix_diag_part, 3, host_inputs=(1, 2)))
register_op(OpDef("MatrixDiagPartV3", _matrix_diag_part, 3, host_inputs=(1, 2),
                  attr_defaults={"align": "RIGHT_LEFT"}))
register_op(OpDef("MatrixSetDiag", _set_diag, 2))
register_op(OpDef("MatrixSetDiagV2", _set_diag, 3, host_inputs=(2,)))
register_op(OpDef("MatrixSetDiagV3", _set_diag, 3, host_inputs=(2,),
                  attr_defaults={"align": "RIGHT_LEFT"}))


# --- builders --------------------------------------------------------------------------------

def diag_part(input, name=None) -> Tensor:  # noqa: A002  (TF's argument name)
    """``x[i, ..., j, i, ..., j]`` of a rank-2k ``input``: the inverse of ``tf.diag``
    (TF's ``tf.diag_part``, ``tf.linalg.tensor_diag_part``)."""
    return make_op("DiagPart", [convert_to_tensor(input)], name=name or "DiagPart")


def _padding(value, like: Tensor) -> Tensor:
    if like.dtype == dtypes.bool_ and not isinstance(value, Tensor):
        value = bool(value)             # TF's special case: 0 as a bool padding
    return convert_to_tensor(value, dtype=like.dtype, graph=like.graph)


def _int32(value, like: Tensor) -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.int32, graph=like.graph)


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1,
                padding_value=0, align="RIGHT_LEFT") -> Tensor:
    """Matrices with ``diagonal`` as their ``k``-th diagonals (a band ``k = (lo, hi)``:
    ``diagonal[..., hi - d, :]`` is diagonal ``d``), ``padding_value`` elsewhere (TF's
    ``tf.linalg.diag``, ``tf.matrix_diag``: MatrixDiagV3)."""
    d = convert_to_tensor(diagonal)
    return make_op("MatrixDiagV3", [d, _int32(k, d), _int32(num_rows, d),
                                    _int32(num_cols, d), _padding(padding_value, d)],
                   {"align": str(align)}, name=name)


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0,  # noqa: A002
                     align="RIGHT_LEFT") -> Tensor:
    """The ``k``-th diagonals of each innermost matrix of ``input``, shorter ones padded
    with ``padding_value`` as ``align`` says (TF's ``tf.linalg.diag_part``,
    ``tf.matrix_diag_part``: MatrixDiagPartV3)."""
    x = convert_to_tensor(input)
    return make_op("MatrixDiagPartV3", [x, _int32(k, x), _padding(padding_value, x)],
                   {"align": str(align)}, name=name)


def matrix_set_diag(input, diagonal, name="set_diag", k=0,  # noqa: A002
                    align="RIGHT_LEFT") -> Tensor:
    """Each innermost matrix of ``input`` with its ``k``-th diagonals set to
    ``diagonal`` (TF's ``tf.linalg.set_diag``, ``tf.matrix_set_diag``: MatrixSetDiagV3)."""
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, dtype_hint=x.dtype, graph=x.graph)
    return make_op("MatrixSetDiagV3", [x, d, _int32(k, x)], {"align": str(align)}, name=name)


# --- gradients (TF's array_grad.py) ------------------------------------------------------------

@register_gradient("DiagPart")
def _diag_part_grad(op, grad):
    return [make_op("Diag", [grad])]


def _align(op) -> str:
    """How the op packs its diagonals: V3's attr; V1 and V2 pack LEFT_LEFT."""
    return op.attrs.get("align", "LEFT_LEFT")


def _k(op, index: int):
    return op.inputs[index] if len(op.inputs) > index else 0


@register_gradient("MatrixDiag")
@register_gradient("MatrixDiagV2")
@register_gradient("MatrixDiagV3")
def _matrix_diag_grad(op, grad):
    part = matrix_diag_part(grad, k=_k(op, 1), align=_align(op))
    return [part] + [None] * (len(op.inputs) - 1)


@register_gradient("MatrixDiagPart")
@register_gradient("MatrixDiagPartV2")
@register_gradient("MatrixDiagPartV3")
def _matrix_diag_part_grad(op, grad):
    x = op.inputs[0]
    matrix = x.shape.dims[-2:] if x.shape.ndims is not None else (None, None)
    if None not in matrix:
        full = matrix_diag(grad, k=_k(op, 1), num_rows=matrix[0], num_cols=matrix[1],
                           align=_align(op))
    else:
        full = matrix_set_diag(zeros_like(x), grad, k=_k(op, 1), align=_align(op))
    return [full] + [None] * (len(op.inputs) - 1)


@register_gradient("MatrixSetDiag")
@register_gradient("MatrixSetDiagV2")
@register_gradient("MatrixSetDiagV3")
def _set_diag_grad(op, grad):
    k, align = _k(op, 2), _align(op)
    cleared = matrix_set_diag(grad, zeros_like(op.inputs[1]), k=k, align=align)
    return [cleared, matrix_diag_part(grad, k=k, align=align)] + [None] * (len(op.inputs) - 2)
