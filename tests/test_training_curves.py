"""``benchmarks/training_curves.py``, the GPU check's training proof, run in CI on the
cupy stand-in's GPU: both models train on "gpu:0" (the real CUDA kernel modules, their
CUDA C compiled by g++) from the same weights as on the CPU, and the loss curves agree.
"""

from __future__ import annotations

import pytest

from devsession.benchmarks import training_curves
from test_gpu_cupy_standin import standin  # noqa: F401  (the fixture)


@pytest.mark.parametrize("model", ["mlp", "convnet"])
def test_the_gpu_trains_as_the_cpu_does(standin, model):  # noqa: F811
    report = training_curves.compare_training(model, "gpu:0", steps=4, timed_steps=2,
                                              small=True)
    assert report["ran_on"]["cpu"] == "CPU:0"
    assert report["ran_on"]["gpu:0"] == "GPU:0"          # every node of the loss
    assert len(report["loss_gpu:0"]) == len(report["loss_cpu"]) == 4
    assert report["curves_match"], report
    assert report["loss_fell"], report["loss_gpu:0"]
    assert set(report["steps_per_s"]) == {"cpu", "gpu:0"}


def test_a_diverging_curve_is_reported(monkeypatch):
    """The comparison itself: a device that trains with another learning rate diverges."""
    graph_fn = training_curves.training.mlp_graph
    calls = []

    def faster_second(api, data, learning_rate=0.01):
        calls.append(learning_rate)
        return graph_fn(api, data, learning_rate=0.01 if len(calls) == 1 else 0.5)

    monkeypatch.setattr(training_curves.training, "mlp_graph", faster_second)
    report = training_curves.compare_training("mlp", "cpu:0", steps=4, timed_steps=1,
                                              small=True)
    assert not report["curves_match"] and report["max_rel_diff"] > 1e-2
