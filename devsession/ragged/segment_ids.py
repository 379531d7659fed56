"""Row splits and segment ids (the row of each value) of ragged tensors, as TF's
``segment_id_ops``: ``row_splits_to_segment_ids`` repeats each row's index by its length,
``segment_ids_to_row_splits`` counts the ids (Bincount) and sums the counts (Cumsum).
A bottom module of ``devsession.ragged``: it imports no other ragged module."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..ops.array import concat
from ..ops.array_composites import repeat
from ..ops.array_fill import shape as shape_of
from ..ops.elementwise import cast
from ..ops.partition import bincount
from ..ops.reduce import cumsum
from ..ops.sequence import range as range_op

__all__ = ["row_splits_to_segment_ids", "segment_ids_to_row_splits"]


def row_splits_to_segment_ids(splits, name=None, out_type=None) -> Tensor:
    """The row of each value: ``range(nrows)`` repeated by each row's length."""
    with name_scope(name or "RaggedSplitsToSegmentIds"):
        splits = splits if isinstance(splits, Tensor) else \
            convert_to_tensor(splits, dtype=dtypes.int64, name="splits")
        if splits.dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError("splits must have dtype int32 or int64")
        if splits.shape.ndims is not None and splits.shape.ndims != 1:
            raise ValueError(f"Shape {splits.shape} must have rank 1")
        if splits.shape.ndims == 1 and splits.shape.dims[0] == 0:
            raise ValueError("Invalid row_splits: []")
        out_type = splits.dtype if out_type is None else dtypes.as_dtype(out_type)
        lengths = splits[1:] - splits[:-1]
        nrows = shape_of(splits, out_type=out_type)[-1] - 1
        return repeat(range_op(nrows), lengths, axis=0)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None,
                              name=None) -> Tensor:
    """Row splits for sorted segment ids (``num_segments`` rows, default the last id
    plus one), through Bincount and Cumsum as TF's."""
    if out_type is None:
        out_type = segment_ids.dtype if isinstance(segment_ids, Tensor) and \
            segment_ids.dtype in (dtypes.int32, dtypes.int64) else dtypes.int64
    out_type = dtypes.as_dtype(out_type)
    with name_scope(name or "SegmentIdsToRaggedSplits"):
        ids = cast(segment_ids, dtypes.int32) if isinstance(segment_ids, Tensor) else \
            convert_to_tensor(segment_ids, dtype=dtypes.int32, name="segment_ids")
        if ids.shape.ndims is not None and ids.shape.ndims != 1:
            raise ValueError(f"Shape {ids.shape} must have rank 1")
        if num_segments is not None:
            num_segments = cast(num_segments, dtypes.int32) if isinstance(
                num_segments, Tensor) else convert_to_tensor(num_segments, dtypes.int32,
                                                             name="num_segments")
            if num_segments.shape.ndims not in (None, 0):
                raise ValueError(f"Shape {num_segments.shape} must have rank 0")
        lengths = bincount(ids, minlength=num_segments, maxlength=num_segments,
                           dtype=out_type)
        splits = concat([convert_to_tensor([0], dtype=out_type), cumsum(lengths)], 0)
        known = constant_value(num_segments if num_segments is not None else ids)
        if known is not None:       # TF's shape: the number of segments plus one
            count = int(known) if num_segments is not None else \
                (int(known.max()) + 1 if known.size else 0)
            splits.set_shape([count + 1])
        return splits
