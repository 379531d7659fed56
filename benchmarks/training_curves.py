"""The same training run on two devices: loss curves and steps per second side by side.

``ci/gpu-check`` runs it on ``gpu:0`` against the CPU (``gpu_bench.py``'s "training"
part): both of ``training.py``'s models (the MLP with SGD, the Deep MNIST convnet with
Adam) start from the same weights and take the same steps on the same batch in two
direct sessions, one per device; the GPU's loss curve must equal the CPU's within
float32 tolerance (``CURVE_RTOL``), and each device's steps/s is reported (median of
timed steps after the curve, which also warms up).  In CI it runs CPU against CPU on
small models (``tests/test_bench.py``), which checks the code and the comparison.

    compare_training("mlp", "gpu:0", steps=20)
      -> {"steps": 20, "loss_cpu": [...], "loss_gpu:0": [...], "max_rel_diff": ...,
          "curves_match": True, "steps_per_s": {"cpu": ..., "gpu:0": ...}, "ran_on": ...}
"""

from __future__ import annotations

import functools
import statistics
import time

import numpy as np

from . import training
from .contenders import ran_on

__all__ = ["compare_training", "CURVE_RTOL"]

# float32 training on two devices: reductions and products add in other orders, and the
# differences grow a little with each step.
CURVE_RTOL = 1e-3


def _model(kind: str, small: bool):
    if kind == "mlp":
        sizes = (784, 64, 64, 10) if small else (784, 1024, 1024, 10)
        return training.mlp_data(16 if small else 256, sizes), training.mlp_graph
    if kind == "convnet":
        return training.convnet_data(4 if small else 64), training.convnet_graph
    raise ValueError(f"unknown model {kind!r}; models: mlp, convnet")


def _session(ds, graph_fn, data, device: str):
    graph = ds.Graph()
    with graph.as_default():
        fetches, placeholders = graph_fn(ds, data)
        init = ds.global_variables_initializer()
    sess = ds.Session(graph=graph, options=ds.SessionOptions(device=device))
    sess.run(init)
    step = sess.make_callable(fetches, placeholders)
    return sess, step, functools.partial(ran_on, sess, fetches[0],
                                         dict(zip(placeholders, data.feeds)))


def compare_training(kind: str, device: str, steps: int = 20, *, reference: str = "cpu",
                     timed_steps: int = 10, small: bool = False, seed: int = 0) -> dict:
    """Train model ``kind`` for ``steps`` steps on ``device`` and on ``reference`` from the
    same start; the two loss curves, their largest relative difference, and steps/s."""
    import devsession as ds

    if device == reference:
        raise ValueError(f"compare {device!r} with another device, not with itself")
    make_data, graph_fn = _model(kind, small)
    data = make_data(np.random.default_rng(seed))
    curves, speeds, placed = {}, {}, {}
    for dev in (reference, device):
        sess, step, devices = _session(ds, graph_fn, data, dev)
        try:
            curves[dev] = [float(np.asarray(step(*data.feeds)[0])) for _ in range(steps)]
            times = []
            for _ in range(timed_steps):
                start = time.perf_counter()
                np.asarray(step(*data.feeds)[0])       # the loss comes back: synchronised
                times.append(time.perf_counter() - start)
            speeds[dev] = 1.0 / statistics.median(times)
            placed[dev] = devices()                  # where the loss's nodes ran
        finally:
            sess.close()
    want, got = np.array(curves[reference]), np.array(curves[device])
    diff = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-6)))
    return {"model": kind, "steps": steps, f"loss_{reference}": curves[reference],
            f"loss_{device}": curves[device], "max_rel_diff": diff,
            "curves_match": bool(diff <= CURVE_RTOL and np.all(np.isfinite(got))),
            "loss_fell": bool(got[-1] < got[0]), "steps_per_s": speeds, "ran_on": placed}
