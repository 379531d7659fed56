"""Kernels of the ops that cut and join SparseTensors (``devsession/ops/sparse_slicing.py``):
SparseConcat, SparseSlice (and SparseSliceGrad), SparseSplit, SparseFillEmptyRows (and
SparseFillEmptyRowsGrad), on the host, in numpy.

Entry order follows TF's kernels, which the tests pin against TF's outputs:

* SparseConcat offsets each input's coordinate along the axis and returns every entry
  in row-major order (TF reorders the concatenation);
* SparseSlice and SparseSplit keep the entries they select in input order;
* SparseFillEmptyRows groups the entries by row (stable: input order within a row) and
  puts each empty row's ``[r, 0, ...]`` entry in its place; ``reverse_index_map[i]`` is
  where input entry ``i`` went.  Only the row coordinate is checked, as TF's.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .sparse import row_major_order, sparse_parts


def _vector(node, array, what: str) -> np.ndarray:
    array = np.asarray(array)
    if array.ndim != 1:
        raise invalid_argument(node.name, node.op, f"Input {what} should be a vector but "
                               f"received shape {fmt_shape(array.shape)}")
    return array.astype(np.int64, copy=False)


@register_kernel("SparseConcat", HOST)
def build_sparse_concat(node):
    axis = int(node.attrs["concat_dim"])

    def sparse_concat(*inputs):
        n = len(inputs) // 3
        parts = [sparse_parts(node, inputs[i], inputs[n + i], inputs[2 * n + i])
                 for i in range(n)]
        rank = len(parts[0][2])
        if not -rank <= axis < rank:
            raise invalid_argument(node.name, node.op, f"Concat dimension must be in range "
                                   f"[{-rank}, {rank}), got {axis}")
        dim = axis % rank
        shape = list(parts[0][2])
        for position, (_, _, dims) in enumerate(parts[1:], start=1):
            if len(dims) != rank:
                raise invalid_argument(node.name, node.op, f"Ranks of all input tensors must "
                                       f"match: expected {rank} but got {len(dims)} at "
                                       f"position {position}")
            for d in range(rank):
                if d != dim and dims[d] != shape[d]:
                    raise invalid_argument(node.name, node.op, f"Input shapes must match: "
                                           f"expected {shape[d]} for dimension {d} but got "
                                           f"{dims[d]} at position {position}")
        offsets = np.cumsum([0] + [dims[dim] for _, _, dims in parts])
        shape[dim] = int(offsets[-1])
        coords = []
        for (c, _, _), offset in zip(parts, offsets):
            c = c.copy()
            c[:, dim] += offset
            coords.append(c)
        coords = np.concatenate(coords).reshape(-1, rank)
        values = np.concatenate([v for _, v, _ in parts]).astype(node.output_dtypes[1],
                                                                 copy=False)
        order = row_major_order(coords)
        return coords[order], values[order], np.asarray(shape, np.int64)
    return sparse_concat


def slice_shape(dims: tuple, start: np.ndarray, size: np.ndarray) -> list:
    """TF's ``SparseTensor::Slice`` output shape: the overlap of the box with the input
    (a negative start counts the part before the input in, as TF's does)."""
    out = []
    for n, s, k in zip(dims, start.tolist(), size.tolist()):
        out.append(k if s < n - k else (n - s if s < n else 0))
    return out


@register_kernel("SparseSlice", HOST)
def build_sparse_slice(node):
    def sparse_slice(indices, values, shape, start, size):
        coords, values, dims = sparse_parts(node, indices, values, shape)
        start, size = _vector(node, start, "start"), _vector(node, size, "size")
        for what, array in (("start", start), ("size", size)):
            if len(array) != len(dims):
                raise invalid_argument(node.name, node.op, f"Expected {what} to be a vector "
                                       f"of length {len(dims)} but got length {len(array)}")
        if (size < 0).any():
            raise invalid_argument(node.name, node.op, f"Expected a non-negative size, got "
                                   f"{int(size[np.argmax(size < 0)])}")
        inside = ((coords >= start) & (coords < start + size)).all(axis=1)
        return (coords[inside] - start, values[inside],
                np.asarray(slice_shape(dims, start, size), np.int64))
    return sparse_slice


@register_kernel("SparseSliceGrad", HOST)
def build_sparse_slice_grad(node):
    def sparse_slice_grad(grad, input_indices, input_start, output_indices):
        grad = np.asarray(grad)
        inputs = np.asarray(input_indices, np.int64)
        outputs = np.asarray(output_indices, np.int64) + np.asarray(input_start, np.int64)
        if len(outputs) != grad.size:
            raise invalid_argument(node.name, node.op, f"backprop_val_grad has {grad.size} "
                                   f"values but output_indices {len(outputs)} rows")
        out = np.zeros(len(inputs), grad.dtype)
        j = 0
        for i in range(len(inputs)):           # TF's walk: both lists in the same order
            if j == len(outputs):
                break
            if (inputs[i] == outputs[j]).all():
                out[i] = grad[j]
                j += 1
        return out
    return sparse_slice_grad


def split_sizes(length: int, num: int) -> list:
    """TF's split of ``length`` into ``num`` parts: the first ``length % num`` one
    longer."""
    size, residual = divmod(length, num)
    return [size + 1 if k < residual else size for k in range(num)]


@register_kernel("SparseSplit", HOST)
def build_sparse_split(node):
    num = int(node.attrs["num_split"])

    def sparse_split(split_dim, indices, values, shape):
        coords, values, dims = sparse_parts(node, indices, values, shape)
        axis, rank = int(np.asarray(split_dim)), len(dims)
        if not -rank <= axis < rank:
            raise invalid_argument(node.name, node.op, f"Input axis should be in range "
                                   f"[{-rank}, {rank}), got {axis}")
        axis %= rank
        if not 1 <= num <= dims[axis]:
            raise invalid_argument(node.name, node.op, f"Input num_split should be between 1 "
                                   f"and the splitting dimension size ({dims[axis]}), got "
                                   f"{num}")
        sizes = split_sizes(dims[axis], num)
        bounds = np.cumsum([0] + sizes)
        piece = np.searchsorted(bounds, coords[:, axis], side="right") - 1
        out_indices, out_values, out_shapes = [], [], []
        for k in range(num):
            mine = piece == k
            c = coords[mine].copy()
            c[:, axis] -= bounds[k]
            out_indices.append(c)
            out_values.append(values[mine])
            out_shapes.append(np.asarray([sizes[k] if d == axis else n
                                          for d, n in enumerate(dims)], np.int64))
        return (*out_indices, *out_values, *out_shapes)
    return sparse_split


@register_kernel("SparseFillEmptyRows", HOST)
def build_sparse_fill_empty_rows(node):
    def sparse_fill_empty_rows(indices, values, dense_shape, default_value):
        default = np.asarray(default_value)
        if default.ndim != 0:
            raise invalid_argument(node.name, node.op, f"default_value must be a scalar, saw: "
                                   f"{fmt_shape(default.shape)}")
        coords, values, dims = sparse_parts(node, indices, values, dense_shape,
                                            ("indices", "values", "dense_shape"))
        if not dims:
            raise invalid_argument(node.name, node.op, "Dense shape cannot be empty.")
        rows_count, n = dims[0], len(coords)
        if rows_count == 0 and n:
            raise invalid_argument(node.name, node.op, f"Received SparseTensor with "
                                   f"dense_shape[0] = 0 but indices.shape[0] = {n}")
        rows = coords[:, 0]
        bad = (rows < 0) | (rows >= rows_count)
        if bad.any():
            i = int(np.argmax(bad))
            raise invalid_argument(node.name, node.op, f"indices({i}, 0) is invalid: "
                                   f"{int(rows[i])} >= {rows_count}")
        empty = np.ones(rows_count, bool)
        empty[rows] = False
        filled = np.flatnonzero(empty)
        # the empty rows' entries join the others, each row's entries in input order
        all_rows = np.concatenate([rows, filled])
        order = np.argsort(all_rows, kind="stable")
        extra = np.zeros((len(filled), len(dims)), np.int64)
        extra[:, 0] = filled
        out_coords = np.concatenate([coords, extra])[order]
        out_values = np.concatenate([values, np.full(len(filled), default, values.dtype)])
        reverse = np.empty(len(order), np.int64)
        reverse[order] = np.arange(len(order))
        return out_coords, out_values[order], empty, reverse[:n]
    return sparse_fill_empty_rows


@register_kernel("SparseFillEmptyRowsGrad", HOST)
def build_sparse_fill_empty_rows_grad(node):
    def sparse_fill_empty_rows_grad(reverse_index_map, grad_values):
        reverse, grad = np.asarray(reverse_index_map, np.int64), np.asarray(grad_values)
        bad = (reverse < 0) | (reverse >= grad.size)
        if bad.any():
            raise invalid_argument(node.name, node.op, f"Elements in reverse index must be in "
                                   f"[0, {grad.size}) but got {int(reverse[np.argmax(bad)])}")
        visited = np.zeros(grad.size, bool)
        visited[reverse] = True
        return grad[reverse], np.asarray(grad[~visited].sum(), grad.dtype)
    return sparse_fill_empty_rows_grad
