"""Kernels of TF's set ops (``devsession/ops/set_operations.py``): DenseToDense-,
DenseToSparse- and SparseToSparseSetOperation and SetSize, numpy and Python sets on the
host (HOST; the GPU runs them through the host), with TF's run-time checks and messages.

A group is an index of every dimension but the last: a dense set's group is its row
along the last dimension, a sparse set's the values whose indices start with it (in the
order given: with ``validate_indices`` TF requires row-major order, unrepeated and in
bounds, ``reference/sparse.py``'s ``check_indices``).  Results list the groups in
row-major order, each one's values ascending, empty groups left out, as TF's kernels.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .sparse import check_indices

__all__ = ["HOST_BUILDERS"]

_COMBINE = {
    "a-b": lambda s1, s2: s1 - s2,
    "b-a": lambda s1, s2: s2 - s1,
    "intersection": lambda s1, s2: s1 & s2,
    "union": lambda s1, s2: s1 | s2,
}


def _group_shape(node, shape) -> tuple:
    if len(shape) < 2:
        raise invalid_argument(node.name, node.op, f"Shape {fmt_shape(shape)} has rank "
                               f"{len(shape)} < 2")
    return tuple(int(d) for d in shape[:-1])


def _groups_of_dense(node, x) -> tuple[tuple, dict]:
    """``(group_shape, {group: set of values})`` of a dense set."""
    groups = _group_shape(node, x.shape)
    rows = x.reshape(-1, x.shape[-1]) if x.size else np.empty((int(np.prod(groups)), 0),
                                                                x.dtype)
    return groups, {key: set(row.tolist()) for key, row in zip(np.ndindex(*groups), rows)}


def _groups_of_sparse(node, indices, values, shape, validate: bool) -> tuple[tuple, dict]:
    """``(group_shape, {group: set of values})`` of a sparse set, checked as TF checks
    it (``SparseTensorFromContext``)."""
    indices, values, shape = np.asarray(indices), np.asarray(values), np.asarray(shape)
    if shape.ndim != 1:
        raise invalid_argument(node.name, node.op, "Shape must be a 1D tensor.")
    dims = tuple(int(d) for d in shape)
    if len(dims) < 2:
        raise invalid_argument(node.name, node.op, f"Invalid rank {len(dims)}.")
    if indices.ndim != 2 or indices.shape[1] != len(dims) or len(values) != len(indices):
        raise invalid_argument(node.name, node.op, f"Sparse set of indices "
                               f"{fmt_shape(indices.shape)}, values "
                               f"{fmt_shape(values.shape)} and shape {fmt_shape(dims)} "
                               f"does not describe a SparseTensor")
    if validate:
        check_indices(node, indices.astype(np.int64), dims)
    groups: dict = {}
    for row, value in zip(indices[:, :-1].tolist(), values.tolist()):
        groups.setdefault(tuple(row), set()).add(value)
    return dims[:-1], groups


def _same_groups(node, shape1, shape2) -> None:
    if shape1 != shape2:
        raise invalid_argument(node.name, node.op, f"Mismatched shapes {fmt_shape(shape1)} "
                               f"vs {fmt_shape(shape2)}")


def _sparse_result(node, group_shape, keys, groups1, groups2):
    """The result SparseTensor's three arrays: each group's combined set, ascending."""
    combine = _COMBINE[str(node.attrs["set_operation"]).lower()]
    rows, values = [], []
    width = 0
    for key in keys:
        result = sorted(combine(groups1.get(key, set()), groups2.get(key, set())))
        width = max(width, len(result))
        rows.extend(key + (k,) for k in range(len(result)))
        values.extend(result)
    rank = len(group_shape) + 1
    indices = np.array(rows, np.int64).reshape(len(rows), rank)
    value_dtype = node.output_dtypes[1] if node.output_dtypes else None
    out_values = np.empty(len(values), value_dtype or object)
    out_values[:] = values
    return indices, out_values, np.array(group_shape + (width,), np.int64)


def _dense_to_dense(node):
    def dense_to_dense(set1, set2):
        shape1, groups1 = _groups_of_dense(node, np.asarray(set1))
        shape2, groups2 = _groups_of_dense(node, np.asarray(set2))
        _same_groups(node, shape1, shape2)
        return _sparse_result(node, shape1, list(np.ndindex(*shape1)), groups1, groups2)
    return dense_to_dense


def _dense_to_sparse(node):
    validate = bool(node.attrs.get("validate_indices", True))

    def dense_to_sparse(set1, indices, values, shape):
        shape1, groups1 = _groups_of_dense(node, np.asarray(set1))
        shape2, groups2 = _groups_of_sparse(node, indices, values, shape, validate)
        _same_groups(node, shape1, shape2)
        return _sparse_result(node, shape1, list(np.ndindex(*shape1)), groups1, groups2)
    return dense_to_sparse


def _sparse_to_sparse(node):
    validate = bool(node.attrs.get("validate_indices", True))

    def sparse_to_sparse(indices1, values1, shape1, indices2, values2, shape2):
        groups_shape, groups1 = _groups_of_sparse(node, indices1, values1, shape1, validate)
        shape2, groups2 = _groups_of_sparse(node, indices2, values2, shape2, validate)
        _same_groups(node, groups_shape, shape2)
        keys = sorted(set(groups1) | set(groups2))
        return _sparse_result(node, groups_shape, keys, groups1, groups2)
    return sparse_to_sparse


def _set_size(node):
    validate = bool(node.attrs.get("validate_indices", True))

    def set_size(indices, values, shape):
        group_shape, groups = _groups_of_sparse(node, indices, values, shape, validate)
        out = np.zeros(group_shape, np.int32)
        for key, members in groups.items():
            if any(not 0 <= k < d for k, d in zip(key, group_shape)):
                raise invalid_argument(node.name, node.op, f"Index out of range, "
                                       f"{list(key)} vs {fmt_shape(group_shape)}")
            out[key] = len(members)
        return out
    return set_size


HOST_BUILDERS = {"DenseToDenseSetOperation": _dense_to_dense,
                 "DenseToSparseSetOperation": _dense_to_sparse,
                 "SparseToSparseSetOperation": _sparse_to_sparse, "SetSize": _set_size}
for _op, _builder in HOST_BUILDERS.items():
    register_kernel(_op, HOST)(_builder)
