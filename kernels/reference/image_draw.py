"""DrawBoundingBoxes and DrawBoundingBoxesV2 kernels (HOST: the reference's and the
CPU's; the GPU runs them through the host): TF's ``draw_bounding_box_op.cc``.

Per image and box ``[y_min, x_min, y_max, x_max]``: the edges are ``int64(float(c) *
(size - 1))`` (truncation toward zero); an inverted box (min > max) or one wholly
outside is skipped; the top row, bottom row, left column and right column are painted,
each only when it lies inside the image, along the extent clamped into it, with colour
``k % len(table)`` (the colours' first ``depth`` components, cast to the image's
dtype).  The table is ``colors`` (V2, when not empty) or TF's default ten colours.
Errors are ``InvalidArgumentError`` naming the node.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .array import on_host

__all__ = ["default_colors", "build_draw_bounding_boxes"]

_DEFAULT = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1],
                     [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1],
                     [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def default_colors(depth: int) -> np.ndarray:
    """TF's ``DefaultColorTable``: ten RGBA colours, all 1 in the first channel for a
    one-channel image."""
    table = _DEFAULT.copy()
    if depth == 1:
        table[:, 0] = 1
    return table


def _check(node, images, boxes, colors):
    if images.ndim != 4:
        raise invalid_argument(node.name, node.op, "The rank of the images should be 4")
    depth = images.shape[3]
    if depth not in (1, 3, 4):
        raise invalid_argument(node.name, node.op, "Channel depth should be either 1 (GRY), "
                                                   "3 (RGB), or 4 (RGBA)")
    if boxes.ndim != 3 or boxes.shape[2] != 4 or boxes.shape[0] != images.shape[0]:
        raise invalid_argument(node.name, node.op, "boxes must be 3-D [batch, num_boxes, 4] "
                                                   f"with the images' batch{fmt_shape(boxes.shape)}")
    if colors is None or colors.size == 0:
        if colors is not None and colors.ndim != 2:
            raise invalid_argument(node.name, node.op, "colors must be a 2-D matrix"
                                                       f"{fmt_shape(colors.shape)}")
        return default_colors(depth)
    if colors.ndim != 2:
        raise invalid_argument(node.name, node.op, f"colors must be a 2-D matrix"
                                                   f"{fmt_shape(colors.shape)}")
    if colors.shape[1] < depth:
        raise invalid_argument(node.name, node.op, "colors must have equal or more channels "
                                                   f"than the image provided: "
                                                   f"{fmt_shape(colors.shape)}")
    return colors.astype(np.float32)


def _edge(coordinate, size: int) -> int:
    return int(np.float32(coordinate) * np.float32(size - 1))


@register_kernel(("DrawBoundingBoxes", "DrawBoundingBoxesV2"), HOST)
def build_draw_bounding_boxes(node):
    def draw(images, boxes, colors=None):
        images, boxes = on_host(images), on_host(boxes)
        table = _check(node, images, boxes, None if colors is None else on_host(colors))
        canvas = images.copy()
        batch, height, width, depth = images.shape
        for b in range(batch):
            for k in range(boxes.shape[1]):
                color = table[k % len(table), :depth].astype(images.dtype)
                top, left, bottom, right = (_edge(boxes[b, k, i], size) for i, size in
                                            ((0, height), (1, width), (2, height), (3, width)))
                if top > bottom or left > right:
                    continue
                if top >= height or bottom < 0 or left >= width or right < 0:
                    continue
                rows = slice(max(top, 0), min(bottom, height - 1) + 1)
                columns = slice(max(left, 0), min(right, width - 1) + 1)
                if top >= 0:
                    canvas[b, top, columns] = color
                if bottom < height:
                    canvas[b, bottom, columns] = color
                if left >= 0:
                    canvas[b, rows, left] = color
                if right < width:
                    canvas[b, rows, right] = color
        return canvas
    return draw
