"""TF's slice specs, resolved once and shared by static shape inference and the kernels
of StridedSlice, StridedSliceGrad and Slice.

A ``StridedSlice`` is given *sparsely*: one (begin, end, stride) entry per index the
user wrote (``x[1:, ..., None, 0]``), with five bit masks saying which entries have
no begin or no end, which is the ellipsis, which adds an axis (``None``) and which is a
plain index that removes its axis.  ``strided_slice_spec`` expands it to one entry per
input dimension (the *dense* spec) exactly as TF's ``ValidateStridedSliceOp`` does:

1. an ellipsis is appended when there is none, so ``x[0]`` means ``x[0, ...]``;
2. the ellipsis expands to as many full ``:`` dimensions as the rest leaves over (new
   axes after it do not consume input dimensions);
3. each dimension's begin and end are made canonical: masks give the full range for
   the stride's direction, negative values count from the end, and values are clamped
   to ``[0, dim]`` (stride > 0) or ``[-1, dim - 1]`` (stride < 0, -1 meaning "before
   the first");
4. an index that shrinks its axis must lie in ``[-dim, dim)`` and needs stride 1.

The result (``SliceSpec``) has the *processing* shape (one entry per input dimension)
and the *final* shape (shrunk axes removed, new axes as 1s), each entry an int or None
where a dimension or a begin/end value is unknown at build time, and, when everything
is known, the numpy index tuple that does the slicing (``x[spec.index]``, then a
reshape to ``spec.final_shape``).  Every problem is a ``SliceError`` (a ValueError)
whose message the graph builder and the kernels wrap with the node's name.

Pure Python: ``devsession/ops`` imports it for inference, so it must import nothing
heavy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

__all__ = ["SliceError", "SliceSpec", "strided_slice_spec", "slice_spec", "MASKS"]

MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
_NEW_AXIS = -1


class SliceError(ValueError):
    """A slice spec that is invalid for the input's shape (message without the node)."""


@dataclass(frozen=True)
class SliceSpec:
    """A resolved slice: ``processing_shape`` has one entry per input dimension,
    ``final_shape`` is the output's; ``index`` (None unless everything is known) is the
    numpy index selecting the slice (ints for shrunk axes)."""

    processing_shape: tuple
    final_shape: tuple
    index: tuple | None

    @property
    def sliced_shape(self) -> tuple:
        """The shape ``x[index]`` has: the processing shape without the shrunk axes."""
        return tuple(d for d, i in zip(self.processing_shape, self.index)
                     if not isinstance(i, int))


def _bits(mask: int, n: int) -> list[bool]:
    return [bool(mask >> i & 1) for i in range(n)]


def strided_slice_spec(shape: Sequence, begin, end, strides: Sequence[int], *,
                       begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0,
                       new_axis_mask: int = 0, shrink_axis_mask: int = 0) -> SliceSpec:
    """The dense spec of a StridedSlice of an input of ``shape`` (ints or None).

    ``begin``/``end`` are sequences of ints, or None when their values are unknown;
    ``strides`` must be known.  Raises ``SliceError`` for an invalid spec.
    """
    n = len(strides)
    for name, values in (("begin", begin), ("end", end)):
        if values is not None and len(values) != n:
            raise SliceError(f"{name}, end and strides must have the same length; got "
                             f"{name} of length {len(values)} and strides of length {n}.")
    if ellipsis_mask & (ellipsis_mask - 1):
        raise SliceError("Multiple ellipses in slice spec not allowed.")
    dense = _dense_entries(len(shape), n, begin, end, strides, begin_mask, end_mask,
                           ellipsis_mask, new_axis_mask, shrink_axis_mask)
    entries, final_from = dense
    processing, index = [], []
    for i, (dim, (b, e, s, b_masked, e_masked, shrink)) in enumerate(zip(shape, entries)):
        if s == 0:
            raise SliceError(f"strides[{i}] must be non-zero.")
        if shrink and s != 1:
            raise SliceError("only stride 1 allowed on non-range indexing.")
        size, item = _dimension(i, dim, b, e, s, b_masked, e_masked, shrink)
        processing.append(size)
        index.append(item)
    final = tuple(1 if d == _NEW_AXIS else processing[d] for d in final_from)
    known = all(item is not None for item in index)
    return SliceSpec(tuple(processing), final, tuple(index) if known else None)


def _dense_entries(rank, n, begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                   new_axis_mask, shrink_axis_mask):
    """(one (begin, end, stride, begin masked, end masked, shrink) per input dimension,
    the final shape's sources: input dimensions or ``_NEW_AXIS``)."""
    ellipsis = _bits(ellipsis_mask, n)
    new_axis = _bits(new_axis_mask, n)
    new_after_ellipsis = sum(1 for i in range(n) if new_axis[i] and any(ellipsis[:i]))
    if not any(ellipsis):               # an implicit "..." at the end
        ellipsis.append(True)
        new_axis.append(False)
    b_mask, e_mask = _bits(begin_mask, n + 1), _bits(end_mask, n + 1)
    shrink = _bits(shrink_axis_mask, n + 1)
    entries, final_from = [], []
    for i in range(len(ellipsis)):
        if ellipsis[i]:
            stop = min(rank - (len(ellipsis) - i) + 1 + new_after_ellipsis, rank)
            while len(entries) < stop:
                final_from.append(len(entries))
                entries.append((0, 0, 1, True, True, False))
        elif new_axis[i]:
            final_from.append(_NEW_AXIS)
        else:
            if len(entries) == rank:
                raise SliceError(f"Index out of range using input dim {rank}; input has "
                                 f"only {rank} dims.")
            if not shrink[i]:
                final_from.append(len(entries))
            entries.append((None if begin is None else int(begin[i]),
                            None if end is None else int(end[i]), int(strides[i]),
                            b_mask[i], e_mask[i], shrink[i]))
    return entries, final_from


def _dimension(i, dim, b, e, s, b_masked, e_masked, shrink):
    """(processing size or None, numpy index item or None) of dense dimension ``i``."""
    if dim is None:
        return (1 if shrink else None), None
    if shrink:
        if b is None:
            return 1, None
        at = b + dim if b < 0 else b
        if not 0 <= at < dim:
            raise SliceError(f"slice index {b} of dimension {i} out of bounds.")
        return 1, at
    lo, hi = (0, dim) if s > 0 else (-1, dim - 1)

    def canonical(x, masked, is_end):
        if masked:
            return (hi if is_end else lo) if s > 0 else (lo if is_end else hi)
        x = x + dim if x < 0 else x
        return min(max(x, lo), hi)

    if (b is None and not b_masked) or (e is None and not e_masked):
        return None, None
    b, e = canonical(b, b_masked, False), canonical(e, e_masked, True)
    interval = e - b
    if interval == 0 or (interval < 0) != (s < 0):
        return 0, slice(0, 0)
    size = -(-abs(interval) // abs(s))
    return size, slice(b, e if e >= 0 else None, s)


def slice_spec(shape: Sequence, begin, size) -> SliceSpec:
    """The spec of ``Slice(x, begin, size)`` (size -1: to the end); ``begin``/``size``
    may be None (unknown values).  Raises ``SliceError`` as TF does."""
    rank = len(shape)
    for name, values in (("begin", begin), ("size", size)):
        if values is not None and len(values) != rank:
            raise SliceError(f"Expected {name} to have {rank} elements (the rank of the "
                             f"input), got {len(values)}.")
    processing, index = [], []
    for i, dim in enumerate(shape):
        b = None if begin is None else int(begin[i])
        n = None if size is None else int(size[i])
        if b is not None and (b < 0 or (dim is not None and b > dim)):
            raise SliceError(f"Expected begin[{i}] in [0, {'?' if dim is None else dim}], "
                             f"but got {b}.")
        if n is not None and n < -1:
            raise SliceError(f"Expected size[{i}] >= -1, but got {n}.")
        if n == -1:
            n = None if dim is None or b is None else dim - b
        elif n is not None and b is not None and dim is not None and b + n > dim:
            raise SliceError(f"Expected size[{i}] in [0, {dim - b}], but got {n}.")
        processing.append(n)
        index.append(None if n is None or b is None else slice(b, b + n))
    known = all(item is not None for item in index)
    return SliceSpec(tuple(processing), tuple(processing), tuple(index) if known else None)
