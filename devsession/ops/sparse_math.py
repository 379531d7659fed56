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
* ``SparseDenseCwiseMul`` / ``SparseDenseCwiseDiv`` / ``SparseDenseCwiseAdd(sp_indices,
  sp_values, sp_shape, dense)``, attr ``T``: each stored value times / over / plus the
  dense element at its index, the dense side broadcast to the sparse's dense shape (that
  way only: it has no more dimensions, and none larger); outputs the new values.  What
  ``sparse * dense``, ``sparse / dense`` (ints cast to float first, as TF's truediv) and
  ``sparse.__div__`` build.  At run time, as TF's kernel: InvalidArgumentError for
  shapes that do not broadcast so, a rank outside 1..5, an index outside the dense shape,
  a division by a zero the entries pick, and complex values (TF has no kernel for them).

The max ops (SparseReduceMax, SparseReduceMaxSparse, SparseSparseMaximum) take TF's real
number types only: complex or bool values are TF's TypeError when the graph is built.

Kernels: ``kernels/reference/sparse_math.py`` (host).  Gradients: ``sparse_grad.py``
(SparseSoftmax's and the dense-side Mul/Div's; the maximum, minimum and SparseDenseCwiseAdd
raise NotImplementedError, as TF's).
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor, convert_to_sparse_tensor
from ..tensor_shape import TensorShape
from .common import make_op
from .elementwise import cast
from .registry import OpDef, register_op
from .sparse import REAL_NUMBER_TYPES, check_sparse_inputs, check_value_type, \
    reduction_shape, sparse_reduction

__all__ = ["MATH_OPS", "sparse_reduce_max", "sparse_reduce_max_sparse",
           "sparse_reduce_sum_sparse", "sparse_softmax", "sparse_maximum", "sparse_minimum",
           "sparse_dense_cwise", "dense_times_sparse"]

CWISE_OPS = ("SparseDenseCwiseMul", "SparseDenseCwiseDiv", "SparseDenseCwiseAdd")
MATH_OPS = ("SparseReduceMax", "SparseReduceMaxSparse", "SparseReduceSumSparse",
            "SparseSoftmax", "SparseSparseMaximum", "SparseSparseMinimum", *CWISE_OPS)

# what ``sparse / dense`` casts integer values to first (TF's ``_TRUEDIV_TABLE``)
_TRUEDIV_CASTS = {"int8": dtypes.float32, "uint8": dtypes.float32, "int16": dtypes.float32,
                  "uint16": dtypes.float32, "int32": dtypes.float64, "uint32": dtypes.float64,
                  "int64": dtypes.float64, "uint64": dtypes.float64}
_TRUEDIV_TYPES = ("uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64",
                  "bfloat16", "float16", "float32", "float64", "complex64", "complex128")


def _reduce_max(inputs, attrs, node):
    check_value_type(inputs[1], "input_values", REAL_NUMBER_TYPES)
    return reduction_shape(inputs, attrs, node)


def _reduction_sparse(inputs, attrs, node):
    _, values, _, _ = inputs
    check_value_type(values, "input_values")
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


def _reduce_max_sparse(inputs, attrs, node):
    check_value_type(inputs[1], "input_values", REAL_NUMBER_TYPES)
    return _reduction_sparse(inputs, attrs, node)


def _sparse_maximum(inputs, attrs, node):
    check_value_type(inputs[1], "a_values", REAL_NUMBER_TYPES)
    return _sparse_sparse(inputs, attrs, node)


def _sparse_sparse(inputs, attrs, node):
    a_indices, a_values, a_shape, b_indices, b_values, b_shape = inputs
    check_value_type(a_values, "a_values")
    check_sparse_inputs(a_indices, a_values, a_shape, node)
    check_sparse_inputs(b_indices, b_values, b_shape, node)
    if a_values.dtype != b_values.dtype:
        raise TypeError(f"Op '{node}': a_values are {a_values.dtype.name} but b_values "
                        f"{b_values.dtype.name}.")
    rank = a_indices.shape.dims[1] if a_indices.shape.ndims == 2 else None
    return [(dtypes.int64, TensorShape([None, rank])), (a_values.dtype, TensorShape([None]))]


def _sparse_dense_cwise(inputs, attrs, node):
    indices, values, shape, dense = inputs
    check_sparse_inputs(indices, values, shape, node)
    check_value_type(values, "sp_values")
    if dense.dtype != values.dtype:
        raise TypeError(f"Input 'dense' of '{node}' Op has type {dense.dtype.name} that does "
                        f"not match type {values.dtype.name} of argument 'sp_values'.")
    rows = indices.shape.dims[0] if indices.shape.ndims == 2 else None
    return values.dtype, TensorShape([rows])


register_op(OpDef("SparseReduceMax", _reduce_max, 4, attr_defaults={"keep_dims": False}))
register_op(OpDef("SparseReduceMaxSparse", _reduce_max_sparse, 4,
                  attr_defaults={"keep_dims": False}))
register_op(OpDef("SparseReduceSumSparse", _reduction_sparse, 4,
                  attr_defaults={"keep_dims": False}))
register_op(OpDef("SparseSoftmax", _softmax, 3))
register_op(OpDef("SparseSparseMaximum", _sparse_maximum, 6))
register_op(OpDef("SparseSparseMinimum", _sparse_sparse, 6))
for _op in CWISE_OPS:
    register_op(OpDef(_op, _sparse_dense_cwise, 4))


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


def sparse_dense_cwise(op_type: str, scope: str):
    """The SparseTensor operator building ``op_type`` as TF's ``binary_op_wrapper_sparse``:
    the dense operand converted to the values' dtype ("mul/y"; ValueError for a tensor of
    another), the op named after the scope, a SparseTensor of the same indices and dense
    shape holding its output."""
    def method(sp_x, y):
        with name_scope(scope) as name:
            if isinstance(y, Tensor) and y.dtype != sp_x.dtype:
                raise ValueError(f"y: Tensor conversion requested dtype {sp_x.dtype.name} "
                                 f"for Tensor with dtype {y.dtype.name}: {y!r}")
            y = convert_to_tensor(y, dtype=sp_x.dtype, graph=sp_x.graph, name="y")
            values = sp_x.values
            if scope == "truediv":
                values, y = _truediv_operands(values, y)
            values = make_op(op_type, [sp_x.indices, values, sp_x.dense_shape, y], name=name)
        return SparseTensor(sp_x.indices, values, sp_x.dense_shape)
    return method


def dense_times_sparse(x: Tensor, sp_y: SparseTensor) -> SparseTensor:
    """``dense * sparse``: the SparseDenseCwiseMul of ``sparse * dense`` (TF's
    ``_mul_dispatch``; TypeError for a dense tensor of another dtype)."""
    with name_scope("mul") as name:
        values = make_op("SparseDenseCwiseMul", [sp_y.indices, sp_y.values, sp_y.dense_shape,
                                                 x], name=name)
    return SparseTensor(sp_y.indices, values, sp_y.dense_shape)


def _truediv_operands(values, y):
    """Both operands cast as TF's truediv casts integers (TypeError for a type it has no
    division for)."""
    kind = values.dtype.name
    if kind not in _TRUEDIV_TYPES:
        expected = ", ".join(f"tf.{t}" for t in _TRUEDIV_TYPES)
        raise TypeError(f"Invalid dtype tf.{kind} in __truediv__. Expected one of "
                        f"{{{expected}}}.")
    if kind in _TRUEDIV_CASTS:
        values, y = cast(values, _TRUEDIV_CASTS[kind]), cast(y, _TRUEDIV_CASTS[kind])
    return values, y


# ``sparse * dense``, ``sparse / dense`` and Python 2's ``__div__`` (which TF's SparseTensor
# keeps), installed here as ``operators.py`` installs Tensor's: sparse_tensor.py sits
# below every op family.  TF defines no reflected forms: ``dense * sparse`` is Tensor's
# ``__mul__`` (``operators.py``), ``2.0 * sparse`` a TypeError.
SparseTensor.__mul__ = sparse_dense_cwise("SparseDenseCwiseMul", "mul")
SparseTensor.__truediv__ = sparse_dense_cwise("SparseDenseCwiseDiv", "truediv")
SparseTensor.__div__ = sparse_dense_cwise("SparseDenseCwiseDiv", "div")
