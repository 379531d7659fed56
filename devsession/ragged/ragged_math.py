"""Math on RaggedTensors, as TF's ``ragged_math_ops`` / ``ragged_concat_ops`` compute it:

* elementwise ops act on the flat values: a RaggedTensor with another of the same row
  partition (TF's run-time assertion when their splits are different tensors), with a
  scalar, or with a dense tensor that broadcasts over the inner (uniform) dimensions;
* reductions (``reduce_sum``, ``reduce_mean``, ``reduce_max``, ``reduce_min``,
  ``reduce_prod``, ``reduce_any``, ``reduce_all``) over every value, over the rows (axis
  0: one result per column, from the rows long enough to have it), over a row's values
  (axis 1: one per row; an empty row gives the reduction's identity, the mean NaN), or
  over an inner dimension;
* ``concat`` and ``stack`` of RaggedTensors (and dense tensors, made ragged) along axis 0
  (rows after rows) or 1 (each row's values after the other's).

Other axes raise a ValueError naming what devsession does not do.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..ops import segments
from ..ops.array import concat as dense_concat, expand_dims, reshape, stack as dense_stack
from ..ops.array_fill import shape as shape_of
from ..ops.array_index import unsorted_segment_sum
from ..ops.elementwise import cast, divide
from ..ops.gather_options import gather
from ..ops.reduce import reduce_max
from .ragged_ops import map_flat_values, range as ragged_range, row_splits_to_segment_ids
from .ragged_tensor import RaggedTensor, convert_to_ragged_or_tensor, is_ragged

__all__ = ["binary", "unary", "reduce", "concat", "stack"]


def unary(fn, x, *args, **kwargs):
    """``fn`` of a RaggedTensor's flat values, over the same row partition."""
    return x.with_flat_values(fn(x.flat_values, *args, **kwargs))


def binary(fn, x, y, *args, **kwargs):
    """``fn(x, y)`` with at least one of them ragged (see the module docstring)."""
    # A Python operand stays as it is: the dense op gives it the flat values' dtype.
    x, y = (convert_to_ragged_or_tensor(v) if is_ragged(v) else v for v in (x, y))
    if isinstance(x, RaggedTensor) and isinstance(y, RaggedTensor):
        if x.ragged_rank != y.ragged_rank:
            raise ValueError(f"devsession combines RaggedTensors of one ragged rank; got "
                             f"{x.ragged_rank} and {y.ragged_rank}.")
        return map_flat_values(fn, x, y, *args, **kwargs)
    ragged, dense = (x, y) if isinstance(x, RaggedTensor) else (y, x)
    inner = ragged.flat_values.shape.ndims
    rank = dense.shape.ndims if isinstance(dense, Tensor) else np.ndim(dense)
    if rank is None or inner is None or rank > inner - 1:
        raise ValueError(f"devsession broadcasts a dense operand against a RaggedTensor "
                         f"over its inner dimensions only; got a dense operand of shape "
                         f"{getattr(dense, 'shape', np.shape(dense))} with a RaggedTensor of shape {ragged.shape}.")
    flat = ragged.flat_values
    out = fn(flat, dense, *args, **kwargs) if ragged is x else fn(dense, flat, *args, **kwargs)
    return ragged.with_flat_values(out)


_SEGMENT = {"sum": unsorted_segment_sum, "max": segments.unsorted_segment_max,
            "min": segments.unsorted_segment_min, "prod": segments.unsorted_segment_prod}


def _segment_reduce(kind: str, data, ids, count):
    """One reduction per segment; ``any``/``all`` through max/min of 0/1 values."""
    if kind == "mean":
        total = unsorted_segment_sum(data, ids, count)
        ones = cast(ids * 0 + 1, total.dtype)
        counts = unsorted_segment_sum(ones, ids, count)
        if total.shape.ndims is not None and total.shape.ndims > 1:
            counts = reshape(counts, dense_concat(
                [shape_of(counts), [1] * (total.shape.ndims - 1)], 0))
        return divide(total, counts)
    if kind in ("any", "all"):
        as_int = cast(data, dtypes.int32)
        out = _SEGMENT["max" if kind == "any" else "min"](as_int, ids, count)
        if kind == "all":       # an empty segment's min is int32's largest: true
            return cast(out, dtypes.bool_)
        return cast(out > 0, dtypes.bool_)
    return _SEGMENT[kind](data, ids, count)


def reduce(kind: str, dense_fn, rt: RaggedTensor, axis=None, keepdims=False, name=None):
    """The ``kind`` reduction of ``rt`` over ``axis`` (see the module docstring)."""
    with name_scope(name or f"RaggedReduce{kind.capitalize()}"):
        if axis is None:
            return dense_fn(rt.flat_values)
        if isinstance(axis, (list, tuple)):
            if len(axis) != 1:
                raise ValueError("devsession reduces a RaggedTensor over one axis (or all).")
            axis = axis[0]
        rank = rt.shape.ndims
        if axis < 0:
            if rank is None:
                raise ValueError("axis may only be negative if the rank is known")
            axis += rank
        if axis == 0:
            out = _reduce_rows(kind, rt)
        elif axis == 1:
            if isinstance(rt.values, RaggedTensor):
                raise ValueError("devsession reduces a RaggedTensor of ragged rank above 1 "
                                 "over axis 0, its innermost ragged axis, or an inner axis.")
            out = _segment_reduce(kind, rt.values, row_splits_to_segment_ids(rt.row_splits),
                                  rt.nrows())
        elif isinstance(rt.values, RaggedTensor):
            out = rt.with_values(reduce(kind, dense_fn, rt.values, axis - 1))
        else:
            out = rt.with_values(dense_fn(rt.values, axis=axis - 1))
        if keepdims:
            out = expand_dims(out, axis) if not isinstance(out, RaggedTensor) else out
        return out


def _reduce_rows(kind: str, rt: RaggedTensor):
    """Axis 0 of ragged rank 1: column ``j`` reduces the ``j``-th value of every row that
    has one."""
    if isinstance(rt.values, RaggedTensor):
        raise ValueError("devsession reduces axis 0 of a RaggedTensor of ragged rank 1 only.")
    splits = rt.row_splits
    rowids = row_splits_to_segment_ids(splits)
    column = cast(convert_to_tensor(_positions(splits)), splits.dtype) - \
        gather(splits, rowids)
    longest = reduce_max(dense_concat([splits[1:] - splits[:-1], splits[:1] * 0], 0))
    return _segment_reduce(kind, rt.values, column, longest)


def _positions(splits):
    from ..ops.sequence import range as range_op
    return range_op(splits[-1], dtype=splits.dtype)


def _as_ragged(value, ragged_rank: int) -> RaggedTensor:
    value = convert_to_ragged_or_tensor(value)
    if isinstance(value, RaggedTensor):
        return value
    from .ragged_conversion import from_tensor
    return from_tensor(value, ragged_rank=ragged_rank)


def _interleaved(parts):
    """Each row's values from every part in turn: (values, row lengths)."""
    splits = [p.row_splits for p in parts]
    offsets, total, flat = [], None, []
    for p in parts:
        nvals = shape_of(p.values, out_type=p.row_splits.dtype)[0]
        offsets.append(total if total is not None else nvals * 0)
        total = nvals if total is None else total + nvals
        flat.append(p.values)
    starts = dense_stack([s[:-1] + o for s, o in zip(splits, offsets)], 1)
    limits = dense_stack([s[1:] + o for s, o in zip(splits, offsets)], 1)
    positions = ragged_range(reshape(starts, [-1]), reshape(limits, [-1]),
                             row_splits_dtype=splits[0].dtype)
    values = dense_concat(flat, 0)
    return gather(values, positions.values), positions.row_splits


def concat(values, axis, name=None):
    """TF's ragged ``concat`` along axis 0 or 1 (ragged rank 1 for axis 1)."""
    with name_scope(name or "RaggedConcat"):
        rank = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
        parts = [_as_ragged(v, rank) for v in values]
        if len({p.ragged_rank for p in parts}) > 1:
            raise ValueError("devsession concatenates RaggedTensors of one ragged rank.")
        dtype = {p.dtype for p in parts}
        if len(dtype) > 1:
            raise TypeError("Tensors to concatenate must have the same dtype.")
        if axis == 0:
            return _concat_rows(parts)
        if axis == 1 and parts[0].ragged_rank == 1:
            values_, _ = _interleaved(parts)
            return RaggedTensor.from_row_lengths(values_, _summed_lengths(parts),
                                                 validate=False)
        raise ValueError(f"devsession concatenates RaggedTensors along axis 0, or axis 1 of "
                         f"ragged rank 1; got axis {axis}.")


def _summed_lengths(parts):
    total = None
    for p in parts:
        lengths = p.row_splits[1:] - p.row_splits[:-1]
        total = lengths if total is None else total + lengths
    return total


def _concat_rows(parts) -> RaggedTensor:
    """Rows after rows: values concatenated, each part's splits shifted."""
    if isinstance(parts[0].values, RaggedTensor):
        inner = _concat_rows([p.values for p in parts])
    else:
        inner = dense_concat([p.values for p in parts], 0)
    pieces, offset = [parts[0].row_splits], parts[0].row_splits[-1:]
    for p in parts[1:]:
        pieces.append(p.row_splits[1:] + offset)
        offset = offset + p.row_splits[-1:]
    return RaggedTensor.from_row_splits(inner, dense_concat(pieces, 0), validate=False)


def stack(values, axis=0, name=None):
    """TF's ragged ``stack`` along axis 0 or 1 (ragged rank 1 for axis 1): a new
    (uniform) dimension of ``len(values)``."""
    with name_scope(name or "RaggedStack"):
        rank = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
        parts = [_as_ragged(v, rank) for v in values]
        count = len(parts)
        if axis == 0:
            rows = _concat_rows(parts)
            nrows = [p.nrows() for p in parts]
            outer = dense_concat([reshape(n, [1]) for n in [nrows[0] * 0] + nrows], 0)
            return RaggedTensor.from_row_splits(rows, _cumsum(outer), validate=False)
        if axis == 1 and parts[0].ragged_rank == 1:
            values_, inner = _interleaved(parts)
            inner_rt = RaggedTensor.from_row_splits(values_, inner, validate=False)
            nrows = parts[0].nrows()
            from ..ops.sequence import range as range_op
            outer = range_op(nrows + 1, dtype=inner.dtype) * count
            return RaggedTensor.from_row_splits(inner_rt, outer, validate=False)
        raise ValueError(f"devsession stacks RaggedTensors along axis 0, or axis 1 of ragged "
                         f"rank 1; got axis {axis}.")


def _cumsum(x):
    from ..ops.reduce import cumsum
    return cumsum(x)


# RaggedTensor's operators (TF's ragged_operators.py sets them on the class likewise).

def _operator(function: str, reverse: bool = False):
    """A RaggedTensor operator: the elementwise op on the flat values (``ragged_math``)."""
    def method(self, other):
        from ..ops import elementwise

        fn = getattr(elementwise, function)
        return binary(fn, other, self) if reverse else binary(fn, self, other)
    method.__name__ = f"__{'r' if reverse else ''}{function}__"
    return method


for _dunder, _function in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                           ("truediv", "truediv"), ("floordiv", "floordiv"),
                           ("mod", "floormod"), ("pow", "pow")):
    setattr(RaggedTensor, f"__{_dunder}__", _operator(_function))
    setattr(RaggedTensor, f"__r{_dunder}__", _operator(_function, reverse=True))
for _dunder, _function in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
                           ("ge", "greater_equal"), ("and", "logical_and"),
                           ("or", "logical_or"), ("xor", "logical_xor")):
    setattr(RaggedTensor, f"__{_dunder}__", _operator(_function))
RaggedTensor.__neg__ = lambda self: self.with_flat_values(-self.flat_values)
RaggedTensor.__abs__ = lambda self: self.with_flat_values(abs(self.flat_values))
RaggedTensor.__invert__ = lambda self: self.with_flat_values(~self.flat_values)
