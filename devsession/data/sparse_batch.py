"""TF1's ``tf.data.experimental.dense_to_sparse_batch(batch_size, row_shape)``: batches
of elements of differing shapes as SparseTensors of dense shape ``[n, *row_shape]``
(a None dimension: the batch's largest):

    lengths = ds.data.Dataset.range(5).map(lambda n: ds.fill([ds.cast(n, ds.int32)], n))
    sparse = lengths.apply(ds.data.experimental.dense_to_sparse_batch(2, [6]))
    batch = sparse.make_one_shot_iterator().get_next()       # a ds.SparseTensor

The ``dense_to_sparse_batch`` stage (``kernels/reference/dataset_sparse.py``) gives
each batch as its three arrays, which ``get_next`` packs into a SparseTensor
(``structure.SparseSpec``).  devsession's pipeline stages work on dense components, so
a dataset of SparseTensors takes the stages that pass elements through (``take``,
``skip``, ``repeat``, ``shuffle``, ``shard``, ``cache``, ``prefetch``,
``with_options``) and iterators; anything else on it is a TypeError.
"""

from __future__ import annotations

from ..tensor_shape import TensorShape
from .structure import SparseSpec

__all__ = ["dense_to_sparse_batch", "SparseBatches"]

_PASSING = {"take", "skip", "shuffle", "repeat", "shard", "cache", "prefetch", "options"}


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


class SparseBatches:
    """What makes a Dataset (``data/dataset.py``'s ``_SparseDataset``) one of
    SparseTensors: the stages that pass elements through, and iterators."""

    def _then(self, stage: dict, structure=None):
        if stage["kind"] not in _PASSING:
            _refuse(stage["kind"])
        return type(self)(self._graph, self._stages + (stage,), self._inputs,
                          self._functions, self._structure, self._control)

    def _trace(self, fn, kind: str, returns_dataset=False):
        _refuse(kind)

    def _check_combinable(self, kind: str) -> None:
        _refuse(kind)

    def padded_batch(self, *args, **kwargs):
        _refuse("padded_batch")


def _refuse(what: str):
    raise TypeError(f"A dataset of SparseTensors (dense_to_sparse_batch's) takes only the "
                    f"stages that pass elements through (take, skip, repeat, shuffle, "
                    f"shard, cache, prefetch) and iterators in devsession; {what} over it "
                    f"is not supported.")
