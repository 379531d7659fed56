"""ResizeBicubic, ResizeBicubicGrad and ResizeArea on the CPU: ``kernels/resample.py``
on numpy (whole-array gathers and weighted sums in TF's order, so the values equal the
reference's; the gradient's scatter is ``np.add.at`` in TF's order), the tables from
``reference.image_resample``.  Inputs are checked with the reference's checks."""

from __future__ import annotations

import numpy as np

from .. import resample
from ..reference.image_resample import check_area, check_bicubic, check_bicubic_grad
from ..registry import register_kernel

__all__: list = []


def _add_rows(out, rows, values):
    np.add.at(out, rows, values)
    return out


@register_kernel("ResizeBicubic", "CPU")
def build_resize_bicubic(node):
    def resize_bicubic(images, size):
        out_h, out_w, align, half = check_bicubic(node, images.shape, size)
        with np.errstate(invalid="ignore", over="ignore"):
            return resample.bicubic(np, images, out_h, out_w, align, half)
    return resize_bicubic


@register_kernel("ResizeBicubicGrad", "CPU")
def build_resize_bicubic_grad(node):
    def resize_bicubic_grad(grads, original_image):
        align, half = check_bicubic_grad(node, grads.shape, original_image.shape)
        return resample.bicubic_gradient(np, grads, original_image.shape,
                                         original_image.dtype, align, half, _add_rows)
    return resize_bicubic_grad


@register_kernel("ResizeArea", "CPU")
def build_resize_area(node):
    def resize_area(images, size):
        out_h, out_w, align = check_area(node, images.shape, size)
        with np.errstate(invalid="ignore", over="ignore"):
            return resample.area(np, images, out_h, out_w, align)
    return resize_area
