"""Image resizing: ResizeBilinear and ResizeNearestNeighbor (``tf.image.resize_bilinear``,
``tf.image.resize_nearest_neighbor``) and the gradient ops TF's ``image_grad.py``
builds, ResizeBilinearGrad and ResizeNearestNeighborGrad.

**ResizeBilinear(images, size)**: ``images`` ``[batch, height, width, channels]`` of any
real dtype (int8 ... int64, uint8, uint16, float16/32/64), ``size`` an int32 vector
``[new_height, new_width]`` (a host input, as TF's HostMemory("size"), so it may be
fed or computed); the output is float32 ``[batch, new_height, new_width, channels]``
whatever the input's dtype, as TF's.  **ResizeNearestNeighbor** takes the same inputs
and keeps the input's dtype.  Both have TF's attrs ``align_corners`` and
``half_pixel_centers`` (False by default: TF1's legacy sampling); setting both builds,
as TF's, and is the kernel's ``InvalidArgumentError`` when the op runs.  The sampling
(scales, source coordinates, float32 rounding) is TF 2.21's: ``kernels/reference/image.py``
spells it out.

**ResizeBilinearGrad(grads, original_image)**: float32 ``grads`` (the resized image's
gradient) spread back onto a float16/32/64 image of ``original_image``'s height and
width (only its shape is read); **ResizeNearestNeighborGrad(grads, size)**: ``grads``
summed back onto ``size`` (the original height and width), in ``grads``' dtype.

Static shapes as TF infers them, with the errors TF only finds at run time raised when
the graph is built where the graph already knows them: images of rank other than 4,
``size`` not an int32 vector of 2 elements, a constant size that is not positive, a known
height, width or channel count of 0: ``ValueError`` (TypeError
for a dtype TF's op does not take).  At run time the kernels raise
``InvalidArgumentError`` naming the node, with TF's messages.

Gradients: ``image_grad.py``.  Kernels: ``kernels/{reference,cpu,cuda}/image.py``.  The
``tf.image`` functions built from these and other ops are ``devsession/image.py``.

    small = ds.image.resize_bilinear(images, [112, 112])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .array_operands import int_operand, shape_operand
from .common import make_op
from .image_operands import dtype_in
from .registry import InferError, OpDef, register_op

__all__ = ["resize_bilinear", "resize_nearest_neighbor", "resize_bilinear_grad",
           "resize_nearest_neighbor_grad", "IMAGE_DTYPES"]

# TF's TF_CALL_REAL_NUMBER_TYPES, as far as devsession has them
IMAGE_DTYPES = (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32,
                dtypes.int64, dtypes.float16, dtypes.float32, dtypes.float64)
_GRAD_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)
_FLAGS = {"align_corners": False, "half_pixel_centers": False}


def _rank4(spec, node: str, what: str) -> list:
    """The four dims of ``spec`` (None where unknown); InferError for another rank."""
    if spec.shape.ndims is None:
        return [None] * 4
    if spec.shape.ndims != 4:
        raise InferError(f"Op '{node}': {what} '{spec.name}' must be 4-D [batch, height, "
                         f"width, channels], but has shape {spec.shape}.")
    return list(spec.shape.dims)


def _nonzero(dims, node: str, spec, what: str) -> None:
    """TF's run-time checks of an image's height and width, where the graph knows them."""
    if 0 in dims[1:3]:
        raise InferError(f"Op '{node}': {what} '{spec.name}' must be of non-zero size, but "
                         f"has shape {spec.shape}.")


def _size(spec, node: str) -> list:
    """``[height, width]`` that the int32 size input gives (None where unknown).  A size
    that is not positive is the kernel's InvalidArgumentError when the op runs, as TF's,
    whose shape function makes 0 a dimension of 0 and -1 an unknown one (below -1, TF's
    Python shape is a ValueError at build: "Dimension -5 must be >= 0")."""
    if spec.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': size '{spec.name}' must be int32, not "
                        f"{spec.dtype.name}.")
    if spec.shape.ndims not in (None, 1) or (spec.shape.ndims == 1 and
                                              spec.shape.dims[0] not in (None, 2)):
        raise InferError(f"Op '{node}': size '{spec.name}' must be a vector of 2 elements "
                         f"[new_height, new_width], but has shape {spec.shape}.")
    if spec.value is not None:
        dims = [int(d) for d in np.asarray(spec.value).reshape(-1)]
    else:
        known = shape_operand(spec)
        dims = list(known.dims) if known.ndims == 2 else [None, None]
    for d in dims:
        if d is not None and d < -1:
            raise InferError(f"Dimension {d} must be >= 0")
    return [None if d == -1 else d for d in dims]


def _resize(inputs, attrs, node, keep_dtype: bool):
    images, size = inputs
    dtype_in(images, IMAGE_DTYPES, node, "images")
    batch, height, width, channels = _rank4(images, node, "images")
    _nonzero([batch, height, width], node, images, "images")
    if channels == 0:
        raise InferError(f"Op '{node}': images '{images.name}' must have at least one "
                         f"channel, but has shape {images.shape}.")
    new_height, new_width = _size(size, node)
    dtype = images.dtype if keep_dtype else dtypes.float32
    return dtype, TensorShape([batch, new_height, new_width, channels])


def _resize_bilinear(inputs, attrs, node):
    return _resize(inputs, attrs, node, keep_dtype=False)


def _resize_nearest(inputs, attrs, node):
    return _resize(inputs, attrs, node, keep_dtype=True)


def _same(a, b, node: str, what: str):
    if a is not None and b is not None and a != b:
        raise InferError(f"Op '{node}': the gradient and the original image have different "
                         f"{what} ({a} vs. {b}).")
    return a if a is not None else b


def _resize_grad(inputs, attrs, node, forward: str, original_dtypes):
    """The gradient ops of the float32 resizes (``forward``: the op whose output
    ``grads`` is), spreading ``grads`` onto ``original_image``'s shape and dtype."""
    grads, original = inputs
    if grads.dtype != dtypes.float32:
        raise TypeError(f"Op '{node}': grads '{grads.name}' must be float32 (what "
                        f"{forward} outputs), not {grads.dtype.name}.")
    dtype_in(original, original_dtypes, node, "original_image")
    g_dims = _rank4(grads, node, "grads")
    o_dims = _rank4(original, node, "original_image")
    _nonzero(g_dims, node, grads, "grads")
    _nonzero(o_dims, node, original, "original_image")
    batch = _same(g_dims[0], o_dims[0], node, "batch sizes")
    channels = _same(g_dims[3], o_dims[3], node, "channel counts")
    return original.dtype, TensorShape([batch, o_dims[1], o_dims[2], channels])


def _resize_bilinear_grad(inputs, attrs, node):
    return _resize_grad(inputs, attrs, node, "ResizeBilinear", _GRAD_DTYPES)


def _resize_nearest_grad(inputs, attrs, node):
    grads, size = inputs
    dtype_in(grads, IMAGE_DTYPES, node, "grads")
    batch, _, _, channels = _rank4(grads, node, "grads")
    height, width = _size(size, node)
    return grads.dtype, TensorShape([batch, height, width, channels])


register_op(OpDef("ResizeBilinear", _resize_bilinear, 2, attr_defaults=_FLAGS,
                  host_inputs=(1,)))
register_op(OpDef("ResizeNearestNeighbor", _resize_nearest, 2, attr_defaults=_FLAGS,
                  host_inputs=(1,)))
register_op(OpDef("ResizeBilinearGrad", _resize_bilinear_grad, 2, attr_defaults=_FLAGS))
register_op(OpDef("ResizeNearestNeighborGrad", _resize_nearest_grad, 2,
                  attr_defaults=_FLAGS, host_inputs=(1,)))


def _size_operand(size, graph) -> Tensor:
    size = int_operand(size, graph)
    if size.dtype != dtypes.int32:
        raise TypeError(f"The size '{size.name}' must be int32, not {size.dtype.name}.")
    return size


def _flag_attrs(align_corners, half_pixel_centers) -> dict:
    return {"align_corners": bool(align_corners), "half_pixel_centers": bool(half_pixel_centers)}


def _sized_op(op_type: str, images, size, attrs: dict, name) -> Tensor:
    """An ``op_type`` node of inputs ``(images, size)``, as every resize has, and
    ResizeNearestNeighborGrad (``size`` an int32 host operand)."""
    x = convert_to_tensor(images)
    return make_op(op_type, [x, _size_operand(size, x.graph)], attrs, name or op_type)


def _grad_op(op_type: str, grads, original_image, attrs: dict, name) -> Tensor:
    """An ``op_type`` node of inputs ``(grads, original_image)``: the gradient ops that
    read the original image's shape."""
    g = convert_to_tensor(grads)
    original = convert_to_tensor(original_image, graph=g.graph)
    return make_op(op_type, [g, original], attrs, name or op_type)


def resize_bilinear(images, size, align_corners=False, name=None,
                    half_pixel_centers=False) -> Tensor:
    """``images`` (4-D) resized to ``size`` by bilinear interpolation, float32: TF1's
    ``tf.image.resize_bilinear`` (see the module docstring).  Raises ValueError for
    shapes and sizes the op rejects, TypeError for a non-int32 size or a bool image."""
    return _sized_op("ResizeBilinear", images, size,
                     _flag_attrs(align_corners, half_pixel_centers), name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False) -> Tensor:
    """``images`` (4-D) resized to ``size`` by copying each output pixel's nearest source
    pixel, in ``images``' dtype: TF1's ``tf.image.resize_nearest_neighbor``."""
    return _sized_op("ResizeNearestNeighbor", images, size,
                     _flag_attrs(align_corners, half_pixel_centers), name)


def resize_bilinear_grad(grads, original_image, align_corners=False, half_pixel_centers=False,
                         name=None) -> Tensor:
    """ResizeBilinear's input gradient (what ``image_grad.py`` builds)."""
    return _grad_op("ResizeBilinearGrad", grads, original_image,
                    _flag_attrs(align_corners, half_pixel_centers), name)


def resize_nearest_neighbor_grad(grads, size, align_corners=False, half_pixel_centers=False,
                                 name=None) -> Tensor:
    """ResizeNearestNeighbor's input gradient: ``grads`` summed back onto ``size``."""
    return _sized_op("ResizeNearestNeighborGrad", grads, size,
                     _flag_attrs(align_corners, half_pixel_centers), name)
