"""Gradients of the ops the TF1 surface added (see ``registry.py`` for the contract).

* AddV2 (what `x + y` builds) is Add: its gradient is Add's, looked up when called.
* Rsqrt and Reciprocal: ``dy * -0.5 * y**3`` and ``dy * -y**2``, in terms of the output as
  TF computes them.
* Floor, Ceil, Round and Sign are piecewise constant: no gradient flows (None), as TF.
* Comparisons, logic, integer division, arg-reductions, index outputs and random draws
  are not differentiable.

FloorMod, TruncateMod, Prod, Diag and MatrixDeterminant have no gradient yet
(``LookupError`` names the op when one is asked for).
"""

from __future__ import annotations

import numpy as np

from ..graph import constant_from_array
from .common import make_op
from .registry import get_gradient, not_differentiable, register_gradient

__all__: list = []


@register_gradient("AddV2")
def _add_v2_grad(op, grad):
    return get_gradient("Add")(op, grad)


@register_gradient("Rsqrt")
def _rsqrt_grad(op, grad):
    y = op.outputs[0]
    cube = make_op("Mul", [make_op("Mul", [y, y]), y])
    minus_half = constant_from_array(np.array(-0.5, y.dtype.np), graph=y.graph)
    return [make_op("Mul", [grad, make_op("Mul", [minus_half, cube])])]


@register_gradient("Reciprocal")
def _reciprocal_grad(op, grad):
    y = op.outputs[0]
    return [make_op("Mul", [grad, make_op("Neg", [make_op("Mul", [y, y])])])]


@register_gradient("Floor")
@register_gradient("Ceil")
@register_gradient("Round")
@register_gradient("Sign")
def _piecewise_constant_grad(op, grad):
    return [None]


not_differentiable("NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "FloorDiv",
                   "TruncateDiv", "All", "Any", "ArgMin", "Range", "Unique", "Where",
                   "TruncatedNormal", "RandomUniformInt", "RandomShuffle", "ScalarSummary",
                   "HistogramSummary", "ImageSummary", "MergeSummary")
