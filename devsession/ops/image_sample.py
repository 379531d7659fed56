"""SampleDistortedBoundingBox and SampleDistortedBoundingBoxV2
(``tf.image.sample_distorted_bounding_box``), TF's op types, inputs and attrs.

**SampleDistortedBoundingBox(image_size, bounding_boxes)**: ``image_size`` ``[height,
width, channels]`` (uint8, int8, int16, int32 or int64: ``T``), ``bounding_boxes``
float32 ``[batch, N, 4]`` (normalized ``[y_min, x_min, y_max, x_max]``); attrs ``seed``,
``seed2``, ``min_object_covered`` (0.1), ``aspect_ratio_range`` ([0.75, 1.33]),
``area_range`` ([0.05, 1]), ``max_attempts`` (100), ``use_image_if_no_bounding_boxes``
(False).  **V2** takes ``min_object_covered`` as a float32 scalar input instead (what
TF1's ``tf.image.sample_distorted_bounding_box`` builds).  Outputs: ``begin`` ``[y, x,
0]`` and ``size`` ``[h, w, -1]`` (``T``, for ``tf.slice``) and ``bboxes`` float32 ``[1,
1, 4]`` (the crop, normalized, for ``draw_bounding_boxes``).  A new crop each run,
from the node's seeded stream; not differentiable, as TF.

Kernel: ``kernels/reference/image_sample.py`` (host; the GPU draws there too).

    begin, size, _ = ds.image.sample_distorted_bounding_box(ds.shape(image), boxes,
                                                            min_object_covered=0.1)
    crop = ds.image.resize_images(ds.slice(image, begin, size), [224, 224])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .image_operands import dims_of_rank, dtype_in
from .random import _seeds, uncounted_seeds
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["sample_distorted_bounding_box", "SAMPLE_OPS"]

SAMPLE_OPS = ("SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2")
SIZE_DTYPES = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
def _float32s(values) -> tuple:
    """A list(float) attr as a GraphDef holds it (float32 values), so it round-trips."""
    return tuple(float(np.float32(v)) for v in values)


_ATTRS = {"seed": 0, "seed2": 0, "aspect_ratio_range": _float32s((0.75, 1.33)),
          "area_range": _float32s((0.05, 1.0)), "max_attempts": 100,
          "use_image_if_no_bounding_boxes": False}


def _sample(inputs, attrs, node):
    image_size, boxes = inputs[0], inputs[1]
    dtype_in(image_size, SIZE_DTYPES, node, "image_size")
    dtype_in(boxes, (dtypes.float32,), node, "bounding_boxes")
    (count,) = dims_of_rank(image_size, 1, node, "image_size")
    if count not in (None, 3):
        raise InferError(f"Op '{node}': image_size '{image_size.name}' must hold 3 values "
                         f"(height, width, channels), but has shape {image_size.shape}.")
    *_, coords = dims_of_rank(boxes, 3, node, "bounding_boxes")
    if coords not in (None, 4):
        raise InferError(f"Op '{node}': bounding_boxes '{boxes.name}' must be [batch, N, 4],"
                         f" but has shape {boxes.shape}.")
    if len(inputs) == 3:
        dtype_in(inputs[2], (dtypes.float32,), node, "min_object_covered")
        dims_of_rank(inputs[2], 0, node, "min_object_covered")
    for key in ("aspect_ratio_range", "area_range"):
        if len(attrs[key]) != 2:
            raise InferError(f"Op '{node}': {key} must hold 2 values, got "
                             f"{list(attrs[key])}.")
    return [(image_size.dtype, TensorShape([3])), (image_size.dtype, TensorShape([3])),
            (dtypes.float32, TensorShape([1, 1, 4]))]


register_op(OpDef("SampleDistortedBoundingBox", _sample, 2, stateful=True, draws=True,
                  host_inputs=(0, 1), attr_defaults={**_ATTRS, "min_object_covered": 0.1}))
register_op(OpDef("SampleDistortedBoundingBoxV2", _sample, 3, stateful=True, draws=True,
                  host_inputs=(0, 1, 2), attr_defaults=_ATTRS))
not_differentiable(*SAMPLE_OPS)


def _seed_pair(graph, seed, seed2) -> tuple[int, int]:
    """TF1's: ``seed`` and ``seed2`` as given when either is; else, where the graph has
    a seed, one of devsession's (the op repeats per session; TF's is unseeded), hashed
    from the op's name and not counted, as TF's builder takes no op seed: the random ops
    built after get TF's seeds."""
    if seed or seed2:
        return int(seed or 0), int(seed2 or 0)
    with graph.as_default(), \
            uncounted_seeds(graph.unique_name("SampleDistortedBoundingBoxV2", False)):
        return _seeds(None)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None,
                                  min_object_covered=0.1, aspect_ratio_range=None,
                                  area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """``(begin, size, bboxes)`` of a random crop of an image of ``image_size`` that
    covers at least ``min_object_covered`` of one of ``bounding_boxes``, its aspect
    ratio and area fraction within the ranges (the whole image when ``max_attempts``
    draws find none): TF1's ``tf.image.sample_distorted_bounding_box``
    (SampleDistortedBoundingBoxV2).  ValueError for shapes the op rejects."""
    with name_scope(name or "sample_distorted_bounding_box"):
        size = convert_to_tensor(image_size, dtype_hint=dtypes.int32, name="image_size")
        boxes = convert_to_tensor(bounding_boxes, dtype=dtypes.float32,
                                  name="bounding_boxes", graph=size.graph)
        covered = convert_to_tensor(min_object_covered, dtype=dtypes.float32,
                                    name="min_object_covered", graph=size.graph)
        first, second = _seed_pair(size.graph, seed, seed2)
        attrs = {**_ATTRS, "seed": first, "seed2": second}
        given = {"aspect_ratio_range": aspect_ratio_range, "area_range": area_range,
                 "max_attempts": max_attempts,
                 "use_image_if_no_bounding_boxes": use_image_if_no_bounding_boxes}
        for key, value in given.items():
            if value is not None:
                attrs[key] = (_float32s(value) if key.endswith("_range")
                              else type(_ATTRS[key])(value))
        op = size.graph.create_op("SampleDistortedBoundingBoxV2", [size, boxes, covered],
                                  attrs, name="SampleDistortedBoundingBoxV2")
        return tuple(op.outputs)
