"""Reference kernels of CropAndResize and its gradients CropAndResizeGradImage and
CropAndResizeGradBoxes (and the run-time checks and sampling tables every device shares).

TF's ``crop_and_resize_op.cc`` in float32, per box ``[y1, x1, y2, x2]`` (normalized:
0 and 1 are the first and last pixel's centres) and image ``box_index``:

* ``height_scale = (y2 - y1) * (image_height - 1) / (crop_height - 1)`` (0 for a crop
  one pixel high); output row ``y`` samples ``in_y = y1 * (image_height - 1) + y *
  height_scale``, or ``0.5 * (y1 + y2) * (image_height - 1)`` for a crop one pixel high;
  the same along x.  A sample outside ``[0, size - 1]`` is ``extrapolation_value``.
* bilinear: ``top = floor(in_y)``, ``bottom = ceil(in_y)``, ``lerp = in_y - top`` and
  TF's ``top + (bottom - top) * y_lerp`` of two x-lerps; nearest: ``roundf`` (halves
  away from zero) of both coordinates.  Every image dtype is read as float32; the crops
  are float32.
* CropAndResizeGradImage scatters each crop pixel's gradient back onto the (up to)
  four pixels it read, with the forward weights (``float32`` products, summed in the
  image dtype T: float16, float32 or float64); CropAndResizeGradBoxes sums, per box, the
  image's finite differences times the gradient times each coordinate's derivative
  (TF's formula, bilinear whatever the forward method, as TF).  Out-of-range samples
  give no gradient.

The reference walks boxes, rows, columns and channels as TF's loops do (so float sums
round as TF's); ``crop_tables`` is the vectorised form of the per-axis sample
positions the CPU and GPU kernels use.
"""

from __future__ import annotations

import math

import numpy as np

from devsession.errors import OutOfRangeError

from ..checks import fmt_shape, invalid_argument
from ..registry import register_kernel
from .array import on_host

__all__ = ["check_crop", "check_boxes", "crop_attrs", "checked_crop", "checked_grad_image",
           "checked_grad_boxes", "crop_tables", "crop_size_of", "round_half_away"]

DEVICE = "REF"
_F32 = np.float32


# --- checks (every device's) ----------------------------------------------------------------

def check_boxes(node, boxes_shape: tuple, index_shape: tuple) -> int:
    """The number of boxes, TF's ``ParseAndCheckBoxSizes``."""
    if math.prod(boxes_shape) == 0 and math.prod(index_shape) == 0:
        return 0
    if len(boxes_shape) != 2:
        raise invalid_argument(node.name, node.op, f"boxes must be 2-D{fmt_shape(boxes_shape)}")
    if boxes_shape[1] != 4:
        raise invalid_argument(node.name, node.op, "boxes must have 4 columns")
    if len(index_shape) != 1:
        raise invalid_argument(node.name, node.op,
                               f"box_index must be 1-D{fmt_shape(index_shape)}")
    if index_shape[0] != boxes_shape[0]:
        raise invalid_argument(node.name, node.op, "box_index has incompatible shape")
    return boxes_shape[0]


def check_box_index(node, box_index, batch: int) -> np.ndarray:
    """``box_index`` on the host, each value in ``[0, batch)``: else ``OutOfRangeError``,
    as TF's ``RunIfBoxIndexIsValid`` (every crop op, CPU and GPU)."""
    index = on_host(box_index).astype(np.int64)
    if index.size and (index.min() < 0 or index.max() >= batch):
        raise OutOfRangeError(f"{node.op} node '{node.name}': box_index has values outside "
                              "[0, batch_size)", node_name=node.name)
    return index


def crop_size_of(node, crop_size) -> tuple[int, int]:
    size = on_host(crop_size)
    if size.ndim != 1:
        raise invalid_argument(node.name, node.op,
                               f"crop_size must be 1-D{fmt_shape(size.shape)}")
    if size.size != 2:
        raise invalid_argument(node.name, node.op, "crop_size must have two elements"
                                                   f"{fmt_shape(size.shape)}")
    height, width = int(size[0]), int(size[1])
    if height <= 0 or width <= 0:
        raise invalid_argument(node.name, node.op, "crop dimensions must be positive")
    return height, width


def check_crop(node, image_shape: tuple, boxes_shape: tuple, index_shape: tuple,
               what: str = "input image") -> int:
    """The number of boxes of a CropAndResize(-like) node, its shapes checked."""
    if len(image_shape) != 4:
        raise invalid_argument(node.name, node.op, f"{what} must be 4-D"
                                                   f"{fmt_shape(image_shape)}")
    if image_shape[1] <= 0 or image_shape[2] <= 0:
        raise invalid_argument(node.name, node.op, "image dimensions must be positive")
    return check_boxes(node, boxes_shape, index_shape)


def _method(node) -> str:
    method = node.attrs.get("method", "bilinear")
    method = method.decode() if isinstance(method, bytes) else method
    if method not in ("bilinear", "nearest"):
        raise invalid_argument(node.name, node.op, "method must be 'bilinear' or 'nearest'")
    return method


def image_size_of(node, image_size) -> tuple:
    size = on_host(image_size)
    if size.ndim != 1 or size.size != 4:
        raise invalid_argument(node.name, node.op, f"image_size must be a 1-D tensor with 4 "
                                                   f"elements, got {fmt_shape(size.shape)}")
    dims = tuple(int(d) for d in size)
    if dims[1] <= 0 or dims[2] <= 0:
        raise invalid_argument(node.name, node.op, "image dimensions must be positive")
    return dims


def check_grads(node, grads_shape: tuple, count: int, depth: int) -> None:
    if len(grads_shape) != 4:
        raise invalid_argument(node.name, node.op,
                               f"grads image must be 4-D{fmt_shape(grads_shape)}")
    if grads_shape[1] <= 0 or grads_shape[2] <= 0:
        raise invalid_argument(node.name, node.op, "grads dimensions must be positive")
    if grads_shape[0] != count:
        raise invalid_argument(node.name, node.op, "boxes and grads have incompatible shape")
    if grads_shape[3] != depth:
        raise invalid_argument(node.name, node.op, "image, grads depth differ")


def crop_attrs(node) -> tuple[str, np.float32]:
    """``(method, extrapolation_value)`` of a CropAndResize node."""
    return _method(node), _F32(node.attrs.get("extrapolation_value", 0.0))


def checked_crop(node, image, boxes, box_index, crop_size) -> tuple:
    """``(count, crop_height, crop_width, index)`` of a CropAndResize node's inputs,
    checked in TF's order (``index``: the box indices on the host, int64)."""
    count = check_crop(node, image.shape, boxes.shape, box_index.shape)
    crop_h, crop_w = crop_size_of(node, crop_size)
    return count, crop_h, crop_w, check_box_index(node, box_index, image.shape[0])


def checked_grad_image(node, grads, boxes, box_index, image_size) -> tuple:
    """``(count, image_shape, index)`` of a CropAndResizeGradImage node's inputs, checked."""
    count = check_boxes(node, boxes.shape, box_index.shape)
    shape = image_size_of(node, image_size)
    check_grads(node, grads.shape, count, shape[3])
    return count, shape, check_box_index(node, box_index, shape[0])


def checked_grad_boxes(node, grads, image, boxes, box_index) -> tuple:
    """``(count, index)`` of a CropAndResizeGradBoxes node's inputs, checked."""
    count = check_crop(node, image.shape, boxes.shape, box_index.shape)
    check_grads(node, grads.shape, count, image.shape[3])
    return count, check_box_index(node, box_index, image.shape[0])


# --- sampling ---------------------------------------------------------------------------------

def _source(low, high, i: int, crop: int, size: int) -> np.float32:
    """TF's sample position of output index ``i`` between ``low`` and ``high``."""
    low, high = _F32(low), _F32(high)
    if crop > 1:
        scale = (high - low) * _F32(size - 1) / _F32(crop - 1)
        return low * _F32(size - 1) + _F32(i) * scale
    return _F32(0.5) * (low + high) * _F32(size - 1)


def round_half_away(x, xp=np):
    """``roundf`` of non-negative float32 values (``xp``: numpy or cupy)."""
    whole = xp.floor(x)
    return whole + (x - whole >= _F32(0.5))


def crop_tables(boxes: np.ndarray, crop: int, size: int, low: int, high: int):
    """Per box and output index along one axis (``low``/``high``: the box's columns for
    it): ``(source, inside, lower, upper, lerp, nearest)``, float32 positions, bool,
    int64, int64, float32, int64 (indices clipped into the image where outside)."""
    lo = boxes[:, low].astype(_F32)[:, None]
    hi = boxes[:, high].astype(_F32)[:, None]
    index = np.arange(crop, dtype=_F32)[None, :]
    if crop > 1:
        scale = (hi - lo) * _F32(size - 1) / _F32(crop - 1)
        source = lo * _F32(size - 1) + index * scale
    else:
        source = np.broadcast_to(_F32(0.5) * (lo + hi) * _F32(size - 1),
                                 (len(boxes), crop)).astype(_F32)
    inside = (source >= 0) & (source <= _F32(size - 1))
    safe = np.where(inside, source, _F32(0)).astype(_F32)
    floor = np.floor(safe)
    lower = floor.astype(np.int64)
    upper = np.ceil(safe).astype(np.int64)
    nearest = round_half_away(safe).astype(np.int64)
    return source, inside, lower, upper, (safe - floor).astype(_F32), nearest


# --- kernels ----------------------------------------------------------------------------------

@register_kernel("CropAndResize", DEVICE)
def build_crop_and_resize(node):
    method, extrapolation = crop_attrs(node)

    def crop_and_resize(image, boxes, box_index, crop_size):
        count, crop_h, crop_w, index = checked_crop(node, image, boxes, box_index, crop_size)
        height, width, depth = image.shape[1:]
        out = np.empty((count, crop_h, crop_w, depth), _F32)
        for b in range(count):
            y1, x1, y2, x2 = boxes[b]
            pixels = image[index[b]].astype(_F32)
            for y in range(crop_h):
                in_y = _source(y1, y2, y, crop_h, height)
                if in_y < 0 or in_y > height - 1:
                    out[b, y] = extrapolation
                    continue
                for x in range(crop_w):
                    in_x = _source(x1, x2, x, crop_w, width)
                    if in_x < 0 or in_x > width - 1:
                        out[b, y, x] = extrapolation
                    elif method == "nearest":
                        out[b, y, x] = pixels[int(round_half_away(in_y)),
                                              int(round_half_away(in_x))]
                    else:
                        out[b, y, x] = _bilinear(pixels, in_y, in_x)
        return out
    return crop_and_resize


def _corners(in_y, in_x):
    top, left = math.floor(in_y), math.floor(in_x)
    return (top, math.ceil(in_y), _F32(in_y - _F32(top)), left, math.ceil(in_x),
            _F32(in_x - _F32(left)))


def _bilinear(pixels, in_y, in_x):
    top, bottom, y_lerp, left, right, x_lerp = _corners(in_y, in_x)
    top_left, top_right = pixels[top, left], pixels[top, right]
    bottom_left, bottom_right = pixels[bottom, left], pixels[bottom, right]
    upper = top_left + (top_right - top_left) * x_lerp
    lower = bottom_left + (bottom_right - bottom_left) * x_lerp
    return upper + (lower - upper) * y_lerp


@register_kernel("CropAndResizeGradImage", DEVICE)
def build_crop_and_resize_grad_image(node):
    method = _method(node)
    dtype = np.dtype(node.output_dtype)

    def grad_image(grads, boxes, box_index, image_size):
        count, shape, index = checked_grad_image(node, grads, boxes, box_index, image_size)
        height, width = shape[1:3]
        out = np.zeros(shape, dtype)
        crop_h, crop_w = grads.shape[1:3]
        one = _F32(1)
        for b in range(count):
            y1, x1, y2, x2 = boxes[b]
            image = out[index[b]]
            for y in range(crop_h):
                in_y = _source(y1, y2, y, crop_h, height)
                if in_y < 0 or in_y > height - 1:
                    continue
                for x in range(crop_w):
                    in_x = _source(x1, x2, x, crop_w, width)
                    if in_x < 0 or in_x > width - 1:
                        continue
                    g = grads[b, y, x].astype(_F32)
                    if method == "nearest":
                        image[int(round_half_away(in_y)), int(round_half_away(in_x))] += \
                            g.astype(dtype)
                        continue
                    top, bottom, y_lerp, left, right, x_lerp = _corners(in_y, in_x)
                    upper, lower = (one - y_lerp) * g, y_lerp * g
                    image[top, left] += ((one - x_lerp) * upper).astype(dtype)
                    image[top, right] += (x_lerp * upper).astype(dtype)
                    image[bottom, left] += ((one - x_lerp) * lower).astype(dtype)
                    image[bottom, right] += (x_lerp * lower).astype(dtype)
        return out
    return grad_image


def _half_extent(grad, size: int) -> np.float64:
    """TF's ``grad * 0.5 * (size - 1)`` for a crop one pixel long: a double (its 0.5
    is), added to the float32 sum in double and rounded once."""
    return np.float64(grad) * 0.5 * (size - 1)


def _boxes_grad_source(low, high, i: int, crop: int, size: int, scale) -> np.float32:
    """CropAndResizeGradBoxes' sample position of output index ``i`` along one axis
    (``scale``: the box's extent times TF's precomputed ratio, which rounds otherwise
    than ``_source``'s scale)."""
    if crop > 1:
        return low * _F32(size - 1) + _F32(i) * scale
    return _F32(0.5) * (low + high) * _F32(size - 1)


def _add_coordinate_grads(row, low: int, high: int, grad, i: int, crop: int, size: int,
                          ratio) -> None:
    """Adds ``grad`` (one sample's gradient along one axis) to the box's ``low`` and
    ``high`` coordinates of ``row``, times their derivatives."""
    if crop > 1:
        row[low] += grad * (_F32(size - 1) - _F32(i) * ratio)
        row[high] += grad * (_F32(i) * ratio)
    else:
        share = _half_extent(grad, size)
        row[low], row[high] = row[low] + share, row[high] + share


@register_kernel("CropAndResizeGradBoxes", DEVICE)
def build_crop_and_resize_grad_boxes(node):
    def grad_boxes(grads, image, boxes, box_index):
        count, index = checked_grad_boxes(node, grads, image, boxes, box_index)
        height, width, depth = image.shape[1:]
        crop_h, crop_w = grads.shape[1:3]
        out = np.zeros((count, 4), _F32)
        one = _F32(1)
        h_ratio = _F32(height - 1) / _F32(crop_h - 1) if crop_h > 1 else _F32(0)
        w_ratio = _F32(width - 1) / _F32(crop_w - 1) if crop_w > 1 else _F32(0)
        for b in range(count):
            y1, x1, y2, x2 = (_F32(v) for v in boxes[b])
            pixels = image[index[b]]
            h_scale = (y2 - y1) * h_ratio if crop_h > 1 else _F32(0)
            w_scale = (x2 - x1) * w_ratio if crop_w > 1 else _F32(0)
            for y in range(crop_h):
                in_y = _boxes_grad_source(y1, y2, y, crop_h, height, h_scale)
                if in_y < 0 or in_y > height - 1:
                    continue
                for x in range(crop_w):
                    in_x = _boxes_grad_source(x1, x2, x, crop_w, width, w_scale)
                    if in_x < 0 or in_x > width - 1:
                        continue
                    top, bottom, y_lerp, left, right, x_lerp = _corners(in_y, in_x)
                    for d in range(depth):
                        top_left = _F32(pixels[top, left, d])
                        top_right = _F32(pixels[top, right, d])
                        bottom_left = _F32(pixels[bottom, left, d])
                        bottom_right = _F32(pixels[bottom, right, d])
                        grad_y = ((one - x_lerp) * (bottom_left - top_left)
                                  + x_lerp * (bottom_right - top_right))
                        grad_x = ((one - y_lerp) * (top_right - top_left)
                                  + y_lerp * (bottom_right - bottom_left))
                        g = _F32(grads[b, y, x, d])
                        grad_y, grad_x = grad_y * g, grad_x * g
                        _add_coordinate_grads(out[b], 0, 2, grad_y, y, crop_h, height, h_ratio)
                        _add_coordinate_grads(out[b], 1, 3, grad_x, x, crop_w, width, w_ratio)
        return out
    return grad_boxes
