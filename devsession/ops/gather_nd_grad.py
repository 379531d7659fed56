"""Gradients of the coordinate-indexing ops (``gather_nd.py``), as TF's ``array_grad.py``:

* GatherNd: the output gradient scattered back, ``ScatterNd(indices, dy,
  shape(params))`` (a coordinate gathered twice gets both gradients added).
* ScatterNd: each update's gradient is the output gradient at its coordinate,
  ``GatherNd(dy, indices)``.
* TensorScatterAdd/Sub: the tensor's gradient is ``dy``; the updates' is
  ``GatherNd(dy, indices)`` (negated for Sub).
* TensorScatterUpdate: the overwritten slices of the tensor get no gradient (``dy``
  with zeros written at the coordinates); the updates get ``GatherNd(dy, indices)``.
* TensorScatterMin/Max: ``dy`` goes to whichever of the tensor's element and its
  updates equal the output, split evenly among ties (TF's
  ``_TensorScatterMinOrMaxGrad``).

Indices and shapes get none.  Checked against finite differences in
tests/test_gather_nd.py.
"""

from __future__ import annotations

from ..graph import convert_to_tensor
from .array_fill import shape, zeros_like
from .common import make_op
from .elementwise import cast, divide, equal, multiply, negative
from .gather_nd import TENSOR_SCATTER_EXTREMES, TENSOR_SCATTERS
from .registry import register_gradient

__all__: list = []


def _gathered(dy, indices):
    return make_op("GatherNd", [dy, indices])


@register_gradient("GatherNd")
def _gather_nd_grad(op, dy):
    params, indices = op.inputs
    dims = params.shape.as_list() if params.shape.is_fully_defined() else \
        shape(params, out_type=indices.dtype)
    return [make_op("ScatterNd", [indices, dy, _index_typed(dims, indices)]), None]


def _index_typed(dims, indices):
    """ScatterNd's shape operand, in the indices' dtype as TF's op requires."""
    return convert_to_tensor(dims, dtype=indices.dtype, graph=indices.graph)


@register_gradient("ScatterNd")
def _scatter_nd_grad(op, dy):
    return [None, _gathered(dy, op.inputs[0]), None]


def _tensor_scatter_grad(op, dy):
    _, indices, updates = op.inputs
    picked = _gathered(dy, indices)
    if op.type == "TensorScatterUpdate":
        cleared = make_op("TensorScatterUpdate", [dy, indices, zeros_like(updates)])
        return [cleared, None, picked]
    return [dy, None, negative(picked) if op.type == "TensorScatterSub" else picked]


for _op in TENSOR_SCATTERS:
    register_gradient(_op)(_tensor_scatter_grad)


def _tensor_scatter_extreme_grad(op, dy):
    """TF's: indicators of which of the tensor (``x``) and the updates (``y``) equal the
    output; each element's ``dy`` divided by how many of them did."""
    x, indices, y = op.inputs
    output = op.outputs[0]
    x_indicators = cast(equal(x, output), dy.dtype)
    y_indicators = cast(equal(y, _gathered(output, indices)), dy.dtype)
    dims = shape(x, out_type=indices.dtype)
    indicators = x_indicators + make_op("ScatterNd", [indices, y_indicators, dims])
    x_grad = divide(multiply(dy, x_indicators), indicators)
    y_grad = multiply(_gathered(divide(dy, indicators), indices), y_indicators)
    return [x_grad, None, y_grad]


for _op in TENSOR_SCATTER_EXTREMES:
    register_gradient(_op)(_tensor_scatter_extreme_grad)
