"""CropAndResize (``tf.image.crop_and_resize``) and its gradient ops
CropAndResizeGradImage and CropAndResizeGradBoxes, TF's op types, inputs and attrs.

**CropAndResize(image, boxes, box_ind, crop_size)**: ``image`` ``[batch, height, width,
depth]`` of any real dtype, ``boxes`` float32 ``[num_boxes, 4]`` (``[y1, x1, y2, x2]``
normalized; y1 > y2 flips the crop), ``box_ind`` int32 ``[num_boxes]`` (the image of
each box), ``crop_size`` int32 ``[crop_height, crop_width]`` (a host input); attrs
``method`` ("bilinear" or "nearest") and ``extrapolation_value`` (samples outside the
image).  Output float32 ``[num_boxes, crop_height, crop_width, depth]``.

**CropAndResizeGradImage(grads, boxes, box_ind, image_size)**: the image's gradient,
``image_size`` (int32 ``[4]``, host) its shape, attr ``T`` the image's float dtype.
**CropAndResizeGradBoxes(grads, image, boxes, box_ind)**: the boxes' gradient, float32
``[num_boxes, 4]`` (bilinear, as TF, whatever the forward method).

Sampling and sums are TF's (``kernels/reference/image_crop.py``).  Gradients:
``image_grad.py``.  Static shape errors are ``ValueError`` (TypeError for dtypes TF's
op does not take); run-time ones ``InvalidArgumentError`` naming the node, but a
``box_ind`` value outside ``[0, batch)`` is ``OutOfRangeError``, as TF's.

    crops = ds.image.crop_and_resize(images, boxes, box_ind, [14, 14])
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array_operands import int_operand
from .common import make_op
from .image import IMAGE_DTYPES, _size
from .image_operands import box_count, dims_of_rank, dtype_in
from .registry import InferError, OpDef, register_op

__all__ = ["crop_and_resize", "crop_and_resize_grad_image", "crop_and_resize_grad_boxes",
           "CROP_OPS"]

CROP_OPS = ("CropAndResize", "CropAndResizeGradImage", "CropAndResizeGradBoxes")
_GRAD_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)
_METHODS = ("bilinear", "nearest")


def _method(attrs, node: str, allowed=_METHODS) -> None:
    method = attrs.get("method", "bilinear")
    method = method.decode() if isinstance(method, bytes) else method
    if method not in allowed:
        raise InferError(f"Op '{node}': method must be one of {list(allowed)}, got "
                         f"'{method}'.")


def _boxes(boxes, box_ind, node: str):
    """The number of boxes (None if unknown), the boxes and their indices checked."""
    if boxes.dtype != dtypes.float32:
        raise TypeError(f"Op '{node}': boxes '{boxes.name}' must be float32, not "
                        f"{boxes.dtype.name}.")
    if box_ind.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': box_ind '{box_ind.name}' must be int32, not "
                        f"{box_ind.dtype.name}.")
    return box_count(boxes, box_ind, node, "box_ind", "index")


def _image(spec, node: str, allowed=IMAGE_DTYPES) -> list:
    dtype_in(spec, allowed, node, "image")
    dims = dims_of_rank(spec, 4, node, "image")
    if 0 in dims[1:3]:
        raise InferError(f"Op '{node}': image '{spec.name}' must be of non-zero size, but "
                         f"has shape {spec.shape}.")
    return dims


def _grads(spec, node: str) -> list:
    if spec.dtype != dtypes.float32:
        raise TypeError(f"Op '{node}': grads '{spec.name}' must be float32, not "
                        f"{spec.dtype.name}.")
    return dims_of_rank(spec, 4, node, "grads")


def _crop_and_resize(inputs, attrs, node):
    image, boxes, box_ind, crop_size = inputs
    _method(attrs, node)
    dims = _image(image, node)
    count = _boxes(boxes, box_ind, node)
    crop_h, crop_w = _size(crop_size, node)
    return dtypes.float32, TensorShape([count, crop_h, crop_w, dims[3]])


def _grad_image(inputs, attrs, node):
    grads, boxes, box_ind, image_size = inputs
    _method(attrs, node)
    g = _grads(grads, node)
    _boxes(boxes, box_ind, node)
    if image_size.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': image_size '{image_size.name}' must be int32.")
    dtype = attrs.get("T", dtypes.float32)
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _GRAD_DTYPES:
        raise TypeError(f"Op '{node}': T must be float16, float32 or float64, not "
                        f"{dtype.name}.")
    if image_size.value is not None:
        dims = [int(d) for d in image_size.value]
        return dtype, TensorShape(dims)
    return dtype, TensorShape([None, None, None, g[3]])


def _grad_boxes(inputs, attrs, node):
    grads, image, boxes, box_ind = inputs
    _method(attrs, node, ("bilinear",))
    _grads(grads, node)
    _image(image, node)
    count = _boxes(boxes, box_ind, node)
    return dtypes.float32, TensorShape([count, 4])


register_op(OpDef("CropAndResize", _crop_and_resize, 4, host_inputs=(3,),
                  attr_defaults={"method": "bilinear", "extrapolation_value": 0.0}))
register_op(OpDef("CropAndResizeGradImage", _grad_image, 4, host_inputs=(3,),
                  attr_defaults={"method": "bilinear", "T": dtypes.float32}))
register_op(OpDef("CropAndResizeGradBoxes", _grad_boxes, 4,
                  attr_defaults={"method": "bilinear"}))


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear",
                    extrapolation_value=0.0, name=None, box_indices=None) -> Tensor:
    """Crops of ``image`` (4-D) at ``boxes`` (normalized ``[y1, x1, y2, x2]``), from the
    images ``box_ind`` names, each resized to ``crop_size`` by bilinear or nearest
    sampling, float32: TF1's ``tf.image.crop_and_resize``.  Differentiable with respect
    to ``image`` (float images) and ``boxes``.  ``box_indices`` is TF1's newer name of
    ``box_ind`` (giving both: ValueError, as TF's).  ValueError for shapes the op rejects
    or a method other than "bilinear" and "nearest"."""
    if box_ind is not None and box_indices is not None:
        raise ValueError("Cannot specify both 'box_ind' and 'box_indices'.")
    box_ind = box_indices if box_ind is None else box_ind
    if method not in _METHODS:
        raise ValueError(f"crop_and_resize: method must be 'bilinear' or 'nearest', got "
                         f"{method!r}.")
    with name_scope(name or "CropAndResize") as scope:     # TF's op and inputs' names
        x = convert_to_tensor(image, name="image")
        graph = x.graph
        b = convert_to_tensor(boxes, dtype=dtypes.float32, name="boxes", graph=graph)
        ind = convert_to_tensor(box_ind, dtype=dtypes.int32, name="box_ind", graph=graph)
        size = int_operand(crop_size, graph, name="crop_size")
        return make_op("CropAndResize", [x, b, ind, size],
                       {"method": method, "extrapolation_value": float(extrapolation_value)},
                       scope)


def crop_and_resize_grad_image(grads, boxes, box_ind, image_size, T, method="bilinear",
                               name=None) -> Tensor:
    """CropAndResize's image gradient (what ``image_grad.py`` builds)."""
    g = convert_to_tensor(grads)
    size = int_operand(image_size, g.graph, name="image_size")
    return make_op("CropAndResizeGradImage", [g, boxes, box_ind, size],
                   {"T": dtypes.as_dtype(T), "method": method},
                   name or "CropAndResizeGradImage")


def crop_and_resize_grad_boxes(grads, image, boxes, box_ind, method="bilinear",
                               name=None) -> Tensor:
    """CropAndResize's boxes gradient (what ``image_grad.py`` builds)."""
    g = convert_to_tensor(grads)
    return make_op("CropAndResizeGradBoxes", [g, image, boxes, box_ind], {"method": method},
                   name or "CropAndResizeGradBoxes")
