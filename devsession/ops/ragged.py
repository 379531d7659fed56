"""TF's dedicated ragged ops, so that ``tf.ragged`` graphs TF wrote import and run:

* ``RaggedRange(starts, limits, deltas)``, attrs ``T``, ``Tsplits``: one range per row
  (scalars broadcast against vectors) as ``(rt_nested_splits, rt_dense_values)``:
  ``tf.ragged.range``.  A zero delta is an InvalidArgumentError at run time.
* ``RaggedTensorToTensor(shape, values, default_value, row_partition_tensors...)``, attrs
  ``T``, ``Tindex``, ``Tshape``, ``num_row_partition_tensors``, ``row_partition_types``
  (``ROW_SPLITS`` for each level, or ``FIRST_DIM_SIZE`` then ``VALUE_ROWIDS``): the
  ragged tensor padded with ``default_value`` to its bounding shape, or to ``shape``
  where that is not ``-1`` (rows and values past it dropped): ``RaggedTensor.to_tensor``.
* ``RaggedTensorToSparse(rt_nested_splits..., rt_dense_values)``, attrs ``RAGGED_RANK``,
  ``T``, ``Tsplits``: the ragged tensor's ``(indices, values, dense_shape)``:
  ``RaggedTensor.to_sparse``.

``RaggedTensorToTensor``'s gradient is TF's (``ops/ragged_grad.py``).  The kernels (``kernels/reference/ragged.py``) run on the host.  Everything else in
``devsession/ragged`` composes existing ops, as TF's Python does.
"""

from __future__ import annotations

from .. import dtypes
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op

__all__ = ["RAGGED_OPS"]

RAGGED_OPS = ("RaggedRange", "RaggedTensorToTensor", "RaggedTensorToSparse")
_RANGE_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _infer_range(inputs, attrs, node):
    starts, limits, deltas = inputs
    for spec, what in ((starts, "starts"), (limits, "limits"), (deltas, "deltas")):
        if spec.dtype != starts.dtype:
            raise TypeError(f"Op '{node}': {what} is {spec.dtype.name}, but starts is "
                            f"{starts.dtype.name}; they must be of one dtype.")
        if spec.shape.ndims is not None and spec.shape.ndims > 1:
            raise InferError(f"Shape must be at most rank 1 but is rank {spec.shape.ndims} "
                             f"for '{node}' (op: 'RaggedRange').")
    if starts.dtype not in _RANGE_TYPES:
        raise TypeError(f"Op '{node}': RaggedRange takes floats or int32/int64, not "
                        f"{starts.dtype.name}.")
    rows = None
    for spec in inputs:
        if spec.shape.ndims == 1 and spec.shape.dims[0] is not None:
            rows = spec.shape.dims[0]
    if rows is None and all(s.shape.ndims == 0 for s in inputs):
        rows = 1
    splits = dtypes.as_dtype(attrs.get("Tsplits", dtypes.int64))
    return [(splits, TensorShape([None if rows is None else rows + 1])),
            (starts.dtype, TensorShape([None]))]


def _infer_to_tensor(inputs, attrs, node):
    shape, values = inputs[0], inputs[1]
    partitions = inputs[3:]
    types = [t.decode() if isinstance(t, bytes) else t
             for t in attrs.get("row_partition_types", ())]
    if len(types) != len(partitions):
        raise InferError(f"Op '{node}': {len(types)} row_partition_types for "
                         f"{len(partitions)} row_partition_tensors.")
    ragged_rank = len(types) - (1 if types and types[0] == "FIRST_DIM_SIZE" else 0)
    if values.shape.ndims is None:
        return values.dtype, TensorShape(None)
    rank = ragged_rank + values.shape.ndims
    dims = [None] * rank
    dims[ragged_rank + 1:] = values.shape.dims[1:]
    if shape.value is not None and getattr(shape.value, "ndim", 0) == 1:
        given = [int(d) for d in shape.value]
        if len(given) != rank:
            raise InferError(f"Op '{node}': the shape {given} is of rank {len(given)}; the "
                             f"ragged tensor is of rank {rank}.")
        dims = [d if d >= 0 else dims[i] for i, d in enumerate(given)]
    elif types and types[0] == "ROW_SPLITS" and partitions[0].shape.ndims == 1:
        first = partitions[0].shape.dims[0]
        dims[0] = None if first is None else first - 1
    return values.dtype, TensorShape(dims)


def _infer_to_sparse(inputs, attrs, node):
    values = inputs[-1]
    rank = None if values.shape.ndims is None else values.shape.ndims + len(inputs) - 1
    return [(dtypes.int64, TensorShape([None, rank])), (values.dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


register_op(OpDef("RaggedRange", _infer_range, 3, attr_defaults={"Tsplits": dtypes.int64}))
register_op(OpDef("RaggedTensorToTensor", _infer_to_tensor, None, host_inputs=(0,)))
register_op(OpDef("RaggedTensorToSparse", _infer_to_sparse, None))
not_differentiable("RaggedRange", "RaggedTensorToSparse")   # RaggedTensorToTensor's:
# ops/ragged_grad.py
