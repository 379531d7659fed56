"""Kernels of TF's diagonal ops (``devsession/ops/diagonals.py``) over numpy or cupy
(``make_builders``; ``cuda/array_manipulation.py`` registers the cupy ones), with TF's
checks and messages (``tensorflow/core/kernels/linalg/matrix_diag_op.cc``,
``matrix_set_diag_op.cc``).

* DiagPart: the rank-2k input viewed as one square matrix of side ``prod(first half)``,
  its diagonal taken and shaped as the first half.
* The band ops share one layout (``band_layout``): diagonal ``d = hi - m`` of the band
  ``k = [lo, hi]`` is row ``m`` of the packed diagonals, ``max_diag_len`` long, and a
  diagonal shorter than that sits at its left or right end as ``align`` says (TF's
  ``ComputeDiagLenAndContentOffset``).  MatrixDiagPart(V2, V3) gathers the band through
  it (``padding_value`` elsewhere), MatrixSetDiag(V2, V3) scatters the diagonals into a
  copy of the input, and MatrixDiag(V2, V3) scatters them into a matrix of
  ``padding_value``.  The V1 and V2 ops have no ``align``: they pack LEFT_LEFT, as TF's
  kernels do.  ``k``, ``num_rows``, ``num_cols`` and ``padding_value`` are host inputs.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .array import on_host

__all__ = ["make_builders", "band_layout", "ALIGNMENTS"]

ALIGNMENTS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _as_is(node, fn):
    return fn


def band_layout(lo: int, hi: int, rows: int, cols: int, max_len: int, align: str):
    """Where the packed diagonals ``[num_diags, max_len]`` of band ``[lo, hi]`` of a
    ``rows x cols`` matrix lie: host arrays ``(valid, diag_row, row, col)`` of that shape;
    ``valid`` marks the places that hold an element (the rest is padding)."""
    left_super = align in ("LEFT_LEFT", "LEFT_RIGHT")
    left_sub = align in ("LEFT_LEFT", "RIGHT_LEFT")
    d = np.arange(hi, lo - 1, -1)[:, None]                  # one diagonal per row
    length = np.minimum(rows + np.minimum(0, d), cols - np.maximum(0, d))
    left = ((d >= 0) & left_super) | ((d <= 0) & left_sub)
    n = np.arange(max_len)[None, :] - np.where(left, 0, max_len - length)
    valid = (n >= 0) & (n < length)
    row = n + np.maximum(0, -d)
    col = n + np.maximum(0, d)
    diag_row = np.broadcast_to(np.arange(hi - lo + 1)[:, None], valid.shape)
    return valid, diag_row, row, col


def _band(node, k) -> tuple:
    """TF's reading of ``k``: a scalar or a vector of one or two ints."""
    k = on_host(k)
    if k.ndim > 1:
        raise invalid_argument(node.name, node.op, f"diag_index must be a scalar or vector, "
                               f"received shape: {fmt_shape(k.shape)}")
    if k.size == 0 and "SetDiag" in node.op:
        raise invalid_argument(node.name, node.op, "diag_index must have at least one element")
    if k.ndim == 1 and not 0 < k.size <= 2:
        raise invalid_argument(node.name, node.op, f"diag_index must have only one or two "
                               f"elements, received {k.size} elements.")
    k = k.reshape(-1)
    return int(k[0]), int(k[-1])


def _check_band(node, lo: int, hi: int, rows: int, cols: int) -> None:
    """TF's bounds of a band of a ``rows x cols`` matrix (0 always passes: empty ones)."""
    dot = "." if "DiagPart" in node.op else ""       # TF's messages differ by that
    for which, index, dot in (("lower", lo, dot), ("upper", hi, "")):
        if not (-rows < index < cols or index == 0):
            raise invalid_argument(node.name, node.op, f"{which}_diag_index is out of bound: "
                                   f"{index}{dot} It must be between {-rows} and {cols}")
    if lo > hi:
        raise invalid_argument(node.name, node.op, f"lower_diag_index must not be larger "
                               f"than upper_diag_index: {lo} > {hi}")


def _scalar(node, value, what: str):
    value = on_host(value).reshape(-1)
    if value.size == 0:
        raise invalid_argument(node.name, node.op, f"{what} must be a scalar, got an empty "
                               f"tensor")
    return value[0]


def _scatter(xp, out, diagonals, lo, hi, max_len, align):
    """``out`` with the packed ``diagonals`` (``[..., num_diags, max_len]``) written into
    its band ``[lo, hi]``, in place."""
    rows, cols = out.shape[-2:]
    valid, diag_row, row, col = band_layout(lo, hi, rows, cols, max_len, align)
    if lo == hi:
        diagonals = diagonals[..., None, :]
    taken = (xp.asarray(diag_row[valid]), xp.asarray(np.nonzero(valid)[1]))
    out[..., xp.asarray(row[valid]), xp.asarray(col[valid])] = diagonals[(Ellipsis,) + taken]
    return out


def _diag_part(node, xp):
    def diag_part(x):
        if x.ndim == 0 or x.ndim % 2:
            raise invalid_argument(node.name, node.op, f"The rank of the tensor should be "
                                   f"even and positive, got shape {fmt_shape(x.shape)}")
        half = x.ndim // 2
        for i in range(half):
            if x.shape[i] != x.shape[i + half]:
                raise invalid_argument(node.name, node.op, f"Invalid shape "
                                       f"{fmt_shape(x.shape)}: dimensions {i} and "
                                       f"{i + half} do not match.")
        side = math.prod(x.shape[:half])
        return xp.diagonal(x.reshape(side, side)).reshape(x.shape[:half]).copy()
    return diag_part


def _matrix_diag_part(node, xp):
    align = node.attrs.get("align", "LEFT_LEFT")

    def matrix_diag_part(x, k=0, padding_value=None):
        lo, hi = _band(node, k)
        padding = 0 if padding_value is None else _scalar(node, padding_value,
                                                          "padding_value")
        if x.ndim < 2:
            raise invalid_argument(node.name, node.op, f"input must be at least 2-dim, "
                                   f"received shape: {fmt_shape(x.shape)}")
        rows, cols = x.shape[-2:]
        _check_band(node, lo, hi, rows, cols)
        max_len = max(0, min(rows + min(hi, 0), cols - max(lo, 0)))
        valid, _, row, col = band_layout(lo, hi, rows, cols, max_len, align)
        if x.size == 0 or not valid.any():
            out = xp.full(x.shape[:-2] + valid.shape, padding, dtype=x.dtype)
        else:
            taken = x[..., xp.asarray(np.where(valid, row, 0)),
                      xp.asarray(np.where(valid, col, 0))]
            out = xp.where(xp.asarray(valid), taken, xp.asarray(padding, dtype=x.dtype))
        return out[..., 0, :] if lo == hi else out
    return matrix_diag_part


def _matrix_diag(node, xp):
    align = node.attrs.get("align", "LEFT_LEFT")

    def matrix_diag(diagonal, k=0, num_rows=-1, num_cols=-1, padding_value=None):
        lo, hi = _band(node, k)
        rows, cols = (int(_scalar(node, v, what)) for v, what in
                      ((num_rows, "num_rows"), (num_cols, "num_cols")))
        padding = 0 if padding_value is None else _scalar(node, padding_value,
                                                          "padding_value")
        if diagonal.ndim < 1:
            raise invalid_argument(node.name, node.op, f"diagonal must be at least 1-dim, "
                                   f"received shape: {fmt_shape(diagonal.shape)}")
        if lo > hi:
            raise invalid_argument(node.name, node.op, f"lower_diag_index must not be larger "
                                   f"than upper_diag_index: {lo} > {hi}")
        if lo != hi and (diagonal.ndim < 2 or diagonal.shape[-2] != hi - lo + 1):
            raise invalid_argument(node.name, node.op, "The number of diagonals provided in "
                                   "the input does not match the lower_diag_index and "
                                   "upper_diag_index range.")
        max_len = diagonal.shape[-1]
        min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
        if rows != -1 and rows < min_rows:
            raise invalid_argument(node.name, node.op, "The number of rows is too small.")
        if cols != -1 and cols < min_cols:
            raise invalid_argument(node.name, node.op, "The number of columns is too small.")
        if rows == -1 and cols == -1:
            rows = cols = max(min_rows, min_cols)
        rows = min_rows if rows == -1 else rows
        cols = min_cols if cols == -1 else cols
        if rows != min_rows and cols != min_cols:
            raise invalid_argument(node.name, node.op, "The number of rows or columns is not "
                                   "consistent with the specified d_lower, d_upper, and "
                                   "diagonal.")
        batch = diagonal.shape[:-1] if lo == hi else diagonal.shape[:-2]
        out = xp.full(batch + (rows, cols), padding, dtype=diagonal.dtype)
        return _scatter(xp, out, diagonal, lo, hi, max_len, align)
    return matrix_diag


def _set_diag(node, xp):
    align = node.attrs.get("align", "LEFT_LEFT")

    def set_diag(x, diagonal, k=0):
        lo, hi = _band(node, k)
        if x.ndim < 2:
            raise invalid_argument(node.name, node.op, f"input must be at least 2-dim, "
                                   f"received shape: {fmt_shape(x.shape)}")
        if diagonal.ndim < 1:
            raise invalid_argument(node.name, node.op, f"diagonal must be at least 1-dim, "
                                   f"received shape: {fmt_shape(diagonal.shape)}")
        rows, cols = x.shape[-2:]
        _check_band(node, lo, hi, rows, cols)
        num_diags = hi - lo + 1
        if lo != hi and (diagonal.ndim < x.ndim - 1 or
                         diagonal.shape[x.ndim - 2] != num_diags):
            raise invalid_argument(node.name, node.op, "The number of diagonals provided in "
                                   "`diag` is not consistent with `lower_diag_index` and "
                                   "`upper_diag_index`")
        max_len = min(rows + min(hi, 0), cols - max(lo, 0))
        expected = x.shape[:-2] + ((num_diags,) if num_diags > 1 else ()) + (max_len,)
        if diagonal.shape != expected:
            raise invalid_argument(
                node.name, node.op, f"Either first dimensions of diagonal don't match "
                f"input.shape[:-2], or diagonal.shape[:-1] is not equal to the longests "
                f"diagonal in range [lower_diag_index:upper_diag_index].\nInput shape: "
                f"{fmt_shape(x.shape)}\nDiagonal shape: {fmt_shape(diagonal.shape)}\n"
                f"Expected diagonal shape: {fmt_shape(expected)}")
        out = x.copy()
        return out if x.size == 0 else _scatter(xp, out, diagonal, lo, hi, max_len, align)
    return set_diag


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The builders over array module ``xp`` (numpy or cupy)."""
    kernels = {"DiagPart": _diag_part, "MatrixDiag": _matrix_diag,
               "MatrixDiagV2": _matrix_diag, "MatrixDiagV3": _matrix_diag,
               "MatrixDiagPart": _matrix_diag_part, "MatrixDiagPartV2": _matrix_diag_part,
               "MatrixDiagPartV3": _matrix_diag_part, "MatrixSetDiag": _set_diag,
               "MatrixSetDiagV2": _set_diag, "MatrixSetDiagV3": _set_diag}
    return {op: (lambda node, make=make: wrap(node, make(node, xp)))
            for op, make in kernels.items()}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
