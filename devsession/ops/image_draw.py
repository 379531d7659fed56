"""DrawBoundingBoxes and DrawBoundingBoxesV2 (``tf.image.draw_bounding_boxes``), TF's op
types, inputs and attrs.

**DrawBoundingBoxes(images, boxes)**: ``images`` float32 or float16 ``[batch, height,
width, depth]`` (depth 1, 3 or 4), ``boxes`` float32 ``[batch, num_boxes, 4]``
(normalized ``[y_min, x_min, y_max, x_max]``); each box's outline is drawn one pixel
wide in TF's default colour table (yellow, blue, red, lime, purple, olive, maroon,
navy, aqua, fuchsia; every colour 1 in a one-channel image), box ``k`` in colour ``k %
10``.  **DrawBoundingBoxesV2(images, boxes, colors)**: ``colors`` float32 ``[n, >= depth]``
RGBA rows cycled the same way (an empty table means the default one).  Output: the
images with the outlines, their dtype and shape.  Not differentiable (TF registers no
gradient).  Edges are ``int(coordinate * (size - 1))``; inverted boxes and boxes wholly
outside are skipped, edges outside the image are not drawn, as TF's kernel.

Kernel: ``kernels/reference/image_draw.py`` (host; the GPU runs it through the host).

    annotated = ds.image.draw_bounding_boxes(images, boxes)
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["draw_bounding_boxes", "DRAW_OPS"]

DRAW_OPS = ("DrawBoundingBoxes", "DrawBoundingBoxesV2")
_DTYPES = (dtypes.float32, dtypes.float16)


def _draw(inputs, attrs, node):
    images, boxes = inputs[0], inputs[1]
    if images.dtype not in _DTYPES:
        raise TypeError(f"Op '{node}': images '{images.name}' must be float32 or float16, "
                        f"not {images.dtype.name}.")
    for spec in inputs[1:]:
        if spec.dtype != dtypes.float32:
            raise TypeError(f"Op '{node}': '{spec.name}' must be float32, not "
                            f"{spec.dtype.name}.")
    shape = images.shape
    if shape.ndims is not None and shape.ndims != 4:
        raise InferError(f"Op '{node}': images '{images.name}' must be 4-D, but has shape "
                         f"{shape}.")
    depth = shape.dims[3] if shape.ndims == 4 else None
    if depth is not None and depth not in (1, 3, 4):
        raise InferError(f"Op '{node}': Channel depth should be either 1 (GRY), 3 (RGB), or "
                         f"4 (RGBA), got images of shape {shape}.")
    if boxes.shape.ndims not in (None, 3):
        raise InferError(f"Op '{node}': boxes '{boxes.name}' must be 3-D [batch, num_boxes, "
                         f"4], but has shape {boxes.shape}.")
    if len(inputs) == 3 and inputs[2].shape.ndims not in (None, 2):
        raise InferError(f"Op '{node}': colors '{inputs[2].name}' must be a 2-D matrix, but "
                         f"has shape {inputs[2].shape}.")
    return images.dtype, TensorShape(shape.dims) if shape.ndims is not None else shape


register_op(OpDef("DrawBoundingBoxes", _draw, 2))
register_op(OpDef("DrawBoundingBoxesV2", _draw, 3))
not_differentiable(*DRAW_OPS)


def draw_bounding_boxes(images, boxes, name=None, colors=None) -> Tensor:
    """``images`` (4-D float) with the outlines of ``boxes`` drawn on them: TF1's
    ``tf.image.draw_bounding_boxes`` (DrawBoundingBoxes without ``colors``, as TF, else
    DrawBoundingBoxesV2).  ValueError for shapes the op rejects."""
    with name_scope(name or "draw_bounding_boxes"):
        x = convert_to_tensor(images, name="images")
        b = convert_to_tensor(boxes, dtype=dtypes.float32, name="boxes", graph=x.graph)
        if colors is None:
            return make_op("DrawBoundingBoxes", [x, b], {}, "DrawBoundingBoxes")
        c = convert_to_tensor(colors, dtype=dtypes.float32, name="colors", graph=x.graph)
        return make_op("DrawBoundingBoxesV2", [x, b, c], {}, "DrawBoundingBoxesV2")
