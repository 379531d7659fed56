"""Rows of a RaggedTensor picked by index (``tf.gather(rt, indices)`` on the outer
dimension), as TF's ``ragged_gather_ops`` composes it without its dedicated op: each
picked row's value positions are a ``RaggedRange`` from its start to its limit, and
the values are gathered at them (deeper levels recursively).  An index out of range is
the InvalidArgumentError of the Gather of the row starts."""

from __future__ import annotations

from ..graph import convert_to_tensor, name_scope
from ..ops.elementwise import cast
from ..ops.gather_options import gather
from .ragged_tensor import RaggedTensor

__all__ = ["gather_rows"]


def gather_rows(rt: RaggedTensor, indices, name=None) -> RaggedTensor:
    """The rows ``indices`` (a vector) of ``rt``, in that order."""
    from .ragged_ops import range as ragged_range
    with name_scope(name or "RaggedGather"):
        indices = convert_to_tensor(indices, name="indices")
        splits = rt.row_splits
        indices = cast(indices, splits.dtype)
        starts, limits = gather(splits[:-1], indices), gather(splits[1:], indices)
        positions = ragged_range(starts, limits, row_splits_dtype=splits.dtype)
        values = rt.values
        if isinstance(values, RaggedTensor):
            picked = gather_rows(values, positions.values)
        else:
            picked = gather(values, positions.values)
        return RaggedTensor(picked, positions.row_splits, internal=True)
