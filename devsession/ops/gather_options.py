"""TF's gather options that devsession builds from its plain gathers (so gradients and
every device's kernels come with them), as TF's own Python builds them:

* ``gather(params, indices, axis=b, batch_dims=b)``: each of the leading ``b`` batch
  entries gathers from its own slice of ``params``.  Built as one gather over the
  batches flattened into the gathered axis, each batch's indices offset by its start
  (TF's ``_batch_gather``); ``axis`` after the batch dimensions moves the gathered axis
  next to them and back.
* ``gather_nd(params, indices, batch_dims=b)``: each batch entry's coordinates index its
  own slice: the batch coordinates are prepended to ``indices``' last axis.
* ``embedding_lookup(..., max_norm=m)``: each looked-up row clipped to L2 norm ``m``
  (TF's ``_clip``: ``clip_by_norm`` over the embedding axes).

The plain forms (``batch_dims=0``, no ``max_norm``) are the single ops of
``array_index.py`` and ``gather_nd.py`` unchanged.
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, name_scope
from .array import concat, reshape, stack, transpose
from .array_fill import broadcast_to, shape
from .array_index import embedding_lookup as _plain_embedding_lookup
from .array_index import gather as _plain_gather
from .clipping import clip_by_norm
from .common import graph_of
from .elementwise import cast
from .gather_nd import gather_nd as _plain_gather_nd
from .reduce import reduce_prod
from .sequence import range as range_

__all__ = ["gather", "gather_nd", "embedding_lookup"]


def gather(params, indices, validate_indices=None, name=None, axis=None,
           batch_dims=0) -> Tensor:
    """TF1's ``tf.gather``; see the module docstring for ``batch_dims``."""
    if not batch_dims:
        return _plain_gather(params, indices, validate_indices, name, axis)
    with name_scope(name or "GatherV2"):
        graph = graph_of(params, indices)
        params = convert_to_tensor(params, graph=graph, name="params")
        indices = convert_to_tensor(indices, graph=graph, name="indices")
        b, axis = _batch_axes(params, indices, batch_dims, axis)
        rank = params.shape.ndims
        if axis == b:
            return _batch_gather(params, indices, b)
        # move the gathered axis next to the batch axes, gather, move it back
        forward = list(range(b)) + [axis] + [d for d in range(b, rank) if d != axis]
        gathered = _batch_gather(transpose(params, forward), indices, b)
        k = indices.shape.ndims - b                 # the gathered indices' own axes
        between = axis - b                          # params' axes between batch and axis
        order = (list(range(b)) + list(range(b + k, b + k + between))
                 + list(range(b, b + k)) + list(range(b + k + between, gathered.shape.ndims)))
        return transpose(gathered, order)


def _batch_axes(params, indices, batch_dims: int, axis) -> tuple[int, int]:
    if params.shape.ndims is None or indices.shape.ndims is None:
        raise ValueError("gather with batch_dims needs params and indices of known rank.")
    b = batch_dims % indices.shape.ndims if batch_dims < 0 else batch_dims
    if b > indices.shape.ndims or b >= params.shape.ndims:
        raise ValueError(f"batch_dims ({batch_dims}) must be less than rank(params) "
                         f"({params.shape.ndims}) and at most rank(indices) "
                         f"({indices.shape.ndims}).")
    axis = b if axis is None else int(axis) % params.shape.ndims
    if axis < b:
        raise ValueError(f"gather: axis ({axis}) must not be less than batch_dims ({b}).")
    if not params.shape[:b].is_compatible_with(indices.shape[:b]):
        raise ValueError(f"gather: the batch dimensions of params {params.shape} and "
                         f"indices {indices.shape} differ.")
    return b, axis


def _batch_gather(params, indices, b: int) -> Tensor:
    """``params[i..., indices[i..., j...]]`` for the ``b`` leading batch axes, the
    gathered axis right after them."""
    params_shape, indices_shape = shape(params), shape(indices)
    batches = reduce_prod(params_shape[:b])
    rows = params_shape[b]
    flat_params = reshape(params, concat([[batches * rows], params_shape[b + 1:]], 0))
    flat_indices = reshape(indices, concat([[batches], indices_shape[b:]], 0))
    offsets = cast(range_(batches) * rows, indices.dtype)
    offsets = reshape(offsets, [-1] + [1] * (indices.shape.ndims - b))
    gathered = _plain_gather(flat_params, flat_indices + offsets)
    out = reshape(gathered, concat([params_shape[:b], indices_shape[b:], params_shape[b + 1:]],
                                   0))
    out.set_shape(params.shape[:b].merge_with(indices.shape[:b])
                  .concatenate(indices.shape[b:]).concatenate(params.shape[b + 1:]))
    return out


def gather_nd(params, indices, name=None, batch_dims=0) -> Tensor:
    """TF1's ``tf.gather_nd``; see the module docstring for ``batch_dims``."""
    if not batch_dims:
        return _plain_gather_nd(params, indices, name)
    with name_scope(name or "GatherNd"):
        graph = graph_of(params, indices)
        params = convert_to_tensor(params, graph=graph, name="params")
        indices = convert_to_tensor(indices, graph=graph, name="indices")
        rank = indices.shape.ndims
        if rank is None or batch_dims < 0 or batch_dims >= rank:
            raise ValueError(f"gather_nd: batch_dims ({batch_dims}) must be in [0, "
                             f"rank(indices) - 1), and indices of known rank, got "
                             f"{indices.shape}.")
        positions = shape(indices)[:-1]
        coordinates = []
        for axis in range(batch_dims):
            along = cast(range_(shape(indices)[axis]), indices.dtype)
            along = reshape(along, [1] * axis + [-1] + [1] * (rank - 2 - axis))
            coordinates.append(broadcast_to(along, positions))
        full = concat([stack(coordinates, axis=-1), indices], -1)
        return _plain_gather_nd(params, full)


def embedding_lookup(params, ids, partition_strategy="mod", name=None,
                     validate_indices=True, max_norm=None) -> Tensor:
    """TF1's ``tf.nn.embedding_lookup``; ``max_norm`` clips each row (module docstring)."""
    if max_norm is None:
        return _plain_embedding_lookup(params, ids, partition_strategy, name,
                                       validate_indices)
    with name_scope(name or "embedding_lookup"):
        rows = _plain_embedding_lookup(params, ids, partition_strategy, None, validate_indices)
        ids_rank = convert_to_tensor(ids).shape.ndims
        if ids_rank is None or rows.shape.ndims is None:
            raise ValueError("embedding_lookup with max_norm needs ids and params of known "
                             "rank.")
        return clip_by_norm(rows, max_norm, axes=list(range(ids_rank, rows.shape.ndims)))
