"""Kernels of the sparse reductions and elementwise ops (``devsession/ops/sparse_math.py``):
SparseReduceMax, SparseReduceSumSparse, SparseReduceMaxSparse, SparseSoftmax,
SparseSparseMaximum and SparseSparseMinimum, on the host, in numpy.

As TF's kernels, the reductions group the stored entries by their kept coordinates
(implicit zeros take no part: the max of ``[-1, -2]`` stored in a row of four is -1),
and an output element with no entry is 0.  The ``*Sparse`` forms return one entry per
group, in row-major order.  SparseSoftmax normalises the entries sharing all but the
last coordinate (TF's ``group`` after its ``Reorder``), output in row-major order: the
input order when the indices are sorted, as the op requires; for unsorted ones the values
do not line up with their indices, as TF's.  The sparse-sparse maximum and minimum walk both entry lists as
SparseAdd does (``sparse_add.merge``), an entry of one side alone against an implicit 0.

The SparseDenseCwise ops (TF's ``SparseDenseBinaryOpShared``) pick the dense element at
each entry's index from the dense side broadcast to the dense shape, checking entry by
entry as TF does (an index out of bounds, then for Div a zero picked: the first entry at
fault decides the error); integer division truncates, as Eigen's.
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .elementwise import _truncate_div
from .sparse import accumulator, checked_reduction, out_of_bounds, require_kernel, \
    sparse_parts
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
        # TF's kernel reorders the entries row-major first and writes each result at
        # its entry's place in that order: unsorted indices get values that no longer
        # line up with them, as TF's
        order = np.lexsort(coords.T[::-1]) if len(coords) else np.zeros(0, int)
        coords, values = coords[order], values[order]
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


# the dtypes of TF's CPU SparseSparseMaximum/Minimum and SparseDenseCwise kernels (real
# numbers)
_REAL_TYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
               "uint16", "uint32", "uint64")


def _build_min_or_max(pick):
    def build(node):
        def sparse_sparse(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
            require_kernel(node, a_values, _REAL_TYPES)     # Minimum's op takes complex
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


def _broadcasts_into(sparse_dims: tuple, dense_dims: tuple) -> bool:
    """TF's test: the dense side has no more dims than the sparse, and each trailing dim
    equals the sparse's or is 1 (and is no larger)."""
    if len(dense_dims) > len(sparse_dims):
        return False
    pairs = zip(reversed(sparse_dims), reversed(dense_dims))
    return all(d <= s and d in (s, 1) for s, d in pairs)


def _picked(node, coords: np.ndarray, dims: tuple, dense: np.ndarray) -> np.ndarray:
    """The dense element at each entry's index, with TF's run-time errors."""
    if not _broadcasts_into(dims, dense.shape):
        raise invalid_argument(node.name, node.op, f"SparseDenseBinaryOpShared broadcasts "
                               f"dense to sparse only; got incompatible shapes: "
                               f"{fmt_shape(dims)} vs. {fmt_shape(dense.shape)}")
    if not 1 <= len(dims) <= 5:
        raise invalid_argument(node.name, node.op, f"Only tensors with ranks between 1 and 5 "
                               f"are currently supported.  Tensor rank: {len(dims)}")
    bad = out_of_bounds(coords, dims)
    valid = int(np.argmax(bad)) if bad.any() else len(coords)
    picked = np.broadcast_to(dense, dims)[tuple(coords[:valid].T)]
    if node.op == "SparseDenseCwiseDiv" and (picked == 0).any():
        raise invalid_argument(node.name, node.op, "SparseDenseCwiseDiv cannot divide by "
                               "zero,but input dense tensor contains zero ")
    if valid < len(coords):
        raise invalid_argument(node.name, node.op, "Provided indices are out-of-bounds "
                               "w.r.t. dense side with broadcasted shape")
    return picked


def _divide(x, y):
    return _truncate_div(x, y) if x.dtype.kind in "iu" else x / y


_CWISE = {"SparseDenseCwiseMul": np.multiply, "SparseDenseCwiseDiv": _divide,
          "SparseDenseCwiseAdd": np.add}


@register_kernel(tuple(_CWISE), HOST)
def build_sparse_dense_cwise(node):
    combine = _CWISE[node.op]

    def sparse_dense_cwise(indices, values, shape, dense):
        coords, values, dims = sparse_parts(node, indices, values, shape,
                                            ("sp_indices", "sp_values", "sp_shape"))
        require_kernel(node, values, _REAL_TYPES)     # the op takes complex, TF's CPU not
        picked = _picked(node, coords, dims, np.asarray(dense))
        with np.errstate(all="ignore"):
            return combine(values, picked).astype(values.dtype, copy=False)
    return sparse_dense_cwise
