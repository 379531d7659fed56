"""Image resize GPU kernels: ResizeBilinear and ResizeBilinearGrad as one
``cupy.ElementwiseKernel`` launch each, ResizeNearestNeighbor and its gradient with cupy's
gathers and the segment-sum kernel of ``array.py``.

The per-axis sampling tables (source indices and lerps, a few hundred entries) are
computed on the host by ``reference.image``'s vectorised ``bilinear_table`` and
``nearest_table`` (the size input is a host input: ``OpDef.host_inputs``) and uploaded;
the kernels do the per-pixel work:

* ResizeBilinear: a thread per output element reads its four source values (as float)
  and lerps them with TF's formula.  The products and sums are written with
  ``__fmul_rn``/``__fadd_rn``/``__fsub_rn`` so that nvcc does not fuse them into FMAs:
  each step rounds to float32 as TF's CPU kernel (and the reference) does, and the
  results agree bit for bit.
* ResizeBilinearGrad: a thread per element of the resized gradient adds its four
  weighted shares into the original image's pixels with ``atomicAdd`` (TF's GPU
  kernel's way), in float64 for a float64 image and float32 otherwise (float16 rounded
  once at the end); sums land in an order the hardware picks, as in TF.
* ResizeNearestNeighbor: ``cupy.take`` along the rows, then along the columns.
* ResizeNearestNeighborGrad: each gradient pixel's destination row
  ``(n * H + ys[y]) * W + xs[x]`` and ``array.add_rows`` (UnsortedSegmentSum's kernel,
  which widens float16 and small integers for ``atomicAdd``).

Inputs are checked on the host with the reference's ``check_*`` (TF's messages).  float16
images are widened to float32 before the bilinear kernel (exact).
"""

from __future__ import annotations

import functools

import cupy
import numpy as np

from ..reference.image import (bilinear_table, check_bilinear_grad, check_nearest_grad,
                               check_resize, grad_accumulator, nearest_table)
from ..registry import register_kernel
from .array import add_rows
from .device import on_device

__all__ = ["build_resize_bilinear", "build_resize_bilinear_grad", "build_resize_nearest",
           "build_resize_nearest_grad"]

_F16, _F32, _I64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.int64)

# Round every step as float32 (no contraction into FMAs on the device).
_PREAMBLE = """
#ifdef __CUDACC__
#define DS_MUL(a, b) __fmul_rn((a), (b))
#define DS_ADD(a, b) __fadd_rn((a), (b))
#define DS_SUB(a, b) __fsub_rn((a), (b))
#else
#define DS_MUL(a, b) ((a) * (b))
#define DS_ADD(a, b) ((a) + (b))
#define DS_SUB(a, b) ((a) - (b))
#endif
"""

_TABLES = ("raw int64 ylo, raw int64 yhi, raw float32 ylerp, raw int64 xlo, raw int64 xhi, "
           "raw float32 xlerp")

_FORWARD = """
    const long long c = i % C;
    const long long ox = (i / C) % OW;
    const long long oy = (i / (C * OW)) % OH;
    const long long n = i / (C * OW * OH);
    const long long top = (n * H + ylo[oy]) * W;
    const long long bottom = (n * H + yhi[oy]) * W;
    const float top_left = (float)x[(top + xlo[ox]) * C + c];
    const float top_right = (float)x[(top + xhi[ox]) * C + c];
    const float bottom_left = (float)x[(bottom + xlo[ox]) * C + c];
    const float bottom_right = (float)x[(bottom + xhi[ox]) * C + c];
    const float upper = DS_ADD(top_left, DS_MUL(DS_SUB(top_right, top_left), xlerp[ox]));
    const float lower = DS_ADD(bottom_left,
                               DS_MUL(DS_SUB(bottom_right, bottom_left), xlerp[ox]));
    y = DS_ADD(upper, DS_MUL(DS_SUB(lower, upper), ylerp[oy]));
"""

_GRAD = """
    const long long c = i % C;
    const long long rx = (i / C) % RW;
    const long long ry = (i / (C * RW)) % RH;
    const long long n = i / (C * RW * RH);
    const float y_lerp = ylerp[ry], x_lerp = xlerp[rx];
    const float y_in = DS_SUB(1.0f, y_lerp), x_in = DS_SUB(1.0f, x_lerp);
    const long long top = (n * H + ylo[ry]) * W;
    const long long bottom = (n * H + yhi[ry]) * W;
    atomicAdd(&out[(top + xlo[rx]) * C + c], (A)DS_MUL(DS_MUL(g, y_in), x_in));
    atomicAdd(&out[(top + xhi[rx]) * C + c], (A)DS_MUL(DS_MUL(g, y_in), x_lerp));
    atomicAdd(&out[(bottom + xlo[rx]) * C + c], (A)DS_MUL(DS_MUL(g, y_lerp), x_in));
    atomicAdd(&out[(bottom + xhi[rx]) * C + c], (A)DS_MUL(DS_MUL(g, y_lerp), x_lerp));
"""


@functools.lru_cache(maxsize=None)
def _kernel(which: str):
    if which == "forward":
        return cupy.ElementwiseKernel(
            f"raw T x, {_TABLES}, int64 H, int64 W, int64 C, int64 OH, int64 OW",
            "float32 y", _FORWARD, name="devsession_resize_bilinear", preamble=_PREAMBLE)
    return cupy.ElementwiseKernel(
        f"float32 g, {_TABLES}, int64 H, int64 W, int64 C, int64 RH, int64 RW", "raw A out",
        _GRAD, name="devsession_resize_bilinear_grad", preamble=_PREAMBLE)


def _upload(*tables):
    return [cupy.asarray(t) for t in tables]


@register_kernel("ResizeBilinear", "GPU")
def build_resize_bilinear(node):
    def resize_bilinear(images, size):
        out_h, out_w, align, half = check_resize(node, images.shape, size)
        batch, height, width, channels = images.shape
        if (out_h, out_w) == (height, width):
            return images.astype(_F32)
        out = cupy.empty((batch, out_h, out_w, channels), _F32)
        if out.size:
            x = cupy.ascontiguousarray(images.astype(_F32) if images.dtype == _F16 else images)
            tables = _upload(*bilinear_table(out_h, height, align, half),
                             *bilinear_table(out_w, width, align, half))
            _kernel("forward")(x.reshape(-1), *tables, height, width, channels, out_h, out_w,
                               out)
        return out
    return on_device(node, resize_bilinear)


@register_kernel("ResizeBilinearGrad", "GPU")
def build_resize_bilinear_grad(node):
    def resize_bilinear_grad(grads, original_image):
        align, half = check_bilinear_grad(node, grads.shape, original_image.shape)
        batch, resized_h, resized_w, channels = grads.shape
        height, width = original_image.shape[1:3]
        dtype = original_image.dtype
        out = cupy.zeros((batch, height, width, channels), grad_accumulator(dtype))
        if grads.size:
            tables = _upload(*bilinear_table(resized_h, height, align, half),
                             *bilinear_table(resized_w, width, align, half))
            _kernel("grad")(cupy.ascontiguousarray(grads), *tables, height, width, channels,
                            resized_h, resized_w, out.reshape(-1))
        return out.astype(dtype, copy=False)
    return on_device(node, resize_bilinear_grad)


@register_kernel("ResizeNearestNeighbor", "GPU")
def build_resize_nearest(node):
    def resize_nearest(images, size):
        out_h, out_w, align, half = check_resize(node, images.shape, size)
        ys, xs = _upload(nearest_table(out_h, images.shape[1], align, half),
                         nearest_table(out_w, images.shape[2], align, half))
        return cupy.take(cupy.take(images, ys, axis=1), xs, axis=2)
    return on_device(node, resize_nearest)


@register_kernel("ResizeNearestNeighborGrad", "GPU")
def build_resize_nearest_grad(node):
    def resize_nearest_grad(grads, size):
        height, width, align, half = check_nearest_grad(node, grads.shape, size)
        batch, resized_h, resized_w, channels = grads.shape
        out = cupy.zeros((batch * height * width, channels), grads.dtype)
        if grads.size:
            ys = nearest_table(resized_h, height, align, half)
            xs = nearest_table(resized_w, width, align, half)
            pixel = (ys[:, None] * width + xs[None, :]).reshape(-1)         # host, small
            images = cupy.arange(batch, dtype=_I64)[:, None] * (height * width)
            rows = (images + cupy.asarray(pixel)[None, :]).reshape(-1)
            out = add_rows(out, rows, cupy.ascontiguousarray(grads).reshape(-1, channels))
        return out.reshape(batch, height, width, channels)
    return on_device(node, resize_nearest_grad)
