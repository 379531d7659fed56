"""Kernels of the segment reductions (HOST: the reference's and the CPU's;
``cuda/segments.py`` runs them for the GPU): SegmentSum/Mean/Max/Min/Prod (sorted ids),
UnsortedSegmentMax/Min/Prod, SparseSegmentSum/Mean/SqrtN (with and without
num_segments) and the SparseSegment*Grad ops of their gradients.

Every reduction sorts the rows by segment (a stable argsort; sorted ids already are)
and reduces each run with one ``ufunc.reduceat``, then writes each segment's result to
its output row; rows of empty segments keep the reduction's identity, as TF's: 0 for
sums and means (and, for the sorted ops, max and min), 1 for products, and for the
unsorted max and min the dtype's lowest and highest values.  float16 sums accumulate in
float32.  An integer mean divides as C++ does (toward zero).

The ids are checked as TF's CPU kernels check them: first the last id (negative:
"segment ids must be >= 0", without num_segments), then in the order they scan, segment by
segment, "segment ids are not increasing", then the id's range, then (sparse ops) the
rows it gathers; each an ``InvalidArgumentError`` naming the node with TF's text.
Unsorted ops drop rows with a negative id; one ``>= num_segments`` is an error.
"""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from .array import as_ints, on_host
from .array_index import check_segment_ids, segment_range_error

__all__ = ["SORTED", "UNSORTED", "SPARSE", "SPARSE_GRADS", "HOST_BUILDERS"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)

# op -> (ufunc, value of an empty segment: "zero", "one", "lowest" or "highest")
SORTED = {"SegmentSum": (np.add, "zero"), "SegmentMean": (np.add, "zero"),
          "SegmentMax": (np.maximum, "zero"), "SegmentMin": (np.minimum, "zero"),
          "SegmentProd": (np.multiply, "one")}
UNSORTED = {"UnsortedSegmentMax": (np.maximum, "lowest"),
            "UnsortedSegmentMin": (np.minimum, "highest"),
            "UnsortedSegmentProd": (np.multiply, "one")}
SPARSE = {f"SparseSegment{kind}{suffix}": kind for kind in ("Sum", "Mean", "SqrtN")
          for suffix in ("", "WithNumSegments")}
SPARSE_GRADS = {f"SparseSegment{kind}Grad": kind for kind in ("Sum", "Mean", "SqrtN")}


def _fill_value(kind: str, dtype: np.dtype):
    if kind in ("zero", "one"):
        return 0 if kind == "zero" else 1
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min if kind == "lowest" else info.max


def _accumulator(dtype: np.dtype) -> np.dtype:
    return _F32 if dtype == _F16 else dtype


def _first_violation(segment_values, output_rows, extra_bad=None):
    """The first segment (in scan order) TF's loop rejects, and why: ``"order"`` (the
    next id is smaller), ``"range"`` (outside [0, output_rows)), or ``"rows"``
    (``extra_bad``: one of its gathered rows is out of range); None if none."""
    m = segment_values.size
    decreasing = np.zeros(m, bool)
    decreasing[:-1] = segment_values[:-1] > segment_values[1:]
    out_of_range = (segment_values < 0) | (segment_values >= output_rows)
    bad = decreasing | out_of_range
    if extra_bad is not None:
        bad |= extra_bad
    if not bad.any():
        return None
    k = int(np.argmax(bad))
    reason = "order" if decreasing[k] else "range" if out_of_range[k] else "rows"
    return k, reason


def _segment_error(node, reason, value, output_rows):
    if reason == "order":
        return invalid_argument(node.name, node.op, "segment ids are not increasing")
    return invalid_argument(node.name, node.op, f"Segment id {value} out of range [0, "
                            f"{output_rows}), possibly because 'segment_ids' input is not "
                            f"sorted.")


def _runs(ids):
    """(start of each run of equal ids, its id)."""
    starts = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]])) if ids.size \
        else np.zeros(0, np.int64)
    return starts, ids[starts]


def _finish(node, out, counts, kind, dtype):
    """Means and square-root means from sums; the output dtype."""
    if kind in ("Mean", "SqrtN"):
        scale = np.maximum(counts, 1).reshape((-1,) + (1,) * (out.ndim - 1))
        if kind == "SqrtN":
            scale = np.sqrt(scale)
        if out.dtype.kind in "fc":
            out = out / scale.astype(out.dtype)
        else:                                   # C++ integer division truncates
            out = (np.abs(out) // scale * np.sign(out)).astype(out.dtype)
    return out.astype(dtype)


# --- SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd -------------------------

def _build_sorted(node):
    ufunc, empty = SORTED[node.op]
    kind = "Mean" if node.op == "SegmentMean" else "Sum"

    def segment_reduce(data, ids):
        ids = on_host(ids)
        if ids.ndim != 1:
            raise invalid_argument(node.name, node.op, "segment_ids should be a vector.")
        if data.ndim < 1 or ids.size != data.shape[0]:
            raise invalid_argument(node.name, node.op, "segment_ids should be the same size "
                                   "as dimension 0 of input.")
        output_rows = int(ids[-1]) + 1 if ids.size else 0
        if output_rows <= 0 and ids.size:       # TF checks the last id first
            raise invalid_argument(node.name, node.op, "segment ids must be >= 0")
        starts, values = _runs(ids)
        found = _first_violation(values, output_rows)
        if found is not None:
            k, reason = found
            raise _segment_error(node, reason, int(values[k]), output_rows)
        acc = _accumulator(data.dtype)
        out = np.full((output_rows,) + data.shape[1:], _fill_value(empty, acc), acc)
        counts = np.zeros(output_rows, np.int64)
        if ids.size:
            out[values] = ufunc.reduceat(data.astype(acc, copy=False), starts, axis=0)
            counts[values] = np.diff(np.append(starts, ids.size))
        return _finish(node, out, counts, kind, data.dtype)
    return segment_reduce


# --- UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd --------------------------

def _build_unsorted(node):
    ufunc, empty = UNSORTED[node.op]

    def unsorted_segment_reduce(data, ids, num_segments):
        ids = on_host(ids)
        n = check_segment_ids(node, data, ids, num_segments)
        flat = ids.reshape(-1)
        if flat.size and flat.max() >= n:
            raise segment_range_error(node, ids, n)
        inner = data.shape[ids.ndim:]
        out = np.full((n,) + inner, _fill_value(empty, data.dtype), data.dtype)
        rows = data.reshape((flat.size,) + inner)
        kept = np.flatnonzero(flat >= 0)          # negative ids drop their rows, as TF
        order = kept[np.argsort(flat[kept], kind="stable")]
        starts, values = _runs(flat[order])
        if order.size:
            out[values] = ufunc.reduceat(rows[order], starts, axis=0)
        return out
    return unsorted_segment_reduce


# --- SparseSegmentSum/Mean/SqrtN[WithNumSegments] -----------------------------------------

def _build_sparse(node):
    kind = SPARSE[node.op]
    with_num_segments = node.op.endswith("WithNumSegments")

    def sparse_segment_reduce(data, indices, ids, *num_segments):
        indices, ids = on_host(indices), on_host(ids)
        if indices.ndim != 1 or ids.ndim != 1 or indices.size != ids.size:
            raise invalid_argument(node.name, node.op, "segment_ids and indices should have "
                                   "same size.")
        last = int(ids[-1]) if ids.size else -1
        if with_num_segments:
            output_rows = as_ints(num_segments[0])[0]
            if output_rows <= last:
                raise invalid_argument(node.name, node.op, "segment ids must be < "
                                       "num_segments")
        else:
            output_rows = last + 1
        if output_rows < 0 or not with_num_segments and ids.size and last < 0:
            # TF checks the last id first: [0, -1] is this, not "not increasing"
            raise invalid_argument(node.name, node.op, "segment ids must be >= 0")
        rows_in = data.shape[0] if data.ndim else 0
        starts, values = _runs(ids)
        bad_row = (indices < 0) | (indices >= rows_in)
        run_has_bad = np.logical_or.reduceat(bad_row, starts) if ids.size else bad_row[:0]
        found = _first_violation(values, output_rows, run_has_bad)
        if found is not None:
            k, reason = found
            if reason != "rows":
                raise _segment_error(node, reason, int(values[k]), output_rows)
            end = starts[k + 1] if k + 1 < starts.size else ids.size
            at = int(starts[k] + np.argmax(bad_row[starts[k]:end]))
            raise invalid_argument(node.name, node.op, f"Bad: indices[{at}] == "
                                   f"{int(indices[at])} out of range [0, {rows_in})")
        acc = _accumulator(data.dtype)
        out = np.zeros((output_rows,) + data.shape[1:], acc)
        counts = np.zeros(output_rows, np.int64)
        if ids.size:
            out[values] = np.add.reduceat(data[indices].astype(acc, copy=False), starts,
                                          axis=0)
            counts[values] = np.diff(np.append(starts, ids.size))
        return _finish(node, out, counts, kind, data.dtype)
    return sparse_segment_reduce


def _build_sparse_grad(node):
    """SparseSegment{Sum,Mean,SqrtN}Grad(grad, indices, segment_ids, output_dim0):
    ``out[indices[i]] += grad[segment_ids[i]] * w``, w = 1, 1/count or 1/sqrt(count) of
    the segment."""
    kind = SPARSE_GRADS[node.op]

    def sparse_segment_grad(grad, indices, ids, output_dim0):
        indices, ids = on_host(indices), on_host(ids)
        dim0 = as_ints(output_dim0)[0]
        if indices.ndim != 1 or ids.ndim != 1 or indices.size != ids.size:
            raise invalid_argument(node.name, node.op, "segment_ids and indices should have "
                                   "same size.")
        rows = grad.shape[0] if grad.ndim else 0
        for what, values, bound in (("Segment id", ids, rows), ("Index", indices, dim0)):
            bad = (values < 0) | (values >= bound)
            if bad.any():
                value = int(values[int(np.argmax(bad))])
                raise invalid_argument(node.name, node.op, f"{what} {value} out of range "
                                       f"[0, {bound})")
        acc = _accumulator(grad.dtype)
        weights = np.ones(ids.size, acc)
        if kind != "Sum" and ids.size:
            counts = np.bincount(ids, minlength=rows)[ids].astype(acc)
            weights = 1 / (counts if kind == "Mean" else np.sqrt(counts))
        out = np.zeros((dim0,) + grad.shape[1:], acc)
        scaled = grad[ids].astype(acc) * weights.reshape((-1,) + (1,) * (grad.ndim - 1))
        np.add.at(out, indices, scaled)
        return out.astype(grad.dtype)
    return sparse_segment_grad


HOST_BUILDERS = {**{op: _build_sorted for op in SORTED},
                 **{op: _build_unsorted for op in UNSORTED},
                 **{op: _build_sparse for op in SPARSE},
                 **{op: _build_sparse_grad for op in SPARSE_GRADS}}
for _op, _build in HOST_BUILDERS.items():
    register_kernel(_op, HOST)(_build)
