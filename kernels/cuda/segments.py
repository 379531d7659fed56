"""GPU kernels of the segment reductions and the partition ops: the host kernels
(``reference/segments.py``, ``reference/partition.py``) run on downloaded inputs and
their results are uploaded, as ``host_ops.py`` does for Range and Unique.  Their output
sizes depend on the values (partitions, stitched and bincount lengths), and the id
checks that name the first bad id read the ids anyway; one code path keeps the devices
identical.  A GPU kernel of its own is left for when a model needs the speed.
"""

from __future__ import annotations

from ..reference import partition as host_partition
from ..reference import segments as host_segments
from ..registry import register_kernel
from .host_ops import through_host

_HOST_BUILDERS = {**host_segments.HOST_BUILDERS, **host_partition.HOST_BUILDERS}


@register_kernel(tuple(_HOST_BUILDERS), "GPU")
def build_on_host(node):
    return through_host(node, _HOST_BUILDERS[node.op](node))
