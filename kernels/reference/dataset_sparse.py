"""The ``dense_to_sparse_batch`` stage of a dataset pipeline (``kernels/reference/
dataset.py`` runs it; ``devsession/data/sparse_batch.py`` builds it): ``batch_size``
consecutive elements (one component each, of the rank of ``row_shape``) as the three
arrays of a SparseTensor: the indices of every element's entries, row-major, after its
position in the batch; their values; the dense shape ``[n, *row_shape]``, a -1
dimension the batch's largest.  An element larger than ``row_shape`` is TF's
``DataLossError``."""

from __future__ import annotations

import itertools

import numpy as np

from devsession.errors import DataLossError, InvalidArgumentError

__all__ = ["dense_to_sparse_batch_stage"]


def dense_to_sparse_batch_stage(node, stage, upstream, _, __):
    size, row = stage["batch_size"], stage["row_shape"]

    def batches():
        elements = upstream()
        while True:
            group = [element[0] for element in itertools.islice(elements, size)]
            if not group:
                return
            yield _sparse(node, group, row)
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
