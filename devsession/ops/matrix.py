"""Matrix helpers over the last two axes, built from existing ops as composites (so their
gradients come from those ops'): ``eye``, ``matrix_transpose``, ``trace``,
``matrix_band_part`` (TF's ``MatrixBandPart`` semantics), ``matrix_diag`` and
``matrix_diag_part``.

The band, the diagonal and the trace all select elements with a boolean mask of the
(rows, columns) grid, ``band_mask``: row indices ``i`` (a column) against column indices
``j`` (a row), compared once and broadcast over any batch axes.  Sizes come from the
static shape when it is known, else from ``ds.shape`` at run time.

    ds.matrix_band_part(scores, -1, 0)    # lower triangle (a causal attention mask)
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..graph import Tensor, constant_from_array, constant_value, control_dependencies, \
    convert_to_tensor, get_default_graph, name_scope
from .array import concat, expand_dims, stack, transpose
from .array_fill import rank as rank_of
from .array_fill import shape, zeros_like
from .array_index import strided_slice
from .elementwise import (cast, equal, less, less_equal, logical_and, logical_or, subtract,
                          where)
from .reduce import reduce_sum
from .sequence import range as range_

__all__ = ["eye", "matrix_transpose", "trace", "matrix_band_part", "matrix_diag",
           "matrix_diag_part", "band_mask"]


def _rank_at_least_2(x: Tensor, what: str) -> int:
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"{what} needs the rank of '{x.name}' to be known when the graph "
                         f"is built.")
    if rank < 2:
        raise ValueError(f"Argument 'a' should be a (batch) matrix with rank >= 2.  Received "
                         f"'{x.name}' with shape {x.shape}.")
    return rank


def _dim(x: Tensor, axis: int):
    """``x``'s size along ``axis``: a Python int when static, else a scalar tensor."""
    known = x.shape.dims[axis]
    return known if known is not None else strided_slice(shape(x), [axis], [axis + 1],
                                                         shrink_axis_mask=1)


def band_mask(rows, columns, num_lower=-1, num_upper=-1) -> Tensor:
    """A bool (rows, columns) tensor, true where ``i - j <= num_lower`` (or num_lower <
    0) and ``j - i <= num_upper`` (or num_upper < 0): TF's MatrixBandPart band."""
    i = expand_dims(range_(rows), 1)
    j = expand_dims(range_(columns), 0)
    lower, upper = (cast(v, i.dtype) if isinstance(v, Tensor) else
                    convert_to_tensor(v, dtype=i.dtype) for v in (num_lower, num_upper))
    below = logical_or(less(lower, 0), less_equal(subtract(i, j), lower))
    above = logical_or(less(upper, 0), less_equal(subtract(j, i), upper))
    return logical_and(below, above)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32,
        name=None) -> Tensor:
    """The (``batch_shape`` +) ``num_rows`` x ``num_columns`` identity matrix.  Python ints
    give a Const, as TF's constant folding would; tensors a computed mask.  Named as TF's
    (``eye/diag:0``, ``eye/set_diag:0`` when ``num_columns`` is given), whose last op is
    a MatrixDiag (MatrixSetDiag) of ones."""
    dtype = dtypes.as_dtype(dtype)
    last = "diag" if num_columns is None else "set_diag"
    num_columns = num_rows if num_columns is None else num_columns
    batch = [] if batch_shape is None else [int(d) for d in batch_shape]
    with name_scope(name or "eye"):
        if all(isinstance(v, (int, np.integer)) for v in (num_rows, num_columns)):
            value = np.eye(int(num_rows), int(num_columns), dtype=dtype.np)
            return constant_from_array(np.broadcast_to(value, batch + list(value.shape)),
                                       name=last, graph=get_default_graph())
        matrix = equal(expand_dims(range_(num_rows), 1), expand_dims(range_(num_columns), 0))
        if not batch:
            return cast(matrix, dtype, name=last)
        from .array_fill import broadcast_to

        matrix = cast(matrix, dtype)
        return broadcast_to(matrix, batch + [_dim(matrix, 0), _dim(matrix, 1)], name=last)


def matrix_transpose(a, name="matrix_transpose", conjugate=False) -> Tensor:
    """``a`` with its last two axes swapped; ``conjugate`` conjugates complex values too
    (the adjoint).  Of unknown rank, the perm is TF's, computed at run time from
    ``rank(a)`` (a vector fed: the Range's ``InvalidArgumentError``)."""
    with name_scope(name or "matrix_transpose"):
        x = convert_to_tensor(a)
        if x.shape.ndims is None:
            rank = rank_of(x)
            perm = concat([range_(0, subtract(rank, 2), 1),
                           stack([subtract(rank, 1), subtract(rank, 2)])], 0)
        else:
            rank = _rank_at_least_2(x, "matrix_transpose")
            perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        swapped = transpose(x, perm)
        if conjugate and x.dtype.is_complex:
            from .complex_math import conj

            return conj(swapped)
        return swapped


def matrix_band_part(input, num_lower, num_upper, name=None) -> Tensor:  # noqa: A002
    """``input`` with every element outside the band of each innermost matrix set to 0:
    ``num_lower`` subdiagonals and ``num_upper`` superdiagonals kept (negative: all).
    ``InvalidArgumentError`` when ``num_lower`` exceeds the number of rows or
    ``num_upper`` the number of columns, with TF's kernel's text; devsession raises it
    when the graph knows both numbers (TF at run time), and takes such a band unchecked
    when one is known only at run time.  An ``input`` of rank below 2 is
    ``InvalidArgumentError`` too, TF's kernel's, raised when built where the rank is known
    (TF builds the op and fails when it runs); of unknown rank, the band is taken over the
    last two axes of the value fed (a vector fed: that ``InvalidArgumentError`` at run
    time, with TF's text)."""
    with name_scope(name or "MatrixBandPart") as scope:
        x = convert_to_tensor(input)
        rank = x.shape.ndims
        if rank is not None and rank < 2:      # TF's kernel's check, raised when built
            raise InvalidArgumentError(f"input must be at least 2-dim, received shape: "
                                       f"{x.shape.as_list()}")
        if rank is None:                       # the sizes from the shape at run time
            sizes = _at_least_matrices(x)
            rows, columns = sizes[-2], sizes[-1]
        else:
            rows, columns = _dim(x, rank - 2), _dim(x, rank - 1)
        _check_band(num_lower, rows, "num_lower", "rows")
        _check_band(num_upper, columns, "num_upper", "columns")
        mask = band_mask(rows, columns, num_lower, num_upper)
        return where(mask, x, zeros_like(x), name=scope)     # TF's name: "MatrixBandPart:0"


def _at_least_matrices(x: Tensor) -> Tensor:
    """``x``'s shape, read after a MatrixDiagPart of ``x`` ran: its kernel's check is
    TF's MatrixBandPart's (``InvalidArgumentError`` "input must be at least 2-dim"), at
    the cost of one pass over the diagonals, for an ``x`` of unknown rank."""
    from .diagonals import matrix_diag_part as diag_part_op

    with control_dependencies([diag_part_op(x, name="check_rank").op]):
        return shape(x)


def _check_band(num, size, what: str, dimension: str) -> None:
    """TF's MatrixBandPart check of ``num`` against a static ``size``."""
    value = constant_value(num) if isinstance(num, Tensor) else num
    if isinstance(size, Tensor) or value is None or np.ndim(value) != 0:
        return
    if int(value) > size:
        raise InvalidArgumentError(f"{what} must be negative or less or equal to number of "
                                   f"{dimension} ({size}) got: {int(value)}")


def matrix_diag_part(input, name=None) -> Tensor:  # noqa: A002
    """The main diagonal of each innermost matrix: shape (..., min(rows, columns))."""
    with name_scope(name or "matrix_diag_part"):
        x = convert_to_tensor(input)
        rank = _rank_at_least_2(x, "matrix_diag_part")
        rows, columns = x.shape.dims[rank - 2], x.shape.dims[rank - 1]
        if rows is None or columns is None:
            raise ValueError(f"matrix_diag_part needs the static matrix size of '{x.name}' "
                             f"(got {x.shape}).")
        kept = where(band_mask(rows, columns, 0, 0), x, zeros_like(x))
        # each row holds its diagonal element (rows past the last column hold none: then
        # sum the columns instead)
        return reduce_sum(kept, axis=rank - 2 if rows > columns else rank - 1)


def matrix_diag(diagonal, name=None) -> Tensor:
    """A batch of square matrices with ``diagonal`` (..., n) on their main diagonals; of
    a ``diagonal`` of unknown rank, TF's MatrixDiag op (the gradients of Svd and
    SelfAdjointEig of unknown rank build this)."""
    with name_scope(name or "matrix_diag"):
        d = convert_to_tensor(diagonal)
        if d.shape.ndims is None:
            from .diagonals import matrix_diag as diag_op

            return diag_op(d, name="diag")
        if d.shape.ndims < 1:
            raise ValueError(f"matrix_diag needs a diagonal of rank >= 1, got '{d.name}' "
                             f"with shape {d.shape}.")
        n = _dim(d, d.shape.ndims - 1)
        on_diagonal = band_mask(n, n, 0, 0)
        spread = expand_dims(d, -1)                      # (..., n, 1) against (n, n)
        return where(on_diagonal, spread, zeros_like(spread))


def trace(x, name=None) -> Tensor:
    """The sum of the main diagonal of each innermost matrix.  Of unknown rank, TF's
    form: the sum of ``matrix_diag_part`` (a vector fed: its ``InvalidArgumentError``)."""
    with name_scope(name or "Trace") as scope:
        x = convert_to_tensor(x)
        if x.shape.ndims is None:
            from .diagonals import matrix_diag_part as diag_part_op

            return reduce_sum(diag_part_op(x, name="diag_part"), axis=-1, name=scope)
        rank = _rank_at_least_2(x, "trace")
        on_diagonal = band_mask(_dim(x, rank - 2), _dim(x, rank - 1), 0, 0)
        return reduce_sum(where(on_diagonal, x, zeros_like(x)), axis=[rank - 2, rank - 1],
                          name=scope)                          # TF's name: "Trace:0"
