"""CropAndResize and its gradients on whole arrays, for numpy or cupy (``xp``): the CPU's
gradient kernels and all three GPU kernels run this code (the CPU's forward pass is a
numba loop, ``cpu/image_crop.py``); the tests compare both with the reference's loops
(``reference/image_crop.py``, TF's order of operations).

The per-box sample tables (``reference.image_crop.crop_tables``: positions, in-range
masks, corner indices, lerps, nearest indices; ``[num_boxes, crop]`` each) are computed
on the host in float32 as TF computes them, then moved to ``xp``.  From them:

* ``crop(xp, ...)``: four gathers ``image[box_index, row, column]`` and TF's lerps (or
  one gather for nearest sampling), out-of-range samples ``extrapolation_value``;
* ``image_gradient(xp, ...)``: each crop pixel's weighted shares as rows of a table
  added into the image's pixels (``add_rows``: ``np.add.at`` in TF's order on numpy, the
  GPU's atomic segment sum on cupy), in the image's dtype;
* ``boxes_gradient(xp, ...)``: TF's per-pixel derivative terms, summed per box (the
  order of the float32 sum differs from TF's loop: last bits may differ).
"""

from __future__ import annotations

import numpy as np

from .reference.image_crop import crop_tables

__all__ = ["tables", "crop", "image_gradient", "boxes_gradient"]

_F32 = np.float32


def tables(xp, boxes, crop_h: int, crop_w: int, height: int, width: int):
    """The row and column tables of ``boxes`` (host float32 ``[n, 4]``), on ``xp``."""
    boxes = np.asarray(boxes, _F32)
    rows = crop_tables(boxes, crop_h, height, 0, 2)
    columns = crop_tables(boxes, crop_w, width, 1, 3)
    return [xp.asarray(t) for t in rows], [xp.asarray(t) for t in columns]


def _mask(rows, columns):
    return (rows[1][:, :, None] & columns[1][:, None, :])[..., None]


def _corner_values(xp, image, index, rows, columns):
    n = index[:, None, None]

    def at(row, column):
        return image[n, row[:, :, None], column[:, None, :]].astype(_F32)
    return (at(rows[2], columns[2]), at(rows[2], columns[3]), at(rows[3], columns[2]),
            at(rows[3], columns[3]))


def crop(xp, image, index, rows, columns, method: str, extrapolation) -> object:
    """The crops ``[n, crop_h, crop_w, depth]`` float32 of ``image`` at the tables."""
    if method == "nearest":
        values = image[index[:, None, None], rows[5][:, :, None],
                       columns[5][:, None, :]].astype(_F32)
    else:
        top_left, top_right, bottom_left, bottom_right = _corner_values(xp, image, index,
                                                                        rows, columns)
        x_lerp = columns[4][:, None, :, None]
        y_lerp = rows[4][:, :, None, None]
        upper = top_left + (top_right - top_left) * x_lerp
        lower = bottom_left + (bottom_right - bottom_left) * x_lerp
        values = upper + (lower - upper) * y_lerp
    return xp.where(_mask(rows, columns), values, _F32(extrapolation)).astype(_F32)


def image_gradient(xp, grads, index, rows, columns, method: str, shape, dtype, add_rows):
    """The image's gradient ``shape`` in ``dtype``: ``add_rows(table, rows, values)``
    adds ``values`` (k x depth) into the rows of the ``(pixels, depth)`` table."""
    batch, height, width, depth = shape
    out = xp.zeros((batch * height * width, depth), dtype)
    g = xp.where(_mask(rows, columns), grads.astype(_F32), _F32(0))
    n = index[:, None, None]

    def pixel(row, column):
        return ((n * height + row[:, :, None]) * width + column[:, None, :])
    if method == "nearest":
        targets = [pixel(rows[5], columns[5])]
        shares = [g]
    else:
        one = _F32(1)
        x_lerp = columns[4][:, None, :, None]
        y_lerp = rows[4][:, :, None, None]
        upper, lower = (one - y_lerp) * g, y_lerp * g
        targets = [pixel(rows[2], columns[2]), pixel(rows[2], columns[3]),
                   pixel(rows[3], columns[2]), pixel(rows[3], columns[3])]
        shares = [(one - x_lerp) * upper, x_lerp * upper, (one - x_lerp) * lower,
                  x_lerp * lower]
    # each crop pixel's shares in TF's order: top left, top right, bottom left, bottom right
    target = xp.stack(targets, axis=-1).reshape(-1)
    values = xp.stack([s.astype(dtype) for s in shares], axis=-2).reshape(-1, depth)
    return add_rows(out, target.astype(np.int64), values).reshape(shape)


def _coefficients(xp, crop: int, size: int):
    """d(position)/d(low) and d(position)/d(high) of each output index (float32)."""
    if crop > 1:
        ratio = _F32(size - 1) / _F32(crop - 1)
        steps = xp.arange(crop, dtype=_F32) * ratio
        return _F32(size - 1) - steps, steps
    half = xp.full((crop,), _F32(0.5) * _F32(size - 1), _F32)
    return half, half


def boxes_gradient(xp, grads, image, index, rows, columns):
    """The boxes' gradient ``[n, 4]`` float32 (TF's bilinear formula)."""
    height, width = image.shape[1:3]
    top_left, top_right, bottom_left, bottom_right = _corner_values(xp, image, index, rows,
                                                                    columns)
    one = _F32(1)
    x_lerp = columns[4][:, None, :, None]
    y_lerp = rows[4][:, :, None, None]
    g = xp.where(_mask(rows, columns), grads.astype(_F32), _F32(0))
    grad_y = ((one - x_lerp) * (bottom_left - top_left)
              + x_lerp * (bottom_right - top_right)) * g
    grad_x = ((one - y_lerp) * (top_right - top_left)
              + y_lerp * (bottom_right - bottom_left)) * g
    by_row = grad_y.sum(axis=(2, 3))                  # [n, crop_h]
    by_column = grad_x.sum(axis=(1, 3))               # [n, crop_w]
    y_low, y_high = _coefficients(xp, grads.shape[1], height)
    x_low, x_high = _coefficients(xp, grads.shape[2], width)
    return xp.stack([(by_row * y_low).sum(axis=1), (by_column * x_low).sum(axis=1),
                     (by_row * y_high).sum(axis=1), (by_column * x_high).sum(axis=1)],
                    axis=1).astype(_F32)
