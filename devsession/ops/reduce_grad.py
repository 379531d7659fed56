"""Gradients of the reductions (TF's ``math_grad.py`` formulas).

The output gradient is put back in the input's rank (size-1 axes where the reduction
went: ``shape_of.reshape_to_shape_of``) and broadcast to the input's shape; Mean
divides by the number of elements each output gathered (known statically, or
``_ReducedSize`` at run time); Max and Min send the gradient to the elements equal to
the result, split equally among ties; Prod's is TF's product of the others (below).
ArgMax is not differentiable.

The scans: Cumsum's gradient is the cumsum of the output gradient run the other way;
Cumprod's is TF 2.21's ``div_no_nan(cumsum(cumprod(x) * dy, reverse=not reverse), x)``
(0 where an ``x`` is 0, as TF's; no conjugates for complex values, as TF's).  The axis gets no gradient.
"""

from __future__ import annotations

import numpy as np

from .elementwise import (add, cast, div_no_nan, divide, equal, exp, greater, less, log, multiply,
                          negative, subtract, where)
from .registry import not_differentiable, register_gradient
from .shape_of import broadcast_to_shape_of, reduced_size, reshape_to_shape_of
from .common import make_op
from ..errors import UnimplementedError

not_differentiable("ArgMax", "ArgMin", "All", "Any")


def _axes(op):
    """The axes the reduction ``op`` went over: None for every axis of an input of
    unknown rank (its ``all_axes`` attr); they may count from the end then."""
    return None if op.attrs.get("all_axes") else op.attrs["axis"]


def _kept(op, t):
    """``t`` (shaped like the op's output) in the input's rank, keepdims-style."""
    if op.attrs["keepdims"]:
        return t
    return reshape_to_shape_of(t, op.inputs[0], reduced_axes=_axes(op))


@register_gradient("Sum")
def _sum_grad(op, dy):
    return [broadcast_to_shape_of(_kept(op, dy), op.inputs[0])]


@register_gradient("Mean")
def _mean_grad(op, dy):
    x = op.inputs[0]
    count = reduced_size(x, _axes(op), dy.dtype)
    return [broadcast_to_shape_of(divide(_kept(op, dy), count), x)]


def _extremum_grad(op, dy):
    x = op.inputs[0]
    chosen = cast(equal(_kept(op, op.outputs[0]), x), dy.dtype)
    every = {"all_axes": True} if op.attrs.get("all_axes") else {}
    ties = make_op("Sum", [chosen], {"axis": op.attrs["axis"], "keepdims": True, **every})
    return [multiply(divide(chosen, ties), _kept(op, dy))]


register_gradient("Max")(_extremum_grad)
register_gradient("Min")(_extremum_grad)


@register_gradient("Prod")
def _prod_grad(op, dy):
    """TF's ``_ProdGrad``: each element's gradient is the product of the others in its
    reduction, from exclusive cumulative products both ways over the reduced axes moved
    first and flattened (no division, so zeros are fine), conjugated for complex values."""
    from .array import reshape, stack, transpose
    from .array_fill import shape
    from .array_index import gather
    from .complex_math import conj
    from .reduce import cumprod, reduce_prod

    x = op.inputs[0]
    rank = x.shape.ndims
    if rank is None:
        raise UnimplementedError(f"The gradient of Prod '{op.name}' needs its input's rank "
                                 f"known when the graph is built.", op.name)
    reduced = sorted({axis % rank for axis in _axes(op)})
    other = [axis for axis in range(rank) if axis not in reduced]
    perm = reduced + other
    sizes = shape(x)
    permuted = transpose(x, perm)
    table = reshape(permuted, stack([reduce_prod(gather(sizes, reduced)),
                                     reduce_prod(gather(sizes, other))]))
    left = cumprod(table, axis=0, exclusive=True)
    right = cumprod(table, axis=0, exclusive=True, reverse=True)
    others = reshape(multiply(conj(left), conj(right)), shape(permuted))
    return [multiply(broadcast_to_shape_of(_kept(op, dy), x),
                     transpose(others, list(np.argsort(perm))))]


def _scan(op_type: str, op, x, reverse: bool):
    return make_op(op_type, [x, op.inputs[1]], {"exclusive": op.attrs["exclusive"],
                                                "reverse": reverse})


@register_gradient("Cumsum")
def _cumsum_grad(op, dy):
    return [_scan("Cumsum", op, dy, not op.attrs["reverse"]), None]


@register_gradient("Cumprod")
def _cumprod_grad(op, dy):
    x = op.inputs[0]
    products = _scan("Cumprod", op, x, op.attrs["reverse"])
    return [div_no_nan(_scan("Cumsum", op, multiply(products, dy), not op.attrs["reverse"]),
                       x), None]


# --- TF1 math names (branch tf1-math-names): TF's formulas for EuclideanNorm (x / norm,
# so NaN where the norm is 0, as TF's) and CumulativeLogsumexp --------------------------

@register_gradient("EuclideanNorm")
def _euclidean_norm_grad(op, dy):
    x = op.inputs[0]
    return [multiply(divide(x, _kept(op, op.outputs[0])), _kept(op, dy))]


@register_gradient("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op, dy):
    # The gradient split by sign, each part's log summed back along the scan in the
    # other direction, as TF's _CumulativeLogsumexpGrad.
    x, total = op.inputs[0], op.outputs[0]
    lowest = np.finfo(dy.dtype.np).min.astype(dy.dtype.np)     # TF's dtype.min, not -inf
    positive = where(greater(dy, 0), log(dy), lowest)
    negative_part = where(less(dy, 0), log(negative(dy)), lowest)

    def back(log_part):
        scanned = _scan("CumulativeLogsumexp", op, subtract(log_part, total),
                        not op.attrs["reverse"])
        return exp(add(scanned, x))
    return [subtract(back(positive), back(negative_part)), None]
