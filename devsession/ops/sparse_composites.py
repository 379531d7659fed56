"""TF1's sparse functions built from other ops, as TF1's ``sparse_ops.py`` builds them
(no op type of their own): ``sparse.retain``, ``sparse.transpose``,
``sparse.expand_dims``, ``sparse.eye``, ``sparse.reset_shape``, ``sparse.to_indicator``
and ``sparse.merge``.  Their errors are those of the ops they build (gather, Where,
SparseReorder, SparseToDense) and TF1's static ValueErrors.
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, control_dependencies, convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor, SparseTensorValue, convert_to_sparse_tensor
from .sparse import sparse_reorder, sparse_tensor_to_dense

__all__ = ["sparse_retain", "sparse_transpose", "sparse_expand_dims", "sparse_eye",
           "sparse_reset_shape", "sparse_to_indicator", "sparse_merge"]


def sparse_retain(sp_input, to_retain) -> SparseTensor:
    """TF1's ``tf.sparse.retain`` / ``tf.sparse_retain``: the entries of ``sp_input``
    where the bool vector ``to_retain`` (one per entry) is True; ValueError when
    ``to_retain`` is not a vector or its static length differs."""
    from .array import identity, reshape
    from .array_index import gather
    from .sequence import where_indices

    sp = convert_to_sparse_tensor(sp_input)
    keep = convert_to_tensor(to_retain, graph=sp.graph)
    if keep.shape.ndims is not None and keep.shape.ndims != 1:
        raise ValueError(f"Shape {keep.shape} must have rank 1")
    count = sp.values.shape.dims[0] if sp.values.shape.ndims == 1 else None
    wanted = keep.shape.dims[0] if keep.shape.ndims == 1 else None
    if count is not None and wanted is not None and count != wanted:
        raise ValueError(f"Dimensions {count} and {wanted} are not compatible")
    where_true = reshape(where_indices(keep), [-1])
    return SparseTensor(gather(sp.indices, where_true), gather(sp.values, where_true),
                        identity(sp.dense_shape))


def sparse_transpose(sp_input, perm=None, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.transpose`` / ``tf.sparse_transpose``: ``sp_input`` with its
    dimensions permuted by ``perm`` (reversed when None), entries reordered row-major."""
    from .array import transpose
    from .array_fill import rank
    from .array_index import gather
    from .sequence import range as range_

    sp = convert_to_sparse_tensor(sp_input)
    with name_scope(name or "SparseTranspose"):
        if perm is None:
            ndims = sp.get_shape().ndims
            perm = (ndims - 1) - np.arange(ndims) if ndims is not None else \
                (rank(sp.dense_shape) - 1) - range_(0, rank(sp.dense_shape))
        perm_tensor = convert_to_tensor(perm, graph=sp.graph)
        indices = transpose(gather(transpose(sp.indices), perm_tensor))
        static = constant_value(perm_tensor)
        old = sp.get_shape()
        if static is not None and old.is_fully_defined():
            dims = old.as_list()
            shape = convert_to_tensor([dims[int(p)] for p in np.asarray(static)],
                                      dtype=dtypes.int64, graph=sp.graph)
        else:
            shape = gather(sp.dense_shape, perm_tensor)
        return sparse_reorder(SparseTensor(indices, sp.values, shape))


def sparse_expand_dims(sp_input, axis=None, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.expand_dims``: ``sp_input`` with a dimension of size 1 inserted
    at ``axis`` (an int or an int32 Tensor; -1, the end, when None; negative counts
    from the end of the result).  TypeError for another kind of axis."""
    from .array import concat
    from .array_composites import where_v2
    from .array_fill import shape as shape_of, zeros
    from .array_index import slice as slice_

    sp = convert_to_sparse_tensor(sp_input)
    rank = sp.dense_shape.shape.dims[0] if sp.dense_shape.shape.ndims == 1 else None
    if rank is None:
        rank = shape_of(sp.dense_shape)[0]
    axis = -1 if axis is None else axis
    with name_scope(name or "expand_dims"):
        if isinstance(axis, numbers.Integral):
            axis = convert_to_tensor(int(axis), dtype=dtypes.int32, name="axis",
                                     graph=sp.graph)
        elif not isinstance(axis, Tensor):
            raise TypeError("axis must be an int or a Tensor")
        axis = where_v2(axis >= 0, axis, axis + rank + 1)
        column_size = shape_of(sp.indices)[0]
        new_index = zeros([column_size, 1], dtype=dtypes.int64)
        before = slice_(sp.indices, [0, 0], [-1, axis])
        after = slice_(sp.indices, [0, axis], [-1, -1])
        indices = concat([before, new_index, after], axis=1)
        one = convert_to_tensor([1], dtype=dtypes.int64, name="new_shape", graph=sp.graph)
        shape = concat([sp.dense_shape[:axis], one, sp.dense_shape[axis:]], axis=0)
        return SparseTensor(indices, sp.values, shape)


def sparse_eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.eye``: the ``num_rows`` x ``num_columns`` (square when None)
    identity as a SparseTensor of ``dtype`` ones."""
    from .array import stack
    from .array_fill import ones
    from .elementwise import minimum
    from .sequence import range as range_

    with name_scope(name or "eye"):
        num_rows = convert_to_tensor(num_rows, dtype=dtypes.int64, name="num_rows")
        num_columns = num_rows if num_columns is None else \
            convert_to_tensor(num_columns, dtype=dtypes.int64, name="num_columns")
        diag_size = minimum(num_rows, num_columns)
        diag_range = range_(diag_size, dtype=dtypes.int64)
        return SparseTensor(indices=stack([diag_range, diag_range], axis=1),
                            values=ones(_as_vector(diag_size), dtype=dtype),
                            dense_shape=stack([num_rows, num_columns]))


def sparse_reset_shape(sp_input, new_shape=None) -> SparseTensor:
    """TF1's ``tf.sparse.reset_shape`` / ``tf.sparse_reset_shape``: the same entries
    with dense shape ``new_shape`` (each dimension at least the old one), or the
    tightest shape holding the entries when None.  ValueError when both shapes are known
    and ``new_shape`` is smaller or of another rank; an assertion fails at run time
    otherwise."""
    from .array import identity
    from .array_fill import ones_like, shape
    from .assertions import assert_equal, assert_less_equal
    from .elementwise import add, cast, maximum
    from .reduce import reduce_max

    sp = convert_to_sparse_tensor(sp_input)
    in_indices, in_values = identity(sp.indices), identity(sp.values)
    in_shape = identity(sp.dense_shape)
    if new_shape is None:
        low = reduce_max(in_indices, axis=0)
        zero = convert_to_tensor(0, dtype=dtypes.int64, graph=sp.graph)
        return SparseTensor(in_indices, in_values, maximum(zero, add(low, ones_like(in_shape))))
    out = convert_to_tensor(new_shape, graph=sp.graph,
                            dtype=None if isinstance(new_shape, Tensor) else dtypes.int64)
    if out.shape.ndims is not None and out.shape.ndims != 1:
        raise ValueError(f"Shape {out.shape} must have rank 1")
    if out.dtype != dtypes.int64:
        out = cast(out, dtypes.int64)
    rank = in_shape.shape.dims[0] if in_shape.shape.ndims == 1 else None
    if out.shape.ndims == 1 and None not in (rank, out.shape.dims[0]) and \
            rank != out.shape.dims[0]:
        raise ValueError(f"Dimensions {out.shape.dims[0]} and {rank} are not compatible")
    static = constant_value(out)
    if static is not None and sp.get_shape().is_fully_defined():
        old = np.array(sp.get_shape().as_list())
        if not np.all(old <= static):
            raise ValueError(f"Requested new_shape should have dimension sizes >= "
                             f"sp_input.shape.  Found new_shape ({old}), sp_input.shape "
                             f"({static}).")
        return SparseTensor(in_indices, in_values,
                            convert_to_tensor(static, dtype=dtypes.int64, graph=sp.graph))
    with control_dependencies([assert_equal(shape(in_shape), shape(out))]):
        out = identity(out)
    with control_dependencies([assert_less_equal(in_shape, out)]):
        out = identity(out)
    return SparseTensor(in_indices, in_values, out)


def sparse_merge(sp_ids, sp_values, vocab_size, name=None,
                 already_sorted=False) -> SparseTensor:
    """TF1's ``tf.sparse.merge`` / ``tf.sparse_merge`` (deprecated in TF1): the values
    of ``sp_values`` at the ids of ``sp_ids`` (one SparseTensor, or a list of them for
    several id dimensions), replacing the last dimension by ``vocab_size`` (an int or
    Tensor, or a list matching ``sp_ids``); row-major unless ``already_sorted``.
    TypeError / ValueError for arguments of the wrong kinds or lengths, as TF1's."""
    from .array import concat, expand_dims, stack
    from .elementwise import cast

    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        sp_ids = [sp_ids]
        if not isinstance(vocab_size, (Tensor, numbers.Integral)):
            raise TypeError(f"vocab_size has to be a Tensor or Python int. Found "
                            f"{type(vocab_size)}")
        vocab_size = [vocab_size]
    else:
        if not isinstance(sp_ids, (list, tuple)):
            raise TypeError(f"sp_ids has to be a SparseTensor or list thereof. Found "
                            f"{type(sp_ids)}")
        if not isinstance(vocab_size, (list, tuple)):
            raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. Found "
                            f"{type(vocab_size)}")
        for dim in vocab_size:
            if not isinstance(dim, (Tensor, numbers.Integral)):
                raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. "
                                f"Found {type(dim)}")
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with name_scope(name or "SparseMerge"):
        sp_ids = [convert_to_sparse_tensor(ids, "sp_ids") for ids in sp_ids]
        values = convert_to_sparse_tensor(sp_values, "sp_values")
        ids = [expand_dims(ids.values if ids.dtype == dtypes.int64 else
                           cast(ids.values, dtypes.int64), axis=1) for ids in sp_ids]
        sizes = stack([_size(v, values.graph) for v in vocab_size])
        indices = concat([sp_ids[0].indices[:, :-1]] + ids, 1)
        shape = concat([sp_ids[0].dense_shape[:-1], sizes], 0)
        result = SparseTensor(indices, values.values, shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, shape)


def _as_vector(size: Tensor) -> Tensor:
    from .array import reshape

    return reshape(size, [1])


def _size(size, graph) -> Tensor:
    """A vocab size as an int64 scalar: a constant when the graph knows it, so the
    merged SparseTensor's static shape has it (as TF's shape inference sees through
    the Cast)."""
    from .elementwise import cast

    known = constant_value(size) if isinstance(size, Tensor) else size
    if known is not None:
        return convert_to_tensor(np.int64(np.asarray(known).reshape(())), graph=graph)
    return cast(size, dtypes.int64)


def sparse_to_indicator(sp_input, vocab_size, name=None) -> Tensor:
    """TF1's ``tf.sparse.to_indicator`` / ``tf.sparse_to_indicator``: the dense bool
    ``[..., vocab_size]`` tensor True at every id in each last-dimension row of the int
    SparseTensor ``sp_input``; InvalidArgumentError at run time for an id outside
    ``[0, vocab_size)``."""
    from .array_fill import fill, shape

    sp = convert_to_sparse_tensor(sp_input)
    with name_scope(name or "SparseToIndicator"):
        count = shape(sp.indices)[0:1]
        flags = SparseTensor(sp.indices, fill(count, True), sp.dense_shape)
        merged = sparse_merge(sp, flags, vocab_size)
        return sparse_tensor_to_dense(merged, default_value=False, validate_indices=False)
