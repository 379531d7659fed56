"""SparseTensors as strings: TF1's ``tf.io.serialize_sparse``, ``serialize_many_sparse``
and ``deserialize_many_sparse`` (TF's ``SerializeSparse``, ``SerializeManySparse``,
``DeserializeManySparse``; ``DeserializeSparse`` imports and runs too), so that a
SparseTensor can travel through ops that only carry dense tensors (queues, TFRecords,
``tf.data``) and come back:

    rows = ds.io.serialize_many_sparse(batch)        # [N, 3] strings, one row each
    back = ds.io.deserialize_many_sparse(rows, ds.float32)

One SparseTensor is three strings, the bytes of TF's ``TensorProto`` of its int64
indices, its values and its int64 dense shape (TF's ``AsProtoTensorContent``: numbers
as ``tensor_content``, strings too, as TF's varint lengths then the bytes), so a string
TF wrote deserializes here and the other way round.  ``serialize_many_sparse`` splits a
SparseTensor of rank >= 2 along its first dimension (its indices must be sorted and in
bounds: TF's ``IndicesValid``); deserializing stacks the rows back, the result as wide
in each dimension as the widest row.  Deserializing checks the dtype and that every row
has one rank.  Every error is TF's ``InvalidArgumentError`` naming the node, with TF's
message.  ``out_type=variant`` (TF's other form) is a ``TypeError``: devsession has no
variant tensors.  Host kernels (``kernels/reference/sparse_serialization.py``); not
differentiable, as TF's.
"""

from __future__ import annotations

from .. import dtypes
from ..graph import Tensor, convert_to_tensor, get_default_graph
from ..sparse_tensor import SparseTensor, convert_to_sparse_tensor
from ..tensor_shape import TensorShape
from .common import graph_of
from .registry import InferError, OpDef, not_differentiable, register_op
from .sparse import check_sparse_inputs

__all__ = ["serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse",
           "SPARSE_SERIALIZATION_OPS"]

SPARSE_SERIALIZATION_OPS = ("SerializeSparse", "SerializeManySparse", "DeserializeManySparse",
                            "DeserializeSparse")


def _out_type(attrs) -> dtypes.DType:
    out_type = attrs.get("out_type", dtypes.string)
    if getattr(out_type, "name", out_type) != "string":
        raise TypeError(f"out_type {out_type!r}: devsession serializes SparseTensors as "
                        f"strings only (it has no variant tensors).")
    return dtypes.string


def _infer_serialize(inputs, attrs, node):
    check_sparse_inputs(*inputs, node)
    return [(_out_type(attrs), TensorShape([3]))]


def _infer_serialize_many(inputs, attrs, node):
    check_sparse_inputs(*inputs, node)
    return [(_out_type(attrs), TensorShape([None, 3]))]


def _sparse_outputs(attrs):
    return [(dtypes.int64, TensorShape([None, None])),
            (dtypes.as_dtype(attrs["dtype"]), TensorShape([None])),
            (dtypes.int64, TensorShape([None]))]


def _infer_deserialize_many(inputs, attrs, node):
    (serialized,) = inputs
    _check_rows_of_three(serialized, node)
    if serialized.shape.ndims not in (None, 2):
        raise InferError(f"Op '{node}': Shape must be rank 2 but is rank "
                         f"{serialized.shape.ndims} for serialized_sparse '{serialized.name}'.")
    return _sparse_outputs(attrs)


def _infer_deserialize(inputs, attrs, node):
    (serialized,) = inputs
    _check_rows_of_three(serialized, node)
    if serialized.shape.ndims == 0:
        raise InferError(f"Op '{node}': Shape must be at least rank 1 but is rank 0 for "
                         f"serialized_sparse '{serialized.name}'.")
    return _sparse_outputs(attrs)


def _check_rows_of_three(serialized, node: str) -> None:
    if serialized.dtype != dtypes.string:
        raise TypeError(f"Op '{node}': serialized_sparse '{serialized.name}' must be string, "
                        f"not {serialized.dtype.name}.")
    dims = serialized.shape.dims
    if dims and dims[-1] is not None and dims[-1] != 3:
        raise InferError(f"Op '{node}': Dimension must be 3 but is {dims[-1]} for the last "
                         f"dimension of serialized_sparse '{serialized.name}' "
                         f"{serialized.shape}.")


register_op(OpDef("SerializeSparse", _infer_serialize, 3,
                  attr_defaults={"out_type": dtypes.string}))
register_op(OpDef("SerializeManySparse", _infer_serialize_many, 3,
                  attr_defaults={"out_type": dtypes.string}))
register_op(OpDef("DeserializeManySparse", _infer_deserialize_many, 1))
register_op(OpDef("DeserializeSparse", _infer_deserialize, 1,
                  attr_defaults={"Tserialized": dtypes.string}))
not_differentiable(*SPARSE_SERIALIZATION_OPS)


def _serialize(op_type: str, sp_input, name, out_type) -> Tensor:
    sp = convert_to_sparse_tensor(sp_input)
    attrs = {"out_type": _out_type({"out_type": out_type})}     # T: the values' dtype
    graph = graph_of(sp.indices, sp.values, sp.dense_shape)
    return graph.create_op(op_type, [sp.indices, sp.values, sp.dense_shape], attrs,
                           name=name or op_type).outputs[0]


def serialize_sparse(sp_input, name=None, out_type=dtypes.string) -> Tensor:
    """TF1's ``tf.io.serialize_sparse``: ``sp_input`` as a vector of 3 strings (the
    TensorProtos of its indices, values and dense shape).  TypeError if ``sp_input`` is
    not a SparseTensor."""
    return _serialize("SerializeSparse", sp_input, name, out_type)


def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string) -> Tensor:
    """TF1's ``tf.io.serialize_many_sparse``: an ``[N, 3]`` string matrix, row ``i`` the
    serialized SparseTensor ``sp_input[i]`` (rank >= 2, sorted indices; N its first
    dimension)."""
    return _serialize("SerializeManySparse", sp_input, name, out_type)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None) -> SparseTensor:
    """TF1's ``tf.io.deserialize_many_sparse``: the ``[N, 3]`` rows of serialized
    SparseTensors (of ``dtype``, one rank) stacked into one SparseTensor whose first
    dimension is N; ``rank`` (that of the result), when given, fixes the static shapes
    of its indices and dense shape."""
    graph = get_default_graph()
    serialized = convert_to_tensor(serialized_sparse, dtype=dtypes.string, graph=graph)
    op = graph.create_op("DeserializeManySparse", [serialized],
                         {"dtype": dtypes.as_dtype(dtype)},
                         name=name or "DeserializeManySparse")
    indices, values, dense_shape = op.outputs
    if rank is not None:
        indices.set_shape([None, rank])
        dense_shape.set_shape([rank])
    return SparseTensor(indices, values, dense_shape)
