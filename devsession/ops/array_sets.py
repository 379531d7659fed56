"""Index and set ops over int or 1-D tensors, kept on the host as TF keeps them:
UniqueWithCounts (``tf.unique_with_counts``), ListDiff (``tf.setdiff1d``),
InvertPermutation (``tf.invert_permutation``) and UnravelIndex (``tf.unravel_index``).

Static shapes as TF infers them (ranks checked when built, a ValueError); values checked
when run, with TF's InvalidArgumentError messages (a permutation with an element out of
range or repeated, dims that are zero or negative, an index past their product).  No
gradients: TF registers none (their outputs are indices, or the distinct values of
UniqueWithCounts and ListDiff, whose inputs TF does not differentiate either).  Kernels:
``kernels/reference/array_sets.py`` (host; the GPU runs them through the host).
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["unique_with_counts", "setdiff1d", "invert_permutation", "unravel_index",
           "UniqueWithCounts", "ListDiff"]

# What the builders return, as TF's namedtuples of the same names.
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _rank(spec, want: tuple, node: str) -> None:
    if spec.shape.ndims is not None and spec.shape.ndims not in want:
        rank = " or ".join(str(r) for r in want)
        raise InferError(f"Op '{node}': Shape must be rank {rank} but is rank "
                         f"{spec.shape.ndims} for '{spec.name}' (shape {spec.shape}).")


def _index_dtype(dtype, what: str, node: str):
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _INDEX_DTYPES:
        raise TypeError(f"Op '{node}': {what} must be int32 or int64, not {dtype.name}.")
    return dtype


def _unique_with_counts(inputs, attrs, node):
    (x,) = inputs
    _rank(x, (1,), node)
    out_idx = _index_dtype(attrs["out_idx"], "out_idx", node)
    return [(x.dtype, TensorShape([None])), (out_idx, x.shape if x.shape.ndims else
                                             TensorShape([None])),
            (out_idx, TensorShape([None]))]


def _list_diff(inputs, attrs, node):
    x, y = inputs
    for spec in inputs:
        _rank(spec, (1,), node)
    if x.dtype != y.dtype:
        raise TypeError(f"Op '{node}': x and y must have one dtype, got {x.dtype.name} and "
                        f"{y.dtype.name}.")
    out_idx = _index_dtype(attrs["out_idx"], "out_idx", node)
    return [(x.dtype, TensorShape([None])), (out_idx, TensorShape([None]))]


def _invert_permutation(inputs, attrs, node):
    (x,) = inputs
    _rank(x, (1,), node)
    _index_dtype(x.dtype, "x", node)
    return x.dtype, x.shape if x.shape.ndims else TensorShape([None])


def _unravel_index(inputs, attrs, node):
    indices, dims = inputs
    _rank(indices, (0, 1), node)
    _rank(dims, (1,), node)
    if indices.dtype != dims.dtype or indices.dtype not in _INDEX_DTYPES:
        raise TypeError(f"Op '{node}': indices and dims must be both int32 or both int64, "
                        f"got {indices.dtype.name} and {dims.dtype.name}.")
    n = dims.shape.dims[0] if dims.shape.ndims == 1 else None
    if indices.shape.ndims == 0:
        return indices.dtype, TensorShape([n])
    if indices.shape.ndims == 1:
        return indices.dtype, TensorShape([n, indices.shape.dims[0]])
    return indices.dtype, TensorShape(None)


register_op(OpDef("UniqueWithCounts", _unique_with_counts, 1,
                  attr_defaults={"out_idx": dtypes.int32}))
register_op(OpDef("ListDiff", _list_diff, 2, attr_defaults={"out_idx": dtypes.int32}))
register_op(OpDef("InvertPermutation", _invert_permutation, 1))
register_op(OpDef("UnravelIndex", _unravel_index, 2))
not_differentiable("UniqueWithCounts", "ListDiff", "InvertPermutation", "UnravelIndex")


def unique_with_counts(x, out_idx=dtypes.int32, name=None) -> UniqueWithCounts:
    """``(y, idx, count)``: ``tf.unique``'s ``y`` and ``idx`` and how often each value
    of ``y`` occurs in 1-D ``x`` (TF's ``tf.unique_with_counts``)."""
    x = convert_to_tensor(x)
    op = x.graph.create_op("UniqueWithCounts", [x], {"out_idx": dtypes.as_dtype(out_idx)},
                           name=name or "UniqueWithCounts")
    return UniqueWithCounts(*op.outputs)


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None) -> ListDiff:
    """``(out, idx)``: the elements of 1-D ``x`` not in ``y``, in ``x``'s order, and their
    positions in ``x`` (TF1's ``tf.setdiff1d``, the ListDiff op)."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype, graph=x.graph)
    op = x.graph.create_op("ListDiff", [x, y], {"out_idx": dtypes.as_dtype(index_dtype)},
                           name=name or "ListDiff")
    return ListDiff(*op.outputs)


def invert_permutation(x, name=None) -> Tensor:
    """``y`` with ``y[x[i]] = i``: the inverse of the permutation ``x`` of
    ``0..n-1`` (TF's ``tf.invert_permutation``)."""
    return make_op("InvertPermutation", [convert_to_tensor(x, dtype_hint=dtypes.int32)],
                   name=name or "InvertPermutation")


def unravel_index(indices, dims, name=None) -> Tensor:
    """The coordinates in an array of shape ``dims`` of each flat (row-major) index:
    ``[len(dims)]`` for a scalar index, ``[len(dims), n]`` for ``n`` of them (TF's
    ``tf.unravel_index``)."""
    i = convert_to_tensor(indices, dtype_hint=dtypes.int32)
    d = convert_to_tensor(dims, dtype_hint=i.dtype, graph=i.graph)
    return make_op("UnravelIndex", [i, d], name=name or "UnravelIndex")
