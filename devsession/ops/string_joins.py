"""String ops that join strings across elements, as TF's ops (types, attrs and checks),
so GraphDefs TensorFlow wrote import:

==========================  ===========================================================
op (attrs)                  builder
==========================  ===========================================================
StringNGrams (separator,    ``strings.ngrams``: every window of ``width`` adjacent
ngram_widths, left_pad,     strings of each row joined by ``separator``, for each width
right_pad, pad_width,       in turn; rows padded with ``pad_width`` pad strings each
preserve_short_sequences,   side (-1: ``width - 1``, capped there); a non-empty row too
Tsplits)                    short for any n-gram gives one of all its strings when
                            ``preserve_short_sequences``.  Input and output are a row
                            splits pair (TF's ragged form)
UnsortedSegmentJoin         ``strings.unsorted_segment_join``: the strings of each of
(separator, Tindices,       ``num_segments`` segments joined in index order (``""`` for
Tnumsegments)               an empty one); ``segment_ids`` a prefix of the input's shape
==========================  ===========================================================

devsession has no RaggedTensor: ``ngrams`` takes dense strings of a known rank as TF
does and gives what TF gives them (a rank-1 input's n-grams; for more dimensions the
n-grams of each last-axis row, reshaped to the leading shape).  Kernels run on the host
(``kernels/reference/string_joins.py``); neither op is differentiable."""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array import concat, reshape
from .array_fill import shape as shape_of
from .common import make_op
from .elementwise import add, multiply
from .reduce import reduce_prod
from .registry import InferError, OpDef, not_differentiable, register_op
from .sequence import range as range_op

__all__ = ["ngrams", "unsorted_segment_join", "STRING_JOIN_OPS"]

STRING_JOIN_OPS = ("StringNGrams", "UnsortedSegmentJoin")
_INDEX = (dtypes.int32, dtypes.int64)


def _infer_ngrams(inputs, attrs, node):
    data, splits = inputs
    if data.dtype != dtypes.string:
        raise TypeError(f"Op '{node}': data must be strings, but is {data.dtype.name}.")
    if splits.dtype not in _INDEX:
        raise TypeError(f"Op '{node}': data_splits must be int32 or int64, not "
                        f"{splits.dtype.name}.")
    for spec, what in ((data, "data"), (splits, "data_splits")):
        if spec.shape.ndims not in (None, 1):
            raise InferError(f"Shape must be rank 1 but is rank {spec.shape.ndims} for "
                             f"'{node}' (op: 'StringNGrams'): {what}.")
    return [(dtypes.string, TensorShape([None])), (splits.dtype, splits.shape)]


def _infer_segment_join(inputs, attrs, node):
    x, ids, num = inputs
    if x.dtype != dtypes.string:
        raise TypeError(f"Op '{node}': inputs must be strings, but is {x.dtype.name}.")
    for spec, what in ((ids, "segment_ids"), (num, "num_segments")):
        if spec.dtype not in _INDEX:
            raise TypeError(f"Op '{node}': {what} must be int32 or int64, not "
                            f"{spec.dtype.name}.")
    if num.shape.ndims not in (None, 0):
        raise InferError(f"Op '{node}': num_segments must be a scalar, got shape "
                         f"{num.shape}.")
    if x.shape.ndims is None or ids.shape.ndims is None:
        return dtypes.string, TensorShape(None)
    if ids.shape.ndims > x.shape.ndims:
        raise InferError(f"Shape must be at least rank {ids.shape.ndims} but is rank "
                         f"{x.shape.ndims} for '{node}' (op: 'UnsortedSegmentJoin').")
    for a, b in zip(x.shape.dims, ids.shape.dims):
        if a is not None and b is not None and a != b:
            raise InferError(f"Dimensions must be equal, but are {a} and {b} for '{node}' "
                             f"(op: 'UnsortedSegmentJoin') with input shapes: {x.shape}, "
                             f"{ids.shape}.")
    segments = None if num.value is None else int(num.value)
    return dtypes.string, TensorShape([segments, *x.shape.dims[ids.shape.ndims:]])


register_op(OpDef("StringNGrams", _infer_ngrams, 2,
                  attr_defaults={"separator": " ", "left_pad": "", "right_pad": "",
                                 "pad_width": 0, "preserve_short_sequences": False}))
register_op(OpDef("UnsortedSegmentJoin", _infer_segment_join, 3, host_inputs=(1, 2),
                  attr_defaults={"separator": ""}))
for _op_type in STRING_JOIN_OPS:
    not_differentiable(_op_type)


def _pads(pad_values) -> tuple[str, str]:
    if pad_values is None:
        return "", ""
    pair = pad_values if isinstance(pad_values, (list, tuple)) else (pad_values, pad_values)
    if not all(isinstance(p, (str, bytes)) for p in pair[:2]):
        raise TypeError("pad_values must be a string, tuple of strings, or None.")
    return pair[0], pair[1]


def _widths(ngram_width) -> tuple:
    widths = tuple(ngram_width) if isinstance(ngram_width, (list, tuple)) else (ngram_width,)
    for width in widths:
        if width < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    return tuple(int(w) for w in widths)


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None) -> Tensor:
    """TF's ``tf.strings.ngrams`` of dense strings (see the module docstring): ValueError
    or TypeError for the arguments TF rejects, with TF's messages."""
    left, right = _pads(pad_values)
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    pad_width = 0 if pad_values is None else (-1 if padding_width is None else padding_width)
    with name_scope(name or "StringNGrams"):
        data = convert_to_tensor(data, dtype=dtypes.string, name="data")
        rank = data.shape.ndims
        if rank is None:
            raise ValueError("Rank of data must be known.")
        if rank == 0:
            raise ValueError("Data must have rank>0")
        widths = _widths(ngram_width)
        dims = shape_of(data, out_type=dtypes.int64)
        rows = reduce_prod(dims[:-1])            # 1 for a vector: one row
        splits = multiply(range_op(add(rows, 1), dtype=dtypes.int64), dims[-1])
        values = make_op("StringNGrams", [reshape(data, [-1]), splits],
                         {"separator": separator, "ngram_widths": widths, "left_pad": left,
                          "right_pad": right, "pad_width": int(pad_width),
                          "preserve_short_sequences": bool(preserve_short_sequences),
                          "Tsplits": dtypes.int64})
        if rank == 1:
            return values
        return reshape(values, concat([shape_of(data)[:-1], [-1]], 0))


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="",
                          name=None) -> Tensor:
    """TF's ``tf.strings.unsorted_segment_join`` (see the module docstring): a segment id
    outside ``[0, num_segments)`` is an InvalidArgumentError naming the node."""
    with name_scope(name or "UnsortedSegmentJoin") as scope:
        x = convert_to_tensor(inputs, dtype=dtypes.string, name="inputs")
        ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32, name="segment_ids")
        num = convert_to_tensor(num_segments, dtype_hint=dtypes.int32, name="num_segments")
        return make_op("UnsortedSegmentJoin", [x, ids, num], {"separator": separator},
                       name=scope)
