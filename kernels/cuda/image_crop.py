"""CropAndResize GPU kernels: ``kernels/crops.py`` on cupy (gathers and lerps for the
crops, the segment-sum kernel for the image's gradient, reductions for the boxes'), the
sample tables computed on the host (``reference.image_crop.crop_tables``: a few numbers
per box) and uploaded.  Inputs are checked on the host with the reference's checks (TF's
messages); ``box_index`` is copied down for its range check, as TF's GPU kernel does."""

from __future__ import annotations

import cupy
import numpy as np

from .. import crops
from ..reference.image_crop import (_method, checked_crop, checked_grad_boxes,
                                    checked_grad_image, crop_attrs)
from ..registry import register_kernel
from .array import add_rows
from .device import on_device

__all__: list = []

_F32 = np.dtype(np.float32)


def _host_boxes(boxes):
    return cupy.asnumpy(boxes) if isinstance(boxes, cupy.ndarray) else np.asarray(boxes)


@register_kernel("CropAndResize", "GPU")
def build_crop_and_resize(node):
    method, extrapolation = crop_attrs(node)

    def crop_and_resize(image, boxes, box_index, crop_size):
        count, crop_h, crop_w, index = checked_crop(node, image, boxes, box_index, crop_size)
        height, width, depth = image.shape[1:]
        index = cupy.asarray(index)
        if count == 0:
            return cupy.zeros((0, crop_h, crop_w, depth), _F32)
        rows, columns = crops.tables(cupy, _host_boxes(boxes), crop_h, crop_w, height, width)
        return crops.crop(cupy, image, index, rows, columns, method, extrapolation)
    return on_device(node, crop_and_resize)


@register_kernel("CropAndResizeGradImage", "GPU")
def build_crop_and_resize_grad_image(node):
    method = _method(node)
    dtype = np.dtype(node.output_dtype)

    def grad_image(grads, boxes, box_index, image_size):
        count, shape, index = checked_grad_image(node, grads, boxes, box_index, image_size)
        index = cupy.asarray(index)
        if count == 0:
            return cupy.zeros(shape, dtype)
        rows, columns = crops.tables(cupy, _host_boxes(boxes), *grads.shape[1:3], *shape[1:3])
        return crops.image_gradient(cupy, grads, index, rows, columns, method, shape, dtype,
                                    add_rows)
    return on_device(node, grad_image)


@register_kernel("CropAndResizeGradBoxes", "GPU")
def build_crop_and_resize_grad_boxes(node):
    def grad_boxes(grads, image, boxes, box_index):
        count, index = checked_grad_boxes(node, grads, image, boxes, box_index)
        index = cupy.asarray(index)
        if count == 0:
            return cupy.zeros((0, 4), _F32)
        rows, columns = crops.tables(cupy, _host_boxes(boxes), *grads.shape[1:3],
                                     *image.shape[1:3])
        return crops.boxes_gradient(cupy, grads, image, index, rows, columns)
    return on_device(node, grad_boxes)
