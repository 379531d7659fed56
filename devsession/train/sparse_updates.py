"""Row-wise updates: TF1's ``_apply_sparse`` path for a gradient that is, in TF, an
IndexedSlices (``devsession/ops/indexed_rows.py``: every contribution came from a gather).

TF's ``Optimizer._apply_sparse_duplicate_indices`` first sums the values of repeated ids
(``Unique``, then ``UnsortedSegmentSum`` over the unique ids: ``deduplicated``), then its
``SparseApply*`` kernels change only those rows of the variable and its slots.  For the
optimizers whose step moves a row with a zero gradient (momentum and RMSProp decay their
slots, Adadelta too, the proximal ones shrink the value, FTRL recomputes it) that differs
from the dense update: the rows absent from the batch keep their value and slots.

``update_rows`` builds that step from ordinary ops: gather the rows of the variable and
of each slot, compute the algorithm's formula on them (the same as its dense kernel's),
and ``ScatterUpdate`` them back; each write depends on its own read, so the rows read are
the values before the step.  GradientDescent, Adagrad and Adam keep their dense update:
on an absent row it changes nothing (Adam's TF1 sparse step decays every row too).
"""

from __future__ import annotations

from ..graph import Operation
from ..ops.array_fill import shape
from ..ops.array_index import gather, unsorted_segment_sum
from ..ops.sequence import unique
from ..ops.state_scatter import scatter_update

__all__ = ["deduplicated", "update_rows"]


def deduplicated(values, indices) -> tuple:
    """``(summed_values, unique_indices)``: the values of each repeated index summed, in
    the order the indices first appear (TF's ``_deduplicate_indexed_slices``)."""
    unique_indices, positions = unique(indices)
    summed = unsorted_segment_sum(values, positions, shape(unique_indices)[0])
    return summed, unique_indices


def update_rows(variables, indices, step, use_locking: bool, name: str) -> Operation:
    """Rows ``indices`` (unique) of each of ``variables`` (the variable, then its slots)
    replaced by ``step(*rows)``'s, one new rows tensor per variable; a NoOp ``name`` that
    runs after every write."""
    rows = [gather(v, indices) for v in variables]
    new_rows = step(*rows)
    writes = [scatter_update(v, indices, r, use_locking=use_locking).op
              for v, r in zip(variables, new_rows)]
    return writes[0].graph.create_op("NoOp", (), name=name, control_inputs=writes)
