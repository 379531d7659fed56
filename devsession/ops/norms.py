"""Norms and spreads, built from existing ops as TF1 builds them (so their gradients come
from those ops'): ``norm`` (TF1's ``tf.norm``), ``reduce_variance`` and ``reduce_std``.

``norm(x, ord, axis)``: with ``axis`` None the whole tensor is one vector; an int is a
vector norm along that axis; a pair of axes (tuple or list) is a matrix norm; anything
else, a one-axis list ``[1]`` included, is TF's ValueError.  Vector ords:
'euclidean' (= 2; ``sqrt(sum(x * conj(x)))``, of a complex ``x`` a complex number with
no imaginary part, as TF's), 1, ``np.inf`` and any positive p (``sum(|x|^p)^(1/p)``,
real).  Matrix ords:
'euclidean'/'fro' (the square root of the sum of squares), 1 (the largest column sum of
``|x|``), ``np.inf`` (the largest row sum), 2 (the largest singular value, from an Svd
of the matrices moved to the last two axes, as TF computes it; by a permutation computed
when run where the input's rank is unknown).  Other ords and axes (a nuclear norm
included: TF has none) are TF's ValueErrors.  As TF, the norm is reduced keeping the axes,
then (without ``keepdims``) squeezed: the result is ``norm/Squeeze:0``.

    ds.norm(x, axis=-1, keepdims=True)          # row lengths, for normalising rows
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from .array import squeeze
from .common import one_spelling
from .complex_math import conj
from .elementwise import abs as abs_
from .elementwise import pow as pow_
from .elementwise import multiply, sqrt, square, subtract
from .reduce import reduce_max, reduce_mean, reduce_sum

__all__ = ["norm", "reduce_variance", "reduce_std"]

_VECTOR_ORDS = ("euclidean", 1, 2, np.inf)
_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


def _checked_axis(axis):
    """None, an int, or a pair of distinct ints (TF's rule: a one-axis list is a
    ValueError, not a vector norm)."""
    if axis is None or isinstance(axis, (int, np.integer)):
        return axis
    if isinstance(axis, (tuple, list)) and len(axis) == 2 and axis[0] != axis[1] \
            and all(isinstance(a, (int, np.integer)) for a in axis):
        return tuple(int(a) for a in axis)
    raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, "
                     f"got {axis}")


def _is_positive_number(ord) -> bool:  # noqa: A002
    return isinstance(ord, (int, float, np.number)) and not isinstance(ord, bool) and ord > 0


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None,  # noqa: A002
         keep_dims=None) -> Tensor:
    """The vector or matrix norm of ``tensor`` (see the module docstring); ValueError for
    an ord or axis TF refuses."""
    keep = bool(one_spelling(keepdims, keep_dims, "keepdims", "keep_dims"))
    axis = _checked_axis(axis)
    matrix = isinstance(axis, tuple)
    if matrix and ord not in _MATRIX_ORDS:
        raise ValueError(f"'ord' must be a supported matrix norm in {list(_MATRIX_ORDS)}, "
                         f"got {ord}")
    if not matrix and not (ord in _VECTOR_ORDS or _is_positive_number(ord)):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    with name_scope(name or "norm"):
        x = convert_to_tensor(tensor)
        result = _kept_norm(x, ord, axis, matrix)
        if keep:
            return result
        # TF reduces keeping the axes, then squeezes them: the result is norm/Squeeze
        return squeeze(result, None if axis is None else list(axis) if matrix else [axis])


def _kept_norm(x: Tensor, ord, axis, matrix: bool) -> Tensor:  # noqa: A002
    """The norm with the reduced axes kept (size 1)."""
    if matrix and ord == 2:
        return _spectral_norm(x, axis, True)
    if ord in ("euclidean", "fro", 2):
        # TF's x * conj(x): a complex norm is real (in the complex dtype), not sqrt(sum(z^2))
        squares = multiply(x, conj(x) if x.dtype.is_complex else x)
        return sqrt(reduce_sum(squares, axis=axis, keepdims=True))
    magnitude = abs_(x)
    if matrix:
        # ord 1: sum over rows (axis[0]), max over columns; inf: the other way round
        summed, maxed = axis if ord == 1 else axis[::-1]
        sums = reduce_sum(magnitude, axis=summed, keepdims=True)
        return reduce_max(sums, axis=maxed, keepdims=True)
    if ord == np.inf:
        return reduce_max(magnitude, axis=axis, keepdims=True)
    if ord == 1:
        return reduce_sum(magnitude, axis=axis, keepdims=True)
    total = reduce_sum(pow_(magnitude, float(ord)), axis=axis, keepdims=True)
    return pow_(total, 1.0 / float(ord))


def _spectral_norm(x: Tensor, axis: tuple, keep: bool) -> Tensor:
    """The largest singular value of the matrices spanning ``axis``: those axes moved
    last (a Transpose when they are not), an Svd without vectors, the max of each
    batch's values (at the two axes, size 1, with ``keep``)."""
    from .array import expand_dims, transpose
    from .linalg_factor import svd

    rank = x.shape.ndims
    if rank is None:
        return _spectral_norm_of_unknown_rank(x, axis)
    rows, columns = (int(a) % rank if -rank <= a < rank else _bad_axis(a, rank)
                     for a in axis)
    others = [i for i in range(rank) if i not in (rows, columns)]
    perm = others + [rows, columns]
    moved = x if perm == list(range(rank)) else transpose(x, perm)
    largest = reduce_max(abs_(svd(moved, compute_uv=False)), axis=-1)
    if keep:
        for position in sorted((rows, columns)):
            largest = expand_dims(largest, position)
    return largest


def _spectral_norm_of_unknown_rank(x: Tensor, axis: tuple) -> Tensor:
    """TF's matrix 2-norm of an ``x`` whose rank only a run knows: the axes made positive
    against its rank, the others put first (a ListDiff), an Svd of that transpose, the
    largest value at two axes of size 1, moved back by the inverse permutation."""
    from .array import concat, expand_dims, transpose
    from .array_fill import rank as rank_of
    from .array_sets import invert_permutation, setdiff1d
    from .elementwise import add, cast, less
    from .linalg_factor import svd
    from .sequence import range as range_op

    rank = rank_of(x)
    axes = convert_to_tensor(list(axis), dtype_hint=dtypes.int32)
    positive = add(axes, multiply(cast(less(axes, 0), dtypes.int32), rank))
    perm = concat([setdiff1d(range_op(rank), positive).out, positive], 0)
    largest = reduce_max(abs_(svd(transpose(x, perm), compute_uv=False)), axis=-1,
                         keepdims=True)
    return transpose(expand_dims(largest, -1), invert_permutation(perm))


def _bad_axis(axis: int, rank: int):
    raise ValueError(f"norm: axis {axis} is out of range for a tensor of rank {rank}.")


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """The mean squared deviation from the mean over ``axis``, as TF builds it; a
    non-float tensor is a TypeError, as TF's."""
    with name_scope(name or "reduce_variance"):
        x = convert_to_tensor(input_tensor)
        if not x.dtype.is_floating:
            raise TypeError(f"Input must be either real or complex. Received integer type "
                            f"{x.dtype.name}.")
        means = reduce_mean(x, axis=axis, keepdims=True)
        return reduce_mean(square(subtract(x, means)), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """The square root of ``reduce_variance``."""
    with name_scope(name or "reduce_std"):
        return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))
