"""The GPU's training kernels (``kernels/cuda/training.py``, ``cuda/shape_of.py``) run in
CI on ``test_gpu_cupy_standin``'s numpy stand-in for cupy.

The update kernels are hand-written ``cupy.ElementwiseKernel`` operations in the common
subset of C and Python, so the stand-in runs their very text: each ``x op= expr;``
statement is executed with numpy and the output parameters are written back, as the
GPU writes them in place.  That checks the operations, the argument order, the
in-place updates and the frame (moving variables to the GPU, copy-on-write); the CUDA
compilation itself is for the gpu-marked tests on a GPU machine.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import devsession as ds
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)
from test_training_kernels import CASES, UPDATES, _run

F32 = np.float32


@pytest.fixture
def gpu(standin, monkeypatch):  # noqa: F811
    """The stand-in, with ElementwiseKernel also running hand-written operations."""
    cupy = sys.modules["cupy"]
    base = cupy.ElementwiseKernel

    class StatementsKernel(base):
        def __init__(self, in_params, out_params, operation, name="kernel", preamble=""):
            super().__init__(in_params, out_params, operation, name=name, preamble=preamble)
            self.ins = [p.split()[-1] for p in in_params.split(",")]
            self.outs = [p.split()[-1] for p in out_params.split(",")]

        def __call__(self, *args):
            if self.operation in cupy._programs or self.operation.startswith("q = "):
                return super().__call__(*args)
            env = {name: np.asarray(a) for name, a in zip(self.ins + self.outs, args)}
            env["sqrt"] = np.sqrt
            for statement in self.operation.split(";"):
                if statement.strip():
                    exec(statement.strip(), {}, env)  # noqa: S102  (our own kernel text)
            for name, array in zip(self.outs, args[len(self.ins):]):
                array[...] = env[name]

    monkeypatch.setattr(cupy, "ElementwiseKernel", StatementsKernel)
    monkeypatch.setattr(cupy, "sqrt", lambda x: np.sqrt(x).view(cupy.ndarray), raising=False)
    return cupy


@pytest.mark.parametrize("op,dtype,nesterov", CASES, ids=str)
def test_gpu_updates_match_the_reference(gpu, op, dtype, nesterov):
    rng = np.random.default_rng(3)
    shape = (4, 5)
    initial = [rng.standard_normal(shape).astype(dtype)]
    initial += [np.abs(rng.standard_normal(shape)).astype(dtype) for _ in UPDATES[op][0]]
    grads = [rng.standard_normal(shape).astype(dtype) for _ in range(3)]
    want = _run("REF", op, dtype, shape, nesterov, initial, grads)
    got = _run("GPU", op, dtype, shape, nesterov, initial, grads)
    tol = 2e-3 if dtype == np.float16 else 1e-6
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol,
                                   atol=tol)


def test_training_on_the_stand_in_gpu(gpu):
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
        assert isinstance(slot, gpu.ndarray)                       # slots live on the GPU
