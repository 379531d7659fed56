"""TF1's ``tf.sparse``: ``SparseTensor``, ``placeholder``, ``to_dense``, ``from_dense``,
``sparse_dense_matmul`` (and TF1's alias ``matmul``), ``reduce_sum``, ``reorder`` and
``reshape`` (``ops/sparse.py``).  The rest of TF1's ``tf.sparse`` (``add``, ``concat``,
``slice``, ``fill_empty_rows``...) raises ``UnsupportedTF1Error`` naming it."""

from .ops.sparse import (from_dense, sparse_placeholder, sparse_reduce_sum, sparse_reorder,
                         sparse_reshape, sparse_tensor_dense_matmul, sparse_tensor_to_dense)
from .sparse_tensor import SparseTensor

placeholder = sparse_placeholder
to_dense = sparse_tensor_to_dense
sparse_dense_matmul = sparse_tensor_dense_matmul
matmul = sparse_tensor_dense_matmul
reduce_sum = sparse_reduce_sum
reorder = sparse_reorder
reshape = sparse_reshape

__all__ = ["SparseTensor", "placeholder", "to_dense", "from_dense", "sparse_dense_matmul",
           "matmul", "reduce_sum", "reorder", "reshape"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("sparse", name)
