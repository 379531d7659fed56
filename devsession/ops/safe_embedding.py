"""``nn.safe_embedding_lookup_sparse``: ``embedding_lookup_sparse`` made safe for real
input batches, as TF builds it (what embedding columns and linear_model's categorical
weights use):

* ids of any rank: the leading dimensions are flattened to rows, and the result has
  them back (``[d0, ..., dn-1, dim]`` for ids of dense shape ``[d0, ..., dn-1, k]``);
* invalid ids (< 0) are dropped, and with a combiner other than "sum" so are ids whose
  weight is not positive;
* a row left without ids gets zeros (or ``default_id``'s embedding), where plain
  ``embedding_lookup_sparse`` would leave it out.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import name_scope
from ..sparse_tensor import SparseTensor

__all__ = ["safe_embedding_lookup_sparse"]


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, name=None,
                                 partition_strategy="div", max_norm=None):
    """TF1's ``tf.nn.safe_embedding_lookup_sparse`` (see the module docstring):
    ``embedding_weights`` a variable, a tensor or a list of shards; ``sparse_ids`` an
    int64 SparseTensor of ids; ``sparse_weights`` None or float weights at the same
    indices.  ValueError when there are no weights to look up."""
    from .array import concat, reshape, stack, tile
    from .array_fill import shape, size
    from .array_index import gather, slice as slice_
    from .array_fill import zeros_like
    from .elementwise import cast, greater, greater_equal, where
    from .reduce import reduce_prod
    from .sparse import sparse_reshape
    from .sparse_composites import sparse_retain
    from .sparse_embedding import embedding_lookup_sparse
    from .sparse_slicing import sparse_fill_empty_rows

    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if not isinstance(embedding_weights, (list, tuple)):
        embedding_weights = [embedding_weights]
    embedding_weights = list(embedding_weights)
    if not embedding_weights:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    with name_scope(name or "embedding_lookup") as scope:
        original_shape = sparse_ids.dense_shape
        rank = original_shape.shape.dims[0] if original_shape.shape.ndims == 1 else None
        rank = size(original_shape) if rank is None else rank
        sparse_ids = sparse_reshape(sparse_ids, stack([
            reduce_prod(slice_(original_shape, [0], stack([rank - 1]))),
            gather(original_shape, rank - 1)]))
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values,
                                          sparse_ids.dense_shape)
        valid = greater_equal(sparse_ids.values, 0)
        sparse_ids = sparse_retain(sparse_ids, valid)
        if sparse_weights is not None:
            sparse_weights = sparse_retain(sparse_weights, valid)
            if combiner != "sum":
                positive = greater(sparse_weights.values, 0)
                sparse_ids = sparse_retain(sparse_ids, positive)
                sparse_weights = sparse_retain(sparse_weights, positive)
        sparse_ids, is_row_empty = sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
            partition_strategy=partition_strategy,
            name=None if default_id is None else scope, max_norm=max_norm)
        if default_id is None:
            is_row_empty = tile(reshape(is_row_empty, [-1, 1]),
                                stack([1, shape(result)[1]]))
            result = where(is_row_empty, zeros_like(result), result, name=scope)
        leading = slice_(cast(original_shape, dtypes.int32), [0], stack([rank - 1]))
        final = reshape(result, concat([leading, slice_(shape(result), [1], [-1])], 0))
        static = sparse_ids_static_leading(original_shape, rank)
        if static is not None and result.shape.ndims is not None:
            final.set_shape(static.concatenate(result.shape[1:]))
        return final


def sparse_ids_static_leading(original_shape, rank):
    """The static leading dimensions of the result: the ids' dense shape but its last
    when that is a constant, unknown sizes of a known count otherwise, None when the
    ids' rank is not known."""
    from ..graph import constant_value
    from ..tensor_shape import TensorShape

    known = constant_value(original_shape)
    if known is not None:
        return TensorShape([int(d) for d in known[:-1]])
    if not isinstance(rank, int):
        return None
    return TensorShape([None] * (rank - 1))
