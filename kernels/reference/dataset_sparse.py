"""Batches of SparseTensors in a dataset pipeline.

``batched_sparse``: what ``batch`` makes of a SparseTensor component (``map``'s), as TF's
BatchDataset: the elements' indices after their positions in the batch, their values
one after another, the dense shape the batch size then each dimension's largest; the
elements must have one rank (TF's ``InvalidArgumentError`` otherwise).
``unbatched_sparse``: what ``unbatch`` makes of one: the entries of one position, their
dense shape the batch's without its first dimension.

The ``dense_to_sparse_batch`` stage of a dataset pipeline (``kernels/reference/
dataset.py`` runs it; ``devsession/data/sparse_batch.py`` builds it): ``batch_size``
consecutive elements (one component each, of the rank of ``row_shape``) as the three
arrays of a SparseTensor: the indices of every element's entries, row-major, after its
position in the batch; their values; the dense shape ``[n, *row_shape]``, a -1
dimension the batch's largest.  An element larger than ``row_shape`` is TF's
``DataLossError``; a batch that meets an error ends there, as ``batch``'s
(``dataset_failures.batch_groups``)."""

from __future__ import annotations

import numpy as np

from devsession.errors import DataLossError, InvalidArgumentError

from .dataset_failures import Failed, attempt, batch_groups

__all__ = ["dense_to_sparse_batch_stage", "batched_sparse", "unbatched_sparse"]


def dense_to_sparse_batch_stage(node, stage, upstream, _, __):
    size, row = stage["batch_size"], stage["row_shape"]

    def batches():
        for group in batch_groups(upstream(), {"batch_size": size, "drop_remainder": False}):
            yield group if group.__class__ is Failed else \
                attempt(_sparse, node, [element[0] for element in group], row)
    return batches


def _sparse(node, values: list, row: list) -> list:
    for value in values:
        if value.ndim != len(row):
            raise InvalidArgumentError(f"Input element had shape ({list(value.shape)}) that "
                                       f"is not of rank {len(row)}, the row shape's.",
                                       node.name)
        if any(0 <= r < n for n, r in zip(value.shape, row)):
            raise DataLossError(f"Input element had shape ({list(value.shape)}) that is "
                                f"larger than the row shape ({row}).", node.name)
    dense = [r if r >= 0 else max([v.shape[k] for v in values], default=0)
             for k, r in enumerate(row)]
    indices = [np.concatenate([np.full((v.size, 1), i, np.int64),
                               np.argwhere(np.ones(v.shape, bool)).astype(np.int64)], 1)
               for i, v in enumerate(values)]
    return [np.concatenate(indices).reshape(-1, len(row) + 1),
            np.concatenate([v.reshape(-1) for v in values]),
            np.array([len(values), *dense], np.int64)]


def batched_sparse(node, elements: list) -> list:
    """The three arrays of one SparseTensor of ``elements`` (each its indices, values and
    dense shape), see the module docstring."""
    ranks = {np.asarray(shape).size for _, _, shape in elements}
    if len(ranks) > 1:
        raise InvalidArgumentError(f"'{node.name}': cannot batch SparseTensors of different "
                                   f"ranks ({sorted(ranks)}).", node.name)
    (rank,) = ranks
    indices = [np.concatenate([np.full((len(i), 1), position, np.int64),
                               np.asarray(i, np.int64).reshape(-1, rank)], 1)
               for position, (i, _, _) in enumerate(elements)]
    shapes = np.array([np.asarray(shape, np.int64) for _, _, shape in elements]).reshape(-1, rank)
    return [np.concatenate(indices).reshape(-1, rank + 1),
            np.concatenate([np.asarray(v).reshape(-1) for _, v, _ in elements]),
            np.array([len(elements), *shapes.max(axis=0, initial=0)], np.int64)]


def unbatched_sparse(arrays: list, position: int) -> list:
    """The three arrays of the SparseTensor at ``position`` of a batch's ``arrays``."""
    indices, values, shape = (np.asarray(a) for a in arrays)
    mine = indices[:, 0] == position
    return [indices[mine, 1:].copy(), values[mine].copy(), shape[1:].copy()]
