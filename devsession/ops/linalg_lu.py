"""LU factorisation with partial pivoting, as TF1's Lu op (``tf.linalg.lu``), and TF's
Python compositions over it: ``lu_solve``, ``lu_reconstruct`` and ``lu_matrix_inverse``
(``python/ops/linalg/linalg_impl.py``, built from the same ops).

Lu ``[..., N, N]`` -> ``lu [..., N, N]`` (the unit lower factor ``L`` below the
diagonal, ``U`` on and above it) and ``p [..., N]`` of ``output_idx_type`` (int32 or
int64): the rows of the input in the order ``L @ U`` has them, ``input[p] == L @ U``.
Pivoting is Eigen's ``PartialPivLU``, TF's kernel: at each column the first row of
largest magnitude at or below the diagonal.  A zero (or NaN) on ``U``'s diagonal is TF's
InvalidArgumentError "Input is not invertible." at run time.  T is TF's list (float16
to float64, complex64, complex128); TF registers no float16 kernel, so float16 fails
when the graph runs, as TF's.  TF registers no gradient for Lu either: ``ds.gradients``
through it is the LookupError TF raises.

Kernel: ``kernels/reference/linalg_lu.py`` (host).

    lu, p = ds.linalg.lu(a)
    x = ds.linalg.lu_solve(lu, p, b)              # a @ x == b
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import graph_of
from .linalg_shapes import batch_of, square_matrices
from .registry import OpDef, register_op

__all__ = ["lu", "lu_solve", "lu_reconstruct", "lu_matrix_inverse", "Lu"]

Lu = collections.namedtuple("Lu", ["lu", "p"])       # TF's result type

_TYPES = (dtypes.float64, dtypes.float32, dtypes.float16, dtypes.complex64,
          dtypes.complex128)
_INDEX_TYPES = (dtypes.int32, dtypes.int64)


def _lu(inputs, attrs, node):
    (x,) = inputs
    if x.dtype not in _TYPES:
        raise TypeError(f"Op '{node}': Value passed to parameter 'input' has DataType "
                        f"{x.dtype.name} not in list of allowed values: float64, float32, "
                        f"float16, complex64, complex128")
    index = dtypes.as_dtype(attrs["output_idx_type"])
    if index not in _INDEX_TYPES:
        raise TypeError(f"Op '{node}': output_idx_type must be int32 or int64, not "
                        f"{index.name}.")
    parts = square_matrices(x, node)
    if parts is None:
        return [(x.dtype, TensorShape(None)), (index, TensorShape(None))]
    batch, n = parts
    return [(x.dtype, batch_of(batch, n, n)), (index, batch_of(batch, n))]


register_op(OpDef("Lu", _lu, 1, attr_defaults={"output_idx_type": dtypes.int32}))


def lu(input, output_idx_type=dtypes.int32, name=None) -> Lu:  # noqa: A002  (TF's names)
    """``Lu(lu, p)``: the LU factors of each square matrix packed in one matrix and the
    row permutation, ``input[..., p, :] == L @ U``."""
    x = convert_to_tensor(input, name="input", graph=graph_of(input))
    op = x.graph.create_op("Lu", [x], {"output_idx_type": dtypes.as_dtype(output_idx_type)},
                           name=name or "Lu")
    return Lu(*op.outputs)


def _factors(lower_upper, perm):
    lower_upper = convert_to_tensor(lower_upper, dtype_hint=dtypes.float32,
                                    name="lower_upper", graph=graph_of(lower_upper, perm))
    perm = convert_to_tensor(perm, dtype_hint=dtypes.int32, name="perm",
                             graph=lower_upper.graph)
    _check_factors(lower_upper, perm)
    return lower_upper, perm


def _check_factors(lower_upper, perm) -> None:
    """TF's ``lu_reconstruct_assertions``, the checks the static shapes allow."""
    rank = lower_upper.shape.ndims
    if rank is not None and rank < 2:
        raise ValueError("Input `lower_upper` must have at least 2 dimensions.")
    if rank is not None and perm.shape.ndims is not None and rank != perm.shape.ndims + 1:
        raise ValueError("`rank(lower_upper)` must equal `rank(perm) + 1`")
    if rank is not None and lower_upper.shape[:-2].is_fully_defined():
        rows, columns = lower_upper.shape.dims[-2:]
        if rows != columns:
            raise ValueError("`lower_upper` must be square.")


def _unit_lower(lower_upper, shape):
    """``L``: the strictly lower triangle of ``lower_upper`` with ones on the diagonal."""
    from .array_fill import ones
    from .diagonals import matrix_set_diag
    from .matrix import matrix_band_part

    return matrix_set_diag(matrix_band_part(lower_upper, -1, 0),
                           ones(shape[:-1], dtype=lower_upper.dtype))


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None) -> Tensor:
    """``x`` with ``A @ x == rhs`` for ``A``'s factors ``(lower_upper, perm)`` from
    ``lu``: ``rhs``'s rows permuted, then two triangular solves, as TF builds it (the
    batch dimensions of ``perm`` and ``rhs`` broadcast).  ``validate_args`` adds no
    run-time assertion here: the static checks are TF's."""
    from .array import concat, reshape, stack
    from .array_fill import broadcast_to, shape as shape_of
    from .array_shapes import broadcast_dynamic_shape
    from .gather_options import gather, gather_nd
    from .linalg_solve import matrix_triangular_solve
    from .reduce import reduce_prod
    from .sequence import range as range_

    with name_scope(name or "lu_solve"):
        lower_upper, perm = _factors(lower_upper, perm)
        rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype, name="rhs",
                                graph=lower_upper.graph)
        if rhs.shape.ndims is not None and rhs.shape.ndims < 2:
            raise ValueError("Input `rhs` must have at least 2 dimensions.")
        if lower_upper.shape.ndims is not None and rhs.shape.ndims is not None:
            n, rows = lower_upper.shape.dims[-1], rhs.shape.dims[-2]
            if n is not None and rows is not None and n != rows:
                raise ValueError("`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.")
        if rhs.shape.ndims == 2 and perm.shape.ndims == 1:
            permuted_rhs = gather(rhs, perm, axis=-2)
        else:
            rhs_shape = shape_of(rhs)
            batch_shape = broadcast_dynamic_shape(rhs_shape[:-2],
                                                  shape_of(perm)[:-1])
            d, m = rhs_shape[-2], rhs_shape[-1]
            rhs_broadcast_shape = concat([batch_shape, stack([d, m])], axis=0)
            flat_rhs = reshape(broadcast_to(rhs, rhs_broadcast_shape), stack([-1, d, m]))
            flat_perm = reshape(broadcast_to(perm, rhs_broadcast_shape[:-1]),
                                stack([-1, d]))
            batch_size = reduce_prod(batch_shape)
            batch_indices = broadcast_to(
                reshape(range_(batch_size), [-1, 1]), stack([batch_size, d]))
            indices = stack([batch_indices, _cast_like(flat_perm, batch_indices)], axis=-1)
            permuted_rhs = reshape(gather_nd(flat_rhs, indices), rhs_broadcast_shape)
            # TF 2's MatrixTriangularSolve broadcasts the batch; devsession's (TF1's
            # shape function) wants it equal, so the factors are broadcast here.
            lower_upper = broadcast_to(lower_upper, concat(
                [batch_shape, shape_of(lower_upper)[-2:]], axis=0))
        lower = _unit_lower(lower_upper, shape_of(lower_upper))
        return matrix_triangular_solve(lower_upper,     # only the upper triangle is read
                                       matrix_triangular_solve(lower, permuted_rhs),
                                       lower=False)


def _cast_like(indices, like):
    from .elementwise import cast

    return indices if indices.dtype == like.dtype else cast(indices, like.dtype)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The inverse of each matrix ``A`` given its factors from ``lu``: ``lu_solve``
    against the identity, as TF builds it."""
    from .array_fill import ones, shape as shape_of
    from .diagonals import matrix_diag

    with name_scope(name or "lu_matrix_inverse"):
        lower_upper, perm = _factors(lower_upper, perm)
        # TF's eye(n, batch_shape): the identity of each matrix of the batch.
        identity = matrix_diag(ones(shape_of(lower_upper)[:-1], dtype=lower_upper.dtype))
        return lu_solve(lower_upper, perm, rhs=identity)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The matrices ``A`` whose factors ``lu`` returned: ``L @ U`` with its rows put back
    by the inverse permutation, as TF builds it."""
    from .array import reshape, stack
    from .array_fill import broadcast_to, shape as shape_of
    from .array_sets import invert_permutation
    from .functional import map_fn
    from .gather_options import gather, gather_nd
    from .linalg import matmul
    from .matrix import matrix_band_part
    from .reduce import reduce_prod
    from .sequence import range as range_

    with name_scope(name or "lu_reconstruct"):
        lower_upper, perm = _factors(lower_upper, perm)
        shape = shape_of(lower_upper)
        x = matmul(_unit_lower(lower_upper, shape), matrix_band_part(lower_upper, 0, -1))
        if lower_upper.shape.ndims != 2:
            batch_size = reduce_prod(shape[:-2])
            d = shape[-1]
            x = reshape(x, stack([batch_size, d, d]))
            inverse = map_fn(invert_permutation, reshape(perm, stack([batch_size, d])))
            batch_indices = broadcast_to(range_(batch_size)[:, None],   # TF's newaxis:
                                         stack([batch_size, d]))         # no Reshape
            x = gather_nd(x, stack([batch_indices, _cast_like(inverse, batch_indices)],
                                   axis=-1))
            x = reshape(x, shape)
        else:
            x = gather(x, invert_permutation(perm))
        x.set_shape(lower_upper.shape)
        return x
