"""The ops that cut and join SparseTensors, TF's op types and attrs:

* ``SparseConcat(indices: N, values: N, shapes: N)``, attrs ``concat_dim``, ``N``: the
  entries of every input along one axis (the others must agree), in row-major order
  (``sparse.concat``; ``expand_nonconcat_dim`` first grows every input's other
  dimensions to the largest, as TF1's Python does).
* ``SparseSlice(indices, values, shape, start, size)``: the entries inside a box,
  moved to its origin; the shape is the box's overlap with the input
  (``sparse.slice``).  Gradient op ``SparseSliceGrad(backprop_val_grad,
  input_indices, input_start, output_indices)``.
* ``SparseSplit(split_dim, indices, values, shape)``, attr ``num_split``: ``num_split``
  SparseTensors along an axis, the first ``size % num_split`` one longer
  (``sparse.split``); 3 * ``num_split`` outputs (every part's indices, then values,
  then shapes).
* ``SparseFillEmptyRows(indices, values, dense_shape, default_value)``: an entry
  ``[r, 0, ...]`` holding the default in each row without one; also outputs
  ``empty_row_indicator`` and ``reverse_index_map`` (``sparse.fill_empty_rows``).
  Gradient op ``SparseFillEmptyRowsGrad(reverse_index_map, grad_values)``.

Kernels: ``kernels/reference/sparse_slicing.py`` (host).  Gradients: ``sparse_grad.py``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import convert_to_tensor, name_scope
from ..sparse_tensor import SparseTensor, convert_to_sparse_tensor
from ..tensor_shape import TensorShape
from .array_operands import check_int
from .registry import InferError, OpDef, register_op
from .sparse import check_sparse_inputs, with_rank

__all__ = ["SLICING_OPS", "sparse_concat", "sparse_slice", "sparse_split",
           "sparse_fill_empty_rows"]

SLICING_OPS = ("SparseConcat", "SparseSlice", "SparseSliceGrad", "SparseSplit",
               "SparseFillEmptyRows", "SparseFillEmptyRowsGrad")


def _rank_of(indices) -> int | None:
    return indices.shape.dims[1] if indices.shape.ndims == 2 else None


def _sparse_outputs(dtype, rank):
    return [(dtypes.int64, TensorShape([None, rank])), (dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


def _concat(inputs, attrs, node):
    n = len(inputs) // 3
    if n < 2 or len(inputs) != 3 * n or attrs.get("N", n) != n:
        raise InferError(f"Op '{node}': SparseConcat takes N >= 2 indices, values and shapes "
                         f"({len(inputs)} inputs).")
    for k in range(n):
        check_sparse_inputs(inputs[k], inputs[n + k], inputs[2 * n + k], node)
    dtype = inputs[n].dtype
    if any(v.dtype != dtype for v in inputs[n:2 * n]):
        raise TypeError(f"Op '{node}': the values must share one dtype, not "
                        f"{[v.dtype.name for v in inputs[n:2 * n]]}.")
    ranks = {r for r in (_rank_of(i) for i in inputs[:n]) if r is not None}
    if len(ranks) > 1:
        raise InferError(f"Op '{node}': Dimensions must be equal, but are {sorted(ranks)}.")
    return _sparse_outputs(dtype, ranks.pop() if ranks else None)


def _slice(inputs, attrs, node):
    indices, values, shape, start, size = inputs
    check_sparse_inputs(indices, values, shape, node)
    for spec, what in ((start, "start"), (size, "size")):
        with_rank(spec, 1, node, what)
        if spec.dtype != dtypes.int64:
            raise TypeError(f"Op '{node}': {what} '{spec.name}' must be int64, not "
                            f"{spec.dtype.name}.")
    return _sparse_outputs(values.dtype, _rank_of(indices))


def _slice_grad(inputs, attrs, node):
    grad, input_indices, start, output_indices = inputs
    with_rank(grad, 1, node, "backprop_val_grad")
    rows = with_rank(input_indices, 2, node, "input_indices").dims[0]
    with_rank(start, 1, node, "input_start")
    with_rank(output_indices, 2, node, "output_indices")
    return grad.dtype, TensorShape([rows])


def _split(inputs, attrs, node):
    split_dim, indices, values, shape = inputs
    check_sparse_inputs(indices, values, shape, node)
    with_rank(split_dim, 0, node, "split_dim")
    num = int(attrs.get("num_split", 0))
    if num < 1:
        raise InferError(f"Op '{node}': num_split must be at least 1, got {num}.")
    rank = _rank_of(indices)
    return ([(dtypes.int64, TensorShape([None, rank]))] * num
            + [(values.dtype, TensorShape([None]))] * num
            + [(dtypes.int64, TensorShape([rank]))] * num)


def _fill_empty_rows(inputs, attrs, node):
    indices, values, dense_shape, default = inputs
    check_sparse_inputs(indices, values, dense_shape, node)
    with_rank(default, 0, node, "default_value")
    if default.dtype != values.dtype:
        raise TypeError(f"Op '{node}': default_value '{default.name}' is "
                        f"{default.dtype.name} but the values are {values.dtype.name}.")
    rows = indices.shape.dims[0] if indices.shape.ndims == 2 else None
    return [(dtypes.int64, TensorShape([None, _rank_of(indices)])),
            (values.dtype, TensorShape([None])), (dtypes.bool_, TensorShape([None])),
            (dtypes.int64, TensorShape([rows]))]


def _fill_empty_rows_grad(inputs, attrs, node):
    reverse, grad = inputs
    check_int(reverse, node, "reverse_index_map")
    rows = with_rank(reverse, 1, node, "reverse_index_map").dims[0]
    with_rank(grad, 1, node, "grad_values")
    return [(grad.dtype, TensorShape([rows])), (grad.dtype, TensorShape([]))]


register_op(OpDef("SparseConcat", _concat, None, attr_defaults={"concat_dim": 0}))
register_op(OpDef("SparseSlice", _slice, 5))
register_op(OpDef("SparseSliceGrad", _slice_grad, 4))
register_op(OpDef("SparseSplit", _split, 4, host_inputs=(0,)))
register_op(OpDef("SparseFillEmptyRows", _fill_empty_rows, 4))
register_op(OpDef("SparseFillEmptyRowsGrad", _fill_empty_rows_grad, 2))


# --- builders --------------------------------------------------------------------------------

def _static_dims(sp: SparseTensor) -> list | None:
    shape = sp.get_shape()
    return None if shape.ndims is None else shape.as_list()


def sparse_concat(axis=None, sp_inputs=None, name=None, expand_nonconcat_dim=False,
                  concat_dim=None, expand_nonconcat_dims=None) -> SparseTensor:
    """TF1's ``tf.sparse.concat`` / ``tf.sparse_concat``: the SparseTensors of
    ``sp_inputs`` joined along ``axis`` (their other dimensions equal, or with
    ``expand_nonconcat_dim`` grown to the largest), entries in row-major order.
    ``concat_dim`` and ``expand_nonconcat_dims`` are TF's other names; one input comes
    back as it is.  InvalidArgumentError at run time for disagreeing shapes."""
    if axis is not None and concat_dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'concat_dim'.")
    axis = int(concat_dim if axis is None else axis)
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    sp_inputs = [convert_to_sparse_tensor(sp, "sp_inputs") for sp in sp_inputs]
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    shapes = [sp.dense_shape for sp in sp_inputs]
    if expand_nonconcat_dim:
        shapes = _expanded_shapes(shapes, axis)
    op = sp_inputs[0].graph.create_op(
        "SparseConcat", [sp.indices for sp in sp_inputs] + [sp.values for sp in sp_inputs]
        + shapes, {"concat_dim": axis, "N": len(sp_inputs)}, name=name or "SparseConcat")
    static = [_static_dims(sp) for sp in sp_inputs]
    if any(s is None for s in static):
        return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])
    dims = [max((s[d] for s in static), key=lambda v: -1 if v is None else v)
            if expand_nonconcat_dim else static[0][d] for d in range(len(static[0]))]
    along = [s[axis] for s in static]
    dims[axis] = None if None in along else sum(along)
    if None in dims:
        return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])
    return SparseTensor(op.outputs[0], op.outputs[1],
                        convert_to_tensor(dims, dtype=dtypes.int64, graph=op.graph))


def _expanded_shapes(shapes, axis: int) -> list:
    """TF1's ``expand_nonconcat_dim``: each shape with its other dimensions the largest
    of all the inputs' (``reduce_max`` of the stacked shapes)."""
    from .array import concat, reshape
    from .reduce import reduce_max

    largest = reduce_max(concat([reshape(s, [1, -1]) for s in shapes], 0), 0)
    if axis == -1:
        return [concat([largest[:axis], s[-1:]], 0) for s in shapes]
    return [concat([largest[:axis], s[axis:axis + 1], largest[axis + 1:]], 0)
            for s in shapes]


def sparse_slice(sp_input, start, size, name=None) -> SparseTensor:
    """TF1's ``tf.sparse.slice`` / ``tf.sparse_slice``: the entries of ``sp_input``
    with ``start <= index < start + size`` in every dimension, moved by ``-start``, in a
    SparseTensor of the box's overlap with ``sp_input``'s shape."""
    sp = convert_to_sparse_tensor(sp_input)
    start = convert_to_tensor(start, dtype=dtypes.int64, graph=sp.graph, name="start")
    size = convert_to_tensor(size, dtype=dtypes.int64, graph=sp.graph, name="size")
    op = sp.graph.create_op("SparseSlice", [sp.indices, sp.values, sp.dense_shape, start,
                                            size], name=name or "SparseSlice")
    return SparseTensor(*op.outputs)


def sparse_split(keyword_required=None, sp_input=None, num_split=None, axis=None,
                 name=None, split_dim=None) -> list:
    """TF1's ``tf.sparse.split`` / ``tf.sparse_split`` (keyword arguments only):
    ``num_split`` SparseTensors cut from ``sp_input`` along ``axis`` (``split_dim``, TF's
    older name), the first ``size % num_split`` one longer.  ValueError for a missing
    argument, InvalidArgumentError at run time for an axis out of range or more parts
    than the axis is long."""
    if keyword_required is not None:
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None and split_dim is None:
        raise ValueError("axis is required")
    axis = split_dim if axis is None else axis
    sp = convert_to_sparse_tensor(sp_input)
    dim = convert_to_tensor(axis, dtype=dtypes.int64, graph=sp.graph, name="split_dim")
    num = int(num_split)
    op = sp.graph.create_op("SparseSplit", [dim, sp.indices, sp.values, sp.dense_shape],
                            {"num_split": num}, name=name or "SparseSplit")
    outs = op.outputs
    return [SparseTensor(outs[k], outs[num + k], outs[2 * num + k]) for k in range(num)]


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """TF1's ``tf.sparse.fill_empty_rows`` / ``tf.sparse_fill_empty_rows``: ``sp_input``
    with an entry ``[r, 0, ...]`` of ``default_value`` in every empty row ``r``, and the
    bool vector saying which rows were empty.  InvalidArgumentError at run time for a row
    index outside the shape."""
    sp = convert_to_sparse_tensor(sp_input)
    with name_scope(name or "SparseFillEmptyRows"):
        default = convert_to_tensor(default_value, dtype=sp.dtype, graph=sp.graph,
                                    name="default_value")
        op = sp.graph.create_op("SparseFillEmptyRows",
                                [sp.indices, sp.values, sp.dense_shape, default],
                                name="SparseFillEmptyRows")
        return SparseTensor(op.outputs[0], op.outputs[1], sp.dense_shape), op.outputs[2]
