"""TF1's ``tf.sparse``: ``SparseTensor``, ``placeholder``, ``to_dense``, ``from_dense``,
``sparse_dense_matmul`` (and TF1's alias ``matmul``), ``reduce_sum``, ``reorder``,
``reshape`` (``ops/sparse.py``), ``add`` (``ops/sparse_add.py``) and ``segment_sum``,
``segment_mean``, ``segment_sqrt_n`` (TF's SparseSegment ops, ``ops/segments.py``),
``SparseConditionalAccumulator`` (``accumulators.py``).  The
rest of TF1's ``tf.sparse`` (``concat``, ``slice``, ``fill_empty_rows``...) raises
``UnsupportedTF1Error`` naming it."""

from .ops.sparse import (from_dense, sparse_placeholder, sparse_reduce_sum, sparse_reorder,
                         sparse_reshape, sparse_tensor_dense_matmul, sparse_tensor_to_dense)
from .ops.segments import sparse_segment_mean as segment_mean
from .ops.segments import sparse_segment_sqrt_n as segment_sqrt_n
from .ops.segments import sparse_segment_sum as segment_sum
from .ops.sparse_add import sparse_add as add
from .sparse_tensor import SparseTensor
from .accumulators import SparseConditionalAccumulator

placeholder = sparse_placeholder
to_dense = sparse_tensor_to_dense
sparse_dense_matmul = sparse_tensor_dense_matmul
matmul = sparse_tensor_dense_matmul
reduce_sum = sparse_reduce_sum
reorder = sparse_reorder
reshape = sparse_reshape

__all__ = ["SparseTensor", "add", "placeholder", "to_dense", "from_dense", "sparse_dense_matmul",
           "matmul", "reduce_sum", "reorder", "reshape", "segment_sum", "segment_mean",
           "segment_sqrt_n", "SparseConditionalAccumulator"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("sparse", name)
