"""Kernels of the ops that route or count elements by their values (HOST: the
reference's and the CPU's; ``cuda/segments.py`` runs them for the GPU): DynamicPartition,
DynamicStitch and ParallelDynamicStitch, Bincount, HistogramFixedWidth.

* DynamicPartition: output ``p`` holds, in order, the rows of ``data`` whose partition
  is ``p``; a partition outside ``[0, num_partitions)`` is InvalidArgumentError with TF's
  text (``partitions[2] = 3 is not in [0, 2)``).
* DynamicStitch: ``max(index) + 1`` rows; each data row lands at its index, later inputs
  winning over earlier ones (rows no index names stay 0).  ParallelDynamicStitch is the
  same (TF leaves the winner of a duplicate unspecified).
* Bincount: how often each value of ``arr`` below ``size`` occurs, or the sum of its
  weights; a negative value is TF's "Input arr must be non-negative!".
* HistogramFixedWidth: TF's kernel's arithmetic: ``(max(v, lo) - lo)`` in the values'
  dtype, divided by ``(hi - lo) / nbins`` in double, clipped to the last bin.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .array import as_ints, on_host

__all__ = ["HOST_BUILDERS"]


def _position(shape, flat_index: int) -> str:
    """TF's ``[i,j]`` of the element at ``flat_index`` of an array of ``shape``."""
    where = np.unravel_index(flat_index, shape) if shape else ()
    return "[" + ",".join(str(int(i)) for i in where) + "]"


def _build_dynamic_partition(node):
    count = int(node.attrs["num_partitions"])

    def dynamic_partition(data, partitions):
        partitions = on_host(partitions)
        if data.shape[:partitions.ndim] != partitions.shape:
            raise invalid_argument(node.name, node.op, f"data.shape must start with "
                                   f"partitions.shape, got data.shape = "
                                   f"{fmt_shape(data.shape)}, partitions.shape = "
                                   f"{fmt_shape(partitions.shape)}")
        flat = partitions.reshape(-1)
        bad = (flat < 0) | (flat >= count)
        if bad.any():
            k = int(np.argmax(bad))
            raise invalid_argument(node.name, node.op, f"partitions"
                                   f"{_position(partitions.shape, k)} = {int(flat[k])} is "
                                   f"not in [0, {count})")
        rows = data.reshape((flat.size,) + data.shape[partitions.ndim:])
        return tuple(rows[flat == p].copy() for p in range(count))
    return dynamic_partition


def _build_dynamic_stitch(node):
    def dynamic_stitch(*inputs):
        n = len(inputs) // 2
        indices = [on_host(i) for i in inputs[:n]]
        data = inputs[n:]
        for k, (index, values) in enumerate(zip(indices, data)):
            if values.shape[:index.ndim] != index.shape:
                raise invalid_argument(node.name, node.op, f"data[{k}].shape = "
                                       f"{fmt_shape(values.shape)} does not start with "
                                       f"indices[{k}].shape = {fmt_shape(index.shape)}")
            if values.shape[index.ndim:] != data[0].shape[indices[0].ndim:]:
                raise invalid_argument(node.name, node.op, f"Need data[0].shape["
                                       f"{indices[0].ndim}:] = data[{k}].shape[{index.ndim}:], "
                                       f"got data[0].shape = {fmt_shape(data[0].shape)}, "
                                       f"data[{k}].shape = {fmt_shape(values.shape)}")
        inner = data[0].shape[indices[0].ndim:] if n else ()
        flat = [index.reshape(-1) for index in indices]
        rows = max((int(f.max()) + 1 for f in flat if f.size), default=0)
        for f in flat:
            if f.size and f.min() < 0:
                raise invalid_argument(node.name, node.op, f"indices[{int(np.argmax(f < 0))}]"
                                       f" is out of range")
        out = np.zeros((rows,) + inner, node.output_dtype)
        for f, values in zip(flat, data):
            out[f] = values.reshape((f.size,) + inner)
        return out
    return dynamic_stitch


def _build_bincount(node):
    dtype = node.output_dtype

    def bincount(arr, size, weights):
        arr = on_host(arr)
        (bins,) = as_ints(size)
        if bins < 0:
            raise invalid_argument(node.name, node.op, f"size ({bins}) must be non-negative")
        if weights.size and weights.shape != arr.shape:
            raise invalid_argument(node.name, node.op, "Input indices and weights must have "
                                   "the same size.")
        flat = arr.reshape(-1)
        if flat.size and flat.min() < 0:
            raise invalid_argument(node.name, node.op, "Input arr must be non-negative!")
        kept = flat < bins
        if not weights.size:
            return np.bincount(flat[kept], minlength=bins)[:bins].astype(dtype)
        counts = np.zeros(bins, dtype)          # np.add.at: exact for integer weights
        np.add.at(counts, flat[kept], weights.reshape(-1)[kept])
        return counts
    return bincount


def _build_histogram(node):
    dtype = node.output_dtype

    def histogram_fixed_width(values, value_range, nbins):
        (bins,) = as_ints(nbins)
        if bins <= 0:
            raise invalid_argument(node.name, node.op, f"nbins should be a positive number, "
                                   f"but got '{bins}'")
        lo, hi = on_host(value_range).reshape(-1)[:2]
        if not lo < hi:
            raise invalid_argument(node.name, node.op, f"value_range should satisfy "
                                   f"value_range[0] < value_range[1], but got "
                                   f"'[{lo:g}, {hi:g}]'")
        values = on_host(values).reshape(-1)
        if values.dtype.kind == "f" and np.isnan(values).any():
            raise invalid_argument(node.name, node.op, "Histogram values must not contain NaN")
        step = float(hi - lo) / bins             # hi - lo in the values' dtype, as TF
        with np.errstate(over="ignore"):
            shifted = (np.maximum(values, lo) - lo).astype(np.float64)
        index = np.minimum(shifted / step, bins - 1).astype(np.int64)
        return np.bincount(index, minlength=bins).astype(dtype)
    return histogram_fixed_width


HOST_BUILDERS = {"DynamicPartition": _build_dynamic_partition,
                 "DynamicStitch": _build_dynamic_stitch,
                 "ParallelDynamicStitch": _build_dynamic_stitch,
                 "Bincount": _build_bincount, "HistogramFixedWidth": _build_histogram}
for _op, _build in HOST_BUILDERS.items():
    register_kernel(_op, HOST)(_build)
