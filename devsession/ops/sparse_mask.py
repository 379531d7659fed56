"""TF1's ``tf.sparse.mask`` / ``tf.sparse_mask``: the rows of an ``IndexedSlices`` whose
index is not among ``mask_indices``, built as TF's ``array_ops.sparse_mask``: ListDiff
(``setdiff1d``) of the slices' indices and the mask gives the indices kept and their
positions, and a gather of the values at those positions gives the rows (named after the
call, as TF's).  The dense shape is kept.  A repeated index is kept or dropped with all
its rows.

    a = ds.IndexedSlices(values, [12, 26, 37], [1000, 2])
    b = ds.sparse.mask(a, [12, 45])        # rows of 26 and 37
"""

from __future__ import annotations

from ..graph import name_scope
from ..indexed_slices import IndexedSlices
from .array_index import gather
from .array_sets import setdiff1d

__all__ = ["sparse_mask"]


def sparse_mask(a, mask_indices, name=None) -> IndexedSlices:
    """``a`` (an IndexedSlices) without the rows whose index is in ``mask_indices``."""
    with name_scope(name or "sparse_mask") as scope:
        kept, positions = setdiff1d(a.indices, mask_indices)
        values = gather(a.values, positions, name=scope)
        return IndexedSlices(values, kept, a.dense_shape)
