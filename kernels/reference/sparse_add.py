"""Kernels of ``SparseAdd``, ``SparseAddGrad`` and ``SparseTensorDenseAdd``
(``devsession/ops/sparse_add.py``), on the host.

SparseAdd and its gradient walk the two entry lists as TF's kernels do, one merge step
at a time comparing rows lexicographically: the inputs are meant to be in row-major
order, and for inputs that are not the walk gives what TF's gives (no check, as TF's).
The walk is a Python loop over the entries; SparseTensorDenseAdd is one ``np.add.at``.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .sparse import require_kernel, sparse_parts

# the dtypes of TF's CPU SparseAdd kernels (no half, no unsigned ints)
_ADD_TYPES = ("float32", "float64", "int64", "int32", "int16", "int8", "complex64",
              "complex128")


def _rows(indices: np.ndarray) -> list:
    return [tuple(row) for row in indices.tolist()]


def _compare(x: tuple, y: tuple) -> int:
    return (x > y) - (x < y)


def merge(a: list, b: list):
    """TF's merge of two entry lists: yields (i or None, j or None) per step, i and j
    the entries of a and b taking part (both when their rows are equal)."""
    i = j = 0
    while i < len(a) and j < len(b):
        order = _compare(a[i], b[j])
        if order < 0:
            yield i, None
            i += 1
        elif order > 0:
            yield None, j
            j += 1
        else:
            yield i, j
            i, j = i + 1, j + 1
    for k in range(i, len(a)):
        yield k, None
    for k in range(j, len(b)):
        yield None, k


@register_kernel("SparseAdd", HOST)
def build_sparse_add(node):
    def sparse_add(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
        require_kernel(node, a_values, _ADD_TYPES)
        a_coords, a_values, a_dims = sparse_parts(node, a_indices, a_values, a_shape)
        b_coords, b_values, b_dims = sparse_parts(node, b_indices, b_values, b_shape)
        thresh = np.asarray(thresh)
        if thresh.ndim != 0:
            raise invalid_argument(node.name, node.op, f"The magnitude threshold must be a "
                                   f"scalar: got shape {fmt_shape(thresh.shape)}")
        if len(a_dims) != len(b_dims):
            raise invalid_argument(node.name, node.op, f"Operands do not have the same ranks; "
                                   f"got shapes: {list(a_dims)} and {list(b_dims)}")
        for d, (m, n) in enumerate(zip(a_dims, b_dims)):
            if m != n:
                raise invalid_argument(node.name, node.op, f"Operands' shapes do not match: "
                                       f"got {m} and {n} for dimension {d}")
        limit = thresh.item()
        rows, values = [], []
        a_rows, b_rows = _rows(a_coords), _rows(b_coords)
        for i, j in merge(a_rows, b_rows):
            if j is None:
                rows.append(a_coords[i])
                values.append(a_values[i])
            elif i is None:
                rows.append(b_coords[j])
                values.append(b_values[j])
            else:
                total = a_values[i] + b_values[j]
                if abs(total) >= limit:
                    rows.append(a_coords[i])
                    values.append(total)
        indices = np.array(rows, np.int64).reshape(len(rows), len(a_dims))
        return indices, np.array(values, dtype=node.output_dtypes[1]).reshape(-1), \
            np.array(a_dims, np.int64)
    return sparse_add


@register_kernel("SparseAddGrad", HOST)
def build_sparse_add_grad(node):
    def sparse_add_grad(grad, a_indices, b_indices, sum_indices):
        grad = np.asarray(grad)
        a_rows, b_rows = _rows(np.asarray(a_indices)), _rows(np.asarray(b_indices))
        sums = _rows(np.asarray(sum_indices))
        if len(sums) != grad.size:
            raise invalid_argument(node.name, node.op, f"backprop_val_grad has {grad.size} "
                                   f"values but sum_indices {len(sums)} rows")
        a_grad = np.zeros(len(a_rows), grad.dtype)
        b_grad = np.zeros(len(b_rows), grad.dtype)
        k = 0
        for i, j in merge(a_rows, b_rows):
            if k == len(sums):
                break
            row = a_rows[i] if i is not None else b_rows[j]
            if row != sums[k]:          # a sum below the threshold: dropped, no gradient
                continue
            if i is not None:
                a_grad[i] = grad[k]
            if j is not None:
                b_grad[j] = grad[k]
            k += 1
        return a_grad, b_grad
    return sparse_add_grad


@register_kernel("SparseTensorDenseAdd", HOST)
def build_sparse_tensor_dense_add(node):
    def sparse_tensor_dense_add(indices, values, shape, b):
        coords, values, dims = sparse_parts(node, indices, values, shape,
                                            ("a_indices", "a_values", "a_shape"))
        b = np.asarray(b)
        if len(dims) != b.ndim:
            raise invalid_argument(node.name, node.op, f"Two operands have different ranks; "
                                   f"received: {len(dims)} and {b.ndim}")
        for d, (m, n) in enumerate(zip(dims, b.shape)):
            if m != n:
                raise invalid_argument(node.name, node.op, f"Dimension {d} does not equal (no "
                                       f"broadcasting is supported): sparse side {m} vs dense "
                                       f"side {n}")
        if coords.size:
            bad = (coords < 0) | (coords >= np.asarray(dims, np.int64))
            if bad.any():
                i, d = (int(v) for v in np.argwhere(bad)[0])
                raise invalid_argument(
                    node.name, node.op, f"Sparse tensor has an invalid index on dimension "
                    f"{d}: a_indices({i},{d}) = {coords[i, d]}, dense tensor shape: "
                    f"{' '.join(str(n) for n in b.shape)}")
        out = b.astype(node.output_dtype, copy=True)
        if len(coords):
            np.add.at(out, tuple(coords.T), values)
        return out
    return sparse_tensor_dense_add
