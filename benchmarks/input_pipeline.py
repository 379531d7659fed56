"""The input-pipeline workload: what ``get_next()`` costs a training loop.

``Dataset.from_tensor_slices((images, labels)).map(lambda x, y: (x * 2.0, y))
.batch(256).repeat()`` over 10,000 MNIST-sized rows, read by a one-shot iterator: each
timed call fetches the next batch, so the pipeline advances as in training.  The same
builder runs with ``devsession`` (``ds.data``) and ``tf.compat.v1`` (``tf.data``); the
first batch is checked against numpy's.  The per-element ``map`` is the usual TF1 shape
of a pipeline, and what costs most: each element runs the traced function once.
"""

from __future__ import annotations

import numpy as np

from .training import measure_with
from .workload import Data, Workload

__all__ = ["pipeline"]

F32 = np.float32


def pipeline(rows: int = 10_000, batch: int = 256, max_repeats: int | None = None
             ) -> Workload:
    def make_data(rng) -> Data:
        images = rng.random((rows, 784), dtype=F32)
        labels = rng.integers(0, 10, rows).astype(np.int64)
        return Data((), (), (images, labels))

    def graph(api, data):
        images, labels = data.consts
        dataset = api.data.Dataset.from_tensor_slices((images, labels))
        dataset = dataset.map(lambda x, y: (x * 2.0, y)).batch(batch).repeat()
        x, y = api.data.make_one_shot_iterator(dataset).get_next()
        return [x, y], []

    def first_batch(data):
        return data.consts[0][:batch] * F32(2.0)

    return Workload(
        name="input_pipeline", title=f"tf.data get_next: slices of {rows}x784 -> map -> "
        f"batch {batch} -> repeat", unit="steps/s", work=1.0, make_data=make_data,
        measure=measure_with(graph, first_batch, peers=("tf1",)), max_repeats=max_repeats,
        stateful=True, params={"rows": rows, "batch": batch})
