"""The sparse form of a gradient: what TF1 keeps as an ``IndexedSlices``.

TF differentiates ``gather(params, ids)`` (axis 0, so ``embedding_lookup`` too) into an
IndexedSlices, the gathered rows' gradients and their ids, and its optimizers then update
only those rows (``Optimizer._apply_sparse``).  devsession's gradients stay dense tensors
(the GatherV2 gradient is an ``UnsortedSegmentSum`` into the variable's shape), so every
consumer of ``ds.gradients`` keeps working; ``ds.gradients`` records beside such a dense
gradient its ``IndexedRows`` when, as in TF, every contribution to it is a gather's:

    (g,) = ds.gradients(loss, [emb])     # loss through embedding_lookup(emb, ids) only
    rows_of(g)                           # IndexedRows: values [n, d], indices [n]

Where TF would densify (a dense contribution summed in, an op other than Identity between
the gather and the variable), there is no record and the update is dense.  Indices may
repeat (one row per looked-up id); ``concatenated`` joins the parts several gathers gave.
"""

from __future__ import annotations

from typing import NamedTuple

from ..graph import Tensor
from .array import concat

__all__ = ["IndexedRows", "rows_of", "with_rows", "gather_rows", "dense_rows"]

_ATTR = "_indexed_rows"


class IndexedRows(NamedTuple):
    """Row gradients ``parts``: ``(values, indices)`` pairs, values ``[n] + row shape``,
    indices ``[n]`` (int32 or int64), rows of the variable's first dimension."""

    parts: tuple

    def concatenated(self) -> tuple:
        """``(values, indices)`` of all the parts in one pair (a concat when several)."""
        if len(self.parts) == 1:
            return self.parts[0]
        return (concat([v for v, _ in self.parts], 0),
                concat([i for _, i in self.parts], 0))

    def __add__(self, other: "IndexedRows") -> "IndexedRows":
        return IndexedRows(self.parts + other.parts)


def rows_of(grad) -> IndexedRows | None:
    """The sparse form recorded for the dense gradient ``grad`` (None: it is dense in TF
    too)."""
    return getattr(grad, _ATTR, None)


def with_rows(dense: Tensor, rows: IndexedRows | None) -> Tensor:
    """``dense``, remembering ``rows`` as its sparse form (``rows_of``)."""
    if rows is not None:
        setattr(dense, _ATTR, rows)
    return dense


def dense_rows(values: Tensor, indices: Tensor, rows) -> Tensor:
    """The dense tensor of ``rows`` rows that ``values`` at ``indices`` make (summed where
    an index repeats), remembering them as its sparse form: what an op TF applies to an
    IndexedSlices' values (a clip) gives."""
    from .array_index import unsorted_segment_sum

    dense = unsorted_segment_sum(values, indices, rows)
    return with_rows(dense, IndexedRows(((values, indices),)))


def gather_rows(op, grad: Tensor) -> IndexedRows | None:
    """The sparse form of the gradient ``grad`` that the GatherV2 ``op`` gave its params:
    its ``UnsortedSegmentSum``'s data and ids (``ops/array_grad.py`` builds exactly that
    for axis 0); None for another op, axis or an overridden gradient."""
    if op.type != "GatherV2" or "_gradient_op_type" in op.attrs \
            or op.attrs.get("batch_dims", 0):
        return None
    if grad.op.type != "UnsortedSegmentSum":    # another axis: a Transpose of the sum
        return None
    values, indices = grad.op.inputs[:2]
    return IndexedRows(((values, indices),))
