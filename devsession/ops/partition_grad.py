"""Gradients of the partition ops (TF's ``data_flow_grad.py``): DynamicPartition's
stitches the partitions' gradients back into data's order (a DynamicPartition of the row
numbers says where each came from); DynamicStitch's gathers each data tensor's rows of
the output gradient (every copy of a repeated index gets it, as TF's).
HistogramFixedWidth counts and passes none (its int output takes no gradient anyway);
Bincount and DenseBincount have no gradient registered, as in TF: a gradient reaching
them through ``weights`` (``bincount(expert, weights=gates)`` in a loss) is TF's
LookupError, not a silent None.
"""

from __future__ import annotations

from .array import reshape
from .array_fill import shape, zeros_like
from .array_index import gather
from .partition import dynamic_partition, parallel_dynamic_stitch
from .reduce import reduce_prod
from .registry import not_differentiable, register_gradient
from .sequence import range as range_op

not_differentiable("HistogramFixedWidth")


@register_gradient("DynamicPartition")
def _dynamic_partition_grad(op, *dys):
    data, partitions = op.inputs
    prefix_shape = shape(partitions)
    original = reshape(range_op(reduce_prod(prefix_shape)), prefix_shape)
    partitioned = dynamic_partition(original, partitions, op.attrs["num_partitions"])
    grads = [dy if dy is not None else zeros_like(part)     # a partition nothing used
             for dy, part in zip(dys, op.outputs)]
    stitched = parallel_dynamic_stitch(partitioned, grads)
    return [reshape(stitched, shape(data)), None]


@register_gradient("DynamicStitch")
def _dynamic_stitch_grad(op, dy):
    n = len(op.inputs) // 2
    return [None] * n + [gather(dy, op.inputs[k]) for k in range(n)]


register_gradient("ParallelDynamicStitch")(_dynamic_stitch_grad)
