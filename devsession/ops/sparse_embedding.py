"""``nn.embedding_lookup_sparse``: one embedding per row of a SparseTensor of ids (a
bag of words, a user's items), the rows' embeddings combined by ``combiner``, built as
TF builds it so that its nodes, values and gradients are TF 2.21's:

* the segment of each id is its row (``sp_ids.indices[:, 0]``);
* without weights, over one table (no ``max_norm``), ``SparseSegmentSum`` /
  ``SparseSegmentMean`` / ``SparseSegmentSqrtN`` of the table's rows the ids name, by
  segment (``sum``, ``mean``, ``sqrtn``: the sum divided by the square root of the number
  of ids), with ``sparse_gradient``: the table's gradient is the rows looked up (TF's
  IndexedSlices), and an id outside the table is that op's error, TF's ``Bad:
  indices[1] == 12 out of range [0, 10)`` naming the lookup's node;
* otherwise the distinct ids are looked up once (``unique`` then ``embedding_lookup``,
  over the shards of a list or a PartitionedVariable) and, without weights, reduced by
  the same ops;
* with weights (a SparseTensor of the same indices), each embedding times its weight,
  ``SegmentSum``, divided by the sum of the weights (``mean``) or the square root of the
  sum of their squares (``sqrtn``); a row whose weights sum to 0 (an empty row before the
  last, or weights that cancel) is 0, TF 2.21's ``div_no_nan`` (TF 1.15 divided, giving
  NaN).

The result has one row per segment up to the last row holding an id: rows without ids
before it are zeros, rows after it are not there (TF's segment ops).  The segment ops
are ``ops/segments.py``'s; gradients reach ``params`` through them and the gather.
"""

from __future__ import annotations

import logging

from .. import dtypes
from ..graph import name_scope
from ..sparse_tensor import SparseTensor
from .array import concat, expand_dims, reshape
from .array_fill import fill, rank, shape
from .array_index import gather
from .gather_options import embedding_lookup
from .elementwise import cast, div_no_nan, sqrt
from .elementwise import pow as power
from .segments import segment_sum, sparse_segment_mean, sparse_segment_sqrt_n, \
    sparse_segment_sum
from .sequence import unique

__all__ = ["embedding_lookup_sparse"]

log = logging.getLogger("devsession")
COMBINERS = ("mean", "sqrtn", "sum")
_SPARSE_SEGMENT = {"sum": sparse_segment_sum, "mean": sparse_segment_mean,
                   "sqrtn": sparse_segment_sqrt_n}


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None,
                            combiner=None, max_norm=None):
    """TF1's ``tf.nn.embedding_lookup_sparse`` (see the module docstring): ``params`` a
    tensor or a list of shards (``partition_strategy`` as ``embedding_lookup``),
    ``sp_ids`` a SparseTensor of int ids whose first index is the row, ``sp_weights``
    None or a SparseTensor of weights at the same indices, ``combiner`` "mean" (the
    default, with TF1's warning when not given), "sqrtn" or "sum".  Raises TypeError
    when ``sp_ids``/``sp_weights`` are not SparseTensors and ValueError for another
    combiner or weights whose static shapes do not match the ids'."""
    if combiner is None:
        log.warning('The default value of combiner will change from "mean" to "sqrtn" '
                    'after 2016/11/01.')
        combiner = "mean"
    if combiner not in COMBINERS:
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    params = list(params) if isinstance(params, (list, tuple)) else [params]
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError("sp_ids must be SparseTensor")
    weighted = sp_weights is not None
    if weighted:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError("sp_weights must be either None or SparseTensor")
        for part in ("values", "indices", "dense_shape"):
            ids_shape = getattr(sp_ids, part).shape
            weights_shape = getattr(sp_weights, part).shape
            if not ids_shape.is_compatible_with(weights_shape):
                raise ValueError(f"Shapes {ids_shape} and {weights_shape} are incompatible "
                                 f"(sp_ids.{part} and sp_weights.{part}).")
    with name_scope(name or "embedding_lookup_sparse") as scope:
        segment_ids = sp_ids.indices[:, 0]
        if not weighted and len(params) == 1 and max_norm is None and \
                not hasattr(params[0], "_get_variable_list"):
            # TF 2.21: the table itself reduced by the ids, its gradient the rows they name
            return _SPARSE_SEGMENT[combiner](params[0], sp_ids.values, segment_ids,
                                             name=scope, sparse_gradient=True)
        if segment_ids.dtype != dtypes.int32:
            segment_ids = cast(segment_ids, dtypes.int32)
        ids, idx = unique(sp_ids.values)
        embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy,
                                      max_norm=max_norm)
        if not weighted:
            return _SPARSE_SEGMENT[combiner](embeddings, idx, segment_ids, name=scope)
        return _weighted(embeddings, idx, segment_ids, sp_weights.values, combiner, scope)


def _weighted(embeddings, idx, segment_ids, weights, combiner: str, name: str):
    """The weighted combination, TF 2.21's nodes: weights reshaped to broadcast over an
    embedding's dimensions, SegmentSum of the products, the divisor of ``combiner``; the
    result is the node ``name`` (the scope's own name, as TF names it)."""
    if weights.dtype != embeddings.dtype:
        weights = cast(weights, embeddings.dtype)
    embeddings = gather(embeddings, idx)
    ones = fill(expand_dims(rank(embeddings) - 1, 0), 1)
    static = weights.shape
    weights = reshape(weights, concat([shape(weights), ones], 0))
    if embeddings.shape.ndims is not None:
        weights.set_shape(static.concatenate([1] * (embeddings.shape.ndims - 1)))
    embeddings = embeddings * weights
    if combiner == "sum":
        return segment_sum(embeddings, segment_ids, name=name)
    summed = segment_sum(embeddings, segment_ids)
    if combiner == "mean":
        return div_no_nan(summed, segment_sum(weights, segment_ids), name=name)
    return div_no_nan(summed, sqrt(segment_sum(power(weights, 2), segment_ids)), name=name)
