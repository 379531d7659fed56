"""Training on the GPU in CI: a direct session on ``cupy_standin``'s fake GPU runs the
gradients' shape-of kernels and Adam's update (``kernels/cuda/training.py``, compiled by
g++ from the very CUDA C the GPU gets) until the loss falls, with the slots on the GPU.

The update kernels one by one, on every device against the reference, are in
``test_training_kernels.py``.
"""

from __future__ import annotations

import numpy as np

import devsession as ds
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)

F32 = np.float32


def test_training_on_the_stand_in_gpu(standin):  # noqa: F811
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((32, 3)).astype(F32)
    yv = (xv @ np.array([[1.0], [-2.0], [0.5]], F32) + 0.3).astype(F32)
    x = ds.placeholder(ds.float32, (None, 3), name="x")
    y = ds.placeholder(ds.float32, (None, None), name="y")        # undecidable broadcasts
    with ds.device("gpu:0"):
        w = ds.Variable(np.zeros((3, 1), F32), name="w")
        b = ds.Variable(np.zeros((1,), F32), name="b")
        pred = ds.matmul(x, w) + b
        loss = ds.reduce_mean(ds.square(pred - y))
        opt = ds.train.AdamOptimizer(0.1)
        train = opt.minimize(loss)
    types = {op.type for op in ds.get_default_graph().get_operations()}
    assert {"_ReduceToShapeOf", "_ReducedSize", "_BroadcastToShapeOf"} <= types
    with ds.Session(options=ds.SessionOptions(device="gpu:0")) as sess:
        sess.run(ds.global_variables_initializer())
        first = sess.run(loss, {x: xv, y: yv})
        for _ in range(150):
            sess.run(train, {x: xv, y: yv})
        assert sess.run(loss, {x: xv, y: yv}) < 1e-3 * first
        slot = sess.resources.variable("", "w/Adam", np.dtype(F32), (3, 1)).value
        assert isinstance(slot, standin.ndarray)                       # slots live on the GPU
