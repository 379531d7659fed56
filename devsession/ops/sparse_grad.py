"""Gradients of the sparse ops (``sparse.py``), TF's ``sparse_grad.py`` formulas.  Only
the values (and a dense operand) get gradients; indices and shapes get None.

* SparseTensorDenseMatMul: ``b`` gets ``op(A)^T @ dy`` (the same op with ``adjoint_a``
  flipped, transposed back under ``adjoint_b``); each value of A gets the dot product
  of its row of ``dy`` with its row of ``op(b)^T`` (complex: conjugated as TF's, the
  value's gradient that of ``dy @ op(b)^H`` at its index, adjointed under ``adjoint_a``).
* SparseToDense: each value gets ``dy`` at its index (``gather_nd``); the default gets
  what is left of ``sum(dy)``.
* SparseReduceSum: each value gets the output gradient of the sum it went into (its
  index with the reduced axes set to 0, in the kept-dims output).
* SparseReorder: the output gradient sent back to each entry's input position (the
  reorder of the entries' positions gives the permutation).
* SparseAdd: ``SparseAddGrad`` sends each sum entry's gradient to the entries of ``a``
  and ``b`` it came from (none to a pair whose sum fell below the threshold).
* SparseTensorDenseAdd: the dense operand gets ``dy``, each value ``dy`` at its index.
* SparseSlice: ``SparseSliceGrad`` sends each output entry's gradient to the input
  entry it came from (others get 0).
* SparseFillEmptyRows: ``SparseFillEmptyRowsGrad`` gives each value the gradient at its
  output position (``reverse_index_map``) and the default the rest of the sum.
* SparseSoftmax: TF's ``(dy - sum(dy * y over the row)) * y`` over the stored entries.
* SparseDenseCwiseMul / Div: each value gets ``dy`` times / over the dense element it
  met; the dense operand gets the sum, at each element, of ``dy * value`` (Div: ``dy *
  -value / dense^2``) over the entries that met it (TF's ``_SparseDenseCwiseMulOrDivGrad``:
  indices divided by the broadcast's scaling, added into zeros by SparseTensorDenseAdd).
* SparseSparseMaximum / Minimum and SparseDenseCwiseAdd raise NotImplementedError, as TF's.
* SparseReshape moves indices only (the values pass through an Identity): not
  differentiable; nor are SparseAddGrad and SparseConcat, as in TF.  SparseSplit, the
  SparseReduceMax ops, SparseReduceSumSparse and the gradient ops have no gradient in
  TF (a LookupError when one is needed), nor here.

Checked against finite differences in tests/test_sparse.py.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor
from .array import concat, expand_dims, reshape, transpose
from .array_fill import ones, ones_like, shape, size, zeros_like
from .array_index import gather, slice as slice_, unsorted_segment_sum
from .common import make_op
from .complex_math import conj
from .elementwise import equal, floordiv, floormod, square, subtract, where
from .gather_nd import gather_nd
from .reduce import reduce_any, reduce_sum
from .registry import not_differentiable, register_gradient
from .sequence import range as range_

__all__: list = []

not_differentiable("SparseReshape", "SparseAddGrad", "SparseConcat")


@register_gradient("SparseTensorDenseMatMul")
def _sparse_dense_matmul_grad(op, dy):
    a_indices, a_values, a_shape, b = op.inputs
    adjoint_a, adjoint_b = op.attrs["adjoint_a"], op.attrs["adjoint_b"]
    b_grad = make_op("SparseTensorDenseMatMul", [a_indices, a_values, a_shape, dy],
                     {"adjoint_a": not adjoint_a, "adjoint_b": False})
    if adjoint_b:
        b_grad = transpose(b_grad)
        if b_grad.dtype.is_complex:
            b_grad = conj(b_grad)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = gather(dy, cols if adjoint_a else rows)
    parts_b = gather(transpose(b) if adjoint_b else b, rows if adjoint_a else cols)
    if dy.dtype.is_complex:     # TF's: dy conjugated under adjoint_a, b where both or neither
        parts_a = conj(parts_a) if adjoint_a else parts_a
        parts_b = conj(parts_b) if adjoint_a == adjoint_b else parts_b
    return [None, reduce_sum(parts_a * parts_b, axis=1), None, b_grad]


@register_gradient("SparseToDense")
def _sparse_to_dense_grad(op, dy):
    indices, _, values, _ = op.inputs
    coordinates = indices
    if indices.shape.ndims == 1:          # indices into a vector
        coordinates = expand_dims(indices, 1)
    elif indices.shape.ndims == 0:
        coordinates = reshape(indices, [1, 1])
    values_grad = gather_nd(dy, coordinates)
    default_grad = subtract(reduce_sum(dy), reduce_sum(values_grad))
    if values.shape.ndims == 0:           # one value for every index
        values_grad = reduce_sum(values_grad)
    return [None, None, values_grad, default_grad]


@register_gradient("SparseReduceSum")
def _sparse_reduce_sum_grad(op, dy):
    indices, _, dense_shape, axes = op.inputs
    rank = size(dense_shape)
    axes = floormod(reshape(axes, [-1]) + rank, rank)
    reduced = reduce_any(equal(expand_dims(range_(rank), 1), expand_dims(axes, 0)), axis=1)
    kept_shape = where(reduced, ones_like(dense_shape), dense_shape)
    at = where(reduced, zeros_like(indices), indices)
    return [None, gather_nd(reshape(dy, kept_shape), at), None, None]


@register_gradient("SparseReorder")
def _sparse_reorder_grad(op, _, values_grad):
    indices, _, dense_shape = op.inputs
    count = shape(indices)[0]
    positions = indices.graph.create_op(
        "SparseReorder", [indices, range_(count), dense_shape]).outputs[1]
    return [None, unsorted_segment_sum(values_grad, positions, count), None]


@register_gradient("SparseAdd")
def _sparse_add_grad(op, *grads):
    if grads[1] is None:
        return [None] * 7
    a_indices, a_values, _, b_indices, b_values, _, _ = op.inputs
    grad_op = op.graph.create_op("SparseAddGrad", [grads[1], a_indices, b_indices,
                                                   op.outputs[0]])
    a_grad, b_grad = grad_op.outputs
    a_grad.set_shape(a_values.shape)
    b_grad.set_shape(b_values.shape)
    return [None, a_grad, None, None, b_grad, None, None]


@register_gradient("SparseTensorDenseAdd")
def _sparse_dense_add_grad(op, dy):
    return [None, gather_nd(dy, op.inputs[0]), None, dy]


@register_gradient("SparseSlice")
def _sparse_slice_grad(op, *grads):
    indices, values, _, start, _ = op.inputs
    grad = make_op("SparseSliceGrad", [grads[1], indices, start, op.outputs[0]])
    grad.set_shape(values.shape)
    return [None, grad, None, None, None]


@register_gradient("SparseFillEmptyRows")
def _sparse_fill_empty_rows_grad(op, _, values_grad, *unused):
    grad_op = op.graph.create_op("SparseFillEmptyRowsGrad", [op.outputs[3], values_grad])
    return [None, grad_op.outputs[0], None, grad_op.outputs[1]]


@register_gradient("SparseSoftmax")
def _sparse_softmax_grad(op, dy):
    indices, _, dense_shape = op.inputs
    out = op.outputs[0]
    last = convert_to_tensor([-1], graph=op.graph)
    sums = make_op("SparseReduceSum", [indices, out * dy, dense_shape, last],
                   {"keep_dims": True})
    row_start = concat([indices[:, :-1], zeros_like(indices[:, -1:])], 1)
    return [None, (dy - gather_nd(sums, row_start)) * out, None]


def _not_implemented(op, *grads):
    raise NotImplementedError(f"Gradient for {op.type} is not implemented.")


register_gradient("SparseSparseMaximum")(_not_implemented)
register_gradient("SparseSparseMinimum")(_not_implemented)
register_gradient("SparseDenseCwiseAdd")(_not_implemented)


def _dense_positions(op):
    """Each entry's index into the dense operand: the sparse index divided by how much
    the broadcast scaled each dim, leading dims the dense side lacks dropped."""
    indices, _, dense_shape, y = op.inputs
    y_shape = shape(y, out_type=dtypes.int64)
    added = expand_dims(size(dense_shape) - size(y_shape), 0)
    scaling = floordiv(dense_shape, concat([ones(added, dtypes.int64), y_shape], 0))
    return slice_(floordiv(indices, scaling), concat([[0], added], 0), [-1, -1]), y_shape


def _sparse_dense_cwise_grad(is_mul: bool):
    def gradient(op, dy):
        values, y = op.inputs[1], op.inputs[3]
        positions, y_shape = _dense_positions(op)
        picked = gather_nd(y, positions)
        if is_mul:
            values_grad, y_values = dy * picked, dy * values
        else:
            values_grad, y_values = dy / picked, dy * (-values / square(picked))
        y_grad = make_op("SparseTensorDenseAdd", [positions, y_values, y_shape, zeros_like(y)])
        return [None, values_grad, None, y_grad]
    return gradient


register_gradient("SparseDenseCwiseMul")(_sparse_dense_cwise_grad(True))
register_gradient("SparseDenseCwiseDiv")(_sparse_dense_cwise_grad(False))
