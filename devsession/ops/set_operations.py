"""``tf.sets``: set operations along the last dimension, TF's ops:

* ``DenseToDenseSetOperation(set1, set2)``, ``DenseToSparseSetOperation(set1,
  set2_indices, set2_values, set2_shape)`` and ``SparseToSparseSetOperation`` (both
  sets sparse), attr ``set_operation`` one of "a-b", "b-a", "intersection", "union":
  for each group (an index of every dimension but the last) the set of its values in
  ``set1`` and in ``set2``, combined; the result is a SparseTensor whose row for a group
  holds that set in ascending order, and whose last dimension is the largest set's size.
* ``SetSize(set_indices, set_values, set_shape)``: the number of distinct values of each
  group of a SparseTensor (int32, shape: all dimensions but the last).

Sets hold ints of up to 64 bits or strings, as TF's kernels; both inputs have one dtype
(TypeError) and rank 2 or more (ValueError when built, as TF's shape functions say it,
else InvalidArgumentError when run); their dimensions but the last agree.  A sparse
input with ``validate_indices`` must be in row-major order without repeats, as TF
checks.  A sparse first operand with a dense second is swapped (``a-b`` becoming
``b-a``), as TF's Python does.  No gradients: TF registers none.  Kernels:
``kernels/reference/set_operations.py`` (host; the GPU runs them through the host).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..sparse_tensor import SparseTensor, SparseTensorValue
from ..tensor_shape import TensorShape
from .registry import InferError, OpDef, not_differentiable, register_op
from .sparse import check_sparse_inputs

__all__ = ["set_intersection", "set_union", "set_difference", "set_size", "SET_OPERATIONS"]

SET_OPERATIONS = ("a-b", "b-a", "intersection", "union")
_SET_DTYPES = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
               dtypes.uint16, dtypes.string)


def _check_dtypes(a, b, node) -> None:
    if a.dtype not in _SET_DTYPES:
        raise TypeError(f"Op '{node}': sets hold int8, int16, int32, int64, uint8, uint16 or "
                        f"string values, not {a.dtype.name}.")
    if a.dtype != b.dtype:
        raise TypeError(f"Op '{node}': Types don't match, {a.dtype.name} vs {b.dtype.name}.")


def _dense_rank(spec, node) -> int | None:
    rank = spec.shape.ndims
    if rank is not None and rank < 2:
        raise InferError(f"Shape must be at least rank 2 but is rank {rank} for '{node}' "
                         f"with input shape {spec.shape}.")
    return rank


def _sparse_rank(shape_spec) -> int | None:
    return shape_spec.shape.dims[0] if shape_spec.shape.ndims == 1 else None


def _outputs(dtype, rank):
    return [(dtypes.int64, TensorShape([None, rank])), (dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


def _check_operation(attrs, node) -> None:
    if str(attrs.get("set_operation", "")).lower() not in SET_OPERATIONS:
        raise InferError(f"Op '{node}': Invalid set_operation {attrs.get('set_operation')!r}"
                         f" (one of {', '.join(SET_OPERATIONS)}).")


def _same_rank(rank1, rank2, node) -> int | None:
    if rank1 is not None and rank2 is not None and rank1 != rank2:
        raise InferError(f"Dimension must be {rank1} but is {rank2} for '{node}'.")
    return rank1 if rank1 is not None else rank2


def _dense_to_dense(inputs, attrs, node):
    set1, set2 = inputs
    _check_operation(attrs, node)
    _check_dtypes(set1, set2, node)
    rank = _same_rank(_dense_rank(set1, node), _dense_rank(set2, node), node)
    if rank is not None and set1.shape.ndims is not None and set2.shape.ndims is not None:
        groups1, groups2 = TensorShape(set1.shape.dims[:-1]), TensorShape(set2.shape.dims[:-1])
        if not groups1.is_compatible_with(groups2):
            raise InferError(f"All but the last dimension of the sets must be equal, but "
                             f"are {groups1} and {groups2} for '{node}' with input shapes "
                             f"{set1.shape}, {set2.shape}.")
    return _outputs(set1.dtype, rank)


def _dense_to_sparse(inputs, attrs, node):
    set1, indices, values, shape = inputs
    _check_operation(attrs, node)
    check_sparse_inputs(indices, values, shape, node)
    _check_dtypes(set1, values, node)
    return _outputs(set1.dtype, _same_rank(_dense_rank(set1, node), _sparse_rank(shape), node))


def _sparse_to_sparse(inputs, attrs, node):
    indices1, values1, shape1, indices2, values2, shape2 = inputs
    _check_operation(attrs, node)
    check_sparse_inputs(indices1, values1, shape1, node)
    check_sparse_inputs(indices2, values2, shape2, node)
    _check_dtypes(values1, values2, node)
    return _outputs(values1.dtype, _same_rank(_sparse_rank(shape1), _sparse_rank(shape2),
                                              node))


def _set_size(inputs, attrs, node):
    indices, values, shape = inputs
    check_sparse_inputs(indices, values, shape, node)
    _check_dtypes(values, values, node)
    return dtypes.int32, TensorShape(None)      # TF's shape function: unknown


_SET_ATTRS = {"validate_indices": True}
register_op(OpDef("DenseToDenseSetOperation", _dense_to_dense, 2, attr_defaults=_SET_ATTRS))
register_op(OpDef("DenseToSparseSetOperation", _dense_to_sparse, 4, attr_defaults=_SET_ATTRS))
register_op(OpDef("SparseToSparseSetOperation", _sparse_to_sparse, 6,
                  attr_defaults=_SET_ATTRS))
register_op(OpDef("SetSize", _set_size, 3, attr_defaults=_SET_ATTRS))
not_differentiable("DenseToDenseSetOperation", "DenseToSparseSetOperation",
                   "SparseToSparseSetOperation", "SetSize")


def _operand(x, name: str, graph=None):
    """``x`` as a SparseTensor (a SparseTensorValue too) or a Tensor."""
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    if isinstance(x, SparseTensor):
        return x
    return convert_to_tensor(x, graph=graph, name=name)


def _operands(a, b) -> tuple:
    """TF's ``_convert_to_tensors_or_sparse_tensors``: both converted and checked, and
    swapped (``flipped``) when only ``a`` is sparse."""
    a = _operand(a, "a")
    b = _operand(b, "b", graph=a.graph)
    for x, what in ((a, "a"), (b, "b")):
        if x.dtype not in _SET_DTYPES:
            raise TypeError(f"'{what}' has invalid dtype `{x.dtype.name}` not in supported "
                            f"dtypes: int8, int16, int32, int64, uint8, uint16, string.")
    if a.dtype != b.dtype:
        raise TypeError(f"Types don't match, {a.dtype.name} vs {b.dtype.name}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, operation: str, validate_indices: bool) -> SparseTensor:
    attrs = {"set_operation": operation, "validate_indices": bool(validate_indices)}
    graph = a.graph
    if isinstance(a, SparseTensor):
        op = graph.create_op("SparseToSparseSetOperation",
                             [a.indices, a.values, a.dense_shape,
                              b.indices, b.values, b.dense_shape], attrs,
                             name="SparseToSparseSetOperation")
    elif isinstance(b, SparseTensor):
        op = graph.create_op("DenseToSparseSetOperation",
                             [a, b.indices, b.values, b.dense_shape], attrs,
                             name="DenseToSparseSetOperation")
    else:
        op = graph.create_op("DenseToDenseSetOperation", [a, b], attrs,
                             name="DenseToDenseSetOperation")
    return SparseTensor(*op.outputs)


def set_intersection(a, b, validate_indices=True) -> SparseTensor:
    """The values in both ``a`` and ``b`` of each group (all dimensions but the last), a
    SparseTensor (TF's ``tf.sets.intersection``); ``a`` and ``b`` dense or sparse."""
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_union(a, b, validate_indices=True) -> SparseTensor:
    """The values in ``a`` or ``b`` of each group, a SparseTensor (``tf.sets.union``)."""
    a, b, _ = _operands(a, b)
    return _set_operation(a, b, "union", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True) -> SparseTensor:
    """The values of each group in ``a`` but not ``b`` (``aminusb``), else in ``b`` but
    not ``a``, a SparseTensor (``tf.sets.difference``)."""
    a, b, flipped = _operands(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def set_size(a, validate_indices=True) -> Tensor:
    """The number of distinct values of each group of the SparseTensor ``a`` (int32,
    ``tf.sets.size``); a dense ``a`` is a TypeError, as in TF."""
    a = _operand(a, "a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.dtype not in _SET_DTYPES:
        raise TypeError(f"Invalid dtype {a.dtype.name}.")
    op = a.graph.create_op("SetSize", [a.indices, a.values, a.dense_shape],
                           {"validate_indices": bool(validate_indices)}, name="SetSize")
    return op.outputs[0]
