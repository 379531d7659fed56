"""TF's array composites built from existing ops (so their gradients and every device's
kernels come with them): ``tf.repeat``, ``tf.meshgrid``, ``tf.batch_gather``,
``tf.parallel_stack``, TF1's ``tf.where`` (``select``: TF's Select, whose vector condition
picks rows, as a SelectV2 of a reshaped condition) and the spellings ``tf.where_v2``
(the broadcasting SelectV2 devsession's own code builds) and ``tf.reverse_v2``
(``ds.reverse``).

* ``repeat(input, repeats, axis)``: each slice along ``axis`` repeated ``repeats`` times
  (a scalar, or one count per slice; ``axis=None`` flattens first, as TF).  Built as a
  GatherV2 of the slices' indices, found by UpperBound of each output position in the
  counts' running sums; a negative count repeats nothing (TF's sequence mask).  One
  count the graph knows, over a known dimension, gives that dimension times the count
  statically, as TF's tile-and-reshape for a single count does (several counts leave
  it unknown, as TF's).
* ``meshgrid(*xs, indexing="xy"|"ij")``: TF's reshapes times a tensor of ones.
* ``batch_gather(params, indices)``: TF1's, a gather in the last index axis of each batch
  (the leading ``indices.rank - 1`` axes, which ``params`` shares): the batches' rows
  flattened and offset, as TF's ``_batch_gather``.
* ``parallel_stack``: a Pack (TF builds ParallelConcat, a scheduling variant of it).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import constant_value, convert_to_tensor, name_scope
from .array import concat, expand_dims, reshape, stack
from .array_fill import broadcast_to, ones, shape, size
from .array_index import gather
from .array_order import upper_bound
from .common import graph_of, normalised_axis, operands
from .elementwise import add, maximum, multiply, where
from .masking import reverse
from .reduce import cumsum, reduce_prod, reduce_sum
from .sequence import range as range_

__all__ = ["repeat", "meshgrid", "batch_gather", "parallel_stack", "select", "where_v2",
           "reverse_v2"]

reverse_v2 = reverse


def select(condition, x=None, y=None, name=None):
    """TF1's ``tf.where`` (its Select, and named so): as ``where``, except that a vector
    ``condition`` against higher-rank ``x`` and ``y`` picks whole rows (their first
    dimension), where broadcasting would pair it with their last.  Other shapes
    broadcast, where TF1's Select would refuse them: programs TF runs run the same."""
    if x is None or y is None:
        return where(condition, x, y, name=name)
    cond = convert_to_tensor(condition, dtype=dtypes.bool_, graph=graph_of(condition, x, y))
    x, y = operands(x, y)
    rank = max(x.shape.ndims or 0, y.shape.ndims or 0)
    if cond.shape.ndims == 1 and rank > 1:
        rows = next((t.shape.dims[0] for t in (x, y) if t.shape.ndims), None)
        if None not in (rows, cond.shape.dims[0]) and rows != cond.shape.dims[0]:
            raise ValueError(f"where: a vector condition '{cond.name}' of "
                             f"{cond.shape.dims[0]} elements picks rows of '{x.name}' "
                             f"{x.shape}, which has {rows}.")
        cond = reshape(cond, [-1] + [1] * (rank - 1))
    return where(cond, x, y, name=name or "Select")


def where_v2(condition, x=None, y=None, name=None):
    """TF's ``tf.where_v2``: SelectV2 (broadcasting), or the coordinates of the true
    elements of ``condition`` alone."""
    return where(condition, x, y, name=name or ("SelectV2" if x is not None else None))


def repeat(input, repeats, axis=None, name=None):  # noqa: A002  (TF's argument names)
    """See the module docstring."""
    with name_scope(name or "Repeat"):
        x = convert_to_tensor(input, name="input")
        if axis is None:
            x, axis = reshape(x, [-1]), 0
        if x.shape.ndims == 0:
            raise ValueError("repeat needs an input of rank >= 1 (or axis=None).")
        axis = normalised_axis(axis, x.shape.ndims, "repeat")
        r = convert_to_tensor(repeats, dtype_hint=dtypes.int32, graph=x.graph,
                              name="repeats")
        if not r.dtype.is_integer:
            raise TypeError(f"repeat's repeats must be integers, not {r.dtype.name}.")
        if r.shape.ndims not in (None, 0, 1):
            raise ValueError(f"`repeats` must be a scalar or a 1-D tensor, got shape "
                             f"{r.shape}.")
        slices = x.shape.dims[axis] if x.shape.ndims is not None else None
        given = r.shape.dims[0] if r.shape.ndims == 1 else None
        if None not in (slices, given) and given not in (1, slices):
            raise ValueError(f"Dimensions {given} and {slices} are not compatible")
        counts = maximum(broadcast_to(r, reshape(shape(x, out_type=r.dtype)[axis], [1])),
                         0)
        positions = range_(reduce_sum(counts), dtype=r.dtype)
        rows = upper_bound(expand_dims(cumsum(counts), 0), expand_dims(positions, 0),
                           out_type=r.dtype)
        repeated = gather(x, reshape(rows, [-1]), axis=axis)
        count = constant_value(r) if r.shape.num_elements() == 1 else None
        if slices is not None and count is not None and int(np.reshape(count, [])) >= 0:
            dims = repeated.shape.as_list()
            dims[axis] = slices * int(np.reshape(count, []))
            repeated.set_shape(dims)
        return repeated


def meshgrid(*args, **kwargs):
    """Coordinate grids of the 1-D ``args``, as TF's ``tf.meshgrid``: ``indexing="xy"``
    (Cartesian: the first two axes swapped) or ``"ij"`` (matrix)."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this "
                        f"function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    if not args:
        return []
    with name_scope(name):
        xs = [convert_to_tensor(a) for a in args]
        ndim = len(xs)
        ones_shape = (1,) * ndim
        grids = [reshape(x, ones_shape[:i] + (-1,) + ones_shape[i + 1:])
                 for i, x in enumerate(xs)]
        sizes = [size(x) for x in xs]
        if indexing == "xy" and ndim > 1:
            grids[0] = reshape(grids[0], (1, -1) + (1,) * (ndim - 2))
            grids[1] = reshape(grids[1], (-1, 1) + (1,) * (ndim - 2))
            sizes[0], sizes[1] = sizes[1], sizes[0]
        factor = ones(stack(sizes), xs[0].dtype)
        return [multiply(g, factor) for g in grids]


def batch_gather(params, indices, name=None):
    """See the module docstring (TF1's ``tf.batch_gather``)."""
    with name_scope(name or "BatchGather"):
        p = convert_to_tensor(params, name="params")
        i = convert_to_tensor(indices, dtype_hint=dtypes.int32, graph=p.graph,
                              name="indices")
        if i.shape.ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        batch_dims = i.shape.ndims - 1
        if batch_dims <= 0:
            return gather(p, i)
        if p.shape.ndims is not None:
            if p.shape.ndims <= batch_dims:
                raise ValueError(f"batch_gather needs params of rank > {batch_dims}, got "
                                 f"shape {p.shape}.")
            for a, b in zip(p.shape.dims[:batch_dims], i.shape.dims[:batch_dims]):
                if None not in (a, b) and a != b:
                    raise ValueError(f"batch_gather: params {p.shape} and indices "
                                     f"{i.shape} must have the same batch dimensions.")
        params_shape, indices_shape = shape(p, out_type=i.dtype), shape(i, out_type=i.dtype)
        batches = reduce_prod(indices_shape[:batch_dims])
        per_batch = params_shape[batch_dims]
        offsets = multiply(range_(batches, dtype=i.dtype), per_batch)
        flat = add(reshape(i, [batches, -1]), expand_dims(offsets, 1))
        inner = params_shape[batch_dims + 1:]
        rows = reshape(p, concat([np.array([-1], i.dtype.np), inner], 0))
        return reshape(gather(rows, flat), concat([indices_shape, inner], 0))


def parallel_stack(values, name="parallel_stack"):
    """``values`` stacked along a new first axis (TF's ``tf.parallel_stack``)."""
    return stack(values, axis=0, name=name)
