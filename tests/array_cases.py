"""One op of each type the array family adds (ops/array*.py), for the tests that walk
every registered op (test_graph.py, test_graph_def.py)."""

from __future__ import annotations

import devsession as ds
from devsession.ops.registry import get_gradient


def one_of_each_array_op(x: ds.Tensor) -> list:
    """Built from ``x`` (a float32 matrix); the gradient-only ops StridedSliceGrad and
    MirrorPadGrad are what those gradients build."""
    i = ds.placeholder(ds.int32, (2,), name="ids")
    sliced = x[1:, ::-1]
    mirrored = ds.pad(x, [[1, 1], [0, 0]], mode="REFLECT")
    return [
        ds.reshape(x, ds.shape(x)), ds.squeeze(x[:1]), ds.expand_dims(x, 0),
        ds.stack([x, x]), ds.unstack(x, num=2)[0], ds.tile(x, [1, 2]),
        ds.split(x, 2, axis=1)[0], ds.split(x, [1, -1], axis=1)[1],
        ds.placeholder_with_default(x, (None, None)),
        ds.pad(x, [[1, 0], [0, 1]]), ds.pad(x, [[1, 0], [0, 1]], constant_values=1.0),
        mirrored, ds.size(x), ds.rank(ds.placeholder(ds.float32, None)),
        ds.fill(ds.shape(x), 2.0), ds.zeros_like(x), ds.ones_like(x), ds.add_n([x, x]),
        ds.slice(x, [0, 0], [1, 2]), sliced, ds.gather(x, i), ds.unsorted_segment_sum(x, i, 3),
        ds.one_hot(i, 4), get_gradient("StridedSlice")(sliced.op, sliced)[0],
        get_gradient("MirrorPad")(mirrored.op, mirrored)[0],
    ]
