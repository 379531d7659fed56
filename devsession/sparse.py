"""TF1's ``tf.sparse``: ``SparseTensor``, ``placeholder``, ``to_dense``, ``from_dense``,
``sparse_dense_matmul`` (and TF1's alias ``matmul``), ``reduce_sum``, ``reorder``,
``reshape`` (``ops/sparse.py``), ``add`` (``ops/sparse_add.py``), ``concat``, ``slice``,
``split``, ``fill_empty_rows`` (``ops/sparse_slicing.py``), ``reduce_max``,
``reduce_max_sparse``, ``reduce_sum_sparse``, ``softmax``, ``maximum``, ``minimum``
(``ops/sparse_math.py``), ``retain``, ``transpose``, ``expand_dims``, ``eye``,
``reset_shape``, ``to_indicator``, ``merge`` (``ops/sparse_composites.py``) and
``segment_sum``, ``segment_mean``, ``segment_sqrt_n`` (TF's SparseSegment ops,
``ops/segments.py``), ``cross``, ``cross_hashed`` (TF's SparseCrossV2 and SparseCross,
``ops/sparse_cross.py``), ``SparseConditionalAccumulator`` (``accumulators.py``).  The
rest of TF1's ``tf.sparse`` (``mask``, which takes IndexedSlices...) raises
``UnsupportedTF1Error`` naming it."""

from .ops.sparse import (from_dense, sparse_placeholder, sparse_reduce_sum, sparse_reorder,
                         sparse_reshape, sparse_tensor_dense_matmul, sparse_tensor_to_dense)
from .ops.segments import sparse_segment_mean as segment_mean
from .ops.segments import sparse_segment_sqrt_n as segment_sqrt_n
from .ops.segments import sparse_segment_sum as segment_sum
from .ops.sparse_add import sparse_add as add
from .ops.sparse_composites import (sparse_expand_dims, sparse_eye, sparse_merge,
                                    sparse_reset_shape, sparse_retain, sparse_to_indicator,
                                    sparse_transpose)
from .ops.sparse_math import (sparse_maximum, sparse_minimum, sparse_reduce_max,
                              sparse_reduce_max_sparse, sparse_reduce_sum_sparse,
                              sparse_softmax)
from .ops.sparse_cross import sparse_cross as cross
from .ops.sparse_bincount import sparse_bincount as bincount
from .ops.sparse_mask import sparse_mask as mask
from .ops.sparse_cross import sparse_cross_hashed as cross_hashed
from .ops.sparse_slicing import (sparse_concat, sparse_fill_empty_rows, sparse_slice,
                                 sparse_split)
from .sparse_tensor import SparseTensor
from .accumulators import SparseConditionalAccumulator

placeholder = sparse_placeholder
to_dense = sparse_tensor_to_dense
sparse_dense_matmul = sparse_tensor_dense_matmul
matmul = sparse_tensor_dense_matmul
reduce_sum = sparse_reduce_sum
reorder = sparse_reorder
reshape = sparse_reshape
concat = sparse_concat
slice = sparse_slice  # noqa: A001  (TF's name)
split = sparse_split
fill_empty_rows = sparse_fill_empty_rows
reduce_max = sparse_reduce_max
reduce_max_sparse = sparse_reduce_max_sparse
reduce_sum_sparse = sparse_reduce_sum_sparse
softmax = sparse_softmax
maximum = sparse_maximum
minimum = sparse_minimum
retain = sparse_retain
transpose = sparse_transpose
expand_dims = sparse_expand_dims
eye = sparse_eye
reset_shape = sparse_reset_shape
to_indicator = sparse_to_indicator
merge = sparse_merge

__all__ = ["SparseTensor", "add", "placeholder", "to_dense", "from_dense", "sparse_dense_matmul",
           "matmul", "reduce_sum", "reorder", "reshape", "segment_sum", "segment_mean",
           "segment_sqrt_n", "SparseConditionalAccumulator", "concat", "slice", "split",
           "fill_empty_rows", "reduce_max", "reduce_max_sparse", "reduce_sum_sparse",
           "softmax", "maximum", "minimum", "retain", "transpose", "expand_dims", "eye",
           "reset_shape", "to_indicator", "merge", "cross", "cross_hashed", "mask",
           "bincount"]


def __getattr__(name: str):
    from .unsupported import missing

    raise missing("sparse", name)
