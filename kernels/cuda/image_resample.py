"""ResizeBicubic, ResizeBicubicGrad and ResizeArea on the GPU: ``kernels/resample.py``
on cupy (gathers and weighted sums for the resizes, the segment-sum kernel for the
bicubic gradient's scatter), the per-axis tables computed on the host
(``reference.image_resample``: a few numbers per output index) and uploaded.  Inputs
are checked on the host with the reference's checks (TF's messages)."""

from __future__ import annotations

import cupy

from .. import resample
from ..reference.image_resample import check_area, check_bicubic, check_bicubic_grad
from ..registry import register_kernel
from .array import add_rows
from .device import on_device

__all__: list = []


@register_kernel("ResizeBicubic", "GPU")
def build_resize_bicubic(node):
    def resize_bicubic(images, size):
        out_h, out_w, align, half = check_bicubic(node, images.shape, size)
        return resample.bicubic(cupy, images, out_h, out_w, align, half)
    return on_device(node, resize_bicubic)


@register_kernel("ResizeBicubicGrad", "GPU")
def build_resize_bicubic_grad(node):
    def resize_bicubic_grad(grads, original_image):
        align, half = check_bicubic_grad(node, grads.shape, original_image.shape)
        return resample.bicubic_gradient(cupy, grads, original_image.shape,
                                         original_image.dtype, align, half, add_rows)
    return on_device(node, resize_bicubic_grad)


@register_kernel("ResizeArea", "GPU")
def build_resize_area(node):
    def resize_area(images, size):
        out_h, out_w, align = check_area(node, images.shape, size)
        return resample.area(cupy, images, out_h, out_w, align)
    return on_device(node, resize_area)
