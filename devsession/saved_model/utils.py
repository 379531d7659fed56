"""``tf.saved_model.utils``: a signature's inputs and outputs as ``TensorInfo`` protos
(a tensor's name, dtype and static shape; a SparseTensor's three tensors' names) and back
to the tensors of a graph."""

from __future__ import annotations

from ..graph import Tensor, get_default_graph
from ..proto.meta_graph_pb2 import TensorInfo
from ..sparse_tensor import SparseTensor
from ..tensor_codec import shape_to_proto
from ..variables import Variable

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info"]


def build_tensor_info(tensor) -> TensorInfo:
    """The ``TensorInfo`` of a Tensor, a Variable (its value) or a SparseTensor."""
    if isinstance(tensor, Variable):
        tensor = tensor.value()
    if not isinstance(tensor, (Tensor, SparseTensor)):
        raise TypeError(f"build_tensor_info needs a Tensor or SparseTensor, got "
                        f"{type(tensor).__name__}: {tensor!r}.")
    info = TensorInfo(dtype=tensor.dtype.enum)
    shape_to_proto(tensor.shape, info.tensor_shape)
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The Tensor (or SparseTensor) of ``graph`` (the default graph) that ``tensor_info``
    names, under ``import_scope/`` when given.  ``KeyError`` when ``graph`` has no such
    tensor, ``ValueError`` for a TensorInfo with neither encoding."""
    graph = graph or get_default_graph()

    def tensor(name):
        return graph.get_tensor_by_name(f"{import_scope}/{name}" if import_scope else name)

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return tensor(tensor_info.name)
    if encoding == "coo_sparse":
        sparse = tensor_info.coo_sparse
        return SparseTensor(tensor(sparse.indices_tensor_name),
                            tensor(sparse.values_tensor_name),
                            tensor(sparse.dense_shape_tensor_name))
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}. Expected 'name' or "
                     f"'coo_sparse'.")
