"""Selection along the last axis: TopKV2 (``tf.nn.top_k``) and InTopKV2 (``tf.nn.in_top_k``).

**TopKV2(input, k)** has two outputs, ``values`` (the input's dtype) and ``indices``
(int32), each of shape ``input.shape[:-1] + [k]``: the ``k`` largest entries of each
row (the last axis), in descending order; equal values keep the lower index first, as
TF's kernel orders them.  ``k`` is an int32 scalar *input* (TF's form, read on the host:
``host_inputs``), so a GraphDef TensorFlow wrote imports unchanged and ``k`` may be fed.
The attr ``sorted`` is accepted; the result is always sorted (TF leaves the order
unspecified when it is False).  NaN: TF's CPU kernel orders NaN inconsistently (where a
NaN lands depends on its position in the row; XLA ranks it above everything), so
devsession picks one rule on every device: **a NaN ranks below every number, -inf
included** (NaNs among themselves: lower index first).  ``-0.0`` and ``0.0`` are equal.

Static shapes as TF infers them: the input needs rank >= 1; when ``k`` is a constant the
last dimension is ``k``, and a negative ``k`` or a known last dimension smaller than
``k`` is a ValueError at build time.  At run time (``k`` fed, or shapes unknown when
built) the kernels raise ``InvalidArgumentError`` naming the node, with TF's messages.

**InTopKV2(predictions, targets, k)**: for each row ``i`` of float32 ``predictions``
(``[batch, classes]``), True iff fewer than ``k`` predictions of row ``i`` are strictly
greater than ``predictions[i, targets[i]]`` (so classes tied at the boundary are all in
the top k).  As TF's kernel: False when ``targets[i]`` is outside ``[0, classes)`` or
when any prediction of row ``i`` is not finite (inf or NaN; the target's own included).
``targets`` are int32 or int64 and ``k`` is a scalar of the same dtype (host input).

Gradients: ``top_k_grad.py``.  Kernels: ``kernels/{reference,cpu,cuda}/top_k.py``.

    values, indices = ds.nn.top_k(logits, k=5)
    correct = ds.nn.in_top_k(logits, labels, 1)      # TF1's mnist evaluation()
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .common import graph_of, make_op, numeric
from .registry import InferError, OpDef, register_op

__all__ = ["top_k", "in_top_k", "TopKV2", "approx_max_k", "approx_min_k", "ApproxTopK"]

# What ``top_k`` returns, as TF1's namedtuple of the same name.
TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])

_INDEX_DTYPES = (dtypes.int32, dtypes.int64)


def _scalar(spec, node: str, what: str) -> None:
    if spec.shape.ndims not in (None, 0):
        raise InferError(f"Op '{node}': {what} '{spec.name}' must be a scalar, but has shape "
                         f"{spec.shape}.")


def _static_int(spec):
    return None if spec.value is None else int(spec.value)


def _top_k(inputs, attrs, node):
    x, k = inputs
    numeric(x, node)
    if k.dtype != dtypes.int32:
        raise TypeError(f"Op '{node}': k '{k.name}' must be int32, not {k.dtype.name}.")
    _scalar(k, node, "k")
    kv = _static_int(k)
    if kv is not None and kv < 0:
        raise InferError(f"Op '{node}': Need k >= 0, got {kv}.")
    if x.shape.ndims is None:
        return [(x.dtype, TensorShape(None)), (dtypes.int32, TensorShape(None))]
    if x.shape.ndims == 0:
        raise InferError(f"Op '{node}': input '{x.name}' must have rank >= 1, but is a "
                         f"scalar.")
    last = x.shape.dims[-1]
    if kv is not None and last is not None and last < kv:
        raise InferError(f"Op '{node}': input '{x.name}' must have last dimension >= k = "
                         f"{kv} but has shape {x.shape}.")
    shape = TensorShape(list(x.shape.dims[:-1]) + [kv])
    return [(x.dtype, shape), (dtypes.int32, shape)]


def _in_top_k(inputs, attrs, node):
    predictions, targets, k = inputs
    if predictions.dtype != dtypes.float32:
        raise TypeError(f"Op '{node}': predictions '{predictions.name}' must be float32, not "
                        f"{predictions.dtype.name}.")
    if targets.dtype not in _INDEX_DTYPES:
        raise TypeError(f"Op '{node}': targets '{targets.name}' must be int32 or int64, not "
                        f"{targets.dtype.name}.")
    if k.dtype != targets.dtype:
        raise TypeError(f"Op '{node}': k '{k.name}' is {k.dtype.name} but targets "
                        f"'{targets.name}' are {targets.dtype.name}; they must match.")
    _scalar(k, node, "k")
    for spec, rank in ((predictions, 2), (targets, 1)):
        if spec.shape.ndims not in (None, rank):
            raise InferError(f"Op '{node}': '{spec.name}' must have rank {rank}, but has "
                             f"shape {spec.shape}.")
    batch = predictions.shape.dims[0] if predictions.shape.ndims is not None else None
    length = targets.shape.dims[0] if targets.shape.ndims is not None else None
    if batch is not None and length is not None and batch != length:
        raise InferError(f"Op '{node}': predictions '{predictions.name}' have {batch} rows "
                         f"but targets '{targets.name}' have {length}.")
    return dtypes.bool_, TensorShape([batch if batch is not None else length])


register_op(OpDef("TopKV2", _top_k, 2, attr_defaults={"sorted": True}, host_inputs=(1,)))
register_op(OpDef("InTopKV2", _in_top_k, 3, host_inputs=(2,)))


def top_k(input, k=1, sorted=True, name=None) -> TopKV2:  # noqa: A002  (TF1's names)
    """The ``k`` largest entries of the last axis of ``input`` and their indices, as
    TF1's ``tf.nn.top_k``: a ``TopKV2(values, indices)`` namedtuple (see the module
    docstring for ties and NaN).  ``k`` is a Python int or an int32 scalar tensor.
    Raises ValueError for a scalar input, a constant ``k < 0`` or a known last dimension
    smaller than ``k``; TypeError for a non-int32 ``k`` or a bool input."""
    x = convert_to_tensor(input)
    kt = convert_to_tensor(k, dtype=dtypes.int32, graph=x.graph)
    op = x.graph.create_op("TopKV2", [x, kt], {"sorted": bool(sorted)},
                           name=name or "TopKV2")
    return TopKV2(op.outputs[0], op.outputs[1])


ApproxTopK = collections.namedtuple("ApproxTopK", ["values", "indices"])


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """TF's ``tf.math.approx_max_k``: the ``k`` largest entries along
    ``reduction_dimension`` and their indices, an ``ApproxTopK(values, indices)``.  Exact
    (recall 1, above any ``recall_target``), as TF's CPU kernel is; any dimension."""
    return _approx_k(operand, k, reduction_dimension, name or "ApproxTopK", largest=True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """TF's ``tf.math.approx_min_k``: the ``k`` smallest entries (see ``approx_max_k``)."""
    return _approx_k(operand, k, reduction_dimension, name or "ApproxTopK", largest=False)


def _approx_k(operand, k, dimension: int, name: str, largest: bool) -> ApproxTopK:
    from .array import transpose
    from .elementwise import negative

    x = convert_to_tensor(operand)
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"approx top-k of '{x.name}' needs its rank known.")
    dimension = dimension + rank if dimension < 0 else dimension
    if not 0 <= dimension < rank:
        raise ValueError(f"reduction_dimension {dimension} is out of range for rank {rank}.")
    order = [d for d in range(rank) if d != dimension] + [dimension]
    inverse = [order.index(d) for d in range(rank)]
    with name_scope(name):
        moved = x if dimension == rank - 1 else transpose(x, order)
        values, indices = top_k(moved if largest else negative(moved), k)
        values = values if largest else negative(values)
        if dimension != rank - 1:
            values, indices = transpose(values, inverse), transpose(indices, inverse)
    return ApproxTopK(values, indices)


def in_top_k(predictions, targets, k, name=None) -> Tensor:
    """Whether each target is in the top ``k`` of its row of predictions (bool
    ``[batch]``), as TF1's ``tf.nn.in_top_k(predictions, targets, k)``; ties at the
    boundary count as in, and a row with a non-finite prediction or an out-of-range
    target gives False.  ValueError for wrong ranks or batch sizes known to differ."""
    graph = graph_of(predictions, targets, k)
    p = convert_to_tensor(predictions, graph=graph)
    t = convert_to_tensor(targets, graph=graph)
    kt = convert_to_tensor(k, dtype=t.dtype if t.dtype in _INDEX_DTYPES else None,
                           graph=graph)
    return make_op("InTopKV2", [p, t, kt], name=name or "InTopKV2")
