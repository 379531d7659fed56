"""Kernels of ``DenseCountSparseOutput`` and ``SparseCountSparseOutput``
(``devsession/ops/sparse_bincount.py``), on the host: each value counted (or its weights
summed, or 1 with ``binary_output``) per row, the entries in (row, value) order, as TF's
``count_ops.cc``; and of ``DenseBincount`` and ``SparseBincount``, the same counts written
into a dense ``[size]`` vector or ``[rows, size]`` matrix (values past ``size`` skipped,
as TF's ``bincount_op.cc``)."""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel


def _count(node, rows, values, weights, n_rows, as_matrix: bool):
    """(indices, values, dense shape) of the counts of ``values`` (row ``rows[i]`` each)."""
    attrs = node.attrs
    maxlength, minlength = int(attrs["maxlength"]), int(attrs["minlength"])
    out_dtype = np.dtype(attrs["output_type"])
    if values.size and values.min() < 0:
        raise invalid_argument(node.name, node.op, "Input values must all be non-negative")
    if weights.size and weights.shape != values.shape:
        raise invalid_argument(node.name, node.op, f"Weights and values must have the same "
                               f"shape. Weight shape: {fmt_shape(weights.shape)}; values "
                               f"shape: {fmt_shape(values.shape)}")
    largest = int(values.max()) if values.size else 0
    width = maxlength if maxlength > 0 else max(largest + 1, minlength)
    keep = values < maxlength if maxlength > 0 else np.ones(values.shape, bool)
    rows, values = rows[keep], values[keep].astype(np.int64)
    pairs, where = np.unique(np.stack([rows, values], 1).reshape(-1, 2), axis=0,
                             return_inverse=True)
    where = where.reshape(-1)
    if attrs["binary_output"]:
        counts = np.ones(len(pairs), out_dtype)
    elif weights.size:
        counts = np.zeros(len(pairs), weights.dtype)
        np.add.at(counts, where, weights[keep])
    else:
        counts = np.bincount(where, minlength=len(pairs)).astype(out_dtype)
    if as_matrix:
        return pairs.astype(np.int64), counts, np.array([n_rows, width], np.int64)
    return pairs[:, 1:].astype(np.int64), counts, np.array([width], np.int64)


@register_kernel("DenseCountSparseOutput", HOST)
def build_dense_count(node):
    def dense_count(values, weights):
        values, weights = np.asarray(values), np.asarray(weights)
        if values.ndim == 2:
            rows = np.repeat(np.arange(values.shape[0], dtype=np.int64), values.shape[1])
            return _count(node, rows, values.reshape(-1), weights.reshape(-1)
                          if weights.size else weights, values.shape[0], True)
        rows = np.zeros(values.size, np.int64)
        return _count(node, rows, values.reshape(-1), weights, 1, False)
    return dense_count


@register_kernel("SparseCountSparseOutput", HOST)
def build_sparse_count(node):
    def sparse_count(indices, values, dense_shape, weights):
        indices, values = np.asarray(indices, np.int64), np.asarray(values)
        dense_shape = np.asarray(dense_shape, np.int64)
        if len(dense_shape) == 1:
            rows = np.zeros(values.size, np.int64)
            return _count(node, rows, values, np.asarray(weights), 1, False)
        rows = indices[:, 0] if len(indices) else np.zeros(0, np.int64)
        return _count(node, rows, values, np.asarray(weights), int(dense_shape[0]), True)
    return sparse_count


def _dense_bincount(node, rows, values, weights, size, n_rows, as_matrix: bool):
    if values.size and values.min() < 0:
        raise invalid_argument(node.name, node.op, "Input arr must be non-negative!")
    size = int(size)
    if size < 0:
        raise invalid_argument(node.name, node.op, f"size ({size}) must be non-negative")
    out_dtype = weights.dtype
    keep = values < size
    rows, values = rows[keep], values[keep].astype(np.int64)
    out = np.zeros((n_rows, size), out_dtype)
    if node.attrs.get("binary_output"):
        out[rows, values] = 1
    else:
        np.add.at(out, (rows, values), weights[keep] if weights.size else 1)
    return out if as_matrix else out[0]


@register_kernel("DenseBincount", HOST)
def build_dense_bincount(node):
    def dense_bincount(values, size, weights):
        values, weights = np.asarray(values), np.asarray(weights)
        if weights.size and weights.shape != values.shape:
            raise invalid_argument(node.name, node.op, f"Input arr and weights must have "
                                   f"the same shape or weights must be empty, got "
                                   f"{fmt_shape(values.shape)} and {fmt_shape(weights.shape)}")
        flat_weights = weights.reshape(-1) if weights.size else weights
        if values.ndim == 2:
            rows = np.repeat(np.arange(values.shape[0], dtype=np.int64), values.shape[1])
            return _dense_bincount(node, rows, values.reshape(-1), flat_weights, size,
                                   values.shape[0], True)
        rows = np.zeros(values.size, np.int64)
        return _dense_bincount(node, rows, values.reshape(-1), flat_weights, size, 1, False)
    return dense_bincount


@register_kernel("SparseBincount", HOST)
def build_sparse_bincount(node):
    def sparse_bincount(indices, values, dense_shape, size, weights):
        indices, values = np.asarray(indices, np.int64), np.asarray(values)
        dense_shape, weights = np.asarray(dense_shape, np.int64), np.asarray(weights)
        if len(dense_shape) == 2:
            rows = indices[:, 0] if len(indices) else np.zeros(0, np.int64)
            return _dense_bincount(node, rows, values, weights, size, int(dense_shape[0]),
                                   True)
        rows = np.zeros(values.size, np.int64)
        return _dense_bincount(node, rows, values, weights, size, 1, False)
    return sparse_bincount
