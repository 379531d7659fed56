"""Sparse reductions and elementwise math, TF's op types and attrs:

* ``SparseReduceMax(input_indices, input_values, input_shape, reduction_axes)``, attr
  ``keep_dims``: the dense max over the axes of the stored entries (an output element
  with none is 0) (``sparse.reduce_max``).
* ``SparseReduceMaxSparse`` and ``SparseReduceSumSparse``, the same inputs and attr:
  the reduction as a SparseTensor, one entry per kept coordinate that had any
  (``sparse.reduce_max_sparse``, ``sparse.reduce_sum_sparse``).
* ``SparseSoftmax(sp_indices, sp_values, sp_shape)``: the softmax of the stored values
  of each innermost row (rank >= 2), the implicit zeros left out (``sparse.softmax``).
* ``SparseSparseMaximum`` / ``SparseSparseMinimum(a_indices, a_values, a_shape,
  b_indices, b_values, b_shape)``: the union of two (sorted) SparseTensors' entries,
  each the max / min of its two values, an implicit 0 standing in for a missing one
  (``sparse.maximum``, ``sparse.minimum``).

Kernels: ``kernels/reference/sparse_math.py`` (host).  Gradients: ``sparse_grad.py``
(SparseSoftmax's; the maximum and minimum raise NotImplementedError, as TF's).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import name_scope
from ..sparse_tensor import SparseTensor, convert_to_sparse_tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .registry import OpDef, register_op
from .sparse import check_sparse_inputs, reduction_shape, sparse_reduction

__all__ = ["MATH_OPS", "sparse_reduce_max", "sparse_reduce_max_sparse",
           "sparse_reduce_sum_sparse", "sparse_softmax", "sparse_maximum", "sparse_minimum"]

MATH_OPS = ("SparseReduceMax", "SparseReduceMaxSparse", "SparseReduceSumSparse",
            "SparseSoftmax", "SparseSparseMaximum", "SparseSparseMinimum")


def _reduction_sparse(inputs, attrs, node):
    _, values, _, _ = inputs
    _, dense = reduction_shape(inputs, attrs, node)
    rank = dense.ndims
    return [(dtypes.int64, TensorShape([None, rank])), (values.dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


def _softmax(inputs, attrs, node):
    indices, values, shape = inputs
    check_sparse_inputs(indices, values, shape, node)
    if not values.dtype.is_floating:
        raise TypeError(f"Op '{node}': sp_values '{values.name}' must be float16, float32 or "
                        f"float64, not {values.dtype.name}.")
    return values.dtype, values.shape


def _sparse_sparse(inputs, attrs, node):
    a_indices, a_values, a_shape, b_indices, b_values, b_shape = inputs
    check_sparse_inputs(a_indices, a_values, a_shape, node)
    check_sparse_inputs(b_indices, b_values, b_shape, node)
    if a_values.dtype != b_values.dtype:
        raise TypeError(f"Op '{node}': a_values are {a_values.dtype.name} but b_values "
                        f"{b_values.dtype.name}.")
    rank = a_indices.shape.dims[1] if a_indices.shape.ndims == 2 else None
    return [(dtypes.int64, TensorShape([None, rank])), (a_values.dtype, TensorShape([None]))]


register_op(OpDef("SparseReduceMax", reduction_shape, 4, attr_defaults={"keep_dims": False}))
for _op in ("SparseReduceMaxSparse", "SparseReduceSumSparse"):
    register_op(OpDef(_op, _reduction_sparse, 4, attr_defaults={"keep_dims": False}))
register_op(OpDef("SparseSoftmax", _softmax, 3))
register_op(OpDef("SparseSparseMaximum", _sparse_sparse, 6))
register_op(OpDef("SparseSparseMinimum", _sparse_sparse, 6))


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None, name=None):
    """TF1's ``tf.sparse.reduce_max`` / ``tf.sparse_reduce_max``: the dense max of the
    stored entries over ``axis`` (every axis when None), 0 where none was stored;
    ``keepdims`` keeps reduced axes as 1s (``reduction_axes``, ``keep_dims``: TF1's
    older names)."""
    return sparse_reduction("SparseReduceMax", sp_input, axis, keepdims, reduction_axes,
                      keep_dims, name)


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.reduce_max_sparse``: ``sparse_reduce_max`` as a SparseTensor
    (one entry per kept coordinate that had any)."""
    return sparse_reduction("SparseReduceMaxSparse", sp_input, axis, keepdims, reduction_axes,
                      keep_dims, name)


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.reduce_sum_sparse``: ``sparse.reduce_sum`` as a SparseTensor
    (one entry per kept coordinate that had any)."""
    return sparse_reduction("SparseReduceSumSparse", sp_input, axis, keepdims, reduction_axes,
                      keep_dims, name)


def sparse_softmax(sp_input, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.softmax`` / ``tf.sparse_softmax``: the softmax of each innermost
    row's stored values (the entries must be in row-major order; implicit zeros take no
    part), in a SparseTensor of the same indices and shape."""
    sp = convert_to_sparse_tensor(sp_input)
    with name_scope(name or "SparseSoftmax"):
        values = make_op("SparseSoftmax", [sp.indices, sp.values, sp.dense_shape],
                         name="SparseSoftmax")
        return SparseTensor(sp.indices, values, sp.dense_shape)


def _min_or_max(op_type, sp_a, sp_b, name) -> SparseTensor:
    a, b = convert_to_sparse_tensor(sp_a, "sp_a"), convert_to_sparse_tensor(sp_b, "sp_b")
    op = a.graph.create_op(op_type, [a.indices, a.values, a.dense_shape, b.indices,
                                     b.values, b.dense_shape], name=name or op_type)
    return SparseTensor(op.outputs[0], op.outputs[1], a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.maximum`` / ``tf.sparse_maximum``: the elementwise max of two
    SparseTensors of one shape (both in row-major order), an entry for every index
    either has.  InvalidArgumentError at run time for different shapes."""
    return _min_or_max("SparseSparseMaximum", sp_a, sp_b, name)


def sparse_minimum(sp_a, sp_b, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.minimum`` / ``tf.sparse_minimum``: as ``sparse_maximum``, the
    min."""
    return _min_or_max("SparseSparseMinimum", sp_a, sp_b, name)
