"""Reference kernels of the image resize ops: ResizeBilinear, ResizeNearestNeighbor and
their gradients ResizeBilinearGrad, ResizeNearestNeighborGrad (and the run-time checks
and sampling tables every device shares).

TF's CPU kernels (``resize_bilinear_op.cc``, ``resize_nearest_neighbor_op.cc``,
``image_resizer_state.h``) written out in numpy, float32 where TF computes in float:

* **Scale** per axis: ``(in - 1) / float(out - 1)`` with ``align_corners`` (and ``out >
  1``), else ``in / float(out)``, a float32 division.
* **Source coordinate** of output index ``i``: ``float(i) * scale`` (legacy) or
  ``(float(i) + 0.5) * scale - 0.5`` (``half_pixel_centers``), in float32.
* **Bilinear**: ``lower = max(floor(in), 0)``, ``upper = min(ceil(in), in_size - 1)``,
  ``lerp = in - floor(in)``; every input value becomes float32 and
  ``top = tl + (tr - tl) * x_lerp``, ``bottom = bl + (br - bl) * x_lerp``,
  ``out = top + (bottom - top) * y_lerp``, each step rounded to float32 as TF's kernel
  rounds it.  An output of the input's size is the input cast to float32 (TF's
  shortcut, which also keeps infinities that the formula would turn into NaN).
* **Nearest neighbour**: ``min(floor(i * scale), in_size - 1)``; with
  ``half_pixel_centers`` the coordinate is ``(i + 0.5) * scale`` (no ``- 0.5``) and the
  index is at least 0; with ``align_corners`` ``roundf`` (halves away from zero)
  replaces ``floor``.
* **Gradients** scatter back the way the forward pass gathered: ResizeBilinearGrad adds
  ``float32(grad * (1 - y_lerp) * (1 - x_lerp))`` (and the three other corners' weights)
  into the original image's pixels, in the original's dtype (float16: accumulated in
  float32 and rounded once, as TF); ResizeNearestNeighborGrad adds each gradient pixel
  into the pixel it was copied from, in the gradient's dtype.  Both walk the resized
  pixels in TF's order, so the float sums round as TF's do.

The reference computes each axis's table with scalar loops, TF's code line for line;
``bilinear_table`` and ``nearest_table`` are vectorised numpy formulations of the same
tables that the CPU and GPU kernels use, so the conformance tests compare two ways of
computing them.  The ``check_*`` functions raise ``InvalidArgumentError`` naming the node
with TF's messages.
"""

from __future__ import annotations

import math

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import register_kernel
from .array import on_host

__all__ = ["check_image", "output_size", "check_resize", "check_bilinear_grad",
           "check_nearest_grad", "resize_scale", "bilinear_table", "nearest_table",
           "grad_accumulator"]

DEVICE = "REF"

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_HALF = np.float32(0.5)


# --- checks (every device's) ----------------------------------------------------------------

def _flags(node) -> tuple[bool, bool]:
    align = bool(node.attrs.get("align_corners", False))
    half = bool(node.attrs.get("half_pixel_centers", False))
    if align and half:
        raise invalid_argument(node.name, node.op, "If half_pixel_centers is True, "
                                                   "align_corners must be False.")
    return align, half


def _size(node, size) -> tuple[int, int]:
    size = on_host(size)
    if size.ndim != 1:
        raise invalid_argument(node.name, node.op, f"shape_t must be 1-dimensional"
                                                   f"{fmt_shape(size.shape)}")
    if size.size != 2:
        raise invalid_argument(node.name, node.op, f"shape_t must have two elements"
                                                   f"{fmt_shape(size.shape)}")
    return int(size[0]), int(size[1])


def _rank4(node, shape, what: str) -> None:
    if len(shape) != 4:
        raise invalid_argument(node.name, node.op, f"{what} must be 4-dimensional"
                                                   f"{fmt_shape(shape)}")


def check_image(node, shape: tuple) -> None:
    """A resize's image: 4-D, at least one channel, a non-zero height and width."""
    _rank4(node, shape, "input")
    if shape[3] <= 0:
        raise invalid_argument(node.name, node.op, "image must have at least one channel")
    if shape[1] <= 0 or shape[2] <= 0:
        raise invalid_argument(node.name, node.op, "input image must be of non-zero size")


def output_size(node, size) -> tuple[int, int]:
    """``(out_height, out_width)`` of a resize's ``size`` input, checked positive."""
    out_h, out_w = _size(node, size)
    if out_h <= 0 or out_w <= 0:
        raise invalid_argument(node.name, node.op, "output dimensions must be positive")
    return out_h, out_w


def check_resize(node, shape: tuple, size) -> tuple[int, int, bool, bool]:
    """``(out_height, out_width, align_corners, half_pixel_centers)`` of a ResizeBilinear,
    ResizeNearestNeighbor or ResizeBicubic node, its image's ``shape`` and ``size``
    checked (TF's ``ImageResizerState`` checks every resize alike)."""
    align, half = _flags(node)
    check_image(node, shape)
    return (*output_size(node, size), align, half)


def check_bilinear_grad(node, grads_shape: tuple, original_shape: tuple) -> tuple:
    """``(align_corners, half_pixel_centers)`` of a ResizeBilinearGrad node, the shapes
    of its gradient and original image checked."""
    align, half = _flags(node)
    _rank4(node, grads_shape, "input_grad")
    if grads_shape[1] <= 0 or grads_shape[2] <= 0:
        raise invalid_argument(node.name, node.op, "resized dimensions must be positive")
    _rank4(node, original_shape, "original_image")
    if original_shape[1] <= 0 or original_shape[2] <= 0:
        raise invalid_argument(node.name, node.op, "original dimensions must be positive")
    return align, half


def check_nearest_grad(node, grads_shape: tuple, size) -> tuple[int, int, bool, bool]:
    """``(height, width, align_corners, half_pixel_centers)`` of a
    ResizeNearestNeighborGrad node (the original image's size), its inputs checked.  TF's
    gradient kernel, unlike the resizes, takes both flags (``roundf`` of the half-pixel
    source scaled as align_corners scales it)."""
    align = bool(node.attrs.get("align_corners", False))
    half = bool(node.attrs.get("half_pixel_centers", False))
    _rank4(node, grads_shape, "input")
    height, width = _size(node, size)
    if height <= 0 or width <= 0:
        raise invalid_argument(node.name, node.op, "shape_t's elements must be positive")
    return height, width, align, half


# --- sampling tables --------------------------------------------------------------------------

def resize_scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    """TF's ``CalculateResizeScale``: float32, source pixels per output pixel (0 for an
    empty output, which samples nothing)."""
    if out_size == 0:
        return np.float32(0)
    if align_corners and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def _source(i: int, scale: np.float32, half_pixel: bool) -> np.float32:
    """TF's ``HalfPixelScaler`` / ``LegacyScaler`` for one index (float32)."""
    if half_pixel:
        return (np.float32(i) + _HALF) * scale - _HALF
    return np.float32(i) * scale


def _scalar_bilinear_table(out_size, in_size, align, half):
    """TF's ``compute_interpolation_weights``, one index at a time."""
    scale = resize_scale(in_size, out_size, align)
    lower, upper = np.zeros(out_size, np.int64), np.zeros(out_size, np.int64)
    lerp = np.zeros(out_size, np.float32)
    for i in range(out_size):
        source = _source(i, scale, half)
        floor = np.floor(source)
        lower[i] = max(int(floor), 0)
        upper[i] = min(int(np.ceil(source)), in_size - 1)
        lerp[i] = source - floor
    return lower, upper, lerp


def _scalar_nearest_table(out_size, in_size, align, half):
    """TF's nearest-neighbour ``compute_indices``, one index at a time."""
    scale = resize_scale(in_size, out_size, align)
    indices = np.zeros(out_size, np.int64)
    for i in range(out_size):
        source = np.float32(i) + _HALF if half else np.float32(i)
        source = source * scale
        # roundf rounds halves away from zero; float32 + 0.5 is exact in double
        index = math.floor(float(source) + 0.5) if align else math.floor(source)
        index = min(index, in_size - 1)
        indices[i] = max(index, 0) if half else index
    return indices


def bilinear_table(out_size: int, in_size: int, align: bool, half: bool):
    """``(lower, upper, lerp)`` for each output index along one axis (int64, int64,
    float32): the reference's table, computed on whole arrays."""
    scale = resize_scale(in_size, out_size, align)
    index = np.arange(out_size).astype(np.float32)
    source = (index + _HALF) * scale - _HALF if half else index * scale
    floor = np.floor(source)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(source).astype(np.int64), in_size - 1)
    return lower, upper, (source - floor).astype(np.float32)


def nearest_table(out_size: int, in_size: int, align: bool, half: bool) -> np.ndarray:
    """The source index of each output index along one axis (int64), on whole arrays."""
    scale = resize_scale(in_size, out_size, align)
    index = np.arange(out_size).astype(np.float32)
    source = (index + _HALF if half else index) * scale
    if align:                       # roundf: halves away from zero (sources are >= 0)
        whole = np.floor(source)
        source = whole + (source - whole >= _HALF)
    indices = np.minimum(np.floor(source).astype(np.int64), in_size - 1)
    return np.maximum(indices, 0) if half else indices


def grad_accumulator(dtype: np.dtype) -> np.dtype:
    """The dtype ResizeBilinearGrad sums in: float64 for float64, float32 otherwise
    (TF sums a float16 gradient in float32 and rounds it once)."""
    return _F64 if np.dtype(dtype) == _F64 else _F32


# --- kernels ----------------------------------------------------------------------------------

@register_kernel("ResizeBilinear", DEVICE)
def build_resize_bilinear(node):
    def resize_bilinear(images, size):
        out_h, out_w, align, half = check_resize(node, images.shape, size)
        batch, height, width, channels = images.shape
        x = images.astype(np.float32)
        if (out_h, out_w) == (height, width):
            return x
        ylo, yhi, ylerp = _scalar_bilinear_table(out_h, height, align, half)
        xlo, xhi, xlerp = _scalar_bilinear_table(out_w, width, align, half)
        top, bottom = x[:, ylo], x[:, yhi]
        top_left, top_right = top[:, :, xlo], top[:, :, xhi]
        bottom_left, bottom_right = bottom[:, :, xlo], bottom[:, :, xhi]
        x_lerp = xlerp[None, None, :, None]
        y_lerp = ylerp[None, :, None, None]
        with np.errstate(invalid="ignore", over="ignore"):     # inf - inf is NaN, as in TF
            upper = top_left + (top_right - top_left) * x_lerp
            lower = bottom_left + (bottom_right - bottom_left) * x_lerp
            return upper + (lower - upper) * y_lerp
    return resize_bilinear


@register_kernel("ResizeNearestNeighbor", DEVICE)
def build_resize_nearest(node):
    def resize_nearest(images, size):
        out_h, out_w, align, half = check_resize(node, images.shape, size)
        ys = _scalar_nearest_table(out_h, images.shape[1], align, half)
        xs = _scalar_nearest_table(out_w, images.shape[2], align, half)
        return images[:, ys[:, None], xs[None, :]]
    return resize_nearest


@register_kernel("ResizeBilinearGrad", DEVICE)
def build_resize_bilinear_grad(node):
    def resize_bilinear_grad(grads, original_image):
        align, half = check_bilinear_grad(node, grads.shape, original_image.shape)
        batch, resized_h, resized_w, channels = grads.shape
        height, width = original_image.shape[1:3]
        dtype = original_image.dtype
        out = np.zeros((batch, height, width, channels), grad_accumulator(dtype))
        ylo, yhi, ylerp = _scalar_bilinear_table(resized_h, height, align, half)
        xlo, xhi, xlerp = _scalar_bilinear_table(resized_w, width, align, half)
        one = np.float32(1)
        for y in range(resized_h):
            for x in range(resized_w):
                g = grads[:, y, x, :].astype(np.float32)
                y_in, x_in = one - ylerp[y], one - xlerp[x]
                out[:, ylo[y], xlo[x]] += (g * y_in * x_in).astype(out.dtype)
                out[:, ylo[y], xhi[x]] += (g * y_in * xlerp[x]).astype(out.dtype)
                out[:, yhi[y], xlo[x]] += (g * ylerp[y] * x_in).astype(out.dtype)
                out[:, yhi[y], xhi[x]] += (g * ylerp[y] * xlerp[x]).astype(out.dtype)
        return out.astype(dtype, copy=False)
    return resize_bilinear_grad


@register_kernel("ResizeNearestNeighborGrad", DEVICE)
def build_resize_nearest_grad(node):
    def resize_nearest_grad(grads, size):
        height, width, align, half = check_nearest_grad(node, grads.shape, size)
        batch, resized_h, resized_w, channels = grads.shape
        out = np.zeros((batch, height, width, channels), grads.dtype)
        ys = _scalar_nearest_table(resized_h, height, align, half)
        xs = _scalar_nearest_table(resized_w, width, align, half)
        for y in range(resized_h):
            for x in range(resized_w):
                out[:, ys[y], xs[x]] += grads[:, y, x]
        return out
    return resize_nearest_grad
