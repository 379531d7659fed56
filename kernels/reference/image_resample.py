"""Reference kernels of ResizeBicubic, its gradient ResizeBicubicGrad and ResizeArea (and
the sampling tables every device shares).

TF's CPU kernels (``resize_bicubic_op.cc``, ``resize_area_op.cc``) written out in numpy,
float32 where TF computes in float; the scale is ``reference.image.resize_scale``
(TF's ``CalculateResizeScale``):

* **Bicubic weights** of output index ``i``: the source ``in = float(i) * scale`` (legacy)
  or ``(float(i) + 0.5) * scale - 0.5`` (``half_pixel_centers``), ``offset =
  lrintf((in - floor(in)) * 1024)`` into TF's table of 1025 float32 coefficients pairs
  (computed in double).  Legacy sampling uses the coefficient a = -0.75 and the four
  neighbours ``floor(in) - 1 .. floor(in) + 2`` clamped into the image (edge pixels
  repeat); ``half_pixel_centers`` uses Keys' a = -0.5, gives neighbours outside the
  image weight 0 and divides the weights by their sum.
* **Bicubic forward**: per output pixel, the four source rows are interpolated at each
  of the four source columns (``v0*w0 + v1*w1 + v2*w2 + v3*w3`` left to right, float32),
  then those four values along x the same way; the output is float32.
* **ResizeBicubicGrad** scatters each resized pixel's gradient (in the image's dtype T,
  float32 or float64) times ``wy * wx`` onto its 16 source pixels, TF's loop order.
* **ResizeArea**: output pixel ``(y, x)`` covers ``[y * scale, (y + 1) * scale)`` of the
  source rows (and the same for columns); each source pixel counts with the part of it
  inside (the first and last partially, those between fully; indices past the image
  clamp onto its edge), summed along x per source row, then along y, times ``1 / (scale_y
  * scale_x)``.  ``align_corners`` only changes the scale (not for a side of one pixel,
  as TF); float32 output.

The reference walks TF's loops one value at a time; ``bicubic_table`` and
``area_table`` are the vectorised tables the CPU and GPU kernels use
(``kernels/resample.py``).  Checks raise ``InvalidArgumentError`` naming the node.
"""

from __future__ import annotations

import math

import numpy as np

from ..checks import invalid_argument
from ..registry import register_kernel
from .image import check_bilinear_grad, check_image, check_resize, output_size, resize_scale

__all__ = ["check_bicubic", "check_bicubic_grad", "check_area", "bicubic_table",
           "area_table", "area_scale", "coefficient_table"]

DEVICE = "REF"
_F32, _F64 = np.float32, np.float64
_TABLE_SIZE = 1024
_HALF = _F32(0.5)


# --- checks (every device's) ----------------------------------------------------------------

# ResizeBicubic's checks are ResizeBilinear's (TF's ImageResizerState)
check_bicubic = check_resize


def check_bicubic_grad(node, grads_shape: tuple, original_shape: tuple) -> tuple:
    """``(align_corners, half_pixel_centers)`` of ResizeBicubicGrad: ResizeBilinearGrad's
    checks, then that the batch size and channels match."""
    align, half = check_bilinear_grad(node, grads_shape, original_shape)
    if grads_shape[0] != original_shape[0] or grads_shape[3] != original_shape[3]:
        raise invalid_argument(node.name, node.op, "input_grad and original_image must have "
                                                   "the same batch size and channels")
    return align, half


def check_area(node, shape: tuple, size) -> tuple[int, int, bool]:
    """``(out_height, out_width, align_corners)`` of ResizeArea."""
    align = bool(node.attrs.get("align_corners", False))
    check_image(node, shape)
    return (*output_size(node, size), align)


# --- bicubic tables ---------------------------------------------------------------------------

_TABLES: dict = {}


def coefficient_table(a: float) -> np.ndarray:
    """TF's ``InitCoeffsTable(a)``: float32 ``[1025, 2]``, computed in double."""
    if a not in _TABLES:
        x = np.arange(_TABLE_SIZE + 1, dtype=_F64) / _TABLE_SIZE
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        x = x + 1.0
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        _TABLES[a] = np.stack([near, far], axis=1).astype(_F32)
    return _TABLES[a]


def _scalar_bicubic_weights(i: int, scale, limit: int, half: bool):
    """TF's ``GetWeightsAndIndices`` for one output index: 4 indices, 4 float32 weights."""
    table = coefficient_table(-0.5 if half else -0.75)
    source = (_F32(i) + _HALF) * scale - _HALF if half else _F32(i) * _F32(scale)
    whole = int(np.floor(source))
    offset = int(np.rint(_F32(source - _F32(whole)) * _F32(_TABLE_SIZE)))
    weights = [table[offset, 1], table[offset, 0], table[_TABLE_SIZE - offset, 0],
               table[_TABLE_SIZE - offset, 1]]
    wanted = [whole - 1, whole, whole + 1, whole + 2]
    indices = [min(limit - 1, max(0, k)) for k in wanted]
    if half:
        weights = [w if k == j else _F32(0) for w, k, j in zip(weights, indices, wanted)]
        total = ((weights[0] + weights[1]) + weights[2]) + weights[3]
        if abs(total) >= 1000 * np.finfo(_F32).tiny:
            inverse = _F32(1) / total
            weights = [w * inverse for w in weights]
    return indices, [_F32(w) for w in weights]


def bicubic_table(out_size: int, in_size: int, align: bool, half: bool):
    """``(indices, weights)``: int64 and float32 ``[out_size, 4]``, each output index's
    four source indices and weights, on whole arrays."""
    scale = resize_scale(in_size, out_size, align)
    table = coefficient_table(-0.5 if half else -0.75)
    index = np.arange(out_size).astype(_F32)
    source = ((index + _HALF) * scale - _HALF if half else index * scale).astype(_F32)
    whole = np.floor(source)
    offset = np.rint((source - whole).astype(_F32) * _F32(_TABLE_SIZE)).astype(np.int64)
    weights = np.stack([table[offset, 1], table[offset, 0], table[_TABLE_SIZE - offset, 0],
                        table[_TABLE_SIZE - offset, 1]], axis=1)
    wanted = whole.astype(np.int64)[:, None] + np.arange(-1, 3)[None, :]
    indices = np.clip(wanted, 0, in_size - 1)
    if half:
        weights = np.where(indices == wanted, weights, _F32(0)).astype(_F32)
        total = ((weights[:, 0] + weights[:, 1]) + weights[:, 2]) + weights[:, 3]
        big = np.abs(total) >= 1000 * np.finfo(_F32).tiny
        inverse = _F32(1) / np.where(big, total, _F32(1))
        weights = np.where(big[:, None], weights * inverse[:, None], weights)
    return indices, weights.astype(_F32)


# --- area tables ------------------------------------------------------------------------------

def area_scale(in_size: int, out_size: int, align: bool) -> np.float32:
    """ResizeArea's scale: ``resize_scale``, except that an image one pixel high (or
    wide) is stretched as without ``align_corners`` (TF 2.21's values; the aligned scale
    would be 0)."""
    return resize_scale(in_size, out_size, align and in_size > 1)


def _share(v: int, low, high, scale):
    """TF's part of source cell ``v`` inside ``[low, high)`` (float32)."""
    if v < low:
        return scale if v + 1 > high else _F32(_F32(v + 1) - low)
    return _F32(high - _F32(v)) if v + 1 > high else _F32(1)


def _scalar_area_cells(o: int, scale, limit: int):
    """The source cells (clamped) and their float32 shares of output index ``o``."""
    low, high = _F32(_F32(o) * scale), _F32(_F32(o + 1) * scale)
    cells = range(math.floor(low), math.ceil(high))
    return ([min(limit - 1, max(0, v)) for v in cells],
            [_share(v, low, high, scale) for v in cells])


def area_table(out_size: int, in_size: int, align: bool):
    """``(indices, shares, valid)``: int64, float32 and bool ``[out_size, k]``, the
    source cells of each output index padded to the longest (``valid`` marks the real
    ones), and the float32 scale."""
    scale = area_scale(in_size, out_size, align)
    cells = [_scalar_area_cells(o, scale, in_size) for o in range(out_size)]
    width = max(len(c[0]) for c in cells)
    indices = np.zeros((out_size, width), np.int64)
    shares = np.zeros((out_size, width), _F32)
    valid = np.zeros((out_size, width), bool)
    for o, (index, share) in enumerate(cells):
        indices[o, :len(index)], shares[o, :len(share)], valid[o, :len(index)] = (
            index, share, True)
    return indices, shares, valid, scale


# --- kernels ----------------------------------------------------------------------------------

@register_kernel("ResizeBicubic", DEVICE)
def build_resize_bicubic(node):
    def resize_bicubic(images, size):
        out_h, out_w, align, half = check_bicubic(node, images.shape, size)
        batch, height, width, channels = images.shape
        x = images.astype(_F32)
        out = np.zeros((batch, out_h, out_w, channels), _F32)
        y_scale = resize_scale(height, out_h, align)
        x_scale = resize_scale(width, out_w, align)
        columns = [_scalar_bicubic_weights(i, x_scale, width, half) for i in range(out_w)]
        with np.errstate(invalid="ignore", over="ignore"):
            for y in range(out_h):
                ys, wy = _scalar_bicubic_weights(y, y_scale, height, half)
                for i, (xs, wx) in enumerate(columns):
                    values = [((x[:, ys[0], c] * wy[0] + x[:, ys[1], c] * wy[1])
                               + x[:, ys[2], c] * wy[2]) + x[:, ys[3], c] * wy[3] for c in xs]
                    out[:, y, i] = ((values[0] * wx[0] + values[1] * wx[1])
                                    + values[2] * wx[2]) + values[3] * wx[3]
        return out
    return resize_bicubic


@register_kernel("ResizeBicubicGrad", DEVICE)
def build_resize_bicubic_grad(node):
    def resize_bicubic_grad(grads, original_image):
        align, half = check_bicubic_grad(node, grads.shape, original_image.shape)
        batch, resized_h, resized_w, channels = grads.shape
        height, width = original_image.shape[1:3]
        dtype = original_image.dtype
        out = np.zeros((batch, height, width, channels), dtype)
        y_scale = resize_scale(height, resized_h, align)
        x_scale = resize_scale(width, resized_w, align)
        columns = [_scalar_bicubic_weights(i, x_scale, width, half) for i in range(resized_w)]
        g = grads.astype(dtype)
        for y in range(resized_h):
            ys, wy = _scalar_bicubic_weights(y, y_scale, height, half)
            for x, (xs, wx) in enumerate(columns):
                for k in range(4):
                    for j in range(4):
                        out[:, ys[k], xs[j]] += (g[:, y, x] * wy[k] * wx[j]).astype(dtype)
        return out
    return resize_bicubic_grad


@register_kernel("ResizeArea", DEVICE)
def build_resize_area(node):
    def resize_area(images, size):
        out_h, out_w, align = check_area(node, images.shape, size)
        batch, height, width, channels = images.shape
        x = images.astype(_F32)
        y_scale = area_scale(height, out_h, align)
        x_scale = area_scale(width, out_w, align)
        scale = _F32(1.0 / float(_F32(y_scale * x_scale)))
        columns = [_scalar_area_cells(i, x_scale, width) for i in range(out_w)]
        out = np.zeros((batch, out_h, out_w, channels), _F32)
        for y in range(out_h):
            rows, row_shares = _scalar_area_cells(y, y_scale, height)
            for i, (cells, shares) in enumerate(columns):
                total = np.zeros((batch, channels), _F32)
                for row, row_share in zip(rows, row_shares):
                    line = x[:, row, cells[0]] * shares[0]
                    for cell, share in zip(cells[1:], shares[1:]):
                        line = line + x[:, row, cell] * share
                    total = total + line * row_share
                out[:, y, i] = total * scale
        return out
    return resize_area
