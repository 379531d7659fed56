"""ResizeBicubic, ResizeBicubicGrad and ResizeArea on whole arrays, for numpy or cupy
(``xp``): the CPU and GPU kernels run this code; the tests compare it with the
reference's loops (``reference/image_resample.py``, TF's order of operations).

The per-axis tables (``reference.image_resample.bicubic_table`` / ``area_table``: a
few numbers per output index) are computed on the host and moved to ``xp``.  From them:

* ``bicubic(xp, ...)``: the four source rows of each output row gathered and weighted
  (``v0*w0 + v1*w1 + v2*w2 + v3*w3`` left to right, float32), then the four columns of
  that the same way: TF's y-then-x order, so the values equal the reference's.
* ``bicubic_gradient(xp, ...)``: each resized pixel's 16 weighted shares as rows of a
  table added into the image's pixels (``add_rows``: ``np.add.at`` in TF's order on
  numpy, the GPU's atomic segment sum on cupy), in the image's dtype.
* ``area(xp, ...)``: the source cells of each output column summed in order (a loop
  over the few cells a column spans, padding masked out), then the rows the same way,
  times ``1 / (scale_y * scale_x)``: TF's float32 sums in TF's order.
"""

from __future__ import annotations

import numpy as np

from .reference.image_resample import area_table, bicubic_table

__all__ = ["bicubic", "bicubic_gradient", "area"]

_F32 = np.float32


def _weighted(terms):
    """``t0 + t1 + ...`` left to right, each term ``value * weight``."""
    total = terms[0][0] * terms[0][1]
    for value, weight in terms[1:]:
        total = total + value * weight
    return total


def bicubic(xp, images, out_h: int, out_w: int, align: bool, half: bool):
    """``images`` resized to ``out_h`` x ``out_w`` by TF's bicubic sampling, float32."""
    height, width = images.shape[1:3]
    ys, wy = (xp.asarray(t) for t in bicubic_table(out_h, height, align, half))
    xs, wx = (xp.asarray(t) for t in bicubic_table(out_w, width, align, half))
    x = images.astype(_F32)
    rows = _weighted([(x[:, ys[:, k]], wy[None, :, k, None, None]) for k in range(4)])
    return _weighted([(rows[:, :, xs[:, k]], wx[None, None, :, k, None]) for k in range(4)])


def bicubic_gradient(xp, grads, shape, dtype, align: bool, half: bool, add_rows):
    """ResizeBicubic's input gradient ``shape`` in ``dtype`` (float32 or float64):
    ``add_rows(table, rows, values)`` adds ``values`` into rows of a pixel table."""
    batch, height, width, channels = shape
    resized_h, resized_w = grads.shape[1:3]
    ys, wy = (xp.asarray(t) for t in bicubic_table(resized_h, height, align, half))
    xs, wx = (xp.asarray(t) for t in bicubic_table(resized_w, width, align, half))
    g = grads.astype(dtype)[:, :, :, None, None, :]                  # [n, rh, rw, 1, 1, c]
    shares = (g * wy[None, :, None, :, None, None]) * wx[None, None, :, None, :, None]
    n = xp.arange(batch)[:, None, None, None, None]
    pixel = (n * height + ys[None, :, None, :, None]) * width + xs[None, None, :, None, :]
    table = xp.zeros((batch * height * width, channels), dtype)
    target = xp.broadcast_to(pixel, shares.shape[:5]).reshape(-1).astype(np.int64)
    return add_rows(table, target, shares.astype(dtype).reshape(-1, channels)).reshape(shape)


def _cell_sums(xp, values, indices, shares, valid, axis: int):
    """Along ``axis``, each output index's source cells times their shares, summed in
    order (TF's ``sum += v * share``), padding skipped."""
    def take(k):
        return xp.take(values, xp.asarray(indices[:, k]), axis=axis)

    def along(column):
        shape = [1] * values.ndim
        shape[axis] = len(column)
        return xp.asarray(column).reshape(shape)
    total = take(0) * along(shares[:, 0])
    for k in range(1, indices.shape[1]):
        total = xp.where(along(valid[:, k]), total + take(k) * along(shares[:, k]), total)
    return total


def area(xp, images, out_h: int, out_w: int, align: bool):
    """``images`` resized to ``out_h`` x ``out_w`` by TF's area averaging, float32."""
    height, width = images.shape[1:3]
    *columns, x_scale = area_table(out_w, width, align)
    *rows, y_scale = area_table(out_h, height, align)
    scale = _F32(1.0 / float(_F32(y_scale * x_scale)))
    by_column = _cell_sums(xp, images.astype(_F32), *columns, axis=2)
    return (_cell_sums(xp, by_column, *rows, axis=1) * scale).astype(_F32)
