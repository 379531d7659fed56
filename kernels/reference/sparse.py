"""Kernels of the sparse ops (``devsession/ops/sparse.py``): numpy over the three arrays
of a SparseTensor, on the host (``HOST``: the reference device and the CPU; GPU
sessions place these ops on the CPU, and numpy's fancy indexing is both the clearest
and a fast enough formulation for index lists).

Every kernel first checks its arrays as TF's kernels do (a matrix of int indices, a
vector of values as long as it, a shape vector as long as a row of indices) and raises
``InvalidArgumentError`` naming the node with TF's wording; ``check_indices`` is TF's
``SparseTensor::IndicesValid`` (in bounds, then sorted, then distinct; the first bad
row is reported).  ``require_kernel`` is TF's run-time error for a dtype the op takes but
TF's CPU kernels do not (SparseAdd of half or unsigned values, SparseTensorDenseMatMul
of int64, int8, int16 or unsigned ones, SparseSparseMinimum of complex ones).
"""

from __future__ import annotations

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel


_TF_TYPE_ENUMS = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE",
                  "complex64": "DT_COMPLEX64", "complex128": "DT_COMPLEX128", "bool": "DT_BOOL"}


def require_kernel(node, values: np.ndarray, supported: tuple) -> None:
    """TF's InvalidArgumentError for values of a dtype its CPU kernels of ``node.op`` do
    not cover (``supported``: numpy dtype names), as a run of the op raises it."""
    name = np.asarray(values).dtype.name
    if name not in supported:
        enum = _TF_TYPE_ENUMS.get(name, f"DT_{name.upper()}")
        raise invalid_argument(node.name, node.op, (
            f"No OpKernel was registered to support Op '{node.op}' used by {{{{node "
            f"{node.name}}}}} with these attrs: [T={enum}]"))


def _check_rank(node, array: np.ndarray, what: str, rank: int) -> None:
    """InvalidArgumentError, TF's wording, unless ``array`` is a matrix (``rank`` 2) or
    a vector (1)."""
    if array.ndim != rank:
        kind = "matrix" if rank == 2 else "vector"
        raise invalid_argument(node.name, node.op, f"Input {what} should be a {kind} but "
                               f"received shape {fmt_shape(array.shape)}")


def sparse_parts(node, indices, values, shape, names=("indices", "values", "shape")):
    """(indices as int64 [N, R], values, shape as a tuple of R ints), checked."""
    indices, values, shape = np.asarray(indices), np.asarray(values), np.asarray(shape)
    for array, what, rank in zip((indices, values, shape), names, (2, 1, 1)):
        _check_rank(node, array, what, rank)
    if indices.shape[0] != values.shape[0]:
        raise invalid_argument(node.name, node.op, f"indices and values rows (indexing "
                               f"dimension) must match. (indices = {indices.shape[0]}, "
                               f"values = {values.shape[0]})")
    if indices.shape[1] != shape.shape[0]:
        raise invalid_argument(node.name, node.op, f"Shape rank must be SparseTensor rank. "
                               f"(indices have {indices.shape[1]} columns, shape has "
                               f"{shape.shape[0]} elements)")
    return indices.astype(np.int64, copy=False), values, tuple(int(d) for d in shape)


def _row(coords, n) -> str:
    return f"indices[{n}] = [" + ",".join(str(int(c)) for c in coords[n]) + "]"


def out_of_bounds(coords: np.ndarray, shape: tuple) -> np.ndarray:
    """Per row, whether any coordinate is outside ``shape``."""
    if not coords.size:
        return np.zeros(len(coords), bool)
    return ((coords < 0) | (coords >= np.asarray(shape, np.int64))).any(axis=1)


def check_in_bounds(node, coords: np.ndarray, shape: tuple) -> None:
    """InvalidArgumentError for the first row of ``coords`` outside ``shape``."""
    bad = out_of_bounds(coords, shape)
    if bad.any():
        n = int(np.argmax(bad))
        raise invalid_argument(node.name, node.op, f"{_row(coords, n)} is out of bounds: "
                               f"need 0 <= index < {fmt_shape(shape)}")


def check_indices(node, coords: np.ndarray, shape: tuple) -> None:
    """TF's ``IndicesValid``: every row in bounds, each after the one before in
    row-major order and different from it; the first bad row is the error."""
    n_rows = len(coords)
    bounds = out_of_bounds(coords, shape)
    order = np.zeros(n_rows, bool)
    repeat = np.zeros(n_rows, bool)
    if n_rows > 1 and coords.shape[1]:
        step = coords[1:] - coords[:-1]
        moved = step != 0
        first = np.argmax(moved, axis=1)
        sign = step[np.arange(n_rows - 1), first]
        repeat[1:] = ~moved.any(axis=1)
        order[1:] = moved.any(axis=1) & (sign < 0)
    elif n_rows > 1:
        repeat[1:] = True        # rank 0: every row is the one element
    bad = bounds | order | repeat
    if not bad.any():
        return
    n = int(np.argmax(bad))
    if bounds[n]:
        what = f"is out of bounds: need 0 <= index < {fmt_shape(shape)}"
    elif order[n]:
        what = ("is out of order. Many sparse ops require sorted indices.\n    Use "
                "`tf.sparse.reorder` to create a correctly ordered copy.\n\n")
    else:
        what = "is repeated"
    raise invalid_argument(node.name, node.op, f"{_row(coords, n)} {what}")


def accumulator(dtype: np.dtype) -> np.dtype:
    """float16 sums add up in float32 (as TF's kernels accumulate half)."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


@register_kernel("SparseToDense", HOST)
def build_sparse_to_dense(node):
    validate = bool(node.attrs.get("validate_indices", True))

    def sparse_to_dense(indices, output_shape, values, default):
        indices, values = np.asarray(indices), np.asarray(values)
        output_shape, default = np.asarray(output_shape), np.asarray(default)
        if indices.ndim > 2:
            raise invalid_argument(node.name, node.op, f"sparse_indices should be a scalar, "
                                   f"vector, or matrix, got shape {fmt_shape(indices.shape)}")
        count = indices.shape[0] if indices.ndim > 0 else 1
        rank = indices.shape[1] if indices.ndim > 1 else 1
        if output_shape.ndim > 1:
            raise invalid_argument(node.name, node.op, f"output_shape should be a vector, "
                                   f"got shape {fmt_shape(output_shape.shape)}")
        if output_shape.size != rank:
            raise invalid_argument(node.name, node.op, f"output_shape has incorrect number "
                                   f"of elements: {output_shape.size} should be: {rank}")
        if not (values.ndim == 0 or (values.ndim == 1 and values.size == count)):
            raise invalid_argument(node.name, node.op, f"sparse_values has incorrect shape "
                                   f"{fmt_shape(values.shape)}, should be [] or [{count}]")
        if default.ndim != 0:
            raise invalid_argument(node.name, node.op, "default_value should be a scalar.")
        shape = tuple(int(d) for d in output_shape.reshape(-1))
        if any(d < 0 for d in shape):
            raise invalid_argument(node.name, node.op, f"output_shape {fmt_shape(shape)} has "
                                   f"a negative dimension")
        coords = indices.reshape(count, rank).astype(np.int64, copy=False)
        if validate:
            check_indices(node, coords, shape)
        elif out_of_bounds(coords, shape).any():
            raise invalid_argument(node.name, node.op, f"Indices are not valid (out of "
                                   f"bounds).  Shape: {fmt_shape(shape)}")
        out = np.full(shape, default, dtype=node.output_dtype)
        if count:
            out[tuple(coords.T)] = values       # a repeated index keeps its last value
        return out
    return sparse_to_dense


# the dtypes of TF's CPU SparseTensorDenseMatMul kernels
_MATMUL_TYPES = ("float16", "float32", "float64", "int32", "complex64", "complex128")


@register_kernel("SparseTensorDenseMatMul", HOST)
def build_sparse_tensor_dense_matmul(node):
    adjoint_a = bool(node.attrs.get("adjoint_a", False))
    adjoint_b = bool(node.attrs.get("adjoint_b", False))
    row_of, col_of = (1, 0) if adjoint_a else (0, 1)

    def matmul(a_indices, a_values, a_shape, b):
        a_indices, a_values, a_shape, b = (np.asarray(x) for x in (a_indices, a_values,
                                                                   a_shape, b))
        require_kernel(node, a_values, _MATMUL_TYPES)
        _check_matmul(node, a_indices, a_values, a_shape, b)
        dims = [int(d) for d in a_shape]
        rows, inner = (dims[1], dims[0]) if adjoint_a else (dims[0], dims[1])
        b = b.T.conj() if adjoint_b else b
        if adjoint_a:                  # the adjoint: conjugated too (complex values)
            a_values = a_values.conj()
        if inner != b.shape[0]:
            raise invalid_argument(
                node.name, node.op, f"Cannot multiply A and B because inner dimension does "
                f"not match: {inner} vs. {b.shape[0]}.  Did you forget a transpose?  "
                f"Dimensions of A: [{dims[0]}, {dims[1]}).  Dimensions of B: "
                f"{fmt_shape(b.shape if not adjoint_b else b.T.shape)}")
        m = a_indices[:, row_of].astype(np.int64, copy=False)
        k = a_indices[:, col_of].astype(np.int64, copy=False)
        for bad, what, at, limit in (((k < 0) | (k >= inner), "k", col_of, inner),
                                     ((m < 0) | (m >= rows), "m", row_of, rows)):
            if bad.any():
                i = int(np.argmax(bad))
                value = (k if what == "k" else m)[i]
                raise invalid_argument(node.name, node.op, f"{what} ({value}) from "
                                       f"index[{i},{at}] out of bounds (>={limit})")
        acc = accumulator(node.output_dtype)
        out = np.zeros((rows, b.shape[1]), dtype=acc)
        if len(m):
            np.add.at(out, m, a_values.astype(acc)[:, None] * b[k].astype(acc))
        return out.astype(node.output_dtype, copy=False)
    return matmul


def _check_matmul(node, a_indices, a_values, a_shape, b) -> None:
    checks = ((a_shape.ndim == 1, "Tensor 'a_shape' is not a vector"),
              (a_shape.size == 2, "Tensor 'a_shape' must have 2 elements"),
              (a_values.ndim == 1, "Tensor 'a_values' is not a vector"),
              (a_indices.ndim == 2, "Tensor 'a_indices' is not a matrix"),
              (b.ndim == 2, f"Tensor 'b' is not a matrix: {fmt_shape(b.shape)}"))
    for ok, message in checks:
        if not ok:
            raise invalid_argument(node.name, node.op, message)
    if a_indices.shape[0] != a_values.size:
        raise invalid_argument(node.name, node.op, "Number of rows of a_indices does not "
                               "match number of entries in a_values")
    if a_indices.shape[1] != a_shape.size:
        raise invalid_argument(node.name, node.op, "Number of columns of a_indices does not "
                               "match number of entries in a_shape")


def checked_reduction(node, indices, values, shape, axes):
    """A sparse reduction's operands checked as TF's kernels do: (coordinates, values,
    dims, the kept axes, the set of reduced axes)."""
    coords, values, dims = sparse_parts(node, indices, values, shape,
                                        ("input_indices", "input_values", "input_shape"))
    axes = np.asarray(axes)
    if axes.ndim > 1:
        raise invalid_argument(node.name, node.op, f"Expected reduction_axes to be a "
                               f"scalar or a vector; got shape: {fmt_shape(axes.shape)}")
    rank = len(dims)
    reduced = set()
    for axis in axes.reshape(-1):
        if not -rank <= int(axis) < rank:
            raise invalid_argument(node.name, node.op, f"Invalid reduction dimension "
                                   f"{int(axis)}, for input with {rank} dimensions.")
        reduced.add(int(axis) % rank)
    kept = [d for d in range(rank) if d not in reduced]
    # only the kept coordinates address the output (TF reads no others)
    check_in_bounds(node, coords[:, kept], tuple(dims[d] for d in kept))
    return coords, values, dims, kept, reduced


@register_kernel("SparseReduceSum", HOST)
def build_sparse_reduce_sum(node):
    keep_dims = bool(node.attrs.get("keep_dims", False))

    def sparse_reduce_sum(indices, values, shape, axes):
        coords, values, dims, kept, reduced = checked_reduction(node, indices, values, shape,
                                                                axes)
        acc = accumulator(node.output_dtype)
        if kept:
            out = np.zeros([dims[d] for d in kept], dtype=acc)
            np.add.at(out, tuple(coords[:, kept].T), values.astype(acc))
        else:
            out = np.asarray(values.astype(acc).sum(dtype=acc))
        out = out.astype(node.output_dtype, copy=False)
        if keep_dims:
            out = out.reshape([1 if d in reduced else dims[d] for d in range(len(dims))])
        return out
    return sparse_reduce_sum


@register_kernel("SparseReorder", HOST)
def build_sparse_reorder(node):
    def sparse_reorder(indices, values, shape):
        coords, values, _ = sparse_parts(node, indices, values, shape,
                                         ("indices", "values", "shape"))
        order = row_major_order(coords)
        return coords[order], values[order]
    return sparse_reorder


def row_major_order(coords: np.ndarray) -> np.ndarray:
    """The permutation sorting the rows of ``coords`` lexicographically (stable)."""
    if not coords.shape[1] or len(coords) < 2:
        return np.arange(len(coords))
    return np.lexsort(coords.T[::-1])


@register_kernel("SparseReshape", HOST)
def build_sparse_reshape(node):
    def sparse_reshape(indices, shape, new_shape):
        indices, shape, new_shape = (np.asarray(x) for x in (indices, shape, new_shape))
        for array, what, rank in ((indices, "indices", 2), (shape, "shape", 1)):
            _check_rank(node, array, what, rank)
        if new_shape.ndim != 1:
            raise invalid_argument(node.name, node.op, f"Target shape should be a vector but "
                                   f"received shape {fmt_shape(new_shape.shape)}")
        if indices.shape[1] != shape.size:
            raise invalid_argument(node.name, node.op, f"Input shape has {shape.size} "
                                   f"elements, but the indices have {indices.shape[1]} "
                                   f"columns")
        old = [int(d) for d in shape]
        new = _reshaped(node, old, [int(d) for d in new_shape])
        coords = indices.astype(np.int64, copy=False)
        if old == new:
            return coords.copy(), np.asarray(new, np.int64)
        linear = coords @ _strides(old) if len(coords) else np.zeros(0, np.int64)
        out = np.empty((len(coords), len(new)), np.int64)
        for j, stride in enumerate(_strides(new)):
            out[:, j] = linear // stride
            linear = linear - out[:, j] * stride
        return out, np.asarray(new, np.int64)
    return sparse_reshape


def _strides(dims) -> np.ndarray:
    strides = np.ones(len(dims), np.int64)
    for j in range(len(dims) - 2, -1, -1):
        strides[j] = strides[j + 1] * dims[j + 1]
    return strides


def _reshaped(node, old: list, target: list) -> list:
    """``target`` with its -1 filled in; InvalidArgumentError with TF's texts."""
    size = int(np.prod(old, dtype=np.int64))
    unknown, product = -1, 1
    for d, n in enumerate(target):
        if n == -1:
            if unknown != -1:
                raise invalid_argument(node.name, node.op, f"only one output dimension may "
                                       f"be -1, not both {unknown} and {d}")
            unknown = d
        elif n < 0:
            raise invalid_argument(node.name, node.op, f"size {d} must be non-negative, not "
                                   f"{n}")
        else:
            product *= n
    shown = fmt_shape([1 if n == -1 else n for n in target])
    if unknown != -1:
        if product <= 0:
            raise invalid_argument(node.name, node.op, "reshape cannot infer the missing "
                                   "input size for an empty tensor unless all specified "
                                   "input sizes are non-zero")
        if size % product:
            raise invalid_argument(
                node.name, node.op, f"Input to reshape is a SparseTensor with {size} dense "
                f"values, but the requested shape requires a multiple of {product}. "
                f"input_shape={fmt_shape(old)} output_shape={shown}")
        return [size // product if n == -1 else n for n in target]
    if product != size:
        raise invalid_argument(
            node.name, node.op, f"Input to reshape is a tensor with {size} dense values, but "
            f"the requested shape has {product}. input_shape={fmt_shape(old)} "
            f"output_shape={shown}")
    return target
