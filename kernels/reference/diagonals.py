"""Kernels of DiagPart and MatrixSetDiag(V3) (``devsession/ops/diagonals.py``) over numpy
or cupy (``make_builders``; ``cuda/diagonals.py`` registers the cupy ones), with TF's
checks and messages.

* DiagPart: the rank-2k input viewed as one square matrix of side ``prod(first half)``,
  its diagonal taken and shaped as the first half.
* MatrixSetDiag(V3): a copy of the input with ``[..., i, i]`` written for ``i <
  min(rows, columns)``; V3's ``k`` (a host input) must be 0 (an UnimplementedError
  otherwise: bands of diagonals are not implemented).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from devsession.errors import UnimplementedError

from ..checks import fmt_shape, invalid_argument
from ..registry import HOST, register_kernel
from .array import on_host

__all__ = ["make_builders"]


def _as_is(node, fn):
    return fn


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


def _set_diag(node, xp):
    def set_diag(x, diagonal, k=None):
        if k is not None and np.any(on_host(k) != 0):
            raise UnimplementedError(
                f"{node.op} node '{node.name}': only the main diagonal (k = 0) is "
                f"supported by devsession, got k = {on_host(k).tolist()}",
                node_name=node.name)
        if x.ndim < 2:
            raise invalid_argument(node.name, node.op, f"input must be at least 2-dim, "
                                   f"received shape: {fmt_shape(x.shape)}")
        size = min(x.shape[-2:])
        expected = x.shape[:-2] + (size,)
        if diagonal.shape != expected:
            raise invalid_argument(node.name, node.op, f"Input shape: {fmt_shape(x.shape)} "
                                   f"Diagonal shape: {fmt_shape(diagonal.shape)} Expected "
                                   f"diagonal shape: {fmt_shape(expected)}")
        out = x.copy()
        i = xp.arange(size)
        out[..., i, i] = diagonal
        return out
    return set_diag


def make_builders(xp, wrap: Callable = _as_is) -> dict[str, Callable]:
    """The builders over array module ``xp`` (numpy or cupy)."""
    return {"DiagPart": lambda node: wrap(node, _diag_part(node, xp)),
            "MatrixSetDiag": lambda node: wrap(node, _set_diag(node, xp)),
            "MatrixSetDiagV3": lambda node: wrap(node, _set_diag(node, xp))}


for _op, _builder in make_builders(np).items():
    register_kernel(_op, HOST)(_builder)
