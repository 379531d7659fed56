"""CropAndResize CPU kernels: the forward pass as a numba loop over (box, crop row),
the gradients on whole numpy arrays (``kernels/crops.py``, which the GPU runs on cupy).

The sample tables (per box and output index: position in range, corner indices, lerps,
nearest indices) are ``reference.image_crop.crop_tables``, float32 as TF computes them;
the loop reads each crop pixel's corners as float32 and lerps them with TF's formula
(``top + (bottom - top) * y_lerp`` of two x-lerps), so the crops equal the reference's
bit for bit.  The image gradient adds each pixel's shares with ``np.add.at`` in TF's
order (equal to TF's sums); the boxes' gradient sums in another order (last bits).
"""

from __future__ import annotations

import numpy as np

from .. import crops
from ..reference.image_crop import (_method, checked_crop, checked_grad_boxes,
                                    checked_grad_image, crop_attrs)
from ..registry import register_kernel
from .reduce import PAR

from numba import njit, prange  # noqa: E402  (after numba_setup, which reduce imports)

__all__ = ["crop_rows"]

_F32 = np.dtype(np.float32)


@njit(**PAR)
def crop_rows(image, index, y_in, y_lo, y_hi, y_lerp, y_near, x_in, x_lo, x_hi, x_lerp,
              x_near, nearest, extrapolation, out):
    """out (B, CH, CW, D) float32 from image (N, H, W, D) float32 and the tables."""
    CH, CW, D = out.shape[1], out.shape[2], out.shape[3]
    for t in prange(out.shape[0] * CH):
        b = t // CH
        y = t % CH
        row = out[b, y]
        if not y_in[b, y]:
            row[:, :] = extrapolation
            continue
        pixels = image[index[b]]
        for x in range(CW):
            if not x_in[b, x]:
                row[x, :] = extrapolation
            elif nearest:
                row[x, :] = pixels[y_near[b, y], x_near[b, x]]
            else:
                top, bottom = pixels[y_lo[b, y]], pixels[y_hi[b, y]]
                left, right = x_lo[b, x], x_hi[b, x]
                xl, yl = x_lerp[b, x], y_lerp[b, y]
                for d in range(D):
                    top_left = top[left, d]
                    bottom_left = bottom[left, d]
                    upper = top_left + (top[right, d] - top_left) * xl
                    lower = bottom_left + (bottom[right, d] - bottom_left) * xl
                    row[x, d] = upper + (lower - upper) * yl


def _add_rows(out, rows, values):
    np.add.at(out, rows, values)
    return out


@register_kernel("CropAndResize", "CPU")
def build_crop_and_resize(node):
    method, extrapolation = crop_attrs(node)

    def crop_and_resize(image, boxes, box_index, crop_size):
        count, crop_h, crop_w, index = checked_crop(node, image, boxes, box_index, crop_size)
        height, width, depth = image.shape[1:]
        out = np.empty((count, crop_h, crop_w, depth), _F32)
        if out.size:
            rows, columns = crops.tables(np, boxes[:count], crop_h, crop_w, height, width)
            pixels = np.ascontiguousarray(image, dtype=_F32)
            crop_rows(pixels, index, *rows[1:], *columns[1:], method == "nearest",
                      extrapolation, out)
        return out
    return crop_and_resize


@register_kernel("CropAndResizeGradImage", "CPU")
def build_crop_and_resize_grad_image(node):
    method = _method(node)
    dtype = np.dtype(node.output_dtype)

    def grad_image(grads, boxes, box_index, image_size):
        count, shape, index = checked_grad_image(node, grads, boxes, box_index, image_size)
        if count == 0:
            return np.zeros(shape, dtype)
        rows, columns = crops.tables(np, boxes, *grads.shape[1:3], *shape[1:3])
        return crops.image_gradient(np, grads, index, rows, columns, method, shape, dtype,
                                    _add_rows)
    return grad_image


@register_kernel("CropAndResizeGradBoxes", "CPU")
def build_crop_and_resize_grad_boxes(node):
    def grad_boxes(grads, image, boxes, box_index):
        count, index = checked_grad_boxes(node, grads, image, boxes, box_index)
        if count == 0:
            return np.zeros((0, 4), _F32)
        rows, columns = crops.tables(np, boxes, *grads.shape[1:3], *image.shape[1:3])
        return crops.boxes_gradient(np, grads, image, index, rows, columns)
    return grad_boxes
