"""TF1's ``tf.data.experimental.dense_to_sparse_batch(batch_size, row_shape)``: batches
of elements of differing shapes as SparseTensors of dense shape ``[n, *row_shape]``
(a None dimension: the batch's largest):

    lengths = ds.data.Dataset.range(5).map(lambda n: ds.fill([ds.cast(n, ds.int32)], n))
    sparse = lengths.apply(ds.data.experimental.dense_to_sparse_batch(2, [6]))
    batch = sparse.make_one_shot_iterator().get_next()       # a ds.SparseTensor

The ``dense_to_sparse_batch`` stage (``kernels/reference/dataset_sparse.py``) gives
each batch as its three arrays, which later functions receive and ``get_next`` gives
back as a SparseTensor (``structure.SparseSpec``), as for a ``map`` returning one.
"""

from __future__ import annotations

from ..tensor_shape import TensorShape
from .structure import SparseSpec

__all__ = ["dense_to_sparse_batch"]


def dense_to_sparse_batch(batch_size, row_shape):
    """TF's ``dense_to_sparse_batch``, for ``apply`` (see the module docstring).
    Raises TF's ``TypeError`` for elements of several components."""
    def apply(dataset):
        spec = dataset._structure
        if not hasattr(spec, "dtype"):
            types = dataset.output_types
            raise TypeError(f"`dense_to_sparse_batch` requires an input dataset whose "
                            f"elements have a single component, but the given dataset "
                            f"has the following component types: {types}.")
        row = TensorShape(row_shape)
        return dataset._sparse_batches(
            batch_size, [-1 if d is None else int(d) for d in row.dims],
            SparseSpec(spec.dtype, TensorShape([None]).concatenate(row)))
    return apply
