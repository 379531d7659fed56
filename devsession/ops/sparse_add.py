"""``sparse.add``: a SparseTensor plus a SparseTensor or a dense tensor, TF's ops:

* ``SparseAdd(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh)``:
  the two (sorted) entry lists merged in row-major order, an index in both giving one
  entry with the sum (kept only when ``|sum| >= thresh``); outputs the sum's indices,
  values and shape.  Its gradient op ``SparseAddGrad(backprop_val_grad, a_indices,
  b_indices, sum_indices)`` walks the same merge to send each sum entry's gradient back
  to the entries it came from.
* ``SparseTensorDenseAdd(a_indices, a_values, a_shape, b)``: the dense ``b`` with the
  values added at their indices (a repeated index adds twice); same shapes, no
  broadcasting.

Kernels: ``kernels/reference/sparse_add.py`` (host).  Gradients: ``sparse_grad.py``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor
from ..sparse_tensor import SparseTensor, SparseTensorValue, convert_to_sparse_tensor
from ..tensor_shape import TensorShape, broadcast_static
from .array_operands import check_int
from .common import make_op
from .registry import OpDef, register_op
from .sparse import check_sparse_inputs, check_value_type, with_rank

__all__ = ["sparse_add"]


def _sparse_add(inputs, attrs, node):
    a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh = inputs
    check_value_type(a_values, "a_values")
    check_sparse_inputs(a_indices, a_values, a_shape, node)
    check_sparse_inputs(b_indices, b_values, b_shape, node)
    if a_values.dtype != b_values.dtype:
        raise TypeError(f"Op '{node}': a_values are {a_values.dtype.name} but b_values "
                        f"{b_values.dtype.name}.")
    with_rank(thresh, 0, node, "thresh")
    rank = a_indices.shape.dims[1] if a_indices.shape.ndims == 2 else None
    return [(dtypes.int64, TensorShape([None, rank])), (a_values.dtype, TensorShape([None])),
            (dtypes.int64, a_shape.shape)]


def _sparse_add_grad(inputs, attrs, node):
    grad, a_indices, b_indices, sum_indices = inputs
    with_rank(grad, 1, node, "backprop_val_grad")
    for spec, what in ((a_indices, "a_indices"), (b_indices, "b_indices"),
                       (sum_indices, "sum_indices")):
        check_int(spec, node, what)
        with_rank(spec, 2, node, what)
    rows = [t.shape.dims[0] if t.shape.ndims == 2 else None for t in (a_indices, b_indices)]
    return [(grad.dtype, TensorShape([rows[0]])), (grad.dtype, TensorShape([rows[1]]))]


def _sparse_dense_add(inputs, attrs, node):
    indices, values, shape, b = inputs
    check_value_type(values, "a_values")
    check_sparse_inputs(indices, values, shape, node)
    if values.dtype != b.dtype:
        raise TypeError(f"Op '{node}': a_values are {values.dtype.name} but b '{b.name}' is "
                        f"{b.dtype.name}.")
    return b.dtype, b.shape


register_op(OpDef("SparseAdd", _sparse_add, 7))
register_op(OpDef("SparseAddGrad", _sparse_add_grad, 4))
register_op(OpDef("SparseTensorDenseAdd", _sparse_dense_add, 4))


def sparse_add(a, b, threshold=None, thresh=None):
    """TF1's ``tf.sparse.add`` / ``tf.sparse_add``: a SparseTensor when both are sparse
    (their entries merged; sums smaller in magnitude than ``threshold`` dropped; both
    must be in row-major order), else the dense sum of the sparse one and the dense one.
    ``thresh`` is TF1's older name.  TypeError when neither is sparse, ValueError for
    both thresholds or static shapes that differ."""
    if threshold is not None and thresh is not None:
        raise ValueError("Only one of threshold or thresh can be specified.")
    threshold = 0 if threshold is None and thresh is None else \
        (threshold if threshold is not None else thresh)
    sparse_kinds = (SparseTensor, SparseTensorValue)
    if not isinstance(a, sparse_kinds) and not isinstance(b, sparse_kinds):
        raise TypeError("At least one input should be SparseTensor; do you mean to use "
                        "tf.add()?")
    if isinstance(a, sparse_kinds) and isinstance(b, sparse_kinds):
        a, b = convert_to_sparse_tensor(a), convert_to_sparse_tensor(b)
        limit = convert_to_tensor(threshold, dtype=a.dtype, graph=a.graph, name="threshold")
        op = a.graph.create_op("SparseAdd", [a.indices, a.values, a.dense_shape, b.indices,
                                             b.values, b.dense_shape, limit],
                               name="SparseAdd")
        if not a.shape.is_compatible_with(b.shape):
            raise ValueError(f"Shapes {a.shape} and {b.shape} are incompatible")
        static = broadcast_static(a.shape, b.shape)
        dense_shape = convert_to_tensor(static.as_list(), dtype=dtypes.int64, graph=a.graph) \
            if static.is_fully_defined() else op.outputs[2]
        return SparseTensor(op.outputs[0], op.outputs[1], dense_shape)
    if isinstance(b, sparse_kinds):
        a, b = b, a
    a = convert_to_sparse_tensor(a)
    b = convert_to_tensor(b, graph=a.graph, dtype_hint=a.dtype)
    return make_op("SparseTensorDenseAdd", [a.indices, a.values, a.dense_shape, b],
                   name="SparseTensorDenseAdd")

