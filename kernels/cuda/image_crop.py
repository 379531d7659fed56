"""CropAndResize GPU kernels: ``kernels/crops.py`` on cupy (gathers and lerps for the
crops, the segment-sum kernel for the image's gradient, reductions for the boxes'), the
sample tables computed on the host (``reference.image_crop.crop_tables``: a few numbers
per box) and uploaded.  Inputs are checked on the host with the reference's checks (TF's
messages); ``box_index`` is copied down for its range check, as TF's GPU kernel does."""

from __future__ import annotations

import cupy
import numpy as np

from .. import crops
from ..reference.image_crop import (_method, check_box_index, check_boxes, check_crop,
                                    check_grads, crop_size_of, image_size_of)
from ..registry import register_kernel
from .array import add_rows
from .device import on_device

__all__: list = []

_F32 = np.dtype(np.float32)


def _host_boxes(boxes):
    return cupy.asnumpy(boxes) if isinstance(boxes, cupy.ndarray) else np.asarray(boxes)


@register_kernel("CropAndResize", "GPU")
def build_crop_and_resize(node):
    method = _method(node)
    extrapolation = np.float32(node.attrs.get("extrapolation_value", 0.0))

    def crop_and_resize(image, boxes, box_index, crop_size):
        count = check_crop(node, image.shape, boxes.shape, box_index.shape)
        crop_h, crop_w = crop_size_of(node, crop_size)
        batch, height, width, depth = image.shape
        index = cupy.asarray(check_box_index(node, box_index, batch))
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
        count = check_boxes(node, boxes.shape, box_index.shape)
        shape = image_size_of(node, image_size)
        check_grads(node, grads.shape, count, shape[3])
        index = cupy.asarray(check_box_index(node, box_index, shape[0]))
        if count == 0:
            return cupy.zeros(shape, dtype)
        rows, columns = crops.tables(cupy, _host_boxes(boxes), *grads.shape[1:3], *shape[1:3])
        return crops.image_gradient(cupy, grads, index, rows, columns, method, shape, dtype,
                                    add_rows)
    return on_device(node, grad_image)


@register_kernel("CropAndResizeGradBoxes", "GPU")
def build_crop_and_resize_grad_boxes(node):
    def grad_boxes(grads, image, boxes, box_index):
        count = check_crop(node, image.shape, boxes.shape, box_index.shape)
        check_grads(node, grads.shape, count, image.shape[3])
        index = cupy.asarray(check_box_index(node, box_index, image.shape[0]))
        if count == 0:
            return cupy.zeros((0, 4), _F32)
        rows, columns = crops.tables(cupy, _host_boxes(boxes), *grads.shape[1:3],
                                     *image.shape[1:3])
        return crops.boxes_gradient(cupy, grads, image, index, rows, columns)
    return on_device(node, grad_boxes)
