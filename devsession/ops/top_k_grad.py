"""Gradients of the selection ops (``top_k.py``), as TF's ``nn_grad.py`` computes them.

TopKV2: the gradient of ``values`` goes back to the positions ``indices`` picked, zero
elsewhere.  Each row's indices are offset by ``row * n`` (``n`` the input's last
dimension) so that one ``UnsortedSegmentSum`` over the flattened input scatters every
row at once (a repeated index would add up; within a row TopKV2 never repeats one), and
the sum is reshaped to the input's shape.  Row numbers are ``position // k``, with ``k``
at least 1 so that an empty selection (k = 0) divides by nothing.  Static shapes give
Python ints; unknown ones ``Shape``/``Size`` tensors.  ``k`` and ``indices`` get no
gradient; InTopKV2 (a bool output) is not differentiable.  Checked against finite
differences in tests/test_top_k.py.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import constant_value
from .array import reshape
from .array_fill import shape, size
from .array_index import unsorted_segment_sum
from .elementwise import add, floordiv, maximum, multiply
from .registry import not_differentiable, register_gradient
from .sequence import range as range_op

__all__: list = []

not_differentiable("InTopKV2")


def _count(x, static) -> object:
    """``static`` when the graph knows it, else ``size(x)``."""
    return static if static is not None else size(x)


@register_gradient("TopKV2")
def _top_k_grad(op, dvalues, dindices=None):
    if dvalues is None:
        return [None, None]
    x, k = op.inputs
    indices = op.outputs[1]
    last = x.shape.dims[-1] if x.shape.ndims else None
    n = last if last is not None else shape(x)[-1]
    kv = constant_value(k)
    step = max(int(kv), 1) if kv is not None else maximum(k, 1)
    positions = range_op(_count(indices, indices.shape.num_elements()), dtype=dtypes.int32)
    rows = floordiv(positions, step)
    flat = add(multiply(rows, n), reshape(indices, [-1]))
    total = _count(x, x.shape.num_elements())
    summed = unsorted_segment_sum(reshape(dvalues, [-1]), flat, total)
    target = x.shape.as_list() if x.shape.is_fully_defined() else shape(x)
    return [reshape(summed, target), None]
