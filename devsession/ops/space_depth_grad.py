"""Gradients of the space/depth ops (``space_depth.py``), as TF's ``array_grad.py``:

* each rearrangement's gradient is its inverse on the output gradient: SpaceToDepth <->
  DepthToSpace (same ``block_size`` and ``data_format``), SpaceToBatchND <->
  BatchToSpaceND (the paddings become the crops and back), SpaceToBatch <-> BatchToSpace;
  the block shapes, paddings and crops get None;
* ExtractImagePatches scatters each patch element back onto the pixel it was read from,
  summing where windows overlap.  TF builds that from the op itself: the patches of an
  *index image* (``1 + row * cols + col``; the padding reads 0) say where each element
  came from; here the gradient, as ``[patch elements, batch, depth]``, is then summed
  by those indices (``unsorted_segment_sum``; TF uses a sparse matmul), and index 0 (the
  padding) is dropped.  Dimensions the graph does not know are read at run time
  (``shape``), so an unknown batch or image size works.

Checked against finite differences in tests/test_gradients.py.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor
from .array import reshape, transpose
from .array_fill import shape
from .array_index import unsorted_segment_sum
from .registry import register_gradient
from .sequence import range as range_op
from .space_depth import (batch_to_space_nd, depth_to_space, extract_image_patches,
                          space_to_batch_nd, space_to_depth)
from .common import make_op

__all__: list = []


@register_gradient("SpaceToDepth")
def _space_to_depth_grad(op, grad):
    return [depth_to_space(grad, op.attrs["block_size"],
                           data_format=op.attrs["data_format"])]


@register_gradient("DepthToSpace")
def _depth_to_space_grad(op, grad):
    return [space_to_depth(grad, op.attrs["block_size"],
                           data_format=op.attrs["data_format"])]


@register_gradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op, grad):
    return [batch_to_space_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@register_gradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op, grad):
    return [space_to_batch_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@register_gradient("SpaceToBatch")
def _space_to_batch_grad(op, grad):
    return [make_op("BatchToSpace", [grad, op.inputs[1]],
                    {"block_size": op.attrs["block_size"]}), None]


@register_gradient("BatchToSpace")
def _batch_to_space_grad(op, grad):
    return [make_op("SpaceToBatch", [grad, op.inputs[1]],
                    {"block_size": op.attrs["block_size"]}), None]


def _dims(x: Tensor) -> list:
    """``x``'s four dimensions: ints where static, else scalars of ``shape(x)``."""
    dynamic = None
    out = []
    for i, d in enumerate(x.shape.dims if x.shape.ndims == 4 else [None] * 4):
        if d is None:
            dynamic = shape(x) if dynamic is None else dynamic
            d = dynamic[i]
        out.append(d)
    return out


@register_gradient("ExtractImagePatches")
def _extract_image_patches_grad(op, grad):
    images = op.inputs[0]
    batch, rows, cols, depth = _dims(images)
    attrs = {key: op.attrs[key] for key in ("ksizes", "strides", "rates", "padding")}
    pixels = rows * cols
    index = reshape(range_op(1, pixels + 1, dtype=dtypes.int64), [1, rows, cols, 1])
    sources = reshape(extract_image_patches(index, **attrs), [-1])    # 0: padding
    per_element = transpose(reshape(grad, [batch, -1, depth]), [1, 0, 2])
    summed = unsorted_segment_sum(per_element, sources, pixels + 1)
    back = reshape(summed[1:], [rows, cols, batch, depth])
    return [transpose(back, [2, 0, 1, 3])]

