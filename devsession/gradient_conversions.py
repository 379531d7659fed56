"""TF1's public ``tf.convert_to_tensor`` and ``tf.identity`` of a gradient TF keeps as an
IndexedSlices (a gather's: ``ops/indexed_rows.py``, ``indexed_slices.py``).

TF's ``convert_to_tensor`` of an IndexedSlices densifies it, so the optimizer's update
of the result is dense (an L1-regularized Ftrl or a proximal step then moves every row);
its ``identity`` of one is an IndexedSlices again (the identities of its values and
indices), so the update stays sparse.  devsession's gradient is a dense tensor with its
rows recorded beside it: the public ``convert_to_tensor`` returns, for such a tensor (or
an IndexedSlices a program built), an Identity of it with no rows recorded; the public
``identity`` keeps the rows.  Anything else converts and passes through exactly as the
graph's own functions do, which devsession's internals keep using.
"""

from __future__ import annotations

from .graph import Tensor
from .graph import convert_to_tensor as _convert
from .indexed_slices import IndexedSlices
from .ops.array import identity as _identity
from .ops.indexed_rows import rows_of, with_rows

__all__ = ["convert_to_tensor", "identity"]


def convert_to_tensor(value, dtype=None, name=None, graph=None, dtype_hint=None) -> Tensor:
    """A Tensor for ``value`` (see ``graph.convert_to_tensor``); a gradient TF keeps as an
    IndexedSlices becomes a dense one, as TF's conversion makes it."""
    tensor = _convert(value, dtype=dtype, name=name, graph=graph, dtype_hint=dtype_hint)
    if rows_of(tensor) is None:
        return tensor
    return _identity(tensor, name=name)          # the same values, no rows: dense


def identity(input, name=None):  # noqa: A002  (TF1's argument name)
    """``input`` unchanged (an Identity node); an IndexedSlices, or a gradient TF keeps as
    one, stays one, as TF's."""
    if isinstance(input, IndexedSlices):
        return IndexedSlices(_identity(input.values, name=name), _identity(input.indices),
                             input.dense_shape)
    rows = rows_of(input) if isinstance(input, Tensor) else None
    return with_rows(_identity(input, name=name), rows)
