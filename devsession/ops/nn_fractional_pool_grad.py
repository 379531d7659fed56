"""Gradients of FractionalMaxPool and FractionalAvgPool (``nn_fractional_pool.py``), as
TF's ``nn_grad.py`` registers them: ``FractionalMaxPoolGrad(input, output, dy, rows,
cols)`` and ``FractionalAvgPoolGrad(input shape, dy, rows, cols)`` with the pooling's
``overlapping``; the sequences get none.  TF registers no gradient for the two
gradient ops, so neither does devsession.  Checked against finite differences
(tests/test_fractional_pool.py)."""

from __future__ import annotations

from .. import dtypes
from .array_fill import shape
from .common import make_op
from .registry import not_differentiable, register_gradient
from .state import constant

__all__: list = []


@register_gradient("FractionalMaxPool")
def _fractional_max_pool_grad(op, dy, _rows=None, _cols=None):
    if dy is None:
        return [None]
    return [make_op("FractionalMaxPoolGrad", [op.inputs[0], op.outputs[0], dy,
                                              op.outputs[1], op.outputs[2]],
                    {"overlapping": bool(op.attrs.get("overlapping", False))})]


@register_gradient("FractionalAvgPool")
def _fractional_avg_pool_grad(op, dy, _rows=None, _cols=None):
    if dy is None:
        return [None]
    x = op.inputs[0]
    # TF passes the static shape; a shape known only when running is read then.
    input_shape = constant(x.shape.as_list(), dtypes.int64) if x.shape.is_fully_defined() \
        else shape(x, out_type=dtypes.int64)
    return [make_op("FractionalAvgPoolGrad", [input_shape, dy, op.outputs[1], op.outputs[2]],
                    {"overlapping": bool(op.attrs.get("overlapping", False))})]


not_differentiable("FractionalMaxPoolGrad")
not_differentiable("FractionalAvgPoolGrad")
