"""CPU kernels of the array ops that compute: UnsortedSegmentSum, OneHot, AddN, and the
scatters that add (ScatterNd, TensorScatterAdd/Sub).

Pure data movement stays numpy's (``reference/array.py``, ``reference/array_index.py``),
measured: a numba row-copy GatherV2 took 0.40 ms where ``np.take`` took 0.20 (4096 rows
of 128 floats from a 50,000-row table; 1.7 vs 1.5 ms for 100,000 rows of 64; the
parallel loop was slower still), and Tile's single broadcast copy beats ``np.tile``
(1.2 vs 1.7 ms for a 1000x1000 float32 tiled 2x3).  Where numba wins:

* UnsortedSegmentSum (np.add.at: 63 ms, this loop: 4 ms, for 100,000 rows of 64
  floats) adds each row of ``data`` into its segment's row of a zeroed output, in the
  order of the ids, skipping negative ids; the ids are checked first.  float16
  accumulates in float32, rounded once.  A parallel version over column blocks measured
  3-4x slower than this serial loop on the shared 2-core build machine, so there is none.
* OneHot (the numpy formula: 9.8 ms, this: 1.9 ms, for 4096 indices of depth 1000)
  fills the output with ``off_value`` and writes ``on_value`` at each in-range index,
  moving the values as unsigned integers of the dtype's width (numba cannot load
  float16), so an out-of-range index leaves an all-off row.
* AddN is one generated elementwise loop over all its inputs (``x0 + x1 + ...``,
  ``cpu/elementwise.py``): one pass whatever their number (0.74 ms for four 1000x1000
  float32 inputs, numpy's chain of adds 1.14 ms).
* ScatterNd and TensorScatterAdd/Sub are UnsortedSegmentSum's loop over the rows the
  coordinates name (``reference.array_index.nd_rows``), into zeros or a copy of the
  tensor (Sub adds the negated updates).
"""

from __future__ import annotations

import numpy as np

from ..checks import to_float16
from ..reference.array_index import (as_table, check_segment_ids, make_add_n_builder, nd_rows,
                                     nd_updates, one_hot_axis, scatter_shape,
                                     segment_range_error)
from ..registry import register_kernel
from .elementwise import ElementwiseKernel
from .reduce import JIT

from numba import njit  # noqa: E402  (after numba_setup, which reduce imports)

__all__ = ["build_segment_sum", "build_one_hot", "build_add_n", "build_scatter_nd",
           "build_tensor_scatter_add"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)
_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# --- UnsortedSegmentSum -----------------------------------------------------------------------

@njit(**JIT)
def _first_too_big(ids, n):
    for k in range(ids.size):
        if ids[k] >= n:
            return k
    return -1


@njit(**JIT)
def _segment_sum(data, ids, out):
    for k in range(ids.size):
        s = ids[k]
        if s >= 0:
            for c in range(data.shape[1]):
                out[s, c] += data[k, c]


@register_kernel("UnsortedSegmentSum", "CPU")
def build_segment_sum(node):
    narrow = node.output_dtype == _F16

    def segment_sum(data, ids, num_segments):
        n = check_segment_ids(node, data, ids, num_segments)
        flat = ids.reshape(-1)
        bad = _first_too_big(flat, n)
        if bad >= 0:
            raise segment_range_error(node, ids, n)
        row_shape = data.shape[ids.ndim:]
        inner = int(np.prod(row_shape, dtype=np.int64))
        rows = np.ascontiguousarray(data, _F32 if narrow else None).reshape(flat.size, inner)
        out = np.zeros((n, inner), rows.dtype)
        if rows.size and n:
            _segment_sum(rows, flat, out)
        out = out.reshape((n,) + row_shape)
        return to_float16(out) if narrow else out
    return segment_sum


# --- OneHot -----------------------------------------------------------------------------------

@njit(**JIT)
def _one_hot(indices, on, off, out):
    """``out`` is (outer, depth, inner), ``indices`` (outer, inner)."""
    out[:] = off
    depth = out.shape[1]
    for o in range(indices.shape[0]):
        for i in range(indices.shape[1]):
            j = indices[o, i]
            if 0 <= j < depth:
                out[o, j, i] = on


@register_kernel("OneHot", "CPU")
def build_one_hot(node):
    dtype = node.output_dtype
    bits = _BITS[dtype.itemsize]

    def one_hot(indices, depth, on_value, off_value):
        d, axis = one_hot_axis(node, indices, depth)
        shape = indices.shape[:axis] + (d,) + indices.shape[axis:]
        out = np.empty(shape, dtype)
        if out.size:
            outer = int(np.prod(indices.shape[:axis], dtype=np.int64))
            inner = int(np.prod(indices.shape[axis:], dtype=np.int64))
            on = np.asarray(on_value, dtype).view(bits)[()]
            off = np.asarray(off_value, dtype).view(bits)[()]
            _one_hot(np.ascontiguousarray(indices).reshape(outer, inner), on, off,
                     out.view(bits).reshape(outer, d, inner))
        return out
    return one_hot


# --- AddN -------------------------------------------------------------------------------------

build_add_n = register_kernel("AddN", "CPU")(make_add_n_builder(ElementwiseKernel))


# --- ScatterNd, TensorScatterAdd/Sub ----------------------------------------------------------

def _add_rows(out, rows, updates, negate: bool):
    """``updates`` (rows x inner) added into the rows ``rows`` of ``out``, in float32 for
    float16 (rounded once), by the segment-sum loop; returns the result."""
    narrow = out.dtype == _F16
    acc = out.astype(_F32) if narrow else out
    values = np.ascontiguousarray(updates, _F32 if narrow else None)
    if negate:
        values = -values
    if values.size:
        _segment_sum(values, rows, acc)
    return to_float16(acc) if narrow else acc


@register_kernel("ScatterNd", "CPU")
def build_scatter_nd(node):
    def scatter_nd(indices, updates, shape):
        dims = scatter_shape(node, shape)
        rows = nd_rows(node, np, indices, dims)
        values = nd_updates(node, updates, indices, dims)
        out = as_table(np.zeros(dims, updates.dtype), indices.shape[-1])
        return _add_rows(out, rows, values, False).reshape(dims)
    return scatter_nd


@register_kernel(("TensorScatterAdd", "TensorScatterSub"), "CPU")
def build_tensor_scatter_add(node):
    negate = node.op == "TensorScatterSub"

    def tensor_scatter(tensor, indices, updates):
        rows = nd_rows(node, np, indices, tensor.shape)
        values = nd_updates(node, updates, indices, tensor.shape)
        out = as_table(tensor.copy(), indices.shape[-1])
        return _add_rows(out, rows, values, negate).reshape(tensor.shape)
    return tensor_scatter
