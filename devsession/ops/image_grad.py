"""Gradients of the resize ops (``image.py``), as TF's ``image_grad.py`` registers them.

* ResizeBilinear: ``ResizeBilinearGrad(grad, images)`` with the forward op's flags; an
  integer image gets none (TF's gradient op takes float images only).
* ResizeNearestNeighbor: ``ResizeNearestNeighborGrad(grad, images' height and width)``
  (static dims when the graph knows both, else ``shape(images)[1:3]``).
* ResizeBilinearGrad: not differentiable, as in TF.
* ResizeBicubic: ``ResizeBicubicGrad(grad, images)`` for float32/float64 images (none
  for other dtypes), as TF's ``_ResizeBicubicGrad``.  ResizeBicubicGrad and ResizeArea
  have no gradient: TF registers none, so differentiating through one is TF's
  ``LookupError`` (not a silent None that would leave a loss untrained).
* CropAndResize: ``CropAndResizeGradImage`` (float images only) and
  ``CropAndResizeGradBoxes``, as TF's ``_CropAndResizeGrad``; its gradient ops have no
  gradient either (TF registers none: ``LookupError``).
* ResizeNearestNeighborGrad (TF registers nothing): it is linear in ``grads`` and sums
  each resized pixel into the pixel the forward pass copied it from, so its adjoint is
  that copy: ResizeNearestNeighbor of the incoming gradient back to ``grads``' height and
  width (the same scale and indices, since TF computes the gradient's scale from the
  same two sizes).

The size inputs get no gradient.  Checked against finite differences in
tests/test_image.py.
"""

from __future__ import annotations

from .. import dtypes
from .array_fill import shape
from .image import resize_bilinear_grad, resize_nearest_neighbor, resize_nearest_neighbor_grad
from .image_crop import crop_and_resize_grad_boxes, crop_and_resize_grad_image
from .image_resample import resize_bicubic_grad
from .registry import not_differentiable, register_gradient

__all__: list = []

not_differentiable("ResizeBilinearGrad")


def _height_width(x):
    """``x``'s dims 1 and 2: Python ints when both are known, else a tensor."""
    dims = x.shape.dims
    if dims is not None and dims[1] is not None and dims[2] is not None:
        return [dims[1], dims[2]]
    return shape(x)[1:3]


def _flags(op) -> dict:
    return {"align_corners": op.attrs["align_corners"],
            "half_pixel_centers": op.attrs["half_pixel_centers"]}


@register_gradient("ResizeBilinear")
def _resize_bilinear_grad(op, grad):
    images = op.inputs[0]
    if grad is None or not images.dtype.is_floating:
        return [None, None]
    return [resize_bilinear_grad(grad, images, **_flags(op)), None]


@register_gradient("ResizeNearestNeighbor")
def _resize_nearest_grad(op, grad):
    if grad is None:
        return [None, None]
    return [resize_nearest_neighbor_grad(grad, _height_width(op.inputs[0]), **_flags(op)),
            None]


@register_gradient("ResizeNearestNeighborGrad")
def _resize_nearest_grad_grad(op, grad):
    if grad is None:
        return [None, None]
    return [resize_nearest_neighbor(grad, _height_width(op.inputs[0]), **_flags(op)), None]


@register_gradient("CropAndResize")
def _crop_and_resize_grad(op, grad):
    """TF's ``_CropAndResizeGrad``: the image's gradient for float images (static shape
    when known, else ``shape(image)``), the boxes' always (bilinear, as TF approximates
    it for nearest sampling too); none for the indices and the size."""
    image, boxes, box_ind = op.inputs[0], op.inputs[1], op.inputs[2]
    if grad is None:
        return [None] * 4
    grad_image = None
    if image.dtype.is_floating:
        dims = image.shape.dims
        size = list(dims) if dims is not None and None not in dims else shape(image)
        grad_image = crop_and_resize_grad_image(grad, boxes, box_ind, size, T=image.dtype,
                                                method=op.attrs["method"])
    return [grad_image, crop_and_resize_grad_boxes(grad, image, boxes, box_ind), None, None]


@register_gradient("ResizeBicubic")
def _resize_bicubic_grad(op, grad):
    """TF's ``_ResizeBicubicGrad``: the images' gradient for float32/float64 images."""
    image = op.inputs[0]
    if grad is None or image.dtype not in (dtypes.float32, dtypes.float64):
        return [None, None]
    return [resize_bicubic_grad(grad, image, **_flags(op)), None]
