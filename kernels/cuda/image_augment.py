"""ExtractGlimpse(V2) and SampleDistortedBoundingBox(V2) on the GPU: the host kernels
(``reference/image_glimpse.py``, ``reference/image_sample.py``: per-image window copies
and a few scalar draws) on the inputs copied down, the results uploaded
(``host_ops.through_host``); the crops come from the host's seeded stream, so a seeded
graph samples the same crops on every device."""

from __future__ import annotations

from ..reference import image_glimpse, image_sample
from ..registry import register_kernel
from .host_ops import through_host

__all__: list = []


@register_kernel(("ExtractGlimpse", "ExtractGlimpseV2"), "GPU")
def _extract_glimpse(node):
    return through_host(node, image_glimpse.build_extract_glimpse(node))


@register_kernel(("SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2"), "GPU")
def _sample_distorted_bounding_box(node):
    return through_host(node, image_sample.build_sample_distorted_bounding_box(node))
