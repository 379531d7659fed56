"""Gradients of the resize ops (``image.py``), as TF's ``image_grad.py`` registers them.

* ResizeBilinear: ``ResizeBilinearGrad(grad, images)`` with the forward op's flags; an
  integer image gets none (TF's gradient op takes float images only).
* ResizeNearestNeighbor: ``ResizeNearestNeighborGrad(grad, images' height and width)``
  (static dims when the graph knows both, else ``shape(images)[1:3]``).
* ResizeBilinearGrad: not differentiable, as in TF.
* ResizeNearestNeighborGrad (TF registers nothing): it is linear in ``grads`` and sums
  each resized pixel into the pixel the forward pass copied it from, so its adjoint is
  that copy: ResizeNearestNeighbor of the incoming gradient back to ``grads``' height and
  width (the same scale and indices, since TF computes the gradient's scale from the
  same two sizes).

The size inputs get no gradient.  Checked against finite differences in
tests/test_image.py.
"""

from __future__ import annotations

from .array_fill import shape
from .image import resize_bilinear_grad, resize_nearest_neighbor, resize_nearest_neighbor_grad
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
    return {"align_corners": op.get_attr("align_corners"),
            "half_pixel_centers": op.get_attr("half_pixel_centers")}


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
