"""Segment reductions with TF's op names: SegmentSum, SegmentMean, SegmentMax, SegmentMin,
SegmentProd (sorted ids), UnsortedSegmentMax/Min/Prod (UnsortedSegmentSum is
``array_index.py``'s), SparseSegmentSum/Mean/SqrtN with and without num_segments (rows
gathered by ``indices``, then reduced by sorted ``segment_ids``) and the
SparseSegment*Grad ops their gradients use; ``unsorted_segment_mean`` and
``unsorted_segment_sqrt_n`` built from UnsortedSegmentSum as TF builds them.

Shapes as TF infers them: a sorted or sparse reduction has ``[None] + data.shape[1:]``
(how many segments depends on the ids' values) unless ``num_segments`` is given; an
unsorted one ``[num_segments] + data.shape[rank(ids):]``.  TF checks the ids when the
op runs (``segment ids are not increasing``, ``Segment id 5 out of range [0, 3)...``,
``Bad: indices[1] == 5 out of range [0, 3)``): InvalidArgumentError naming the node.
Kernels: ``kernels/reference/segments.py`` (HOST), ``kernels/cuda/segments.py``;
gradients, TF's: ``segments_grad.py``.
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape, bracketed
from .array import reshape
from .array_fill import ones, rank, shape
from .array_index import _segment_sum as _unsorted_segment_infer
from .array_index import unsorted_segment_sum
from .array_operands import check_int, int_operand, int_values
from .common import graph_of, make_op
from .elementwise import _public, maximum, sqrt
from .registry import InferError, OpDef, register_op

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod",
           "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
           "unsorted_segment_mean", "unsorted_segment_sqrt_n", "sparse_segment_sum",
           "sparse_segment_mean", "sparse_segment_sqrt_n"]

SORTED = ("SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd")
UNSORTED = ("UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")
SPARSE = ("SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN")
SPARSE_GRADS = ("SparseSegmentSumGrad", "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad")


# The reductions TF also runs on complex64/complex128 (not the orderings, Max and Min)
COMPLEX_OK = ("SegmentSum", "SegmentMean", "SegmentProd", "UnsortedSegmentProd")


def _real(data, node: str, floats_only: bool = False, complex_ok: bool = False) -> None:
    if complex_ok and data.dtype.is_complex:
        return
    if floats_only and not data.dtype.is_floating:
        raise TypeError(f"Op '{node}' needs floating-point data, but '{data.name}' is "
                        f"{data.dtype.name}.")
    if not data.dtype.is_numeric or data.dtype.is_bool:
        raise TypeError(f"Op '{node}': data '{data.name}' must be numeric, not "
                        f"{data.dtype.name}.")


def _vector(spec, node: str, what: str) -> None:
    check_int(spec, node, what)
    if spec.shape.ndims not in (None, 1):
        raise InferError(f"Op '{node}': {what} '{spec.name}' must be a vector, but has shape "
                         f"{spec.shape}.")


def _rows_of(data, first, node: str) -> TensorShape:
    """``[first] + data.shape[1:]``: the shape of a reduction over data's rows."""
    if data.shape.ndims is None:
        return TensorShape(None)
    if data.shape.ndims == 0:
        raise InferError(f"Op '{node}': data '{data.name}' must have rank >= 1.")
    return TensorShape([first] + list(data.shape.dims[1:]))


def _sorted_infer(complex_ok: bool):
    def infer(inputs, attrs, node):
        data, ids = inputs
        _real(data, node, complex_ok=complex_ok)
        _vector(ids, node, "segment_ids")
        return data.dtype, _rows_of(data, None, node)
    return infer


def _unsorted_infer(complex_ok: bool):
    """UnsortedSegmentSum's checks, complex values refused where TF's op refuses them."""
    def infer(inputs, attrs, node):
        _real(inputs[0], node, complex_ok=complex_ok)
        return _unsorted_segment_infer(inputs, attrs, node)
    return infer


def _sparse_infer(floats_only: bool):
    """SparseSegment*'s infer function (Mean and SqrtN take floats only, as TF's)."""
    def infer(inputs, attrs, node):
        data, indices, ids = inputs[:3]
        _real(data, node, floats_only)
        _vector(indices, node, "indices")
        _vector(ids, node, "segment_ids")
        if not indices.shape.is_compatible_with(ids.shape):
            raise InferError(f"Op '{node}': indices '{indices.name}' with shape "
                             f"{indices.shape} and segment_ids '{ids.name}' with shape "
                             f"{ids.shape} must have the same length.")
        first = int_values(inputs[3], node, "num_segments", rank=0) if len(inputs) == 4 \
            else None
        if first is not None and first < 0:
            raise InferError(f"Cannot specify a negative value for num_segments for '{node}' "
                             f"with input shapes: {', '.join(bracketed(x.shape) for x in inputs)}"
                             f" and with computed input tensors: input[3] = <{first}>.")
        return data.dtype, _rows_of(data, first, node)
    return infer


def _sparse_grad_infer(inputs, attrs, node):
    grad, indices, ids, dim0 = inputs
    _real(grad, node, floats_only=True)
    _vector(indices, node, "indices")
    _vector(ids, node, "segment_ids")
    return grad.dtype, _rows_of(grad, int_values(dim0, node, "output_dim0", rank=0), node)


def _register() -> None:
    for name in SORTED:
        register_op(OpDef(name, _sorted_infer(name in COMPLEX_OK), 2))
    for name in UNSORTED:
        register_op(OpDef(name, _unsorted_infer(name in COMPLEX_OK), 3, host_inputs=(2,)))
    for name in SPARSE:
        infer = _sparse_infer(floats_only=name != "SparseSegmentSum")
        register_op(OpDef(name, infer, 3))
        register_op(OpDef(f"{name}WithNumSegments", infer, 4, host_inputs=(3,)))
    for name in SPARSE_GRADS:
        register_op(OpDef(name, _sparse_grad_infer, 4, host_inputs=(3,)))


_register()


# --- builders --------------------------------------------------------------------------------

def _sorted_builder(op_type: str, public_name: str):
    def build(data, segment_ids, name=None) -> Tensor:
        graph = graph_of(data, segment_ids)
        return make_op(op_type, [convert_to_tensor(data, graph=graph),
                                 int_operand(segment_ids, graph)], name=name)
    return _public(build, public_name, f"{op_type}: reduces the rows of ``data`` by "
                   f"``segment_ids``, sorted ids of data's first dimension (row ``s`` of the "
                   f"result: segment ``s``).")


def _unsorted_builder(op_type: str, public_name: str):
    def build(data, segment_ids, num_segments, name=None) -> Tensor:
        graph = graph_of(data, segment_ids, num_segments)
        return make_op(op_type, [convert_to_tensor(data, graph=graph),
                                 int_operand(segment_ids, graph),
                                 int_operand(num_segments, graph)], name=name)
    return _public(build, public_name, f"{op_type}: reduces the rows of ``data`` into "
                   f"``num_segments`` segments by ``segment_ids`` in any order (a negative id "
                   f"drops its row).")


def _sparse_builder(op_type: str, public_name: str):
    def build(data, indices, segment_ids, name=None, num_segments=None,
              sparse_gradient=False) -> Tensor:
        graph = graph_of(data, indices, segment_ids, num_segments)
        inputs = [convert_to_tensor(data, graph=graph), int_operand(indices, graph),
                  int_operand(segment_ids, graph)]
        attrs = {"sparse_gradient": True} if sparse_gradient else None
        if num_segments is None:
            return make_op(op_type, inputs, attrs, name=name)
        return make_op(f"{op_type}WithNumSegments",
                       inputs + [int_operand(num_segments, graph)], attrs, name=name)
    return _public(build, public_name, f"{op_type}: ``data[indices]`` reduced by sorted "
                   f"``segment_ids``; with ``num_segments``, that many output rows "
                   f"({op_type}WithNumSegments); with ``sparse_gradient``, data's gradient "
                   f"is TF's IndexedSlices of the rows ``indices`` names (``segments_grad``).")


segment_sum = _sorted_builder("SegmentSum", "segment_sum")
segment_mean = _sorted_builder("SegmentMean", "segment_mean")
segment_max = _sorted_builder("SegmentMax", "segment_max")
segment_min = _sorted_builder("SegmentMin", "segment_min")
segment_prod = _sorted_builder("SegmentProd", "segment_prod")
unsorted_segment_max = _unsorted_builder("UnsortedSegmentMax", "unsorted_segment_max")
unsorted_segment_min = _unsorted_builder("UnsortedSegmentMin", "unsorted_segment_min")
unsorted_segment_prod = _unsorted_builder("UnsortedSegmentProd", "unsorted_segment_prod")
sparse_segment_sum = _sparse_builder("SparseSegmentSum", "sparse_segment_sum")
sparse_segment_mean = _sparse_builder("SparseSegmentMean", "sparse_segment_mean")
sparse_segment_sqrt_n = _sparse_builder("SparseSegmentSqrtN", "sparse_segment_sqrt_n")


def sparse_segment_grad(op_type: str, grad, indices, segment_ids, output_dim0) -> Tensor:
    """``SparseSegment{Sum,Mean,SqrtN}Grad``: the gradient of a sparse segment
    reduction, ``output_dim0`` rows (``segments_grad.py``)."""
    graph = graph_of(grad, indices, segment_ids, output_dim0)
    return make_op(op_type, [grad, int_operand(indices, graph), int_operand(segment_ids, graph),
                             int_operand(output_dim0, graph)])


def _segment_counts(data, segment_ids, num_segments):
    """How many rows each segment gets, shaped to broadcast against the segments' rows
    (``[num_segments, 1, ...]``) and at least 1: TF's ``_unsorted_segment_N``."""
    num_segments = int_operand(num_segments, graph_of(data, segment_ids, num_segments))
    counts = unsorted_segment_sum(ones(shape(segment_ids), dtype=data.dtype), segment_ids,
                                  num_segments)
    extra = (data.shape.ndims - segment_ids.shape.ndims
             if data.shape.ndims is not None and segment_ids.shape.ndims is not None else None)
    if extra is not None:
        counts = reshape(counts, [-1] + [1] * extra)
    else:
        from .array import concat

        ones_tail = ones([rank(data) - rank(segment_ids)], dtype=num_segments.dtype)
        counts = reshape(counts, concat([reshape(num_segments, [1]), ones_tail], 0))
    return maximum(counts, 1)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None) -> Tensor:
    """The mean of each segment's rows (0 for an empty one), as TF builds it: an
    UnsortedSegmentSum divided by the count of each id."""
    with name_scope(name or "UnsortedSegmentMean"):
        data = convert_to_tensor(data)
        segment_ids = int_operand(segment_ids, data.graph)
        counts = _segment_counts(data, segment_ids, num_segments)
        return unsorted_segment_sum(data, segment_ids, num_segments) / counts


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None) -> Tensor:
    """Each segment's sum divided by the square root of its count, as TF builds it."""
    with name_scope(name or "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data)
        if not data.dtype.is_floating:
            raise TypeError(f"unsorted_segment_sqrt_n needs floating-point data, but "
                            f"'{data.name}' is {data.dtype.name}.")
        segment_ids = int_operand(segment_ids, data.graph)
        counts = _segment_counts(data, segment_ids, num_segments)
        return unsorted_segment_sum(data, segment_ids, num_segments) / sqrt(counts)

