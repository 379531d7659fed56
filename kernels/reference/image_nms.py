"""Non-max suppression kernels (HOST: the reference's and the CPU's; the GPU runs them
through the host, ``cuda/image_nms.py``): NonMaxSuppressionV3, V4, V5,
NonMaxSuppressionWithOverlaps and CombinedNonMaxSuppression.

TF's ``non_max_suppression_op.cc``, its greedy loop written out (``select``):

* Candidates are the boxes whose score is strictly above ``score_threshold``, taken
  highest score first, a tie going to the lower box index (TF's priority queue).
* A candidate is compared with the boxes already selected, the latest first, from its
  ``suppress_begin`` on (a candidate put back after soft suppression is not compared
  twice with the same box).  Hard NMS: a similarity strictly above the threshold drops
  it (an IoU equal to the threshold keeps it).  Soft NMS (``soft_nms_sigma > 0``, V5):
  its score is multiplied by ``exp(-0.5 / sigma * iou**2)`` per comparison, and it goes
  back into the queue while it stays above ``score_threshold``; it is selected when a
  pass leaves its score unchanged.  Scores and weights are computed in the boxes' dtype
  (float32 or float16), IoUs in float32.
* IoU reads each box's corners in either order (min/max of the two y's and x's); a box
  of zero area overlaps nothing.

CombinedNonMaxSuppression runs hard NMS per (image, class), at most
``min(max_output_size_per_class, num_boxes)`` per class, then keeps the best
``max_total_size`` of an image's selections by score (clipped to [0, 1] when
``clip_boxes``), padded with zeros; with ``pad_per_class`` the output holds
``min(max_total_size, per_class * classes)`` rows instead.  Classes are float32, as TF's.
"""

from __future__ import annotations

import heapq

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel

__all__ = ["iou", "select"]

_F32 = np.float32


def _corners(box) -> tuple:
    y0, x0, y1, x1 = (_F32(v) for v in box)
    return min(y0, y1), min(x0, x1), max(y0, y1), max(x0, x1)


def iou(a, b) -> np.float32:
    """TF's ``IOU`` of two boxes ``[y1, x1, y2, x2]`` (float32, 0 for an empty box)."""
    ymin_a, xmin_a, ymax_a, xmax_a = _corners(a)
    ymin_b, xmin_b, ymax_b, xmax_b = _corners(b)
    area_a = (ymax_a - ymin_a) * (xmax_a - xmin_a)
    area_b = (ymax_b - ymin_b) * (xmax_b - xmin_b)
    if area_a <= 0 or area_b <= 0:
        return _F32(0)
    height = max(min(ymax_a, ymax_b) - max(ymin_a, ymin_b), _F32(0))
    width = max(min(xmax_a, xmax_b) - max(xmin_a, xmin_b), _F32(0))
    intersection = height * width
    return intersection / (area_a + area_b - intersection)


def select(scores: np.ndarray, similarity, max_output: int, threshold, score_threshold,
           soft_nms_sigma=0.0) -> tuple[list, list]:
    """TF's ``DoNonMaxSuppressionOp``: ``(indices, scores)`` of the selected boxes, in
    the order chosen.  ``similarity(i, j)`` is a float32; scores, thresholds and the
    soft-NMS weights are computed in ``scores``' dtype."""
    t = scores.dtype.type
    threshold, score_threshold = t(threshold), t(score_threshold)
    soft = t(soft_nms_sigma) > 0
    scale = t(-0.5) / t(soft_nms_sigma) if soft else t(0)
    # a max-heap on (score, -index): entries (-score, index, suppress_begin)
    queue = [(-scores[i], i, 0) for i in range(len(scores)) if scores[i] > score_threshold]
    heapq.heapify(queue)
    selected, selected_scores = [], []
    while len(selected) < max_output and queue:
        negative, index, begin = heapq.heappop(queue)
        original = score = -negative
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = t(similarity(index, selected[j]))
            weight = t(np.exp(scale * sim * sim))
            score = t(score * (weight if soft or sim <= threshold else t(0)))
            if not soft and sim > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(queue, (-score, index, len(selected)))
    return selected, selected_scores


# --- checks -----------------------------------------------------------------------------------

def _scalar(node, value, what: str, rank_note: bool = False):
    value = np.asarray(value)
    if value.ndim != 0:
        note = f" (Shape must be rank 0 but is rank {value.ndim})" if rank_note else ""
        raise invalid_argument(node.name, node.op, f"{what} must be 0-D, got shape "
                                                   f"{fmt_shape(value.shape)}{note}")
    return value[()]


def _check_boxes(node, boxes, scores) -> None:
    if boxes.ndim != 2:
        raise invalid_argument(node.name, node.op, f"boxes must be 2-D{fmt_shape(boxes.shape)}"
                               f" (Shape must be rank 2 but is rank {boxes.ndim})")
    if boxes.shape[1] != 4:
        raise invalid_argument(node.name, node.op, f"boxes must have 4 columns (Dimension "
                                                   f"must be 4 but is {boxes.shape[1]})")
    _check_scores(node, scores, boxes.shape[0])


def _check_scores(node, scores, count: int) -> None:
    if scores.ndim != 1:
        raise invalid_argument(node.name, node.op, f"scores must be 1-D{fmt_shape(scores.shape)}"
                               f" (Shape must be rank 1 but is rank {scores.ndim})")
    if scores.shape[0] != count:
        raise invalid_argument(node.name, node.op, f"scores has incompatible shape (Dimensions "
                                                   f"must be equal, but are {count} and "
                                                   f"{scores.shape[0]})")


def _output_size(node, max_output_size) -> int:
    size = int(max_output_size)
    if size < 0:
        raise invalid_argument(node.name, node.op, "output size must be non-negative")
    return size


def _iou_threshold(node, value, dtype):
    value = dtype.type(value)
    if not 0 <= value <= 1:
        raise invalid_argument(node.name, node.op, "iou_threshold must be in [0, 1]")
    return value


def _box_similarity(boxes):
    return lambda i, j: iou(boxes[i], boxes[j])


def _padded(node, selected: list, size: int, dtype=np.int32) -> np.ndarray:
    if node.attrs.get("pad_to_max_output_size", False):
        selected = list(selected) + [0] * (size - len(selected))
    return np.array(selected, dtype)


# --- kernels ----------------------------------------------------------------------------------

@register_kernel(("NonMaxSuppressionV3", "NonMaxSuppressionV4"), HOST)
def build_nms(node):
    padded = node.op == "NonMaxSuppressionV4"

    def nms(boxes, scores, max_output_size, iou_threshold, score_threshold):
        size = _scalar(node, max_output_size, "max_output_size", rank_note=not padded)
        iou_value = _scalar(node, iou_threshold, "iou_threshold", rank_note=not padded)
        iou_value = _iou_threshold(node, iou_value, scores.dtype)
        score_value = _scalar(node, score_threshold, "score_threshold")
        _check_boxes(node, boxes, scores)
        size = _output_size(node, size)
        selected, _ = select(scores, _box_similarity(boxes), size, iou_value, score_value)
        if not padded:
            return np.array(selected, np.int32)
        return _padded(node, selected, size), np.int32(len(selected))
    return nms


@register_kernel("NonMaxSuppressionV5", HOST)
def build_nms_with_scores(node):
    def nms(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma):
        size = _scalar(node, max_output_size, "max_output_size")
        iou_value = _iou_threshold(node, _scalar(node, iou_threshold, "iou_threshold"),
                                   scores.dtype)
        score_value = _scalar(node, score_threshold, "score_threshold")
        sigma = _scalar(node, soft_nms_sigma, "soft_nms_sigma")
        if not sigma >= 0:
            raise invalid_argument(node.name, node.op, "soft_nms_sigma_val must be >= 0")
        _check_boxes(node, boxes, scores)
        size = _output_size(node, size)
        selected, kept = select(scores, _box_similarity(boxes), size, iou_value, score_value,
                                sigma)
        return (_padded(node, selected, size), _padded(node, kept, size, scores.dtype),
                np.int32(len(selected)))
    return nms


@register_kernel("NonMaxSuppressionWithOverlaps", HOST)
def build_nms_with_overlaps(node):
    def nms(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        size = _scalar(node, max_output_size, "max_output_size")
        threshold = _scalar(node, overlap_threshold, "overlap_threshold")
        score_value = _scalar(node, score_threshold, "score_threshold")
        if overlaps.ndim != 2:
            raise invalid_argument(node.name, node.op,
                                   f"overlaps must be 2-D{fmt_shape(overlaps.shape)}")
        if overlaps.shape[1] != overlaps.shape[0]:
            raise invalid_argument(node.name, node.op,
                                   f"overlaps must be square{fmt_shape(overlaps.shape)}")
        _check_scores(node, scores, overlaps.shape[0])
        size = _output_size(node, size)
        selected, _ = select(scores, lambda i, j: overlaps[i, j], size, threshold, score_value)
        return np.array(selected, np.int32)
    return nms


def _check_combined(node, boxes, scores) -> None:
    def fail(message):
        return invalid_argument(node.name, node.op, message)
    if boxes.ndim != 4:
        raise fail(f"boxes must be 4-D [batch, num_boxes, q, 4], got shape "
                   f"{fmt_shape(boxes.shape)}")
    if scores.ndim != 3:
        raise fail(f"scores must be 3-D [batch, num_boxes, num_classes], got shape "
                   f"{fmt_shape(scores.shape)}")
    if boxes.shape[2] not in (1, scores.shape[2]):
        raise fail("third dimension of boxes must be either 1 or num classes")
    if boxes.shape[3] != 4:
        raise fail("boxes must have 4 columns")
    if scores.shape[1] != boxes.shape[1]:
        raise fail("scores has incompatible shape")
    if boxes.shape[0] != scores.shape[0]:
        raise fail("boxes and scores must have same batch size")


@register_kernel("CombinedNonMaxSuppression", HOST)
def build_combined_nms(node):
    pad_per_class = bool(node.attrs.get("pad_per_class", False))
    clip = bool(node.attrs.get("clip_boxes", True))

    def combined(boxes, scores, max_per_class, max_total, iou_threshold, score_threshold):
        _check_combined(node, boxes, scores)
        per_class = int(_scalar(node, max_per_class, "max_size_per_class"))
        if per_class <= 0:
            raise invalid_argument(node.name, node.op, "max_size_per_class must be positive")
        total = int(_scalar(node, max_total, "max_total_size"))
        if total <= 0:
            raise invalid_argument(node.name, node.op, "max_total_size must be > 0")
        iou_value = _iou_threshold(node, _scalar(node, iou_threshold, "iou_threshold"),
                                   np.dtype(np.float32))
        score_value = _F32(_scalar(node, score_threshold, "score_threshold"))
        batch, num_boxes, q, _ = boxes.shape
        classes = scores.shape[2]
        size_per_class = min(per_class, num_boxes)
        rows = min(total, per_class * classes) if pad_per_class else total
        out_boxes = np.zeros((batch, rows, 4), np.float32)
        out_scores = np.zeros((batch, rows), np.float32)
        out_classes = np.zeros((batch, rows), np.float32)
        valid = np.zeros(batch, np.int32)
        for b in range(batch):
            found = []                                  # (score, class, box)
            for c in range(classes):
                column = boxes[b, :, c if q > 1 else 0].astype(np.float32)
                picked, kept = select(scores[b, :, c].astype(np.float32),
                                      _box_similarity(column), size_per_class, iou_value,
                                      score_value)
                found += [(s, c, column[i]) for i, s in zip(picked, kept)]
            found.sort(key=lambda f: -f[0])           # stable: classes in order on ties
            count = min(len(found), rows if pad_per_class else total)
            valid[b] = count
            for k, (s, c, box) in enumerate(found[:count]):
                out_boxes[b, k] = np.clip(box, 0, 1) if clip else box
                out_scores[b, k], out_classes[b, k] = s, c
        return out_boxes, out_scores, out_classes, valid
    return combined
