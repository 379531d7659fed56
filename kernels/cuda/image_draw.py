"""DrawBoundingBoxes(V2) on the GPU: the host kernel (``reference/image_draw.py``: a few
lines of pixels per box, TF's loop) on the images copied down, the result uploaded
(``host_ops.through_host``)."""

from __future__ import annotations

from ..reference import image_draw as host
from ..registry import register_kernel
from .host_ops import through_host

__all__: list = []


@register_kernel(("DrawBoundingBoxes", "DrawBoundingBoxesV2"), "GPU")
def build_on_host(node):
    return through_host(node, host.build_draw_bounding_boxes(node))
