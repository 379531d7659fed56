"""ResizeBicubic and ResizeArea (``tf.image.resize_bicubic``, ``tf.image.resize_area``)
and ResizeBicubic's gradient op ResizeBicubicGrad, TF's op types, inputs and attrs.

**ResizeBicubic(images, size)**: ``images`` ``[batch, height, width, channels]`` of any
real dtype, ``size`` int32 ``[new_height, new_width]`` (a host input); attrs
``align_corners`` and ``half_pixel_centers`` as ResizeBilinear's (legacy sampling uses
the cubic coefficient -0.75 with edge pixels repeated, ``half_pixel_centers`` Keys'
-0.5 with weights outside the image dropped and the rest renormalised, as TF).  Output
float32.  **ResizeBicubicGrad(grads, original_image)**: float32 ``grads`` spread back
onto a float32/float64 image of ``original_image``'s shape.

**ResizeArea(images, size)**: each output pixel the average of the source area it
covers (partial pixels weighted by their covered part), attr ``align_corners`` only;
output float32.  TF registers no gradient for it (nor for ResizeBicubicGrad).

Static shapes and errors as ``ops/image.py``'s resizes (``ValueError`` when built,
``InvalidArgumentError`` naming the node at run time, both sampling flags set included).  Kernels:
``kernels/{reference,cpu,cuda}/image_resample.py``; gradient: ``image_grad.py``.

    big = ds.image.resize_bicubic(images, [448, 448], half_pixel_centers=True)
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor
from .image import _FLAGS, _flag_attrs, _grad_op, _resize, _resize_grad, _sized_op
from .registry import OpDef, register_op

__all__ = ["resize_bicubic", "resize_bicubic_grad", "resize_area", "RESAMPLE_OPS"]

RESAMPLE_OPS = ("ResizeBicubic", "ResizeBicubicGrad", "ResizeArea")
_GRAD_DTYPES = (dtypes.float32, dtypes.float64)


def _resize_bicubic(inputs, attrs, node):
    return _resize(inputs, attrs, node, keep_dtype=False)


def _resize_area(inputs, attrs, node):
    return _resize(inputs, {"align_corners": attrs.get("align_corners", False)}, node,
                   keep_dtype=False)


def _resize_bicubic_grad(inputs, attrs, node):
    return _resize_grad(inputs, attrs, node, "ResizeBicubic", _GRAD_DTYPES)


register_op(OpDef("ResizeBicubic", _resize_bicubic, 2, attr_defaults=_FLAGS,
                  host_inputs=(1,)))
register_op(OpDef("ResizeBicubicGrad", _resize_bicubic_grad, 2, attr_defaults=_FLAGS))
register_op(OpDef("ResizeArea", _resize_area, 2, attr_defaults={"align_corners": False},
                  host_inputs=(1,)))


def resize_bicubic(images, size, align_corners=False, name=None,
                   half_pixel_centers=False) -> Tensor:
    """``images`` (4-D) resized to ``size`` by TF's bicubic interpolation, float32: TF1's
    ``tf.image.resize_bicubic``.  Differentiable for float32/float64 images.  ValueError
    for shapes and sizes the op rejects, TypeError for a non-int32 size."""
    return _sized_op("ResizeBicubic", images, size,
                     _flag_attrs(align_corners, half_pixel_centers), name)


def resize_bicubic_grad(grads, original_image, align_corners=False, half_pixel_centers=False,
                        name=None) -> Tensor:
    """ResizeBicubic's input gradient (what ``image_grad.py`` builds)."""
    return _grad_op("ResizeBicubicGrad", grads, original_image,
                    _flag_attrs(align_corners, half_pixel_centers), name)


def resize_area(images, size, align_corners=False, name=None) -> Tensor:
    """``images`` (4-D) resized to ``size`` by averaging the source area under each
    output pixel, float32: TF1's ``tf.image.resize_area`` (not differentiable, as TF)."""
    return _sized_op("ResizeArea", images, size, {"align_corners": bool(align_corners)}, name)

