"""Kernels of ``devsession/ops/string_joins.py``, on the host, following TF's kernels:

* ``StringNGrams``: per row of the splits, for each width in turn, the windows of the
  row padded by ``p = pad_width`` pads each side (``width - 1`` when negative, never more),
  ``c = max(0, n + 2p - width + 1)`` of them; window ``k`` takes ``max(0, p - k)`` left
  pads, ``max(0, p - (c - 1 - k))`` right pads and the row's strings between.  With
  ``preserve_short_sequences``, a non-empty row that made none gets one window of
  ``n + 2 pad_width`` (the row and its pads).  The splits are checked as TF checks them.
* ``UnsortedSegmentJoin``: strings joined per segment in row-major order of the
  segment-id positions; an id outside ``[0, num_segments)`` is TF's InvalidArgumentError.
"""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from .strings import bytes_attr, object_array


def _windows(tokens: list, width: int, pad: int, count: int, left: bytes, right: bytes,
             separator: bytes) -> list:
    out = []
    for k in range(count):
        lefts = max(0, pad - k)
        rights = max(0, pad - (count - (k + 1)))
        start = 0 if lefts else k - pad
        middle = tokens[start:start + width - lefts - rights]
        out.append(separator.join([left] * lefts + middle + [right] * rights))
    return out


def _check_splits(node, splits: np.ndarray, size: int) -> None:
    if splits.ndim != 1 or len(splits) == 0:
        raise invalid_argument(node.name, node.op, "Invalid data_splits: it must be a "
                               "non-empty vector")
    if splits[0] != 0 or splits[-1] != size or np.any(np.diff(splits) < 0):
        raise invalid_argument(node.name, node.op, f"Invalid data_splits: the first "
                               f"must be 0, they must not decrease, and the last must be "
                               f"the number of strings, {size}; got {splits.tolist()}")


@register_kernel("StringNGrams", HOST)
def build_string_ngrams(node):
    widths = [int(w) for w in node.attrs["ngram_widths"]]
    separator, left, right = (bytes_attr(node, key) for key in
                              ("separator", "left_pad", "right_pad"))
    pad_width = int(node.attrs.get("pad_width", 0))
    preserve = bool(node.attrs.get("preserve_short_sequences", False))

    def pad_for(width: int) -> int:
        return min(width - 1 if pad_width < 0 else pad_width, width - 1)

    def string_ngrams(data, splits):
        splits = np.asarray(splits)
        _check_splits(node, splits, len(data))
        values, out_splits = [], [0]
        for begin, end in zip(splits[:-1].tolist(), splits[1:].tolist()):
            tokens = [bytes(s) for s in data[begin:end]]
            made = len(values)
            for width in widths:
                pad = pad_for(width)
                count = max(0, len(tokens) + 2 * pad - width + 1)
                values += _windows(tokens, width, pad, count, left, right, separator)
            if preserve and tokens and len(values) == made:
                width = len(tokens) + 2 * pad_width
                values += _windows(tokens, width, pad_width, 1, left, right, separator)
            out_splits.append(len(values))
        return object_array(values), np.asarray(out_splits, splits.dtype)
    return string_ngrams


@register_kernel("UnsortedSegmentJoin", HOST)
def build_unsorted_segment_join(node):
    separator = bytes_attr(node, "separator")

    def unsorted_segment_join(inputs, segment_ids, num_segments):
        inputs, ids = np.asarray(inputs, dtype=object), np.asarray(segment_ids)
        segments = int(num_segments)
        if inputs.shape[:ids.ndim] != ids.shape:
            raise invalid_argument(node.name, node.op, f"segment_ids.shape "
                                   f"{list(ids.shape)} must be a prefix of inputs.shape "
                                   f"{list(inputs.shape)}")
        if segments < 0:
            raise invalid_argument(node.name, node.op, "Number of segments cannot be "
                                   "negative.")
        flat_ids = ids.reshape(-1)
        if np.any((flat_ids < 0) | (flat_ids >= segments)):
            raise invalid_argument(node.name, node.op, "segment_ids are not allowed to "
                                   "exceed num_segments or to have negative values.")
        inner = inputs.shape[ids.ndim:]
        rows = inputs.reshape(len(flat_ids), int(np.prod(inner, dtype=np.int64)))
        joined = [[[] for _ in range(rows.shape[1])] for _ in range(segments)]
        for segment, row in zip(flat_ids.tolist(), rows):
            for j, s in enumerate(row):
                joined[segment][j].append(bytes(s))
        return object_array([separator.join(parts) for seg in joined for parts in seg],
                            (segments, *inner))
    return unsorted_segment_join
