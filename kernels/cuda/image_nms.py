"""The non-max suppression ops on the GPU: the host kernels (``reference/image_nms.py``)
on inputs copied down, their results uploaded (``host_ops.through_host``).  The
selection is a sequential greedy loop over a few thousand boxes at most, which TF also
runs on the host for every form but V2-V5's optional GPU path; one code path keeps the
devices' selections identical."""

from __future__ import annotations

from ..reference import image_nms as host
from ..registry import register_kernel
from .host_ops import through_host

_HOST_BUILDERS = {"NonMaxSuppressionV3": host.build_nms, "NonMaxSuppressionV4": host.build_nms,
                  "NonMaxSuppressionV5": host.build_nms_with_scores,
                  "NonMaxSuppressionWithOverlaps": host.build_nms_with_overlaps,
                  "CombinedNonMaxSuppression": host.build_combined_nms}


@register_kernel(tuple(_HOST_BUILDERS), "GPU")
def build_on_host(node):
    return through_host(node, _HOST_BUILDERS[node.op](node))
