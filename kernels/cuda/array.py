"""Array GPU kernels.

* Data movement (Identity, Reshape, Transpose, ConcatV2, Squeeze, ExpandDims, Pack,
  Unpack, Tile, Pad, PadV2, MirrorPad(Grad), Shape, Size, Rank, Fill, ZerosLike,
  OnesLike, Slice, StridedSlice, StridedSliceGrad) and GatherV2: ``reference/array.py``'s
  and ``reference/array_index.py``'s builders over cupy, each kernel wrapped by
  ``on_device``: the same view rules, checks and messages as on the host.  Shapes,
  axes, multiples and paddings arrive as host arrays (``OpDef.host_inputs``).  GatherV2
  checks its indices with one reduction read back to the host (TF's GPU kernel would
  write zeros; we report the bad index as the CPU does), then ``cupy.take``.
* UnsortedSegmentSum: one elementwise kernel over ``data`` whose thread ``i`` adds
  element ``i`` into its segment's row with ``atomicAdd`` (float16 accumulates in a
  float32 buffer, int64 adds as unsigned 64-bit: two's complement wraps the same);
  ids are checked first, like the gather's indices.  Sums of floats land in an order
  the hardware picks, as in TF.
* GatherNd: the reference's builder (coordinates checked and turned into rows,
  ``reference.array_index.nd_rows``, then ``cupy.take``).  ScatterNd and
  TensorScatterAdd/Sub run UnsortedSegmentSum's kernel over those rows (into zeros or
  a copy; Sub negates the updates); TensorScatterUpdate assigns the rows.
* OneHot and AddN: generated elementwise kernels (``elementwise.ElementwiseKernel``):
  ``on if i == d else off`` over the indices (a size-1 axis where the depth goes) and
  ``arange(depth)`` broadcast against each other, and ``x0 + x1 + ...``: one launch.

cupy kernels are built on first use (never at import), so importing this module needs
no GPU.
"""

from __future__ import annotations

import functools

import cupy
import numpy as np

from ..reference.array import make_builders
from ..reference.array_index import (EXTREME_UFUNCS, as_table, check_segment_ids,
                                     make_add_n_builder, make_index_builders, nd_rows,
                                     nd_updates, one_hot_axis, scatter_shape,
                                     segment_range_error)
from ..registry import register_kernel
from .device import on_device
from .elementwise import ElementwiseKernel

__all__ = ["build_segment_sum", "build_one_hot", "build_add_n", "build_scatter_nd",
           "build_tensor_scatter", "add_rows"]

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)

for _op, _builder in {**make_builders(cupy, on_device),
                      **make_index_builders(cupy, on_device)}.items():
    register_kernel(_op, "GPU")(_builder)


# --- UnsortedSegmentSum -----------------------------------------------------------------------

_ATOMIC_ADD = {
    "float32": "atomicAdd(&out[k], (float)x)",        # float16 data too (float32 buffer)
    "float64": "atomicAdd(&out[k], x)",
    "int32": "atomicAdd(&out[k], x)",
    "int64": "atomicAdd((unsigned long long*)&out[k], (unsigned long long)x)",
}


@functools.lru_cache(maxsize=None)
def _segment_sum_kernel(acc_dtype: str):
    return cupy.ElementwiseKernel(
        "T x, raw I ids, int64 inner, int64 segments", "raw A out",
        f"""
        const long long row = i / inner;
        const long long s = (long long)ids[row];
        if (s >= 0 && s < segments) {{
            const long long k = s * inner + (i - row * inner);
            {_ATOMIC_ADD[acc_dtype]};
        }}
        """, name=f"devsession_segment_sum_{acc_dtype}")


# CUDA has atomicAdd for these only: float16 adds into float32, small integers into int32
# (cast back, the total wraps modulo 2^n as TF's).
_ACCUMULATOR = {"float16": _F32, "int8": np.dtype(np.int32), "int16": np.dtype(np.int32),
                "uint8": np.dtype(np.int32), "uint16": np.dtype(np.int32)}


@register_kernel("UnsortedSegmentSum", "GPU")
def build_segment_sum(node):
    acc = _ACCUMULATOR.get(node.output_dtype.name, node.output_dtype)
    narrow = acc != node.output_dtype

    def segment_sum(data, ids, num_segments):
        n = check_segment_ids(node, data, ids, num_segments)
        flat = ids.reshape(-1)
        if flat.size and int(flat.max()) >= n:
            raise segment_range_error(node, cupy.asnumpy(ids), n)
        row_shape = data.shape[ids.ndim:]
        if data.dtype.kind == "c":     # the atomics add real numbers: each part on its own
            real, imag = (_summed(part, flat, n, row_shape, part.dtype)
                          for part in (data.real, data.imag))
            return (real + 1j * imag).astype(data.dtype)
        out = _summed(data, flat, n, row_shape, acc)
        return out.astype(node.output_dtype) if narrow else out
    return on_device(node, segment_sum)


def _summed(data, flat, n: int, row_shape: tuple, acc):
    """The rows of ``data`` added into the ``n`` rows of ``acc`` that ``flat`` names."""
    out = cupy.zeros((n,) + row_shape, acc)
    if data.size and n:
        inner = data.size // flat.size
        # the raw arrays are indexed flat: pass 1-D views of contiguous arrays
        _segment_sum_kernel(acc.name)(cupy.ascontiguousarray(data), flat, inner, n,
                                      out.reshape(-1))
    return out


# --- ScatterNd, TensorScatterUpdate/Add/Sub -----------------------------------------------

def add_rows(out, rows, values):
    """``values`` (rows x inner) added into the rows ``rows`` of the table ``out`` (of
    the output's dtype) by the segment-sum kernel; returns the result."""
    acc = _ACCUMULATOR.get(out.dtype.name, out.dtype)
    total = out.astype(acc) if acc != out.dtype else out
    if values.size:
        _segment_sum_kernel(acc.name)(cupy.ascontiguousarray(values), rows,
                                      values.shape[1], total.shape[0], total.reshape(-1))
    return total.astype(out.dtype) if acc != out.dtype else total


@register_kernel("ScatterNd", "GPU")
def build_scatter_nd(node):
    def scatter_nd(indices, updates, shape):
        dims = scatter_shape(node, shape)
        rows = nd_rows(node, cupy, indices, dims)
        values = nd_updates(node, updates, indices, dims)
        out = as_table(cupy.zeros(dims, updates.dtype), indices.shape[-1])
        return add_rows(out, rows, values).reshape(dims)
    return on_device(node, scatter_nd)


@register_kernel(("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                  "TensorScatterMin", "TensorScatterMax"), "GPU")
def build_tensor_scatter(node):
    def tensor_scatter(tensor, indices, updates):
        rows = nd_rows(node, cupy, indices, tensor.shape)
        values = nd_updates(node, updates, indices, tensor.shape)
        out = as_table(tensor.copy(), indices.shape[-1])
        if node.op == "TensorScatterUpdate":
            out[rows] = values
        elif node.op in ("TensorScatterMin", "TensorScatterMax"):
            # repeated rows take every update: numpy's ufunc.at on the host, one round
            # trip (ufunc.at is not in every cupy, nor in the stand-in; these ops are rare)
            table = cupy.asnumpy(out)
            EXTREME_UFUNCS[node.op].at(table, cupy.asnumpy(rows), cupy.asnumpy(values))
            out = cupy.asarray(table)
        else:
            out = add_rows(out, rows, -values if node.op == "TensorScatterSub" else values)
        return out.reshape(tensor.shape)
    return on_device(node, tensor_scatter)


# --- OneHot, AddN -----------------------------------------------------------------------------

@register_kernel("OneHot", "GPU")
def build_one_hot(node):
    index_dtype = node.input_dtypes[0]
    dtype = node.output_dtype
    # positions are int64: in the index dtype a depth past its range would wrap (uint8)
    kernel = ElementwiseKernel("on if i == d else off",
                               [("i", index_dtype), ("d", np.dtype(np.int64)), ("on", dtype),
                                ("off", dtype)], dtype, name=node.name, op=node.op)

    def one_hot(indices, depth, on_value, off_value):
        d, axis = one_hot_axis(node, indices, depth)
        spread = indices.reshape(indices.shape[:axis] + (1,) + indices.shape[axis:])
        positions = cupy.arange(d, dtype=np.int64).reshape(
            (1,) * axis + (d,) + (1,) * (indices.ndim - axis))
        return kernel(spread, positions, on_value, off_value)
    return on_device(node, one_hot)


build_add_n = register_kernel("AddN", "GPU")(make_add_n_builder(ElementwiseKernel, on_device))
