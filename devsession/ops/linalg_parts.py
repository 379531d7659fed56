"""Pieces of square matrices the linear-algebra gradients build with (TF's
``matrix_set_diag``, ``matrix_diag_part``, ``eye`` with a batch shape, ``adjoint``),
composed from a diagonal mask (``matrix.band_mask``) and ``where``, so that they work
for sizes known only at run time as well."""

from __future__ import annotations

from ..graph import Tensor
from .array import expand_dims
from .array_fill import shape
from .array_index import strided_slice
from .elementwise import add, multiply, reciprocal, where
from .matrix import band_mask, matrix_transpose
from .reduce import reduce_sum
from .shape_of import ones_like_of, zeros_like_of

__all__ = ["transposed", "adjointed", "diagonal_mask", "identity_like", "diag_part", "set_diag",
           "safe_reciprocal", "scaled_by_batch"]


def transposed(x: Tensor) -> Tensor:
    """The last two axes swapped (the adjoint of real matrices)."""
    return matrix_transpose(x)


def adjointed(x: Tensor) -> Tensor:
    """The conjugate transpose of each matrix (the transpose of real ones)."""
    return matrix_transpose(x, conjugate=True)


def _size(x: Tensor, axis: int):
    known = x.shape.dims[axis] if x.shape.ndims is not None else None
    if known is not None:
        return known
    # axis -2 or -1: begin there, end at the next axis (the end itself for the last)
    return strided_slice(shape(x), [axis], [axis + 1 if axis < -1 else 0],
                         end_mask=0 if axis < -1 else 1, shrink_axis_mask=1)


def diagonal_mask(x: Tensor) -> Tensor:
    """True on the main diagonal of ``x``'s (square) matrices: an (n, n) bool."""
    return band_mask(_size(x, -2), _size(x, -1), 0, 0)


def identity_like(x: Tensor) -> Tensor:
    """Identity matrices of ``x``'s shape and dtype."""
    return where(diagonal_mask(x), ones_like_of(x), zeros_like_of(x))


def diag_part(x: Tensor) -> Tensor:
    """The main diagonal of each square matrix of ``x``: ``[..., n]``."""
    return reduce_sum(where(diagonal_mask(x), x, zeros_like_of(x)), axis=-1)


def set_diag(x: Tensor, diagonal: Tensor) -> Tensor:
    """``x`` with the main diagonal of each square matrix replaced by ``diagonal``."""
    return where(diagonal_mask(x), expand_dims(diagonal, -1), x)


def safe_reciprocal(x: Tensor, epsilon: float = 1e-20) -> Tensor:
    """TF's ``_SafeReciprocal``: ``x / (x² + ε)``, finite where ``x`` is 0 (degenerate
    eigen- or singular values)."""
    return multiply(x, reciprocal(add(multiply(x, x), epsilon)))


def scaled_by_batch(values: Tensor, matrices: Tensor) -> Tensor:
    """``values [...]`` times each matrix of ``matrices [..., n, n]``."""
    return multiply(expand_dims(expand_dims(values, -1), -1), matrices)
