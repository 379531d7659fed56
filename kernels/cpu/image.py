"""Image resize CPU kernels: ResizeBilinear and its gradient as numba loops,
ResizeNearestNeighbor and its gradient as numpy gathers and segment sums.

The sampling tables (each output index's source pixels and weights, along one axis) are
``reference.image``'s vectorised ``bilinear_table``/``nearest_table``, not the
reference kernels' scalar loops; the arithmetic is TF's, in float32 (see
``reference/image.py``):

* ResizeBilinear: parallel over output rows (image, row), each output pixel the lerp of
  its four source pixels, ``top + (bottom - top) * y_lerp``; inputs of any dtype are
  converted to float32 first (exactly what TF's per-value ``float(x)`` does), so one
  loop serves them all.
* ResizeBilinearGrad is a *gather* where TF scatters: the per-axis tables are inverted
  into lists of (resized index, weight) for each original index, so each thread owns
  whole rows of the result and sums ``float32(grad * wy * wx)`` into them without
  atomics or per-thread copies.  Sums run in float64 for a float64 image, float32
  otherwise (float16 rounded once at the end), as TF; the order differs from TF's
  scatter, so float sums may differ in the last bits.
* ResizeNearestNeighbor: two ``np.take``s, along the rows then the columns.
* ResizeNearestNeighborGrad: the source indices are non-decreasing, so the gradient
  rows that land on one pixel are consecutive: one ``np.add.reduceat`` along the rows,
  one along the columns, in the gradient's dtype (integers wrap as TF's do).
"""

from __future__ import annotations

import numpy as np

from ..checks import to_float16
from ..reference.image import (bilinear_table, check_bilinear_grad, check_nearest_grad,
                               check_resize, grad_accumulator, nearest_table)
from ..registry import register_kernel
from .reduce import PAR

from numba import njit, prange  # noqa: E402  (after numba_setup, which reduce imports)

__all__ = ["bilinear_rows", "bilinear_grad_rows", "inverse_table", "segment_sum_axis"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


@njit(**PAR)
def bilinear_rows(x, ylo, yhi, ylerp, xlo, xhi, xlerp, out):
    """out (N, OH, OW, C) float32 from x (N, H, W, C) float32 and the tables."""
    OH, OW, C = out.shape[1], out.shape[2], out.shape[3]
    for t in prange(out.shape[0] * OH):
        n = t // OH
        y = t % OH
        y_lerp = ylerp[y]
        top_row = x[n, ylo[y]]
        bottom_row = x[n, yhi[y]]
        row = out[n, y]
        for i in range(OW):
            x_lerp = xlerp[i]
            left, right = xlo[i], xhi[i]
            for c in range(C):
                top_left = top_row[left, c]
                bottom_left = bottom_row[left, c]
                top = top_left + (top_row[right, c] - top_left) * x_lerp
                bottom = bottom_left + (bottom_row[right, c] - bottom_left) * x_lerp
                row[i, c] = top + (bottom - top) * y_lerp


@njit(**PAR)
def bilinear_grad_rows(g, ystart, ysource, yweight, xstart, xsource, xweight, out):
    """out (N, H, W, C) (zeros, float32 or float64) += the float32 products of the
    resized gradient g (N, RH, RW, C) and the weights of the inverted tables."""
    H, W, C = out.shape[1], out.shape[2], out.shape[3]
    for t in prange(out.shape[0] * H):
        n = t // H
        y = t % H
        row = out[n, y]
        for ey in range(ystart[y], ystart[y + 1]):
            wy = yweight[ey]
            source_row = g[n, ysource[ey]]
            for i in range(W):
                acc = row[i]
                for ex in range(xstart[i], xstart[i + 1]):
                    wx = xweight[ex]
                    pixel = source_row[xsource[ex]]
                    for c in range(C):
                        acc[c] += pixel[c] * wy * wx


def inverse_table(lower, upper, lerp, size: int):
    """For each of ``size`` original indices, the (resized index, weight) pairs that
    read it, as ``(start, source, weight)``: pairs ``start[o]:start[o + 1]``."""
    resized = np.arange(len(lower))
    target = np.concatenate([lower, upper])
    order = np.argsort(target, kind="stable")
    source = np.concatenate([resized, resized])[order]
    weight = np.concatenate([np.float32(1) - lerp, lerp]).astype(np.float32)[order]
    start = np.searchsorted(target[order], np.arange(size + 1)).astype(np.int64)
    return start, source.astype(np.int64), weight


def segment_sum_axis(g: np.ndarray, index: np.ndarray, size: int, axis: int) -> np.ndarray:
    """``out`` with ``size`` entries along ``axis``: ``out[index[i]] += g[i]`` (along
    ``axis``), for a non-decreasing ``index``; in ``g``'s dtype."""
    shape = list(g.shape)
    shape[axis] = size
    out = np.zeros(shape, g.dtype)
    if g.shape[axis] == 0 or g.size == 0:
        return out
    first = np.flatnonzero(np.concatenate([[True], index[1:] != index[:-1]]))
    where = [slice(None)] * g.ndim
    where[axis] = index[first]
    with np.errstate(over="ignore"):
        out[tuple(where)] = np.add.reduceat(g, first, axis=axis)
    return out


def _read_only(a: np.ndarray, dtype=None) -> np.ndarray:
    """``a`` contiguous (as ``dtype``) and seen read-only: numba compiles a loop once per
    read-only/writeable pattern of its inputs, so the loops always get read-only views."""
    view = np.ascontiguousarray(a, dtype=dtype).view()
    view.flags.writeable = False
    return view


@register_kernel("ResizeBilinear", "CPU")
def build_resize_bilinear(node):
    def resize_bilinear(images, size):
        out_h, out_w, align, half = check_resize(node, images.shape, size)
        batch, height, width, channels = images.shape
        if (out_h, out_w) == (height, width):
            return images.astype(_F32)
        out = np.empty((batch, out_h, out_w, channels), _F32)
        if out.size:
            bilinear_rows(_read_only(images, _F32), *bilinear_table(out_h, height, align, half),
                          *bilinear_table(out_w, width, align, half), out)
        return out
    return resize_bilinear


@register_kernel("ResizeBilinearGrad", "CPU")
def build_resize_bilinear_grad(node):
    def resize_bilinear_grad(grads, original_image):
        align, half = check_bilinear_grad(node, grads.shape, original_image.shape)
        batch, resized_h, resized_w, channels = grads.shape
        height, width = original_image.shape[1:3]
        dtype = original_image.dtype
        out = np.zeros((batch, height, width, channels), grad_accumulator(dtype))
        if out.size:
            rows = inverse_table(*bilinear_table(resized_h, height, align, half), height)
            columns = inverse_table(*bilinear_table(resized_w, width, align, half), width)
            bilinear_grad_rows(_read_only(grads, _F32), *rows, *columns, out)
        if dtype == _F16:
            return to_float16(out)
        return out.astype(dtype, copy=False)
    return resize_bilinear_grad


@register_kernel("ResizeNearestNeighbor", "CPU")
def build_resize_nearest(node):
    def resize_nearest(images, size):
        out_h, out_w, align, half = check_resize(node, images.shape, size)
        rows = np.take(images, nearest_table(out_h, images.shape[1], align, half), axis=1)
        return np.take(rows, nearest_table(out_w, images.shape[2], align, half), axis=2)
    return resize_nearest


@register_kernel("ResizeNearestNeighborGrad", "CPU")
def build_resize_nearest_grad(node):
    def resize_nearest_grad(grads, size):
        height, width, align, half = check_nearest_grad(node, grads.shape, size)
        rows = segment_sum_axis(grads, nearest_table(grads.shape[1], height, align, half),
                                height, axis=1)
        return segment_sum_axis(rows, nearest_table(grads.shape[2], width, align, half),
                                width, axis=2)
    return resize_nearest_grad
