"""Kernels of the sparse reductions and elementwise ops (``devsession/ops/sparse_math.py``):
SparseReduceMax, SparseReduceSumSparse, SparseReduceMaxSparse, SparseSoftmax,
SparseSparseMaximum and SparseSparseMinimum, on the host, in numpy.

As TF's kernels, the reductions group the stored entries by their kept coordinates
(implicit zeros take no part: the max of ``[-1, -2]`` stored in a row of four is -1),
and an output element with no entry is 0.  The ``*Sparse`` forms return one entry per
group, in row-major order.  SparseSoftmax normalises each run of consecutive entries
sharing all but the last coordinate (TF's ``group`` over entries meant to be sorted),
output in input order.  The sparse-sparse maximum and minimum walk both entry lists as
SparseAdd does (``sparse_add.merge``), an entry of one side alone against an implicit 0.
"""

from __future__ import annotations

import numpy as np

from ..checks import invalid_argument
from ..registry import HOST, register_kernel
from .sparse import accumulator, checked_reduction, sparse_parts
from .sparse_add import _rows, merge


def _groups(coords: np.ndarray, kept: list) -> tuple[np.ndarray, np.ndarray]:
    """(each group's kept coordinates in row-major order, each entry's group)."""
    keys = coords[:, kept]
    if not kept:
        return np.zeros((1 if len(coords) else 0, 0), np.int64), np.zeros(len(coords), int)
    return np.unique(keys, axis=0, return_inverse=True)


def _reduce(node, indices, values, shape, axes, how: str):
    """(group coordinates, group values, dims, kept, reduced) of a sum or max."""
    coords, values, dims, kept, reduced = checked_reduction(node, indices, values, shape,
                                                            axes)
    keys, group = _groups(coords, kept)
    group = np.asarray(group).reshape(-1)
    if how == "sum":
        acc = accumulator(values.dtype)
        out = np.zeros(len(keys), acc)
        np.add.at(out, group, values.astype(acc))
    else:
        out = np.full(len(keys), np.nan if values.dtype.kind in "fc" else
                      np.iinfo(values.dtype).min, values.dtype)
        np.fmax.at(out, group, values)          # NaN entries lose, as Eigen's max
    return keys, out.astype(values.dtype, copy=False), dims, kept, reduced


def _build_dense(how: str):
    def build(node):
        keep_dims = bool(node.attrs.get("keep_dims", False))

        def sparse_reduce(indices, values, shape, axes):
            keys, out, dims, kept, reduced = _reduce(node, indices, values, shape, axes, how)
            dense = np.zeros([dims[d] for d in kept], node.output_dtype)
            if len(keys):
                dense[tuple(keys.T)] = out if kept else out[0]
            if keep_dims:
                dense = dense.reshape([1 if d in reduced else n for d, n in enumerate(dims)])
            return dense
        return sparse_reduce
    return build


def _build_sparse(how: str):
    def build(node):
        keep_dims = bool(node.attrs.get("keep_dims", False))

        def sparse_reduce(indices, values, shape, axes):
            keys, out, dims, kept, reduced = _reduce(node, indices, values, shape, axes, how)
            if keep_dims:
                full = np.zeros((len(keys), len(dims)), np.int64)
                full[:, kept] = keys
                shape = [1 if d in reduced else n for d, n in enumerate(dims)]
                return full, out, np.asarray(shape, np.int64)
            return (keys.astype(np.int64), out,
                    np.asarray([dims[d] for d in kept], np.int64))
        return sparse_reduce
    return build


register_kernel("SparseReduceMax", HOST)(_build_dense("max"))
register_kernel("SparseReduceMaxSparse", HOST)(_build_sparse("max"))
register_kernel("SparseReduceSumSparse", HOST)(_build_sparse("sum"))


@register_kernel("SparseSoftmax", HOST)
def build_sparse_softmax(node):
    def sparse_softmax(indices, values, shape):
        coords, values, dims = sparse_parts(node, indices, values, shape,
                                            ("sp_indices", "sp_values", "sp_shape"))
        if len(dims) < 2:
            raise invalid_argument(node.name, node.op, f"Input should have rank >= 2, but "
                                   f"received shape: {' '.join(str(d) for d in dims)}")
        out = np.empty_like(values)
        leading = coords[:, :-1]
        starts = np.flatnonzero(np.r_[True, (leading[1:] != leading[:-1]).any(axis=1)]) \
            if len(coords) else np.zeros(0, int)
        for begin, end in zip(starts, np.r_[starts[1:], len(coords)].astype(int)):
            run = values[begin:end]
            e = np.exp(run - run.max())
            out[begin:end] = e / e.sum()
        return out
    return sparse_softmax


def _build_min_or_max(pick):
    def build(node):
        def sparse_sparse(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
            a_coords, a_values, a_dims = sparse_parts(node, a_indices, a_values, a_shape,
                                                      ("a_indices", "a_values", "a_shape"))
            b_coords, b_values, b_dims = sparse_parts(node, b_indices, b_values, b_shape,
                                                      ("b_indices", "b_values", "b_shape"))
            if len(a_dims) != len(b_dims):
                raise invalid_argument(node.name, node.op, f"Operands do not have the same "
                                       f"ranks; got shapes: {' '.join(map(str, a_dims))} and "
                                       f"{' '.join(map(str, b_dims))}")
            for d, (m, n) in enumerate(zip(a_dims, b_dims)):
                if m != n:
                    raise invalid_argument(node.name, node.op, f"Operands' shapes do not "
                                           f"match: got {m} and {n} for dimension {d}")
            zero = np.zeros((), a_values.dtype)
            rows, values = [], []
            for i, j in merge(_rows(a_coords), _rows(b_coords)):
                rows.append(a_coords[i] if i is not None else b_coords[j])
                values.append(pick(a_values[i] if i is not None else zero,
                                   b_values[j] if j is not None else zero))
            indices = np.array(rows, np.int64).reshape(len(rows), len(a_dims))
            return indices, np.array(values, a_values.dtype).reshape(-1)
        return sparse_sparse
    return build


register_kernel("SparseSparseMaximum", HOST)(_build_min_or_max(np.maximum))
register_kernel("SparseSparseMinimum", HOST)(_build_min_or_max(np.minimum))
