"""Sparse updates of a variable in place: TF1's ``scatter_update``, ``scatter_add``,
``scatter_sub``, ``scatter_mul``, ``scatter_div``, ``scatter_min``, ``scatter_max`` (op
types ScatterUpdate/Add/Sub/Mul/Div/Min/Max: rows of the variable named by ``indices``
along its first dimension) and ``scatter_nd_update/add/sub``
(ScatterNdUpdate/Add/Sub: coordinate tuples, as ``gather_nd.py``'s ops read them).

``ref`` is the variable (a ref input, as Assign's), ``updates`` has the shape
``indices.shape + ref.shape[1:]`` (``indices.shape[:-1] + ref.shape[K:]`` for the Nd
forms); fetching the op gives the variable's new value.  Repeated indices add up for
Add and Sub (multiply for Mul, divide in turn for Div: integers truncated toward zero as
C++'s, min and max for Min and Max); for Update one of them wins (which one is
unspecified, as in TF).  Mul and Div take TF's number types, Min and Max its real ones (a
TypeError when built otherwise).  An index outside the variable is an
``InvalidArgumentError`` naming the node, and the variable is left unchanged (TF's CPU
kernels of Mul, Div, Min and Max have already changed the rows before the bad one).  Not
differentiable, as in TF.  Kernels: ``kernels/reference/state.py`` (the host's) and
``kernels/cuda/state.py``.
"""

from __future__ import annotations

from ..graph import Tensor, convert_to_tensor, name_scope
from ..tensor_shape import TensorShape
from .array import concat, reshape
from .array_fill import broadcast_to, shape
from .array_operands import check_int
from .gather_nd import check_updates, coordinate_depth, sliced_shape
from .registry import InferError, OpDef, not_differentiable, register_op
from .sequence import range as range_
from .state import variable_ref

__all__ = ["scatter_update", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div",
           "scatter_min", "scatter_max", "scatter_nd_update",
           "scatter_nd_add", "scatter_nd_sub", "batch_scatter_update", "ROW_SCATTERS",
           "ND_SCATTERS"]

ROW_SCATTERS = ("ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv",
                "ScatterMin", "ScatterMax")
# the dtypes TF's ops refuse: Mul and Div take number types, Min and Max real ones
_REFUSED = {"ScatterMul": ("bool", "string"), "ScatterDiv": ("bool", "string"),
            "ScatterMin": ("bool", "string", "complex64", "complex128"),
            "ScatterMax": ("bool", "string", "complex64", "complex128")}
ND_SCATTERS = ("ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub")


def _same_dtype(ref, updates, node: str) -> None:
    if updates.dtype != ref.dtype:
        raise TypeError(f"Op '{node}': updates '{updates.name}' are {updates.dtype.name} but "
                        f"the variable '{ref.name}' is {ref.dtype.name}.")


def _row_scatter(inputs, attrs, node):
    ref, indices, updates = inputs
    check_int(indices, node, "indices")
    _same_dtype(ref, updates, node)
    if indices.shape.ndims is not None and ref.shape.ndims is not None:
        expected = TensorShape(list(indices.shape.dims) + list(ref.shape.dims[1:]))
        if ref.shape.ndims == 0:
            raise InferError(f"Op '{node}': the variable '{ref.name}' is a scalar; it has "
                             f"no rows to scatter into.")
        check_updates(updates, expected, node)
    return ref.dtype, ref.shape


def _nd_scatter(inputs, attrs, node):
    ref, indices, updates = inputs
    _same_dtype(ref, updates, node)
    k = coordinate_depth(indices, ref.shape.ndims, node, f"the variable '{ref.name}'")
    check_updates(updates, sliced_shape(indices, k, ref.shape.dims), node)
    return ref.dtype, ref.shape


def _refusing(op_type: str, infer):
    """``infer`` after TF's dtype check of ``op_type`` (a TypeError, as TF raises when
    the op is built, naming the dtypes it takes)."""
    refused = _REFUSED.get(op_type, ())

    def checked(inputs, attrs, node):
        if inputs[0].dtype.name in refused:
            raise TypeError(f"Value passed to parameter 'ref' has DataType "
                            f"{inputs[0].dtype.name} not in list of allowed values for "
                            f"{op_type} (node '{node}'): "
                            f"{'real' if 'complex64' in refused else ''}number types.")
        return infer(inputs, attrs, node)
    return checked


for _op in ROW_SCATTERS:
    register_op(OpDef(_op, _refusing(_op, _row_scatter), 3, ref_inputs=(0,), stateful=True,
                      attr_defaults={"use_locking": True}))
for _op in ND_SCATTERS:
    register_op(OpDef(_op, _nd_scatter, 3, ref_inputs=(0,), stateful=True,
                      attr_defaults={"use_locking": True}))
not_differentiable(*ROW_SCATTERS, *ND_SCATTERS)


def _builder(op_type: str, public_name: str, verb: str):
    def build(ref, indices, updates, use_locking=True, name=None) -> Tensor:
        target = variable_ref(ref, public_name)
        indices = convert_to_tensor(indices, graph=target.graph, name="indices")
        updates = convert_to_tensor(updates, dtype=target.dtype, graph=target.graph,
                                    name="updates")
        return target.graph.create_op(op_type, [target, indices, updates],
                                      {"use_locking": bool(use_locking)},
                                      name=name or op_type).outputs[0]
    build.__name__ = build.__qualname__ = public_name
    build.__doc__ = (f"An op {verb} ``updates`` at ``indices`` of variable ``ref`` in "
                     f"place, as TF1's ``tf.{public_name}``; fetching it gives the new "
                     f"value (see the module docstring).")
    return build


scatter_update = _builder("ScatterUpdate", "scatter_update", "writing")
scatter_add = _builder("ScatterAdd", "scatter_add", "adding")
scatter_sub = _builder("ScatterSub", "scatter_sub", "subtracting")
scatter_mul = _builder("ScatterMul", "scatter_mul", "multiplying by")
scatter_div = _builder("ScatterDiv", "scatter_div", "dividing by")
scatter_min = _builder("ScatterMin", "scatter_min", "taking the minimum with")
scatter_max = _builder("ScatterMax", "scatter_max", "taking the maximum with")
scatter_nd_update = _builder("ScatterNdUpdate", "scatter_nd_update", "writing")
scatter_nd_add = _builder("ScatterNdAdd", "scatter_nd_add", "adding")
scatter_nd_sub = _builder("ScatterNdSub", "scatter_nd_sub", "subtracting")


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None) -> Tensor:
    """TF1's ``tf.batch_scatter_update``: ``ref[i..., indices[i..., j]] = updates[i..., j]``
    for each batch position ``i...`` (the leading dimensions ``indices`` has besides its
    last), built as TF builds it: the batch positions' ``range``s broadcast beside
    ``indices`` make ScatterNdUpdate coordinates.  ValueError for ``indices`` of unknown
    rank, as TF's."""
    with name_scope(name or "batch_scatter_update"):
        indices = convert_to_tensor(indices, name="indices")
        rank = indices.shape.ndims
        if rank is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = reshape(indices, concat([shape(indices), [1]], 0))
        wanted = shape(nd_indices)
        coordinates = []
        for dim in range(rank - 1):
            positions = range_(0, shape(indices)[dim], 1, dtype=indices.dtype)
            along = [1] * (rank + 1)
            along[dim] = -1
            coordinates.append(broadcast_to(reshape(positions, along), wanted))
        coordinates.append(nd_indices)
        final = concat(coordinates, -1) if len(coordinates) > 1 else nd_indices
        return scatter_nd_update(ref, final, updates, use_locking=use_locking)
