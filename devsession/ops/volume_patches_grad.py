"""The gradient of ExtractVolumePatches (``volume_patches.py``), as
``space_depth_grad.py``'s of ExtractImagePatches: the patches of an *index volume*
(``1 + flat cell``; the padding reads 0) say where each patch element came from; the
gradient, as ``[patch elements, batch, depth]``, is summed by those indices
(``unsorted_segment_sum``; TF uses a sparse matmul) and index 0 (the padding) dropped.
Checked against finite differences (tests/test_volume_patches.py)."""

from __future__ import annotations

from .. import dtypes
from .array import reshape, transpose
from .array_fill import shape
from .array_index import unsorted_segment_sum
from .registry import register_gradient
from .sequence import range as range_op
from .volume_patches import extract_volume_patches

__all__: list = []


@register_gradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op, grad):
    x = op.inputs[0]
    dims = x.shape.dims if x.shape.ndims == 5 else [None] * 5
    dynamic = shape(x)
    batch, planes, rows, cols, depth = [d if d is not None else dynamic[i]
                                        for i, d in enumerate(dims)]
    cells = planes * rows * cols
    index = reshape(range_op(1, cells + 1, dtype=dtypes.int64), [1, planes, rows, cols, 1])
    attrs = {key: op.attrs[key] for key in ("ksizes", "strides", "padding")}
    sources = reshape(extract_volume_patches(index, **attrs), [-1])      # 0: padding
    per_element = transpose(reshape(grad, [batch, -1, depth]), [1, 0, 2])
    summed = unsorted_segment_sum(per_element, sources, cells + 1)
    back = reshape(summed[1:], [planes, rows, cols, batch, depth])
    return [transpose(back, [3, 0, 1, 2, 4])]
