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
``InvalidArgumentError`` naming the node at run time).  Kernels:
``kernels/{reference,cpu,cuda}/image_resample.py``; gradient: ``image_grad.py``.

    big = ds.image.resize_bicubic(images, [448, 448], half_pixel_centers=True)
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .image import (_FLAGS, _flag_attrs, _flags, _nonzero, _rank4, _resize, _same,
                    _size_operand)
from .image_operands import dtype_in
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
    grads, original = inputs
    if grads.dtype != dtypes.float32:
        raise TypeError(f"Op '{node}': grads '{grads.name}' must be float32 (what "
                        f"ResizeBicubic outputs), not {grads.dtype.name}.")
    dtype_in(original, _GRAD_DTYPES, node, "original_image")
    _flags(attrs, node)
    g_dims = _rank4(grads, node, "grads")
    o_dims = _rank4(original, node, "original_image")
    _nonzero(g_dims, node, grads, "grads")
    _nonzero(o_dims, node, original, "original_image")
    batch = _same(g_dims[0], o_dims[0], node, "batch sizes")
    channels = _same(g_dims[3], o_dims[3], node, "channel counts")
    return original.dtype, TensorShape([batch, o_dims[1], o_dims[2], channels])


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
    x = convert_to_tensor(images)
    return make_op("ResizeBicubic", [x, _size_operand(size, x.graph)],
                   _flag_attrs(align_corners, half_pixel_centers), name or "ResizeBicubic")


def resize_bicubic_grad(grads, original_image, align_corners=False, half_pixel_centers=False,
                        name=None) -> Tensor:
    """ResizeBicubic's input gradient (what ``image_grad.py`` builds)."""
    g = convert_to_tensor(grads)
    original = convert_to_tensor(original_image, graph=g.graph)
    return make_op("ResizeBicubicGrad", [g, original],
                   _flag_attrs(align_corners, half_pixel_centers), name or "ResizeBicubicGrad")


def resize_area(images, size, align_corners=False, name=None) -> Tensor:
    """``images`` (4-D) resized to ``size`` by averaging the source area under each
    output pixel, float32: TF1's ``tf.image.resize_area`` (not differentiable, as TF)."""
    x = convert_to_tensor(images)
    return make_op("ResizeArea", [x, _size_operand(size, x.graph)],
                   {"align_corners": bool(align_corners)}, name or "ResizeArea")

