"""SampleDistortedBoundingBox(V2)'s kernel (HOST: the reference's and the CPU's; the GPU
draws here too): TF's ``sample_distorted_bounding_box_op.cc``, drawing from the node's
seeded stream (``resources.random_stream``) under its lock, as the other random ops.

The boxes become pixel rectangles (``int(coordinate * size)``; none: the whole image,
when ``use_image_if_no_bounding_boxes``).  Up to ``max_attempts`` times: an aspect
ratio ``w / h`` uniform in its range; a height between the rounded heights of the
smallest and largest area at that ratio (the largest cut down so the width fits),
uniform; the width ``rint(height * ratio)`` (a height one more or less when rounding
left the area outside its range; the attempt fails when it still is, or the crop does
not fit); a top-left corner uniform over the positions inside the image.  The first
crop of at least one pixel that covers ``min_object_covered`` of one box (of one pixel
or more) is the answer; when none is, the whole image.  Arithmetic in float32 with
C's ``lrintf`` (half to even) and truncating casts, as TF's, and TF's draws
(``SimplePhilox``: float32 ratios, exactly uniform integers) from the node's Philox
stream, which moves ``max_attempts`` blocks on each run: a seeded op gives TF's crops.
Errors are ``InvalidArgumentError`` naming the node, with TF's messages.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .philox import SimplePhilox

__all__ = ["random_crop", "build_sample_distorted_bounding_box"]

F32 = np.float32


def _rint(value) -> int:
    return int(np.rint(F32(value)))


def _crop_size(width: int, height: int, min_area, max_area, ratio, random):
    """TF's ``GenerateRandomCrop`` without the corner: ``(h, w)`` or None."""
    if max_area <= 0 or ratio <= 0 or width <= 0 or height <= 0 or min_area > max_area:
        return None
    rows = _rint(np.sqrt(F32(min_area / ratio)))
    max_rows = _rint(np.sqrt(F32(max_area / ratio)))
    if _rint(max_rows * ratio) > width:              # the widest crop must fit
        max_rows = int((width + 0.5 - float(F32(1e-7))) / float(ratio))
        if _rint(max_rows * ratio) > width:
            max_rows -= 1
    max_rows = min(max_rows, height)
    rows = min(rows, max_rows)
    if rows < max_rows:
        rows += random.uniform(max_rows - rows + 1)
    columns = _rint(rows * ratio)
    area = F32(columns * rows)
    if area < min_area:
        rows += 1
        columns = _rint(rows * ratio)
        area = F32(columns * rows)
    if area > max_area:
        rows -= 1
        columns = _rint(rows * ratio)
        area = F32(columns * rows)
    if (area < min_area or area > max_area or columns > width or rows > height
            or columns <= 0 or rows <= 0):
        return None
    return rows, columns


def random_crop(width: int, height: int, min_fraction, max_fraction, ratio,
                random: SimplePhilox):
    """A crop ``(y0, x0, y1, x1)`` of ``ratio`` (w / h) whose area is within the
    fractions of the image's, at a uniform position; None when none fits."""
    min_area = F32(min_fraction) * F32(width) * F32(height)
    max_area = F32(max_fraction) * F32(width) * F32(height)
    size = _crop_size(width, height, min_area, max_area, F32(ratio), random)
    if size is None:
        return None
    rows, columns = size
    y = random.uniform(height - rows) if rows < height else 0
    x = random.uniform(width - columns) if columns < width else 0
    return y, x, y + rows, x + columns


def _area(box) -> float:
    return float(F32((box[3] - box[1]) * (box[2] - box[0])))


def _covers(crop, boxes, minimum) -> bool:
    """TF's ``SatisfiesOverlapConstraints``: the crop has a pixel and covers
    ``minimum`` of one box of at least a pixel."""
    if _area(crop) < 1:
        return False
    for box in boxes:
        whole = _area(box)
        if whole < 1:
            continue
        low = (max(crop[0], box[0]), max(crop[1], box[1]))
        high = (min(crop[2], box[2]), min(crop[3], box[3]))
        inside = 0.0 if low[0] > high[0] or low[1] > high[1] else _area((*low, *high))
        if F32(inside) / F32(whole) >= F32(minimum):
            return True
    return False


def _check_attrs(node, attrs) -> None:
    """What TF's kernel constructor checks."""
    def fail(message):
        raise invalid_argument(node.name, node.op, message)
    ratio, area = list(attrs["aspect_ratio_range"]), list(attrs["area_range"])
    if node.op == "SampleDistortedBoundingBox" and attrs["min_object_covered"] < 0:
        fail(f"Min object covered must be non-negative: {attrs['min_object_covered']}")
    if len(ratio) != 2:
        fail("Aspect ratio range field must specify 2 dimensions")
    if not (ratio[0] > 0 and ratio[1] > 0):
        fail(f"Aspect ratio range must be non-negative: [{ratio[0]}, {ratio[1]}]")
    if len(area) != 2:
        fail("Area range field must specify 2 dimensions")
    if not (area[0] > 0 and area[1] > 0):
        fail(f"Area range must be non-negative: [{area[0]}, {area[1]}]")
    if not (area[0] <= 1 and area[1] <= 1):
        fail(f"Area range must be less then or equal to 1.0: [{area[0]}, {area[1]}]")
    if attrs["max_attempts"] <= 0:
        fail(f"Max attempts must be non-negative: {attrs['max_attempts']}")


def _pixel_boxes(node, image_size, boxes, covered, use_image):
    """``(height, width, boxes as (y0, x0, y1, x1) pixels, min_object_covered)``."""
    def fail(message):
        raise invalid_argument(node.name, node.op, message)
    if image_size.ndim != 1:
        fail(f"image_size must be 1-dimensional{fmt_shape(image_size.shape)}")
    if image_size.shape[0] != 3:
        fail(f"image_size must contain 3 elements{fmt_shape(image_size.shape)}")
    height, width = (int(v) for v in image_size[:2])
    if not 0 <= height < 2**31 - 1:
        fail("image height cannot be >= int32 max")
    if not 0 <= width < 2**31 - 1:
        fail("image width cannot be >= int32 max")
    if boxes.ndim != 3:
        fail(f"input boxes must be 3-dimensional [batch, num_boxes, coords]: "
             f"{fmt_shape(boxes.shape)}")
    if boxes.shape[2] != 4:
        fail(f"bounding boxes must have shape [4] or [*, 4], got {fmt_shape(boxes.shape)}")
    covered = np.asarray(covered)
    if covered.ndim != 0:
        fail(f"min_object_covered must be 0-D, got shape {fmt_shape(covered.shape)}")
    if covered < 0:
        fail(f"Min object covered must be non-negative: {float(covered)}")
    rects = []
    for box in boxes.reshape(-1, 4).astype(F32):
        for value in box:
            if not 0.0 <= value <= 1.0:
                fail(f"All bounding box coordinates must be in [0.0, 1.0]: {value}")
        rects.append((int(box[0] * F32(height)), int(box[1] * F32(width)),
                      int(box[2] * F32(height)), int(box[3] * F32(width))))
    if not rects:
        if not use_image:
            fail("No bounding boxes provided as input. One must enable "
                 "use_image_if_no_bounding_boxes if you wish to not provide any bounding "
                 "boxes.")
        rects.append((0, 0, height, width))
    return height, width, rects, F32(covered)


@register_kernel(("SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2"), HOST)
def build_sample_distorted_bounding_box(node):
    attrs = node.attrs
    stream = node.context.resources.random_stream(node.name, attrs["seed"], attrs["seed2"])
    dtype = np.dtype(node.output_dtypes[0])

    def sample(image_size, boxes, covered=None):
        _check_attrs(node, attrs)
        if covered is None:
            covered = attrs["min_object_covered"]
        height, width, rects, minimum = _pixel_boxes(
            node, np.asarray(image_size), np.asarray(boxes), covered,
            attrs["use_image_if_no_bounding_boxes"])
        (low_ratio, high_ratio), (low_area, high_area) = (
            F32(attrs["aspect_ratio_range"]), F32(attrs["area_range"]))
        crop = None
        with stream.lock:                       # TF's ReserveSamples32(4 max_attempts)
            random = SimplePhilox(*stream.reserve(attrs["max_attempts"]))
        for _ in range(attrs["max_attempts"]):
            ratio = random.rand_float() * (high_ratio - low_ratio) + low_ratio
            found = random_crop(width, height, low_area, high_area, ratio, random)
            if found is not None and _covers(found, rects, minimum):
                crop = found
                break
        y0, x0, y1, x1 = crop if crop is not None else (0, 0, height, width)
        begin = np.array([y0, x0, 0], dtype)
        size = np.array([y1 - y0, x1 - x0, -1], dtype)
        bboxes = np.array([[[y0 / F32(height), x0 / F32(width), y1 / F32(height),
                             x1 / F32(width)]]], np.float32)
        return begin, size, bboxes
    return sample
