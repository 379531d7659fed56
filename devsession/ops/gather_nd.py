"""Indexing by coordinate tuples: GatherNd, ScatterNd and TensorScatterUpdate/Add/Sub/
Min/Max (``gather_nd``, ``scatter_nd``, ``tensor_scatter_nd_update/add/sub/min/max``), TF's
op types.

The last axis of ``indices`` (length ``K``) holds coordinates into the first ``K``
dimensions of a tensor; each coordinate picks a *slice* of the remaining dimensions:

* ``GatherNd(params, indices)`` -> ``indices.shape[:-1] + params.shape[K:]``.
* ``ScatterNd(indices, updates, shape)``: zeros of ``shape`` with each slice of
  ``updates`` (``indices.shape[:-1] + shape[K:]``) *added* at its coordinate, so
  repeated coordinates sum (the gradient of GatherNd; ``shape`` is a host input).
* ``TensorScatterUpdate/Add/Sub(tensor, indices, updates)``: a copy of ``tensor`` with
  the slices replaced, added or subtracted (a repeated coordinate of Update keeps one
  of its updates, which one is unspecified, as in TF); Min and Max keep the smaller or
  larger of the tensor's element and every update to it (real dtypes, as TF's).

A coordinate outside the tensor is an ``InvalidArgumentError`` naming the node and the
coordinate, on every device (TF's GPU kernels would silently drop or zero it).  Static
shapes as TF infers them: ``K`` larger than the rank, or ``updates`` whose known shape
differs from what the indices and shape call for, is a ValueError when the graph is
built.  Gradients: ``gather_nd_grad.py``.  Kernels: ``kernels/reference/array_index.py``
(numpy; the CPU's for GatherNd and Update), ``kernels/cpu/array.py`` (the adds: the
segment-sum loop) and ``kernels/cuda/array.py``.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor
from ..tensor_shape import TensorShape
from .array_operands import check_int, int_operand, int_values, shape_operand
from .common import graph_of, make_op
from .elementwise import cast
from .registry import InferError, OpDef, register_op

__all__ = ["gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "tensor_scatter_nd_sub", "tensor_scatter_nd_min", "tensor_scatter_nd_max",
           "TENSOR_SCATTERS", "TENSOR_SCATTER_EXTREMES", "coordinate_depth", "sliced_shape",
           "check_updates"]

TENSOR_SCATTERS = ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub")
TENSOR_SCATTER_EXTREMES = ("TensorScatterMin", "TensorScatterMax")


def coordinate_depth(indices, rank, node: str, what: str):
    """``K``, the coordinate length (None when unknown), checked against ``rank``."""
    check_int(indices, node, "indices")
    if indices.shape.ndims == 0:
        raise InferError(f"Op '{node}': indices '{indices.name}' must have rank >= 1, but "
                         f"is a scalar.")
    k = indices.shape.dims[-1] if indices.shape.ndims is not None else None
    if k is not None and rank is not None and k > rank:
        raise InferError(f"Op '{node}': the coordinates of indices '{indices.name}' have "
                         f"length {k}, more than the rank {rank} of {what}.")
    return k


def sliced_shape(indices, k, dims) -> TensorShape:
    """``indices.shape[:-1] + dims[k:]``, as far as known."""
    if indices.shape.ndims is None or k is None or dims is None:
        return TensorShape(None)
    return TensorShape(list(indices.shape.dims[:-1]) + list(dims[k:]))


def _gather_nd(inputs, attrs, node):
    params, indices = inputs
    k = coordinate_depth(indices, params.shape.ndims, node, f"params '{params.name}'")
    return params.dtype, sliced_shape(indices, k, params.shape.dims)


def check_updates(updates, expected: TensorShape, node: str) -> None:
    if not updates.shape.is_compatible_with(expected):
        raise InferError(f"Op '{node}': updates '{updates.name}' have shape {updates.shape}, "
                         f"but the indices and the output shape call for {expected}.")


def _scatter_nd(inputs, attrs, node):
    indices, updates, shape = inputs
    dims = int_values(shape, node, "shape")
    if dims is not None and any(d is not None and d < 0 for d in dims):
        raise InferError(f"Op '{node}': shape must be non-negative, got {dims}.")
    out = TensorShape(dims) if dims is not None else shape_operand(shape)   # [n, 2]: (?, 2)
    k = coordinate_depth(indices, out.ndims, node, "the output")
    check_updates(updates, sliced_shape(indices, k, out.dims), node)
    return updates.dtype, out


def _tensor_scatter(inputs, attrs, node):
    tensor, indices, updates = inputs
    if updates.dtype != tensor.dtype:
        raise TypeError(f"Op '{node}': updates '{updates.name}' are {updates.dtype.name} but "
                        f"tensor '{tensor.name}' is {tensor.dtype.name}.")
    k = coordinate_depth(indices, tensor.shape.ndims, node, f"tensor '{tensor.name}'")
    check_updates(updates, sliced_shape(indices, k, tensor.shape.dims), node)
    return tensor.dtype, tensor.shape


register_op(OpDef("GatherNd", _gather_nd, 2))
register_op(OpDef("ScatterNd", _scatter_nd, 3, host_inputs=(2,)))
def _tensor_scatter_extreme(inputs, attrs, node):
    if inputs[0].dtype.is_complex or inputs[0].dtype in (dtypes.bool_, dtypes.string):
        raise TypeError(f"Value passed to parameter 'tensor' has DataType "
                        f"{inputs[0].dtype.name} not in list of allowed values (node "
                        f"'{node}'): real number types.")
    return _tensor_scatter(inputs, attrs, node)


for _op in TENSOR_SCATTERS:
    register_op(OpDef(_op, _tensor_scatter, 3))
for _op in TENSOR_SCATTER_EXTREMES:
    register_op(OpDef(_op, _tensor_scatter_extreme, 3))


def gather_nd(params, indices, name=None, batch_dims=0) -> Tensor:
    """The slices of ``params`` at the coordinates in the last axis of ``indices``, as
    TF1's ``tf.gather_nd`` (``batch_dims`` 0 only)."""
    if batch_dims:
        raise ValueError("gather_nd: devsession supports batch_dims=0 only.")
    graph = graph_of(params, indices)
    params = convert_to_tensor(params, graph=graph, name="params")
    indices = convert_to_tensor(indices, graph=graph, name="indices")
    return make_op("GatherNd", [params, indices], name=name or "GatherNd")


def scatter_nd(indices, updates, shape, name=None) -> Tensor:
    """Zeros of ``shape`` with ``updates`` summed in at ``indices``, as TF1's
    ``tf.scatter_nd``."""
    graph = graph_of(indices, updates, shape)
    indices = convert_to_tensor(indices, graph=graph, name="indices")
    updates = convert_to_tensor(updates, graph=graph, name="updates")
    shape = int_operand(shape, graph, name="shape")
    if shape.dtype != indices.dtype and indices.dtype in (dtypes.int32, dtypes.int64):
        shape = cast(shape, indices.dtype)       # TF's ScatterNd takes both in one dtype
    return make_op("ScatterNd", [indices, updates, shape], name=name or "ScatterNd")


def _tensor_scatter_builder(op_type: str, public_name: str, verb: str):
    def build(tensor, indices, updates, name=None) -> Tensor:
        graph = graph_of(tensor, indices, updates)
        tensor = convert_to_tensor(tensor, graph=graph, name="tensor")
        indices = convert_to_tensor(indices, graph=graph, name="indices")
        updates = convert_to_tensor(updates, dtype=tensor.dtype, graph=graph,
                                    name="updates")
        return make_op(op_type, [tensor, indices, updates], name=name or op_type)
    build.__name__ = build.__qualname__ = public_name
    build.__doc__ = (f"A copy of ``tensor`` with ``updates`` {verb} at ``indices``, as "
                     f"TF1's ``tf.{public_name}``.")
    return build


tensor_scatter_nd_update = _tensor_scatter_builder("TensorScatterUpdate",
                                                   "tensor_scatter_nd_update", "written")
tensor_scatter_nd_add = _tensor_scatter_builder("TensorScatterAdd", "tensor_scatter_nd_add",
                                                "added")
tensor_scatter_nd_sub = _tensor_scatter_builder("TensorScatterSub", "tensor_scatter_nd_sub",
                                                "subtracted")
tensor_scatter_nd_min = _tensor_scatter_builder("TensorScatterMin", "tensor_scatter_nd_min",
                                                "taken where smaller")
tensor_scatter_nd_max = _tensor_scatter_builder("TensorScatterMax", "tensor_scatter_nd_max",
                                                "taken where larger")
