"""The ops over SparseTensors (``sparse_tensor.py``), TF's op types with TF's inputs and
attrs so that GraphDefs TensorFlow wrote import.  A SparseTensor enters an op as its
three tensors (indices, values, dense_shape) and a sparse result leaves as two or three
outputs that the builder wraps in a new SparseTensor.

* ``SparseToDense(sparse_indices, output_shape, sparse_values, default_value)``, attr
  ``validate_indices``: the dense tensor (``sparse_to_dense``, ``sparse.to_dense``).
  With ``validate_indices`` the indices must be in bounds, sorted and distinct.
* ``SparseTensorDenseMatMul(a_indices, a_values, a_shape, b)``, attrs ``adjoint_a``,
  ``adjoint_b``: a sparse matrix times a dense one.
* ``SparseReduceSum(input_indices, input_values, input_shape, reduction_axes)``, attr
  ``keep_dims``: a dense sum over the axes (repeated indices add up).
* ``SparseReorder(input_indices, input_values, input_shape)``: the entries in row-major
  order (outputs indices and values).
* ``SparseReshape(input_indices, input_shape, new_shape)``: the same entries in another
  shape with as many elements (outputs indices and the new shape; one ``-1`` is
  inferred).

Static shapes are inferred as TF's shape functions do, and the ranks they check are
ValueErrors when the graph is built; everything that depends on values (an index out
of bounds, unsorted indices under ``validate_indices``, an axis out of range) is an
``InvalidArgumentError`` naming the node at run time, with TF's wording.  Kernels:
``kernels/reference/sparse.py``, on the host (GPU sessions place these ops on the CPU).
Gradients: ``sparse_grad.py``.  ``from_dense`` and ``sparse_placeholder`` are
composites, as in TF1.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import Tensor, constant_value, convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor, convert_to_sparse_tensor
from ..tensor_shape import TensorShape
from .array_operands import check_int, int_operand, partial_shape_value, shape_operand
from .common import graph_of, make_op
from .registry import InferError, OpDef, register_op

__all__ = ["SPARSE_OPS", "NUMBER_TYPES", "REAL_NUMBER_TYPES", "check_value_type",
           "with_rank", "check_sparse_inputs", "sparse_to_dense",
           "sparse_tensor_to_dense", "sparse_tensor_dense_matmul", "sparse_reduce_sum",
           "reduction_shape", "axes_operand",
           "sparse_reorder", "sparse_reshape", "from_dense", "sparse_placeholder"]

# every sparse op (this module's, sparse_add.py's, sparse_slicing.py's,
# sparse_math.py's and sparse_cross.py's): all run on the host
SPARSE_OPS = ("SparseToDense", "SparseTensorDenseMatMul", "SparseReduceSum", "SparseReorder",
              "SparseReshape", "SparseAdd", "SparseAddGrad", "SparseTensorDenseAdd",
              "SparseConcat", "SparseSlice", "SparseSliceGrad", "SparseSplit",
              "SparseFillEmptyRows", "SparseFillEmptyRowsGrad", "SparseReduceMax",
              "SparseReduceMaxSparse", "SparseReduceSumSparse", "SparseSoftmax",
              "SparseSparseMaximum", "SparseSparseMinimum",
              "SparseCross", "SparseCrossV2", "SparseCrossHashed", "SparseDenseCwiseMul",
              "SparseDenseCwiseDiv", "SparseDenseCwiseAdd")


# TF's numbertype and realnumbertype attrs (the sparse arithmetic's and the max ops'), as
# far as devsession has the types, in TF's order
NUMBER_TYPES = ("float32", "float64", "int32", "uint8", "int16", "int8", "complex64", "int64",
                "qint8", "quint8", "qint32", "bfloat16", "qint16", "quint16", "uint16",
                "complex128", "float16", "uint32", "uint64")
REAL_NUMBER_TYPES = ("float32", "float64", "int32", "uint8", "int16", "int8", "int64",
                     "bfloat16", "uint16", "float16", "uint32", "uint64")


def check_value_type(values, parameter: str, allowed: tuple = NUMBER_TYPES) -> None:
    """TF's TypeError naming ``parameter`` for values of a dtype the op's attr does not
    allow (bool or strings for arithmetic; complex too where it takes an order)."""
    if values.dtype.name not in allowed:
        raise TypeError(f"Value passed to parameter '{parameter}' has DataType "
                        f"{values.dtype.name} not in list of allowed values: "
                        f"{', '.join(allowed)}")


# --- static shapes ---------------------------------------------------------------------------

def with_rank(spec, rank: int, node: str, what: str) -> TensorShape:
    """``spec``'s static shape, checked to have ``rank`` (TF's ``WithRank``)."""
    if spec.shape.ndims is not None and spec.shape.ndims != rank:
        raise InferError(f"Op '{node}': Shape must be rank {rank} but is rank "
                         f"{spec.shape.ndims} for {what} '{spec.name}' with shape "
                         f"{spec.shape}.")
    return spec.shape if spec.shape.ndims is not None else TensorShape([None] * rank)


def _check_dtype(spec, want, node: str, what: str) -> None:
    if spec.dtype != want:
        raise TypeError(f"Op '{node}': {what} '{spec.name}' must be {want.name}, not "
                        f"{spec.dtype.name}.")


def check_sparse_inputs(indices, values, shape, node: str) -> TensorShape:
    """Checks a SparseTensor's three inputs (indices int32/int64 of rank 2, values of
    rank 1, an int64 shape vector); returns the static dense shape."""
    check_int(indices, node, "indices")
    with_rank(indices, 2, node, "indices")
    with_rank(values, 1, node, "values")
    _check_dtype(shape, dtypes.int64, node, "shape")
    with_rank(shape, 1, node, "shape")
    return shape_operand(shape)


def _sparse_to_dense(inputs, attrs, node):
    indices, output_shape, values, default = inputs
    check_int(indices, node, "sparse_indices")
    _check_dtype(output_shape, indices.dtype, node, "output_shape")
    _check_dtype(default, values.dtype, node, "default_value")
    with_rank(output_shape, 1, node, "output_shape")
    return values.dtype, shape_operand(output_shape)


def _matmul(inputs, attrs, node):
    indices, values, shape, b = inputs
    a = check_sparse_inputs(indices, values, shape, node)
    if a.ndims is not None and a.ndims != 2:
        raise InferError(f"Op '{node}': Shape must be rank 2 but is rank {a.ndims} for the "
                         f"sparse operand's shape '{shape.name}' ({a}).")
    b_shape = with_rank(b, 2, node, "b")
    if values.dtype != b.dtype:
        raise TypeError(f"Op '{node}': a_values '{values.name}' are {values.dtype.name} but b "
                        f"'{b.name}' is {b.dtype.name}.")
    a_dims = a.dims if a.ndims is not None else (None, None)
    adjoint_a, adjoint_b = attrs.get("adjoint_a", False), attrs.get("adjoint_b", False)
    left, inner_a = (a_dims[1], a_dims[0]) if adjoint_a else a_dims
    inner_b, right = tuple(reversed(b_shape.dims)) if adjoint_b else b_shape.dims
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        raise InferError(f"Op '{node}': Dimensions must be equal, but are {inner_a} and "
                         f"{inner_b} (the sparse operand's shape {a}, b '{b.name}' of shape "
                         f"{b.shape}, adjoint_a={adjoint_a}, adjoint_b={adjoint_b}).")
    return values.dtype, TensorShape([left, right])


def reduction_shape(inputs, attrs, node):
    """The dense shape of a sparse reduction (SparseReduceSum, SparseReduceMax)."""
    indices, values, shape, axes = inputs
    check_value_type(values, "input_values")
    check_int(indices, node, "input_indices")
    _check_dtype(shape, dtypes.int64, node, "input_shape")
    _check_dtype(axes, dtypes.int32, node, "reduction_axes")
    dims, axes = shape.value, axes.value
    if dims is None or axes is None:
        return values.dtype, TensorShape(None)
    dims = [int(d) for d in np.asarray(dims).reshape(-1)]
    rank = len(dims)
    reduced = {(int(a) + rank) % rank for a in np.asarray(axes).reshape(-1)} if rank else set()
    if attrs.get("keep_dims", False):
        return values.dtype, TensorShape([1 if d in reduced else s for d, s in enumerate(dims)])
    return values.dtype, TensorShape([s for d, s in enumerate(dims) if d not in reduced])


def _reorder(inputs, attrs, node):
    indices, values, shape = inputs
    check_int(indices, node, "input_indices")
    with_rank(shape, 1, node, "input_shape")
    return [(dtypes.int64, with_rank(indices, 2, node, "input_indices")),
            (values.dtype, with_rank(values, 1, node, "input_values"))]


def _reshape(inputs, attrs, node):
    indices, shape, new_shape = inputs
    rows = with_rank(indices, 2, node, "input_indices").dims[0]
    with_rank(shape, 1, node, "input_shape")
    new = with_rank(new_shape, 1, node, "new_shape")
    for spec, what in ((indices, "input_indices"), (shape, "input_shape"),
                       (new_shape, "new_shape")):
        _check_dtype(spec, dtypes.int64, node, what)
    return [(dtypes.int64, TensorShape([rows, new.dims[0]])), (dtypes.int64, new)]


def _register() -> None:
    register_op(OpDef("SparseToDense", _sparse_to_dense, 4,
                      attr_defaults={"validate_indices": True}))
    register_op(OpDef("SparseTensorDenseMatMul", _matmul, 4,
                      attr_defaults={"adjoint_a": False, "adjoint_b": False}))
    register_op(OpDef("SparseReduceSum", reduction_shape, 4, attr_defaults={"keep_dims": False}))
    register_op(OpDef("SparseReorder", _reorder, 3))
    register_op(OpDef("SparseReshape", _reshape, 3))


_register()


# --- builders --------------------------------------------------------------------------------

def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None) -> Tensor:
    """TF1's ``tf.sparse_to_dense``: a dense tensor of ``output_shape`` holding
    ``sparse_values`` (one per index, or a scalar for all) at ``sparse_indices`` (a
    matrix of coordinates, a vector of indices into a vector, or a scalar) and
    ``default_value`` elsewhere.  ``validate_indices``: indices must be sorted and
    distinct (else InvalidArgumentError); without it a repeated index keeps its last
    value."""
    graph = graph_of(sparse_indices, output_shape, sparse_values, default_value)
    indices = int_operand(sparse_indices, graph, name="sparse_indices")
    if isinstance(output_shape, Tensor) or hasattr(output_shape, "_as_tensor"):
        shape = int_operand(output_shape, graph)
    else:
        shape = convert_to_tensor(_shape_list(output_shape), dtype=indices.dtype, graph=graph,
                                  name="output_shape")
    values = convert_to_tensor(sparse_values, graph=graph, name="sparse_values")
    default = convert_to_tensor(default_value, dtype=values.dtype, graph=graph,
                                name="default_value")
    return make_op("SparseToDense", [indices, shape, values, default],
                   {"validate_indices": bool(validate_indices)}, name=name or "SparseToDense")


def _shape_list(shape):
    return shape.as_list() if isinstance(shape, TensorShape) else shape


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True,
                           name=None) -> Tensor:
    """TF1's ``tf.sparse.to_dense`` / ``tf.sparse_tensor_to_dense``: the dense tensor of
    ``sp_input`` (a SparseTensor or SparseTensorValue), ``default_value`` (zero of its
    dtype, "" for strings) where it has no entry (see ``sparse_to_dense``)."""
    sp = convert_to_sparse_tensor(sp_input)
    if default_value is None:
        default = convert_to_tensor(np.zeros([], sp.dtype.np) if not sp.dtype.is_string
                                    else b"", dtype=sp.dtype, graph=sp.graph, name="zeros")
    else:
        default = convert_to_tensor(default_value, dtype=sp.dtype, graph=sp.graph,
                                    name="default_value")
    return make_op("SparseToDense", [sp.indices, sp.dense_shape, sp.values, default],
                   {"validate_indices": bool(validate_indices)}, name=name or "SparseToDense")


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False,
                               name=None) -> Tensor:
    """TF1's ``tf.sparse_tensor_dense_matmul`` / ``tf.sparse.sparse_dense_matmul``:
    ``op(sp_a) @ op(b)`` for a rank-2 SparseTensor ``sp_a`` and a dense matrix ``b``,
    ``op`` the adjoint where ``adjoint_a``/``adjoint_b`` (the conjugate transpose: for
    real dtypes the transpose).  Repeated indices of ``sp_a`` add up."""
    sp = convert_to_sparse_tensor(sp_a, "sp_a")
    with name_scope(name or "SparseTensorDenseMatMul"):
        b = convert_to_tensor(b, graph=sp.graph, name="b", dtype_hint=sp.dtype)
        return make_op("SparseTensorDenseMatMul", [sp.indices, sp.values, sp.dense_shape, b],
                       {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)},
                       name="SparseTensorDenseMatMul")


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None, name=None) -> Tensor:
    """TF1's ``tf.sparse.reduce_sum`` / ``tf.sparse_reduce_sum``: the dense sum of
    ``sp_input`` over ``axis`` (every axis when None; negative axes count from the
    end), keeping reduced axes as 1s with ``keepdims``.  ``reduction_axes`` and
    ``keep_dims`` are TF1's older names."""
    return sparse_reduction("SparseReduceSum", sp_input, axis, keepdims, reduction_axes,
                            keep_dims, name)


def sparse_reduction(op_type: str, sp_input, axis, keepdims, reduction_axes, keep_dims,
                     name):
    """The ``op_type`` reduction node of ``sp_input`` (TF's Sparse*Reduce* ops), TF1's
    older argument names taken too: its dense output, or a SparseTensor of its three."""
    if axis is not None and reduction_axes is not None:
        raise ValueError("Cannot specify both 'reduction_axes' and 'axis'.")
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
    sp = convert_to_sparse_tensor(sp_input)
    axes = axes_operand(sp, reduction_axes if axis is None else axis)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    op = sp.graph.create_op(op_type, [sp.indices, sp.values, sp.dense_shape, axes],
                            {"keep_dims": keep}, name=name or op_type)
    return op.outputs[0] if len(op.outputs) == 1 else SparseTensor(*op.outputs)


def axes_operand(sp: SparseTensor, axis) -> Tensor:
    """The int32 ``reduction_axes`` operand of a sparse reduction: ``axis`` (a Tensor,
    an int or a list), or every axis of ``sp`` when None (TF's ``_ReductionDims``)."""
    if isinstance(axis, Tensor):
        return axis if axis.dtype == dtypes.int32 else make_op("Cast", [axis],
                                                                {"DstT": dtypes.int32})
    if axis is not None:
        return convert_to_tensor(axis, dtype=dtypes.int32, graph=sp.graph,
                                 name="reduction_axes")
    rank = sp.dense_shape.shape.dims[0] if sp.dense_shape.shape.ndims == 1 else None
    if rank is not None:
        return convert_to_tensor(np.arange(rank, dtype=np.int32), graph=sp.graph, name="Const")
    from .array_fill import size
    from .elementwise import cast
    from .sequence import range as range_

    return range_(0, cast(size(sp.dense_shape), dtypes.int32))


def sparse_reorder(sp_input, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.reorder``: the same SparseTensor with its entries in row-major
    (canonical) order, as most sparse ops want them."""
    sp = convert_to_sparse_tensor(sp_input)
    op = sp.graph.create_op("SparseReorder", [sp.indices, sp.values, sp.dense_shape],
                            name=name or "SparseReorder")
    shape = sp.get_shape()
    if shape.is_fully_defined():
        dense_shape = convert_to_tensor(shape.as_list(), dtype=dtypes.int64, graph=sp.graph)
    else:
        dense_shape = make_op("Identity", [sp.dense_shape])
    return SparseTensor(op.outputs[0], op.outputs[1], dense_shape)


def sparse_reshape(sp_input, shape, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.reshape``: the entries of ``sp_input`` in ``shape`` (as many
    elements; one dimension may be -1); ValueError when both shapes are known and
    disagree, InvalidArgumentError at run time otherwise."""
    sp = convert_to_sparse_tensor(sp_input)
    graph = sp.graph
    target = int_operand(_shape_list(shape), graph)
    static = constant_value(target)
    if target.dtype != dtypes.int64:
        target = make_op("Cast", [target], {"DstT": dtypes.int64})
    op = graph.create_op("SparseReshape", [sp.indices, sp.dense_shape, target],
                         name=name or "SparseReshape")
    values = make_op("Identity", [sp.values], name=f"{op.name}/Identity")
    new_shape = _static_reshape(sp.get_shape(), static)
    return SparseTensor(op.outputs[0], values,
                        convert_to_tensor(new_shape, dtype=dtypes.int64, graph=graph)
                        if new_shape is not None else op.outputs[1])


def _static_reshape(old: TensorShape, target) -> list | None:
    """The reshaped dense shape when both shapes are known (TF1's check); ValueError
    for two -1s or a different number of elements."""
    if target is None or not old.is_fully_defined():
        return None
    dims = [int(d) for d in np.asarray(target).reshape(-1)]
    if sum(d == -1 for d in dims) > 1:
        raise ValueError(f"At most one dimension can be inferred (-1). Found: {dims}")
    size = int(np.prod(old.as_list(), dtype=np.int64))
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
        dims = [size // known if d == -1 and known else d for d in dims]
    if int(np.prod(dims, dtype=np.int64)) != size:
        raise ValueError(f"Cannot reshape a tensor with {size} elements to shape "
                         f"{[int(d) for d in np.asarray(target).reshape(-1)]} "
                         f"({int(np.prod(dims, dtype=np.int64))} elements).")
    return dims


def from_dense(tensor, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.from_dense``: a SparseTensor of the non-zero elements of a
    dense tensor, built as TF1's (``where`` of ``x != 0``, ``gather_nd``, ``shape``)."""
    from .array_fill import shape, zeros_like
    from .elementwise import not_equal
    from .gather_nd import gather_nd
    from .sequence import where_indices

    with name_scope(name or "dense_to_sparse"):
        x = convert_to_tensor(tensor)
        indices = where_indices(not_equal(x, zeros_like(x)))
        values = gather_nd(x, indices)
        return SparseTensor(indices, values, shape(x, out_type=dtypes.int64))


def sparse_placeholder(dtype, shape=None, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.placeholder`` / ``tf.sparse_placeholder``: a SparseTensor of
    three placeholders (``name/indices``, ``name/values``, ``name/shape``) fed with a
    SparseTensorValue or an ``(indices, values, dense_shape)`` tuple.  A ``shape`` makes
    ``name/shape`` a PlaceholderWithDefault of it (TF 2.21's: -1 for an unknown dim, from
    the constant ``name/shape_default``; a shape tensor is its default as is), and the
    SparseTensor's static shape is ``shape`` (``[None, 4]`` gives ``(?, 4)``)."""
    from .state import placeholder, placeholder_with_default

    def named(part):
        return f"{name}/{part}" if name is not None else None

    if shape is None:
        rank, static = None, None
        dense_shape = placeholder(dtypes.int64, [rank], name=named("shape"))
    elif isinstance(shape, Tensor):
        rank = shape.shape.dims[0] if shape.shape.ndims == 1 else None
        static = partial_shape_value(shape)
        dense_shape = placeholder_with_default(shape, shape.shape, name=named("shape"))
    else:
        dims = [None if d == -1 else d for d in _shape_list(shape)]
        rank, static = len(dims), dims
        default = convert_to_tensor([-1 if d is None else d for d in dims], dtype=dtypes.int64,
                                    name=named("shape_default"))
        dense_shape = placeholder_with_default(default, [rank], name=named("shape"))
    values = placeholder(dtype, [None], name=named("values"))
    indices = placeholder(dtypes.int64, [None, rank], name=named("indices"))
    result = SparseTensor(indices, values, dense_shape)
    result.set_shape(TensorShape(static))
    return result
