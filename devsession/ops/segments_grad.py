"""Gradients of the segment reductions (TF's ``math_grad.py`` formulas):

* SegmentSum: the output gradient gathered back to each row; SegmentMean: divided by
  the segment's size first;
* SegmentMax/Min and their unsorted forms: split evenly among the rows equal to their
  segment's result, 0 elsewhere (and for rows an unsorted op dropped);
* SegmentProd and UnsortedSegmentProd: the product of the other rows of the segment
  (exact with one zero in the segment, 0 with two or more);
* SparseSegmentSum/Mean/SqrtN (and WithNumSegments): the SparseSegment*Grad ops, as
  dense gradients of data's shape; with the ``sparse_gradient`` attr, TF's IndexedSlices
  of the rows gathered (a dense gradient remembering its rows, ``indexed_rows.py``).

The ids and num_segments get no gradient.
"""

from __future__ import annotations

from .. import dtypes
from .array import concat, expand_dims, reshape
from .array_fill import ones, ones_like, rank, shape, zeros_like
from .array_index import gather, unsorted_segment_sum
from .elementwise import (cast, divide, equal, greater, greater_equal, logical_and, maximum,
                          multiply, sqrt, where)
from .indexed_rows import dense_rows
from .registry import not_differentiable, register_gradient
from .segments import (SPARSE, SPARSE_GRADS, segment_prod, segment_sum, sparse_segment_grad,
                       unsorted_segment_prod)

not_differentiable(*SPARSE_GRADS)           # as TF: no gradient of a gradient op here


def _broadcast_rows(mask, data):
    """``mask`` (of the ids' shape) with a 1 axis for each of data's trailing axes."""
    if data.shape.ndims is None or mask.shape.ndims is None:
        raise ValueError(f"The gradient of a segment reduction of '{data.name}' needs the "
                         f"ranks of its data and its ids.")
    for _ in range(data.shape.ndims - mask.shape.ndims):
        mask = expand_dims(mask, -1)
    return mask


@register_gradient("SegmentSum")
def _segment_sum_grad(op, dy):
    return [gather(dy, op.inputs[1]), None]


@register_gradient("SegmentMean")
def _segment_mean_grad(op, dy):
    data, ids = op.inputs
    counts = segment_sum(_broadcast_rows(ones_like(ids, dtype=dy.dtype), data), ids)
    return [gather(divide(dy, counts), ids), None]


def _segment_min_or_max_grad(op, dy):
    data, ids = op.inputs
    is_selected = equal(data, gather(op.outputs[0], ids))
    num_selected = segment_sum(cast(is_selected, dy.dtype), ids)
    gathered = gather(divide(dy, num_selected), ids)
    return [where(is_selected, gathered, zeros_like(data)), None]


register_gradient("SegmentMax")(_segment_min_or_max_grad)
register_gradient("SegmentMin")(_segment_min_or_max_grad)


def _gather_drop_negatives(params, ids, is_positive=None):
    """params gathered at max(ids, 0), 0 where the id is negative (TF's helper)."""
    gathered = gather(params, maximum(ids, 0))
    if is_positive is None:                    # broadcasts against the gathered rows
        is_positive = _broadcast_rows(greater_equal(ids, 0), gathered)
    return where(is_positive, gathered, zeros_like(gathered)), is_positive


def _unsorted_min_or_max_grad(op, dy):
    data, ids, num_segments = op.inputs
    gathered_outputs, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = logical_and(equal(data, gathered_outputs), is_positive)
    num_selected = unsorted_segment_sum(cast(is_selected, dy.dtype), ids, num_segments)
    gathered, _ = _gather_drop_negatives(divide(dy, num_selected), ids, is_positive)
    return [where(is_selected, gathered, zeros_like(gathered)), None, None]


register_gradient("UnsortedSegmentMax")(_unsorted_min_or_max_grad)
register_gradient("UnsortedSegmentMin")(_unsorted_min_or_max_grad)


def _prod_partials(data, product, dy, ids, reduce_ones):
    """(dy gathered to each row, d product / d row) for a segment product with
    ``reduce_ones(non_zero_data)`` the product of each segment's non-zero rows."""
    is_zero = equal(data, 0)
    num_zeros = reduce_ones(cast(is_zero, dtypes.int32))
    dy = where(greater(num_zeros, 1), zeros_like(dy), dy)    # two zeros: no gradient
    non_zero_data = where(is_zero, ones_like(data), data)
    non_zero_prod = reduce_ones(non_zero_data, product=True)
    clipped = maximum(ids, 0)
    partial = where(is_zero, gather(non_zero_prod, clipped),
                    divide(gather(product, clipped), non_zero_data))
    return dy, partial


@register_gradient("SegmentProd")
def _segment_prod_grad(op, dy):
    data, ids = op.inputs

    def reduce(x, product=False):
        return segment_prod(x, ids) if product else segment_sum(x, ids)
    dy, partial = _prod_partials(data, op.outputs[0], dy, ids, reduce)
    return [multiply(gather(dy, ids), partial), None]


@register_gradient("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op, dy):
    data, ids, num_segments = op.inputs

    def reduce(x, product=False):
        return (unsorted_segment_prod(x, ids, num_segments) if product
                else unsorted_segment_sum(x, ids, num_segments))
    dy, partial = _prod_partials(data, op.outputs[0], dy, ids, reduce)
    gathered, _ = _gather_drop_negatives(dy, ids)
    return [multiply(gathered, partial), None, None]


def _sparse_segment_grad(op, dy):
    data, indices, ids = op.inputs[:3]
    kind = op.type.replace("WithNumSegments", "")
    rows = gather(shape(data), 0)           # int32: TF's output_dim0 takes no other
    if op.attrs.get("sparse_gradient"):
        grad = _sparse_rows_grad(kind, dy, indices, ids, rows)
    else:
        grad = sparse_segment_grad(f"{kind}Grad", dy, indices, ids, rows)
    return [grad] + [None] * (len(op.inputs) - 1)


def _sparse_rows_grad(kind: str, dy, indices, ids, rows):
    """With ``sparse_gradient`` (TF 2.21's embedding_lookup_sparse without weights), TF's
    gradient is an IndexedSlices of the rows ``indices`` names: each entry's segment
    gradient, divided by the segment's count (Mean) or its square root (SqrtN).  Here the
    dense sum of those rows, remembering them (``indexed_rows``): an optimizer then
    updates only those rows, as TF's."""
    values = gather(dy, ids)
    if kind != "SparseSegmentSum":
        counts = gather(segment_sum(cast(ones_like(ids), dy.dtype), ids), ids)
        if kind == "SparseSegmentSqrtN":
            counts = sqrt(counts)
        if values.shape.ndims is None:      # one count per row, whatever the rank
            counts = reshape(counts, concat([[-1], ones(expand_dims(rank(values) - 1, 0),
                                                        dtypes.int32)], 0))
        else:
            counts = _broadcast_rows(counts, values)
        values = divide(values, counts)
    return dense_rows(values, indices, rows)


for _kind in SPARSE:
    register_gradient(_kind)(_sparse_segment_grad)
    register_gradient(f"{_kind}WithNumSegments")(_sparse_segment_grad)
