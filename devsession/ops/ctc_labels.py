"""TF's CTC label helpers, Python compositions of devsession's ops as TF's are:

* ``collapse_repeated(labels, seq_length)``: each row of ``labels`` ``[batch, max_len]``
  within its ``seq_length``, runs of one label merged into one (``[1, 1, 2, 2, 1]`` ->
  ``[1, 2, 1]``), left-aligned and zero-padded to the longest collapsed row; returns
  ``(collapsed [batch, new_max_len], new_seq_length)`` (the lengths in ``seq_length``'s
  dtype).
* ``ctc_unique_labels(labels)``: each row's distinct labels in their first order,
  zero-padded to the row's length (int64), and for each label the index of its value in
  that list (int32): the form ``ctc_loss_v2``'s ``unique`` argument takes.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from .array import concat, expand_dims, pad, reshape, stack
from .array_fill import ones_like, shape
from .elementwise import cast, logical_and, not_equal
from .functional import map_fn
from .gather_nd import scatter_nd
from .masking import boolean_mask, sequence_mask
from .reduce import reduce_max, reduce_sum
from .sequence import range as range_op, unique

__all__ = ["collapse_repeated", "ctc_unique_labels"]


def _dim(t, axis: int):
    """``t``'s size on ``axis``: an int when known, else a scalar tensor."""
    size = t.shape.dims[axis] if t.shape.ndims is not None else None
    return size if size is not None else shape(t)[axis]


def collapse_repeated(labels, seq_length, name=None):
    """``(collapsed labels, their lengths)`` (see the module docstring)."""
    with name_scope(name or "collapse_repeated_labels"):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        # A label is kept where it differs from the one before it, within the length.
        label_mask = concat([ones_like(labels[:, :1], dtypes.bool_),
                             not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
        label_mask = logical_and(label_mask, sequence_mask(seq_length,
                                                           maxlen=_dim(labels, 1)))
        new_seq_len = reduce_sum(cast(label_mask, dtypes.int32), axis=1)
        new_maxlen = reduce_max(new_seq_len)
        idx_mask = sequence_mask(new_seq_len, maxlen=new_maxlen)
        # The kept labels scattered, in order, to the front of their rows.
        flat_idx_mask = reshape(idx_mask, [-1])
        idx = range_op(_dim(flat_idx_mask, 0))
        flat = scatter_nd(indices=expand_dims(boolean_mask(idx, flat_idx_mask), axis=1),
                          updates=boolean_mask(reshape(labels, [-1]),
                                               reshape(label_mask, [-1])),
                          shape=shape(flat_idx_mask))
        return (reshape(flat, [_dim(labels, 0), new_maxlen]),
                cast(new_seq_len, seq_length.dtype))


def ctc_unique_labels(labels, name=None):
    """``[unique labels (int64), indices (int32)]``, each ``labels``' shape (see the
    module docstring)."""
    with name_scope(name or "ctc_unique_labels"):
        labels = convert_to_tensor(labels, name="labels")

        def _unique(x):
            values, idx = unique(x)
            missing = _dim(idx, 0) - _dim(values, 0)
            padded = pad(values, expand_dims(stack([0, missing]), 0))
            return [cast(padded, dtypes.int64), idx]
        return map_fn(_unique, labels, dtype=[dtypes.int64, dtypes.int32])
