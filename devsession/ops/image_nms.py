"""Non-max suppression: NonMaxSuppressionV3, V4, V5, NonMaxSuppressionWithOverlaps and
CombinedNonMaxSuppression (TF's op types, inputs and attrs, so GraphDefs TensorFlow
wrote import), and the ``tf.image`` functions that build them.

* **V3** ``(boxes [n, 4], scores [n], max_output_size, iou_threshold, score_threshold)``
  -> the int32 indices of the boxes kept, best first (``tf.image.non_max_suppression``).
* **V4**: V3 plus ``valid_outputs``; ``pad_to_max_output_size`` pads the indices with
  zeros to ``max_output_size`` (``non_max_suppression_padded``; batched boxes
  ``[..., n, 4]``: V4 on each image by ``map_fn``).  TF 2.21's TF1 function is a
  composite of its own (tiles, IoU at the threshold suppressed, coordinates ordered by
  the first box's) that agrees with V4 but on those edges; devsession builds TF1's V4.
* **V5**: V4 plus ``soft_nms_sigma`` (soft NMS: overlapping boxes' scores decay instead
  of being dropped) and the kept scores (``non_max_suppression_with_scores``).
* **WithOverlaps**: a precomputed ``[n, n]`` overlap matrix replaces the IoU
  (``non_max_suppression_overlaps``).
* **Combined**: per image and class, then the best ``max_total_size`` of each image
  (``combined_non_max_suppression``): boxes, scores, classes (float32) and counts.

Boxes and scores are float32 or float16 (the thresholds of V3/V4 float32 or float16, of
V5 the boxes' dtype); the rest is float32.  The selection rules (strictly above the
score threshold, ties to the lower index, an IoU equal to the threshold kept) are
``kernels/reference/image_nms.py``'s.  Host kernels (a GPU node runs them on its inputs
copied to the host).  Not differentiable, as in TF.  Static shape errors (boxes not
``[n, 4]``, scores not ``[n]``, a non-scalar size or threshold) are ``ValueError``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .image_operands import box_count, dims_of_rank, dtype_in
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["non_max_suppression", "non_max_suppression_padded",
           "non_max_suppression_with_scores", "non_max_suppression_overlaps",
           "combined_non_max_suppression", "NMS_OPS"]

NMS_OPS = ("NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5",
           "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression")
_BOX_DTYPES = (dtypes.float16, dtypes.float32)


def _scalars(specs, names, node: str) -> None:
    for spec, what in zip(specs, names):
        dims_of_rank(spec, 0, node, what)


def _boxes_and_scores(boxes, scores, node: str):
    dtype_in(boxes, _BOX_DTYPES, node, "boxes")
    if scores.dtype != boxes.dtype:
        raise TypeError(f"Op '{node}': scores '{scores.name}' are {scores.dtype.name} but "
                        f"boxes '{boxes.name}' are {boxes.dtype.name}; they must match.")
    box_count(boxes, scores, node, "scores", "score")


def _size(spec, node: str, what: str = "max_output_size") -> None:
    if spec.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': {what} '{spec.name}' must be int32, not "
                        f"{spec.dtype.name}.")
    dims_of_rank(spec, 0, node, what)


def _padded_length(size, attrs):
    if attrs.get("pad_to_max_output_size") and size.value is not None:
        return int(size.value)
    return None


def _v3(inputs, attrs, node):
    boxes, scores, size, iou, score = inputs
    _boxes_and_scores(boxes, scores, node)
    _size(size, node)
    for spec, what in ((iou, "iou_threshold"), (score, "score_threshold")):
        dtype_in(spec, _BOX_DTYPES, node, what)
    _scalars((iou, score), ("iou_threshold", "score_threshold"), node)
    return dtypes.int32, TensorShape([None])


def _v4(inputs, attrs, node):
    _v3(inputs, attrs, node)
    return [(dtypes.int32, TensorShape([_padded_length(inputs[2], attrs)])),
            (dtypes.int32, TensorShape([]))]


def _v5(inputs, attrs, node):
    boxes, scores, size, iou, score, sigma = inputs
    _boxes_and_scores(boxes, scores, node)
    _size(size, node)
    for spec, what in ((iou, "iou_threshold"), (score, "score_threshold"),
                       (sigma, "soft_nms_sigma")):
        if spec.dtype != boxes.dtype:
            raise TypeError(f"Op '{node}': {what} '{spec.name}' must be {boxes.dtype.name} "
                            f"(the boxes' dtype), not {spec.dtype.name}.")
        dims_of_rank(spec, 0, node, what)
    length = TensorShape([_padded_length(size, attrs)])
    return [(dtypes.int32, length), (boxes.dtype, length), (dtypes.int32, TensorShape([]))]


def _with_overlaps(inputs, attrs, node):
    overlaps, scores, size, threshold, score = inputs
    for spec, what in ((overlaps, "overlaps"), (scores, "scores"),
                       (threshold, "overlap_threshold"), (score, "score_threshold")):
        dtype_in(spec, (dtypes.float32,), node, what)
    rows, columns = dims_of_rank(overlaps, 2, node, "overlaps")
    if None not in (rows, columns) and rows != columns:
        raise InferError(f"Op '{node}': overlaps '{overlaps.name}' must be square, but "
                         f"have shape {overlaps.shape}.")
    (length,) = dims_of_rank(scores, 1, node, "scores")
    count = rows if rows is not None else columns
    if None not in (count, length) and count != length:
        raise InferError(f"Op '{node}': scores '{scores.name}' (shape {scores.shape}) must "
                         f"have one score per row of '{overlaps.name}' ({count}).")
    _size(size, node)
    _scalars((threshold, score), ("overlap_threshold", "score_threshold"), node)
    return dtypes.int32, TensorShape([None])


def _combined(inputs, attrs, node):
    boxes, scores, per_class, total, iou, score = inputs
    for spec, what in ((boxes, "boxes"), (scores, "scores"), (iou, "iou_threshold"),
                       (score, "score_threshold")):
        dtype_in(spec, (dtypes.float32,), node, what)
    batch, count, q, four = dims_of_rank(boxes, 4, node, "boxes")
    score_batch, score_count, classes = dims_of_rank(scores, 3, node, "scores")
    if four not in (None, 4):
        raise InferError(f"Op '{node}': boxes '{boxes.name}' must be [batch, num_boxes, q, "
                         f"4], but have shape {boxes.shape}.")
    if None not in (q, classes) and q not in (1, classes):
        raise InferError(f"Op '{node}': the third dimension of boxes '{boxes.name}' must "
                         f"be 1 or the number of classes ({classes}), not {q}.")
    for a, b, what in ((batch, score_batch, "batch sizes"), (count, score_count,
                                                              "numbers of boxes")):
        if None not in (a, b) and a != b:
            raise InferError(f"Op '{node}': boxes and scores have different {what} ({a} vs. "
                             f"{b}).")
    _size(per_class, node, "max_output_size_per_class")
    _size(total, node, "max_total_size")
    _scalars((iou, score), ("iou_threshold", "score_threshold"), node)
    batch = batch if batch is not None else score_batch
    rows = None if total.value is None else int(total.value)
    if attrs.get("pad_per_class"):
        known = None not in (rows, per_class.value, classes)
        rows = min(rows, int(per_class.value) * classes) if known else None
    return [(dtypes.float32, TensorShape([batch, rows, 4])),
            (dtypes.float32, TensorShape([batch, rows])),
            (dtypes.float32, TensorShape([batch, rows])), (dtypes.int32, TensorShape([batch]))]


_PAD = {"pad_to_max_output_size": False}
register_op(OpDef("NonMaxSuppressionV3", _v3, 5))
register_op(OpDef("NonMaxSuppressionV4", _v4, 5, attr_defaults=_PAD))
register_op(OpDef("NonMaxSuppressionV5", _v5, 6, attr_defaults=_PAD))
register_op(OpDef("NonMaxSuppressionWithOverlaps", _with_overlaps, 5))
register_op(OpDef("CombinedNonMaxSuppression", _combined, 6,
                  attr_defaults={"pad_per_class": False, "clip_boxes": True}))
not_differentiable(*NMS_OPS)


# --- builders ---------------------------------------------------------------------------------

def _create(op_type, inputs, attrs=None):
    graph = inputs[0].graph
    return graph.create_op(op_type, inputs, attrs or {}, name=op_type).outputs


def _boxes(boxes, scores):
    boxes = convert_to_tensor(boxes, dtype_hint=dtypes.float32, name="boxes")
    return boxes, convert_to_tensor(scores, dtype_hint=boxes.dtype, name="scores")


def _inputs(boxes, scores, max_output_size, thresholds, threshold_dtype=dtypes.float32):
    boxes, scores = _boxes(boxes, scores)
    size = convert_to_tensor(max_output_size, dtype=dtypes.int32, name="max_output_size")
    named = [convert_to_tensor(value, dtype_hint=threshold_dtype, name=name)
             for name, value in thresholds]
    return [boxes, scores, size, *named]


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None) -> Tensor:
    """The int32 indices (at most ``max_output_size``) of the boxes ``[n, 4]`` kept by
    greedy non-max suppression, best score first: a box overlapping a kept one by an
    IoU above ``iou_threshold``, or scoring at most ``score_threshold``, is dropped.
    TF's ``tf.image.non_max_suppression`` (NonMaxSuppressionV3)."""
    with name_scope(name or "non_max_suppression"):
        return _create("NonMaxSuppressionV3", _inputs(
            boxes, scores, max_output_size, [("iou_threshold", iou_threshold),
                                             ("score_threshold", score_threshold)]))[0]


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
    """``(selected_indices, valid_outputs)``: ``non_max_suppression`` with the count of
    valid indices, the indices zero-padded to ``max_output_size`` when
    ``pad_to_max_output_size`` (NonMaxSuppressionV4).  Boxes ``[..., n, 4]`` with
    scores ``[..., n]`` are batched, as TF 2.21's: each image's boxes suppressed alone,
    indices ``[..., max_output_size]`` and counts ``[...]`` (``pad_to_max_output_size``
    must be True there: TF's ValueError).  ``sorted_input``, ``canonicalized_coordinates``
    and ``tile_size`` are TF 2's speed hints and change nothing here."""
    with name_scope(name or "non_max_suppression_padded"):
        inputs = _inputs(boxes, scores, max_output_size,
                         [("iou_threshold", iou_threshold),
                          ("score_threshold", score_threshold)])
        if inputs[0].shape.ndims not in (None, 2):
            if not pad_to_max_output_size:
                raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) "
                                 f"must be True for batched input")
            return _batched_padded(inputs)
        indices, valid = _create("NonMaxSuppressionV4", inputs,
                                 {"pad_to_max_output_size": bool(pad_to_max_output_size)})
        return indices, valid


def _batched_padded(inputs):
    """NonMaxSuppressionV4 (padded) over each image of boxes ``[..., n, 4]`` by map_fn,
    the results in the boxes' batch dimensions."""
    from .array import concat, reshape
    from .array_fill import shape
    from .functional import map_fn

    boxes, scores, size, *thresholds = inputs
    if scores.shape.ndims not in (None, boxes.shape.ndims - 1):
        raise ValueError(f"non_max_suppression_padded: scores {scores.shape} must be the "
                         f"boxes' {boxes.shape} without their last dimension.")
    batch_shape = shape(boxes)[:-2]
    count = shape(boxes)[-2:-1]
    flat_boxes = reshape(boxes, concat([[-1], count, [4]], 0))
    flat_scores = reshape(scores, concat([[-1], count], 0))

    def one_image(image):
        return tuple(_create("NonMaxSuppressionV4", [*image, size, *thresholds],
                             {"pad_to_max_output_size": True}))
    indices, valid = map_fn(one_image, (flat_boxes, flat_scores),
                            dtype=(dtypes.int32, dtypes.int32))
    indices = reshape(indices, concat([batch_shape, size[None]], 0))
    valid = reshape(valid, batch_shape)
    length = constant_value(size)
    batch_dims = boxes.shape[:-2]
    indices.set_shape(batch_dims.concatenate([None if length is None else int(length)]))
    valid.set_shape(batch_dims)
    return indices, valid


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """``(selected_indices, selected_scores)`` of (soft) non-max suppression
    (NonMaxSuppressionV5): with ``soft_nms_sigma > 0`` an overlapping box's score is
    scaled by ``exp(-iou**2 / (2 * sigma))`` rather than the box dropped, and the
    scores returned are the decayed ones."""
    with name_scope(name or "non_max_suppression_with_scores"):
        boxes, scores = _boxes(boxes, scores)
        inputs = _inputs(boxes, scores, max_output_size,
                         [("iou_threshold", iou_threshold),
                          ("score_threshold", score_threshold),
                          ("soft_nms_sigma", soft_nms_sigma)], boxes.dtype)
        indices, kept, _ = _create("NonMaxSuppressionV5", inputs,
                                   {"pad_to_max_output_size": False})
        return indices, kept


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None) -> Tensor:
    """``non_max_suppression`` with the overlaps ``[n, n]`` given instead of boxes
    (NonMaxSuppressionWithOverlaps)."""
    with name_scope(name or "non_max_suppression_overlaps"):
        overlaps = convert_to_tensor(overlaps, dtype_hint=dtypes.float32, name="overlaps")
        return _create("NonMaxSuppressionWithOverlaps", _inputs(
            overlaps, scores, max_output_size, [("overlap_threshold", overlap_threshold),
                                                ("score_threshold", score_threshold)]))[0]


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)``: NMS per image
    and class of ``boxes`` ``[batch, n, q, 4]`` (q 1 or one box per class) scored
    ``[batch, n, classes]``, then each image's best ``max_total_size`` by score
    (CombinedNonMaxSuppression)."""
    with name_scope(name or "combined_non_max_suppression"):
        boxes, scores = _boxes(boxes, scores)
        inputs = [boxes, scores,
                  convert_to_tensor(max_output_size_per_class, dtype=dtypes.int32,
                                    name="max_output_size_per_class"),
                  convert_to_tensor(max_total_size, dtype=dtypes.int32,
                                    name="max_total_size"),
                  convert_to_tensor(iou_threshold, dtype=dtypes.float32, name="iou_threshold"),
                  convert_to_tensor(score_threshold, dtype=dtypes.float32,
                                    name="score_threshold")]
        return tuple(_create("CombinedNonMaxSuppression", inputs,
                             {"pad_per_class": bool(pad_per_class),
                              "clip_boxes": bool(clip_boxes)}))
