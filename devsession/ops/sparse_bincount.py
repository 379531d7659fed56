"""TF1's ``tf.sparse.bincount``: how often each value occurs (or the sum of its weights,
or 1 with ``binary_output``), as a SparseTensor, built as TF's Python builds it from TF's
count ops:

* ``DenseCountSparseOutput(values, weights)``: a vector counted as one batch (output
  indices ``[value]``), a matrix row by row (``[row, value]``, with ``axis=-1``);
* ``SparseCountSparseOutput(indices, values, dense_shape, weights)``: a SparseTensor of
  rank 2 row by row (``axis=-1``; ``axis=0`` counts its values as a vector).

Attrs ``minlength`` and ``maxlength`` (-1 for none), ``binary_output``, ``output_type``
(the weights' dtype, or the values' without weights).  The entries come out in
(row, value) order; values at or past a positive ``maxlength`` are dropped, and the last
dimension is ``maxlength`` when it is positive, else ``max(largest value + 1,
minlength)`` (a largest value of 0 when there are none).  A negative value is TF's
``InvalidArgumentError`` naming the node; ``binary_output`` with weights, or an axis
other than 0 and -1, TF's ValueError.  Host kernels
(``kernels/reference/sparse_bincount.py``); no gradient registered, as TF's: a gradient
reaching one through its weights is TF's LookupError.

TF's dense-output bincount ops, which TF 2.x's ``tf.math.bincount`` builds (so GraphDefs
holding them import and run), are here too: ``DenseBincount(input, size, weights)`` and
``SparseBincount(indices, values, dense_shape, size, weights)``, attr ``binary_output``:
a ``[size]`` vector of the counts (or summed weights, or 1s) of a vector's values, or one
row of them per row of a matrix (of a rank-2 SparseTensor); values at or past ``size``
are skipped and a negative one is TF's InvalidArgumentError.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor
from ..tensor_shape import TensorShape
from .array import reshape
from .state import constant
from .common import graph_of
from .registry import InferError, OpDef, register_op

__all__ = ["sparse_bincount", "COUNT_OPS"]

COUNT_OPS = ("DenseCountSparseOutput", "SparseCountSparseOutput", "DenseBincount",
             "SparseBincount")
_ATTRS = {"minlength": -1, "maxlength": -1, "binary_output": False}


def _outputs(rank, attrs):
    return [(dtypes.int64, TensorShape([None, rank])),
            (dtypes.as_dtype(attrs["output_type"]), TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


def _check_values(values, node):
    if values.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Value passed to parameter 'values' has DataType "
                        f"{values.dtype.name} not in list of allowed values: int32, int64 "
                        f"(node '{node}').")


def _infer_dense(inputs, attrs, node):
    values, _ = inputs
    _check_values(values, node)
    rank = values.shape.ndims
    if rank not in (None, 1, 2):
        raise InferError(f"Op '{node}': Shape must be at most rank 2 but is rank {rank} "
                         f"for values '{values.name}'.")
    return _outputs(rank, attrs)


def _infer_sparse(inputs, attrs, node):
    _, values, dense_shape, _ = inputs
    _check_values(values, node)
    rank = dense_shape.shape.dims[0] if dense_shape.shape.ndims == 1 else None
    return _outputs(rank, attrs)


def _dense_counts(rank, size, weights):
    """The static shape of DenseBincount's and SparseBincount's output."""
    width = size.value
    width = int(width) if width is not None and getattr(width, "ndim", 0) == 0 else None
    if rank == 2:
        return weights.dtype, TensorShape([None, width])
    return weights.dtype, TensorShape([width] if rank == 1 else None)


def _infer_dense_bincount(inputs, attrs, node):
    values, size, weights = inputs
    _check_values(values, node)
    rank = values.shape.ndims
    if rank not in (None, 1, 2):
        raise InferError(f"Op '{node}': Shape must be at most rank 2 but is rank {rank} "
                         f"for input '{values.name}'.")
    dtype, shape = _dense_counts(rank, size, weights)
    if rank == 2:
        shape = TensorShape([values.shape.dims[0], shape.dims[1]])
    return dtype, shape


def _infer_sparse_bincount(inputs, attrs, node):
    _, values, dense_shape, size, weights = inputs
    _check_values(values, node)
    rank = dense_shape.shape.dims[0] if dense_shape.shape.ndims == 1 else None
    return _dense_counts(rank, size, weights)


register_op(OpDef("DenseCountSparseOutput", _infer_dense, 2, attr_defaults=_ATTRS))
register_op(OpDef("SparseCountSparseOutput", _infer_sparse, 4, attr_defaults=_ATTRS))
register_op(OpDef("DenseBincount", _infer_dense_bincount, 3, host_inputs=(1,),
                  attr_defaults={"binary_output": False}))
register_op(OpDef("SparseBincount", _infer_sparse_bincount, 5, host_inputs=(3,),
                  attr_defaults={"binary_output": False}))


def _weights_or_empty(weights, values_dtype, graph):
    """The weights tensor, or TF's empty one of the values' dtype (counting)."""
    if weights is None:
        return constant(np.zeros(0, values_dtype.np), name="Const")
    return convert_to_tensor(weights, graph=graph, name="weights")


def sparse_bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
                    binary_output=False, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.bincount`` (see the module docstring): ``values`` a Tensor (a
    vector, or a matrix counted row by row with ``axis=-1``) or a SparseTensor, ``weights``
    of its layout (a SparseTensor with its indices for a SparseTensor)."""
    with name_scope(name or "count"):
        graph = graph_of(values, weights)
        if not isinstance(values, SparseTensor):
            values = convert_to_tensor(values, graph=graph, name="values")
        if weights is not None and binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually "
                             "exclusive. Please specify only one.")
        if axis is None:
            axis = 0
        if axis not in (0, -1):
            raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 "
                             f"are currently supported.")
        if isinstance(weights, SparseTensor):
            if not isinstance(values, SparseTensor):
                raise ValueError("Argument `weights` must be a Tensor if `values` is not a "
                                 "SparseTensor.")
            weights = weights.values
        elif weights is not None and isinstance(values, SparseTensor):
            raise ValueError(f"Argument `weights` must be a SparseTensor if `values` is a "
                             f"SparseTensor. Received weights={weights}.")
        attrs = {"minlength": -1 if minlength is None else int(minlength),
                 "maxlength": -1 if maxlength is None else int(maxlength),
                 "binary_output": bool(binary_output)}
        if axis == 0:
            values = values.values if isinstance(values, SparseTensor) else \
                reshape(values, [-1])
            if weights is not None:
                weights = reshape(weights, [-1])
        dtype = values.dtype
        weights = _weights_or_empty(weights, dtype, graph)
        attrs["output_type"] = weights.dtype
        if isinstance(values, SparseTensor):
            op = graph.create_op("SparseCountSparseOutput",
                                 [values.indices, values.values, values.dense_shape,
                                  weights], attrs, name="SparseCountSparseOutput")
        else:
            op = graph.create_op("DenseCountSparseOutput", [values, weights], attrs,
                                 name="DenseCountSparseOutput")
        return SparseTensor(*op.outputs)
