"""Gradients of the data-movement ops: the inverse movement of the output gradient
(the ops added for training first, then Identity, Reshape, Transpose, ConcatV2 and
StopGradient)."""

from __future__ import annotations

from ..graph import Tensor, constant_value
from .array import (concat, expand_dims, mirror_pad_grad, pad, reshape, stack, transpose,
                    unstack)
from .array_fill import shape, size, zeros_like
from .array_index import gather as gather_op
from .array_index import slice as slice_op
from .array_index import strided_slice, strided_slice_grad, unsorted_segment_sum
from .registry import not_differentiable, register_gradient
from .shape_of import reshape_to_shape_of, split_to_shapes_of

# --- gradients of the array ops added for training
#
# Gathers scatter back (GatherV2 -> UnsortedSegmentSum: a dense gradient where TF makes
# IndexedSlices; repeated ids add up; params of unknown rank through a [outer, ids,
# inner] reshape), slices pad back (Slice -> Pad, StridedSlice ->
# StridedSliceGrad), reshapes reshape back (Squeeze, ExpandDims), Pack and Unpack undo
# each other, Split and SplitV concatenate (zeros for a part no gradient reached), Tile
# sums over its copies, Pad slices the input's block out, MirrorPad
# folds the mirrored borders back (MirrorPadGrad), AddN hands its gradient to every
# input and Fill sums it into the value.  Shapes, sizes, ranks, ZerosLike/OnesLike and
# OneHot pass no gradient, as in TF.  Indices, axes, shapes and paddings get None.  A
# gradient uses Python shapes where the static shapes are known (so it adds no shape
# computation to the graph) and Shape tensors where they are not.

not_differentiable("Shape", "Size", "Rank", "ZerosLike", "OnesLike", "OneHot")


def _dims(x: Tensor) -> list:
    """x's dimensions: an int where static, else a scalar tensor ``shape(x)[i]``
    (a list mixing both is a valid shape operand: it is stacked)."""
    if x.shape.ndims is None:
        raise ValueError(f"This gradient needs the rank of '{x.name}' to be known.")
    dynamic = None
    out = []
    for i, d in enumerate(x.shape.dims):
        if d is None:
            dynamic = shape(x) if dynamic is None else dynamic
            d = dynamic[i]
        out.append(d)
    return out


def _shape_operand(x: Tensor):
    """x's shape: a Python list when static, else its Shape tensor."""
    return x.shape.as_list() if x.shape.is_fully_defined() else shape(x)


def _static_int(t: Tensor, what: str) -> int:
    value = constant_value(t)
    if value is None:
        raise ValueError(f"This gradient needs a static {what} ('{t.name}').")
    return int(value)


@register_gradient("GatherV2")
def _gather_grad(op, dy):
    params, indices, axis = op.inputs
    rank = params.shape.ndims
    if rank is None:
        return [_gather_grad_of_unknown_rank(params, indices, _static_int(axis, "axis"),
                                             dy), None, None]
    a = _static_int(axis, "axis") % rank
    dims = _dims(params)
    count = indices.shape.num_elements()
    count = size(indices) if count is None else count
    flat = reshape(indices, [-1])
    rows = reshape(dy, dims[:a] + [count] + dims[a + 1:])
    if a == 0:
        return [unsorted_segment_sum(rows, flat, dims[0]), None, None]
    # Move the gathered axis first, sum the rows into their ids, and move it back.
    perm = [a] + list(range(a)) + list(range(a + 1, rank))
    summed = unsorted_segment_sum(transpose(rows, perm), flat, dims[a])
    inverse = [perm.index(k) for k in range(rank)]
    return [transpose(summed, inverse), None, None]


def _gather_grad_of_unknown_rank(params: Tensor, indices: Tensor, a: int, dy: Tensor):
    """The GatherV2 gradient for params whose rank only the run knows (``a`` may be
    negative): ``dy`` as ``[outer, ids, inner]`` (three dims, whatever the rank), its
    rows summed into their ids, and reshaped back to the params' shape."""
    from .reduce import reduce_prod

    dims = shape(params)
    count = indices.shape.num_elements()
    count = size(indices) if count is None else count
    rows = reshape(dy, stack([reduce_prod(dims[:a]), count, reduce_prod(dims[a:][1:])]))
    summed = unsorted_segment_sum(transpose(rows, [1, 0, 2]), reshape(indices, [-1]),
                                  dims[a])
    return reshape(transpose(summed, [1, 0, 2]), dims)


@register_gradient("UnsortedSegmentSum")
def _segment_sum_grad(op, dy):
    from .elementwise import greater_equal, maximum, where

    data, ids = op.inputs[:2]
    zero = 0
    rows = gather_op(dy, maximum(ids, zero))
    kept = greater_equal(ids, zero)            # negative ids dropped their row
    for _ in range((data.shape.ndims or 0) - (ids.shape.ndims or 0)):
        kept = expand_dims(kept, -1)
    return [where(kept, rows, zeros_like(rows)), None, None]


@register_gradient("Slice")
def _slice_grad(op, dy):
    x, begin, _ = op.inputs
    start = constant_value(begin)
    if start is not None and x.shape.is_fully_defined() and dy.shape.is_fully_defined():
        pairs = [[int(b), d - int(b) - n] for b, d, n in zip(start, x.shape.dims,
                                                              dy.shape.dims)]
        return [pad(dy, pairs), None, None]
    after = shape(x, out_type=begin.dtype) - begin - shape(dy, out_type=begin.dtype)
    return [pad(dy, stack([begin, after], axis=1)), None, None]


def _masks(op) -> dict:
    from ..kernels.slicing import MASKS

    return {m: op.attrs[m] for m in MASKS}


@register_gradient("StridedSlice")
def _strided_slice_grad(op, dy):
    x, begin, end, strides = op.inputs
    return [strided_slice_grad(_shape_operand(x), begin, end, strides, dy, **_masks(op)),
            None, None, None]


@register_gradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, ddx):
    _, begin, end, strides, _ = op.inputs
    return [None, None, None, None, strided_slice(ddx, begin, end, strides, **_masks(op))]


@register_gradient("Squeeze")
def _squeeze_grad(op, dy):
    return [reshape(dy, _shape_operand(op.inputs[0]))]


@register_gradient("ExpandDims")
def _expand_dims_grad(op, dy):
    return [reshape(dy, _shape_operand(op.inputs[0])), None]


@register_gradient("Pack")
def _pack_grad(op, dy):
    return unstack(dy, num=len(op.inputs), axis=op.attrs["axis"])


@register_gradient("PlaceholderWithDefault")
def _placeholder_with_default_grad(op, dy):
    return [dy]                 # an identity while its default flows


@register_gradient("Unpack")
def _unpack_grad(op, *dys):
    parts = [zeros_like(out) if g is None else g for g, out in zip(dys, op.outputs)]
    return [stack(parts, axis=op.attrs["axis"])]


def _concat_parts(op, dys, dim):
    axis = constant_value(dim)
    if axis is None:
        raise ValueError(f"The gradient of {op.type} '{op.name}' needs a constant split "
                         f"axis; '{dim.name}' is computed at run time.")
    parts = [zeros_like(out) if g is None else g for g, out in zip(dys, op.outputs)]
    return concat(parts, int(axis))


@register_gradient("Split")
def _split_grad(op, *dys):
    return [None, _concat_parts(op, dys, op.inputs[0])]


@register_gradient("SplitV")
def _split_v_grad(op, *dys):
    return [_concat_parts(op, dys, op.inputs[2]), None, None]


@register_gradient("Tile")
def _tile_grad(op, dy):
    from .reduce import reduce_sum

    x, multiples = op.inputs
    if x.shape.ndims is None:
        return [_tile_grad_at_run_time(x, multiples, dy), None]
    dims = _dims(x)
    known = constant_value(multiples)
    copies = [int(m) for m in known] if known is not None else \
        [multiples[i] for i in range(len(dims))]
    # dy viewed as [m0, d0, m1, d1, ...]: summing the m axes adds up the copies
    split = [v for m, d in zip(copies, dims) for v in (m, d)]
    summed = reduce_sum(reshape(dy, split), axis=list(range(0, 2 * len(dims), 2)))
    return [summed, None]


def _tile_grad_at_run_time(x: Tensor, multiples: Tensor, dy: Tensor) -> Tensor:
    """TF's ``_TileGrad`` for an ``x`` of unknown rank: ``dy`` reshaped to [m0, d0, m1,
    d1, ...] and summed over the m axes, counted at run time (a Sum over run-time axes,
    ``run_time_attrs.py``)."""
    from .run_time_attr_name import RUN_TIME_ATTR
    from .sequence import range as range_

    sizes = shape(x, out_type=multiples.dtype)
    split = reshape(transpose(stack([multiples, sizes]), [1, 0]), [-1])
    axes = range_(0, size(split, out_type=multiples.dtype), 2)
    return x.graph.create_op(RUN_TIME_ATTR, [reshape(dy, split), axes],
                             {"op": "Sum", "attr": "axis", "keepdims": False},
                             name="Sum").outputs[0]


@register_gradient("BroadcastTo")
def _broadcast_to_grad(op, dy):
    # the adjoint of broadcasting: dy summed down to x's shape (the output as the peer
    # tells the static decision which axes were widened)
    from .shape_of import reduce_to_shape_of

    return [reduce_to_shape_of(dy, op.inputs[0], peers=(op.outputs[0],)), None]


@register_gradient("Pad")
@register_gradient("PadV2")
def _pad_grad(op, dy):
    x, paddings = op.inputs[:2]
    known = constant_value(paddings)
    begin = paddings[:, 0] if known is None else [int(b) for b in known[:, 0]]
    dx = slice_op(dy, begin, _shape_operand(x))
    return [dx, None] + ([None] if len(op.inputs) == 3 else [])


@register_gradient("MirrorPad")
def _mirror_pad_grad(op, dy):
    return [mirror_pad_grad(dy, op.inputs[1], op.attrs["mode"]), None]


@register_gradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op, ddx):
    return [pad(ddx, op.inputs[1], mode=op.attrs["mode"]), None]


@register_gradient("AddN")
def _add_n_grad(op, dy):
    return [dy] * len(op.inputs)


@register_gradient("Fill")
def _fill_grad(op, dy):
    from .reduce import reduce_sum

    return [None, reduce_sum(dy)]


# --- gradients of the original movement ops
#
# Identity passes the gradient on, Reshape (either form) reshapes it back, Transpose
# applies the inverse permutation, ConcatV2 cuts it into one piece per input
# (``_SplitToShapesOf``).  StopGradient is not differentiable: that is its purpose.

not_differentiable("StopGradient")


@register_gradient("Identity")
def _identity_grad(op, dy):
    return [dy]


@register_gradient("Reshape")
def _reshape_grad(op, dy):
    return [reshape_to_shape_of(dy, op.inputs[0])] + [None] * (len(op.inputs) - 1)


@register_gradient("Transpose")
def _transpose_grad(op, dy):
    perm = op.attrs["perm"]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return [transpose(dy, inverse)]


@register_gradient("ConcatV2")
def _concat_grad(op, dy):
    return split_to_shapes_of(dy, op.inputs, op.attrs["axis"])
