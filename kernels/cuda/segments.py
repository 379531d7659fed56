"""GPU kernels of the segment reductions and the partition ops: the host kernels
(``reference/segments.py``, ``reference/partition.py``) run on downloaded inputs and
their results are uploaded, as ``host_ops.py`` does for Range and Unique.  Their output
sizes depend on the values (partitions, stitched and bincount lengths), and the id
checks that name the first bad id read the ids anyway; one code path keeps the devices
identical.  A GPU kernel of its own is left for when a model needs the speed.
"""

from __future__ import annotations

import cupy

from ..reference import partition as host_partition
from ..reference import segments as host_segments
from ..registry import register_kernel
from .device import on_device

_HOST_BUILDERS = {**host_segments.HOST_BUILDERS, **host_partition.HOST_BUILDERS}


def _download(x):
    return cupy.asnumpy(x) if isinstance(x, cupy.ndarray) else x


@register_kernel(tuple(_HOST_BUILDERS), "GPU")
def build_on_host(node):
    kernel = _HOST_BUILDERS[node.op](node)

    def run(*xs):
        out = kernel(*[_download(x) for x in xs])
        if isinstance(out, tuple):
            return tuple(cupy.asarray(o) for o in out)
        return cupy.asarray(out)
    return on_device(node, run)
