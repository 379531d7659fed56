"""``RaggedTensor.__getitem__`` for the outer dimension, the cheap cases of TF's
``ragged_getitem.py``:

* ``rt[i]``: row ``i`` (negative counts from the end), a Tensor for ragged rank 1, else a
  RaggedTensor; a row out of range is an InvalidArgumentError at run time (the gather of
  its splits).
* ``rt[a:b]``: the rows ``a`` to ``b`` (step 1), a RaggedTensor whose splits start at 0.
* ``rt[key, :, ...]``: as ``rt[key]`` when every later index is ``:``.

A row out of a statically known range is TF's ValueError when built.  Other indexing (a
step, an index into a ragged dimension) is a ValueError naming it.
"""

from __future__ import annotations

from ..graph import Tensor, name_scope
from ..ops.gather_options import gather
from .ragged_tensor import RaggedTensor

__all__ = ["ragged_getitem"]


def ragged_getitem(rt: RaggedTensor, key):
    if isinstance(key, tuple):
        if any(k != slice(None) for k in key[1:]):
            raise ValueError(f"devsession indexes a RaggedTensor in its outer dimension "
                             f"only; {key!r} indexes an inner one.")
        key = key[0] if key else slice(None)
    with name_scope("RaggedGetItem"):
        if isinstance(key, slice):
            return _rows(rt, key)
        if isinstance(key, (int, Tensor)) and not isinstance(key, bool):
            return _row(rt, key)
    raise TypeError(f"Cannot index a RaggedTensor with {key!r}: only ints, slices and "
                    f"scalar int Tensors are supported.")


def _row(rt: RaggedTensor, index):
    splits = rt.row_splits
    known = rt.shape.dims[0] if rt.shape.ndims is not None else None
    if isinstance(index, int) and known is not None and not -known <= index < known:
        raise ValueError(f"slice index {index} of dimension 0 out of bounds.")  # TF's
    nrows = rt.nrows()
    if isinstance(index, int):
        index = index if index >= 0 else nrows + index
    else:
        from ..ops.array_composites import where
        from ..ops.elementwise import cast
        index = cast(index, splits.dtype)
        index = where(index < 0, index + nrows, index)
    begin, end = gather(splits, index), gather(splits, index + 1)
    return _slice_values(rt.values, begin, end)


def _slice_values(values, begin, end):
    if isinstance(values, RaggedTensor):
        return _rows_between(values, begin, end)
    rows = values[begin:end]
    if values.shape.ndims is not None:     # the rows' count is unknown, the rest kept
        rows.set_shape([None] + list(values.shape.dims[1:]))
    return rows


def _rows_between(rt: RaggedTensor, begin, end) -> RaggedTensor:
    splits = rt.row_splits[begin:end + 1]
    splits.set_shape([None])
    return RaggedTensor(_slice_values(rt.values, splits[0], splits[-1]),
                        splits - splits[0], internal=True)


def _rows(rt: RaggedTensor, key: slice) -> RaggedTensor:
    if key.step not in (None, 1):
        raise ValueError(f"devsession slices a RaggedTensor's rows with step 1 only, got "
                         f"step {key.step!r}.")
    nrows = rt.nrows()
    start = _bound(key.start, 0, nrows)
    stop = _bound(key.stop, nrows, nrows)
    from ..ops.elementwise import maximum
    stop = maximum(stop, start)
    return _rows_between(rt, start, stop)


def _bound(value, default, nrows):
    """A slice bound clamped to ``[0, nrows]`` as Python's (negatives from the end)."""
    from ..ops.elementwise import maximum, minimum
    if value is None:
        return default if isinstance(default, Tensor) else nrows * 0 + default
    bound = value + nrows if isinstance(value, int) and value < 0 else value
    return minimum(maximum(nrows * 0 + bound, nrows * 0), nrows)


RaggedTensor.__getitem__ = ragged_getitem     # as TF's ragged_getitem.py sets it
